"""Replication consistency (--replicas N, gauntlet/runs/replication.py): replicas Gauntlet starts follow the
primary by GTID; at each checkpoint they catch up and are compared table by table.

Positive controls: statement-based replication of UUID() inserts drifts and is reported with the rows and
statements; a replica whose SQL thread stops on a planted conflict is a replication-error. Negative
controls: row-based (and the default MIXED) replication of the same stays silent, with replicas killed
and restarted mid-run; the slow tier repeats it on the stock grammar and runs a 10.11.18 replica."""

import json
import os
import subprocess
import sys

import pytest

import gauntlet
from conftest import OLD, REPO, check_output_files

ENV = {**os.environ, "PYTHONPATH": str(REPO / "python")}
UUID_GRAMMAR = """query_init:
    CREATE TABLE IF NOT EXISTS t_uuid (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(64)) ENGINE=InnoDB ;
query:
    INSERT INTO t_uuid (u) VALUES ( UUID() ) | SELECT COUNT(*) FROM t_uuid |
    UPDATE t_uuid SET u = UUID() WHERE id = { $prng->int(1,100) } ;
"""
STOCK = "grammars/hunt/replication.yy"


def gauntlet_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "gauntlet", *args], capture_output=True, text=True, env=ENV, cwd=cwd)


