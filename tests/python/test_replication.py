"""Replication consistency (--replicas N, gauntlet/runs/replication.py): replicas Gauntlet starts follow the
primary by GTID; at each checkpoint they catch up and are compared table by table.

Positive controls: statement-based replication of UUID() inserts drifts and is reported with the rows and
statements; a replica whose SQL thread stops on a planted conflict is a replication-error. Negative
controls: row-based (and the default MIXED) replication of the same stays silent, with replicas killed
and restarted mid-run; the slow tier repeats it on the stock grammar (and test_docs_servers.py runs
replication.md's commands, a 10.11.18 replica among them)."""

import json
import os
import re
import subprocess
import sys

import pytest

import gauntlet
from conftest import REPO, check_output_files

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
                     mysqld={"binlog_format": "ROW"}, replica_crash_every=2, checkpoint_every=2, duration=8,
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


def test_statements_the_run_interrupts_half_done_on_myisam_are_skipped_and_divergence_still_found(tmp_path):
    """Found in the fresh-clone CI (the stock grammar with a 10.11.18 replica): a MyISAM INSERT ... SELECT
    that a round's end interrupted after its first rows is logged with error 1317, and the replica stops
    on it by design ("Query partially completed on the master"): a false replication-error. Planted: slow
    such inserts in flight at every round's end; UUID() inserts into InnoDB under STATEMENT format must
    still be reported as diverging on the same replica."""
    grammar = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS t_half (k INT) ENGINE=MyISAM ; CREATE TABLE IF NOT EXISTS t_uuid "
        "(id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(64)) ENGINE=InnoDB ;\n"
        "query: INSERT INTO t_uuid (u) VALUES ( UUID() ) |\n"
        "    INSERT INTO t_half (k) SELECT a.seq FROM seq_1_to_3000 a, seq_1_to_3000 b WHERE (a.seq + b.seq) % 1000 = 0 ;\n")
    r = gauntlet.run(grammar, data="none", replicas=1, mysqld={"binlog_format": "STATEMENT"}, checkpoint_every=2,
                     duration=4, threads=2, out=tmp_path / "out")
    assert [f["signature"] for f in r.findings] == ["replication-divergence: `test`.`t_uuid`"], r.table()
    rep = r.summary()["replication"]
    assert rep["interrupted_skipped"] >= 1 and rep["tables_skipped"] >= 1, rep
    assert "statements interrupted by the run skipped on replicas" in r.table()


def test_setup_mistakes_are_usage_errors(tmp_path):
    grammar = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    with pytest.raises(gauntlet.InvalidInput, match="replica_mysqld: .* does not know the option 'no_such_option'"):
        gauntlet.run(grammar, replicas=1, replica_mysqld=["no_such_option=1"], duration=2, out=tmp_path / "a")
    with pytest.raises(gauntlet.InvalidInput, match="replicas: Gauntlet starts the primary"):
        gauntlet.run(grammar, replicas=1, server="mysql://root@localhost/?socket=/nowhere.sock", duration=2,
                     out=tmp_path / "b")
    with pytest.raises(gauntlet.InvalidInput, match="replicas: must be a whole number from 0 to 16"):
        gauntlet.run(grammar, replicas=17, duration=2, out=tmp_path / "c")
    (tmp_path / "x.yy").write_text("query: SELECT 1 ;\n")
    r = gauntlet_cli("run", "--grammar", "x.yy", "--replicas", "1", "--replica-crash-every", "-1", cwd=tmp_path)
    assert r.returncode == 2 and "replica_crash_every: must be a number from 0" in r.stderr, r.stderr
    r = gauntlet_cli("run", "--grammar", "x.yy", "--replicas", "1", "--replica", "default", cwd=tmp_path)
    assert r.returncode == 2 and "--replica: gives one replica each; leave out --replicas" in r.stderr, r.stderr
    (tmp_path / "c.json").write_text(json.dumps({"grammar": "x.yy", "replicas": [{"server": None, "nomysqld": []}]}))
    r = gauntlet_cli("run", "--config", "c.json", cwd=tmp_path)
    assert r.returncode == 2 and "replicas: replica 1: a dict with server and mysqld" in r.stderr, r.stderr
    (tmp_path / "c.json").write_text(json.dumps({"grammar": "x.yy", "replicas": "two"}))
    r = gauntlet_cli("run", "--config", "c.json", cwd=tmp_path)
    assert r.returncode == 2 and "setting 'replicas'" in r.stderr, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("binlog_format, seed", [("ROW", 1), ("MIXED", 2)])
def test_the_stock_grammar_replicates_without_divergence_over_repeated_runs(tmp_path, binlog_format, seed):
    r = gauntlet.run(STOCK, replicas=2, mysqld={"binlog_format": binlog_format}, threads=4, seed=seed,
                     checkpoint_every=5, replica_crash_every=7, duration=15,
                     known_bugs="known-bugs/mariadb-10.11.toml", out=tmp_path / "out")
    assert [f for f in r.findings if not f.get("known")] == [], r.table()
    rep = r.summary()["replication"]
    assert rep["checkpoints"] >= 2 and rep["replicas"] == 2 and rep["rows_compared"] > 1000, rep


def test_replicas_agree_with_a_primary_recovered_after_each_kill(tmp_path):
    """With the recovery oracle: a checkpoint after each recovery (the ledger's tables compared too).
    recovery.yy, not transactions.yy: the latter's XA transactions left prepared by a kill are a story of
    their own (see the guide)."""
    r = gauntlet.run("grammars/hunt/recovery.yy", data="random", oracles="recovery", crash_every=3, duration=7,
                     replicas=1, known_bugs="known-bugs/mariadb-10.11.toml", out=tmp_path / "out")
    assert [f for f in r.findings if not f.get("known")] == [], r.table()
    rec, rep = r.summary()["recovery"], r.summary()["replication"]
    assert rep["checkpoints"] == rec["recoveries"] >= 2 and rep["diverged_tables"] == 0, (rec, rep)
    assert rep["rows_compared"] > rec["commits_checked"] > 100  # the ledger's rows among them
    check_output_files(tmp_path / "out")


def test_a_primary_that_loses_commits_its_replica_has_is_reported(tmp_path):
    """Planted: InnoDB's log not flushed at commit, the binary log synced: a kill takes commits from the
    primary that the replica already applied."""
    r = gauntlet.run("grammars/hunt/transactions.yy", data="random", oracles="recovery", crash_every=3, duration=7,
                     replicas=1, mysqld={"innodb_flush_log_at_trx_commit": 0},
                     known_bugs="known-bugs/mariadb-10.11.toml", out=tmp_path / "out")
    kinds = {f["kind"] for f in r.findings if not f.get("known")}
    assert {"lost-commit", "replication-divergence"} <= kinds, r.table()
    ledger = [f for f in r.findings if f["signature"] == "replication-divergence: `gauntlet_ledger`.`commits`"]
    assert ledger and re.search(r"only on the replica \([1-9]", ledger[0]["detail"]), r.table()


def test_events_on_a_killed_replicas_myisam_table_that_cannot_apply_are_skipped_not_reported(tmp_path):
    """Planted: the replica's MyISAM table holds rows the primary inserts once the replica was killed
    (3 s in); a kill may leave such a table so by design, so the events are skipped and counted."""
    (tmp_path / "torn.sql").write_text(
        "CREATE DATABASE IF NOT EXISTS test;\n"
        "CREATE TABLE IF NOT EXISTS test.t_my (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=MyISAM;\n"
        "INSERT IGNORE INTO test.t_my (id, v) VALUES (500, 0), (501, 0), (502, 0), (503, 0), (504, 0);\n")
    grammar = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS t_my (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=MyISAM ;\n"
        "query: INSERT INTO t_my (id, v) VALUES ( { time() - $^T >= 3 ? 500 + $prng->int(0,4) : 'NULL' }, 1 ) ;")
    r = gauntlet.run(grammar, data="none", replicas=1, replica_mysqld=[f"init_file={tmp_path / 'torn.sql'}"],
                     mysqld={"binlog_format": "ROW"}, replica_crash_every=1, checkpoint_every=2, duration=6,
                     threads=1, out=tmp_path / "out")
    assert r.findings == [], r.table()
    rep = r.summary()["replication"]
    assert rep["events_skipped"] >= 1 and rep["replica_kills"] >= 1 and rep["tables_skipped"] >= 1, rep