def test_statement_format_with_uuid_inserts_diverges_and_is_reported(tmp_path):
    """The guide's command with STATEMENT format: the replica's UUIDs are its own."""
    (tmp_path / "uuid.yy").write_text(UUID_GRAMMAR)
    r = gauntlet_cli("run", "--grammar", "uuid.yy", "--data", "none", "--replicas", "1", "--mysqld",
                     "binlog_format=STATEMENT", "--duration", "4", "--checkpoint-every", "2", "--out", "out",
                     cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr[-3000:]
    assert "replication  1 replicas, " in r.stdout and "replica-1: 10.11" in r.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    diverged = [f for f in summary["findings"] if f["kind"] == "replication-divergence"]
    assert [f["signature"] for f in diverged] == ["replication-divergence: `test`.`t_uuid`"], summary["findings"]
    detail = diverged[0]["detail"]
    assert "CHECKSUM TABLE" in detail and "only on the primary (" in detail and "only on the replica (" in detail
    assert "INSERT INTO t_uuid (u) VALUES ( UUID() );" in detail and "SELECT COUNT(*)" not in detail
    assert diverged[0]["targets"] == ["replica-1"] and diverged[0]["oracle"] == "replication"
    rep = summary["replication"]
    assert rep["checkpoints"] >= 1 and rep["rows_compared"] > 0 and rep["diverged_tables"] >= 1
    assert rep["servers"][0]["name"] == "replica-1" and rep["servers"][0]["version"].startswith("10.11")
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["replicas"] == 1 and run["checkpoint_every"] == 2 and "replication" in run["oracles"]
    check_output_files(tmp_path / "out")


def test_row_format_stays_silent_while_a_replica_is_killed_and_resumes(tmp_path):
    r = gauntlet.run(gauntlet.Grammar.from_string(UUID_GRAMMAR), data="none", replicas=1,
                     mysqld={"binlog_format": "ROW"}, replica_crash_every=2, checkpoint_every=2, duration=6,
                     threads=2, out=tmp_path / "out")
    assert r.findings == [], r.table()
    rep = r.summary()["replication"]
    assert rep["replica_kills"] >= 2 and rep["checkpoints"] >= 2, rep
    assert rep["tables_compared"] >= rep["checkpoints"] and rep["rows_compared"] > 0 and rep["diverged_tables"] == 0
    kills = [k for n in sorted((tmp_path / "out" / "rounds").iterdir())
             for k in json.loads((n / "summary.json").read_text()).get("replication", {}).get("kills", [])]
    assert kills and all("restart_error" not in k for k in kills), kills
    check_output_files(tmp_path / "out")


def test_a_replica_whose_sql_thread_stops_is_a_replication_error(tmp_path):
    """Planted: the replica's init_file creates a row the primary inserts too, so applying it fails."""
    (tmp_path / "conflict.sql").write_text("CREATE DATABASE IF NOT EXISTS test;\n"
                                           "CREATE TABLE IF NOT EXISTS test.t_conflict (id INT PRIMARY KEY) ENGINE=InnoDB;\n"
                                           "INSERT IGNORE INTO test.t_conflict VALUES (1);\n")
    grammar = gauntlet.Grammar.from_string("query_init: CREATE TABLE IF NOT EXISTS t_conflict (id INT PRIMARY KEY) "
                                           "ENGINE=InnoDB ;\nquery: INSERT INTO t_conflict VALUES ( 1 ) | SELECT 1 ;")
    r = gauntlet.run(grammar, data="none", replicas=1, replica_mysqld=[f"init_file={tmp_path / 'conflict.sql'}"],
                     checkpoint_every=2, duration=4, threads=1, out=tmp_path / "out")
    errors = [f for f in r.findings if f["kind"] == "replication-error"]
    assert [f["signature"] for f in errors] == ["replication-error: the SQL thread stopped: error 1062 ER_DUP_ENTRY"]
    assert "Last_SQL_Error: Error 'Duplicate entry '1' for key 'PRIMARY''" in errors[0]["detail"]
    assert r.summary()["stop_reason"] == "duration"


def test_setup_mistakes_are_usage_errors(tmp_path):
    grammar = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    with pytest.raises(gauntlet.InvalidInput, match="replica_mysqld: .* does not know the option 'no_such_option'"):
        gauntlet.run(grammar, replicas=1, replica_mysqld=["no_such_option=1"], duration=2, out=tmp_path / "a")
    with pytest.raises(gauntlet.InvalidInput, match="replicas: Gauntlet starts the primary"):
        gauntlet.run(grammar, replicas=1, server="mysql://root@localhost/?socket=/nowhere.sock", duration=2,
                     out=tmp_path / "b")
    with pytest.raises(gauntlet.InvalidInput, match="replicas: must be a whole number from 0 to 16"):
        gauntlet.run(grammar, replicas=17, duration=2, out=tmp_path / "c")
    r = gauntlet_cli("run", "--grammar", "x.yy", "--replicas", "1", "--replica-crash-every", "-1", cwd=tmp_path)
    assert r.returncode == 2


@pytest.mark.slow
@pytest.mark.parametrize("binlog_format", ["ROW", "MIXED"])
def test_the_stock_grammar_replicates_without_divergence_over_repeated_runs(tmp_path, binlog_format):
    for seed in (1, 2):
        r = gauntlet.run(STOCK, replicas=2, mysqld={"binlog_format": binlog_format}, threads=4, seed=seed,
                         checkpoint_every=5, replica_crash_every=7, duration=15,
                         known_bugs="known-bugs/mariadb-10.11.toml", out=tmp_path / f"out{seed}")
        assert [f for f in r.findings if not f.get("known")] == [], r.table()
        rep = r.summary()["replication"]
        assert rep["checkpoints"] >= 2 and rep["replicas"] == 2 and rep["rows_compared"] > 1000, rep


@pytest.mark.slow
def test_a_replica_of_the_last_release_follows_the_new_build(release, tmp_path):
    r = gauntlet_cli("run", "--grammar", STOCK, "--replicas", "1", "--replica-server", str(release),
                     "--duration", "10", "--checkpoint-every", "5", "--threads", "4", "--known-bugs",
                     "known-bugs/mariadb-10.11.toml", "--out", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert f"replica-1: {OLD}-MariaDB" in r.stdout and f"({release}/usr/sbin/mariadbd)" in r.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["replication"]["checkpoints"] >= 1 and summary["replication"]["rows_compared"] > 1000
