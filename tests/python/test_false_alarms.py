"""No false alarms from values that change between executions (issue 35): every entry of the one
table of volatile values (oracle/volatile_values.h) is skipped by every oracle, with its name as the
reason, under several sessions; DDL's affected rows are no result."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import gauntlet
from gauntlet import _core

from conftest import REPO, two_targets

TABLE = _core.volatile_values()


def volatile_grammar() -> gauntlet.Grammar:
    """Each entry read in a select list, in a WHERE, and written, beside the sequence it reads."""
    examples = [v["example"] for v in TABLE]
    reads = " | ".join(f"SELECT {e} AS x, a FROM vt WHERE a > _digit" for e in examples)
    filters = " | ".join(f"SELECT a, b FROM vt WHERE b < ({e}) + _digit" for e in examples)
    return gauntlet.Grammar.from_string(
        "query_init: CREATE SEQUENCE IF NOT EXISTS gauntlet_seq ;"
        " CREATE TABLE IF NOT EXISTS vt (a INT, b BIGINT) ; INSERT INTO vt VALUES (1, 1), (2, 5), (3, NULL) ;\n"
        "query: read | read | filter | filter | write | sequence_table ;\n"
        f"read: {reads} ;\n"
        f"filter: {filters} ;\n"
        "write: INSERT INTO vt VALUES (NEXTVAL(gauntlet_seq) % 7, _digit) | UPDATE vt SET b = RAND() * 10 WHERE a = _digit"
        " | INSERT INTO vt VALUES (NEXT VALUE FOR gauntlet_seq % 5, UNIX_TIMESTAMP() % 3) | DELETE FROM vt WHERE a > 20 ;\n"
        "sequence_table: SELECT next_not_cached_value FROM gauntlet_seq WHERE next_not_cached_value > _digit"
        " | SELECT COUNT(*) FROM gauntlet_seq ;\n")


def test_every_table_entry_has_an_example_the_server_accepts(tmp_path):
    server = gauntlet.ManagedServer(tmp_path / "server").start()
    try:
        server.connect().query("CREATE DATABASE IF NOT EXISTS test")
        c = server.connect(database="test")
        c.query("CREATE SEQUENCE gauntlet_seq")
        refused = []
        for v in TABLE:
            sql = f"SELECT {v['example']}"
            if v["form"] == "pseudo-column":  # s.NEXTVAL is Oracle syntax
                c.query("SET SESSION sql_mode = ORACLE")
            try:
                c.query(sql)
            except gauntlet.GauntletError as e:
                refused.append(v["name"])
                assert "error 1305" in str(e), str(e)  # no such function, and nothing else
            finally:
                c.query("SET SESSION sql_mode = DEFAULT")
            assert _core.nondeterminism(sql), sql
    finally:
        server.stop()
    assert refused == ["PS_CURRENT_THREAD_ID", "PS_THREAD_ID"]  # MySQL's: MariaDB has only sys.ps_thread_id


@pytest.mark.slow
def test_volatile_values_under_three_sessions_raise_nothing(tmp_path):
    r = gauntlet.run(volatile_grammar(), threads=3, duration=20, data="none", out=tmp_path / "run",
                     oracles=["errorlog", "tlp", "norec", "transforms"])
    s = r.summary()
    assert not r.findings, r.table()
    assert s["outcomes"]["ok"] > 300, s["outcomes"]
    skipped = {}
    for stats in s["oracles"].values():
        for reason, n in stats.get("skipped_by_reason", {}).items():
            skipped[reason] = skipped.get(reason, 0) + n
    named = {v["name"] for v in TABLE if any(v["name"] in reason or (v["name"] == ":=" and "(:=)" in reason)
                                              for reason in skipped)}
    # Every entry was met but Oracle mode's s.CURRVAL (a syntax error in the default sql_mode) and MySQL's
    # functions (errors on MariaDB, which no oracle checks).
    missed = {v["name"] for v in TABLE} - named
    assert missed == {"CURRVAL", "PS_CURRENT_THREAD_ID", "PS_THREAD_ID"}, (missed, sorted(skipped))
    assert r.exit_code == 0


def test_writes_through_set_statement_are_writes_other_sessions_see(tmp_path):
    """SET STATEMENT ... FOR INSERT writes like the INSERT (the surface grammar sets its variables so): an
    oracle's re-check waits for a moment when no other session writes, and these writes count; unseen,
    a re-check could take a moment of them for a quiet one."""
    g = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS sw (a INT, b INT) ; INSERT INTO sw VALUES (1, 1), (2, 2) ;\n"
        "query: write | write | read | read | read ;\n"
        "write: SET STATEMENT max_statement_time = 10 FOR INSERT INTO sw VALUES (_digit, _digit)"
        " | SET STATEMENT sort_buffer_size = 262144 FOR DELETE FROM sw WHERE a = _digit LIMIT 1 ;\n"
        "read: SELECT a, COUNT(*) FROM sw GROUP BY a | SELECT a, b FROM sw WHERE b > _digit ;\n")
    r = gauntlet.run(g, threads=3, queries=400, duration=0, data="none", out=tmp_path / "run",
                     oracles=["tlp", "norec", "transforms"])
    s = r.summary()
    assert not r.findings, r.table()
    checked = sum(o["passed"] for o in s["oracles"].values())
    # a re-check waits for a moment no other session writes: the SET STATEMENT writes count
    waited = sum(n for o in s["oracles"].values() for reason, n in o.get("skipped_by_reason", {}).items()
                 if "other sessions wrote" in reason)
    assert checked > 300 and waited > 0, s["oracles"]


def _through_views(tmp_path, init: str, queries: str) -> dict:
    """The transforms' counts of a one-session run of ``queries`` after ``init``; no finding."""
    g = gauntlet.Grammar.from_string(f"query_init: {init} ;\nquery: {queries} ;\n")
    r = gauntlet.run(g, threads=1, queries=60, duration=0, data="none", out=tmp_path / "run",
                     oracles=["transforms"])
    assert not r.findings, r.table()
    return r.summary()["oracles"]


def test_a_temporary_table_of_the_grammars_own_is_no_wrong_result_through_a_view(tmp_path):
    """A view is made on a second connection, which reads the base table the session's temporary table
    hides (the surface grammar's CREATE TEMPORARY TABLE met it): such a query is skipped, saying why."""
    oracles = _through_views(tmp_path, "CREATE TABLE tt (a INT) ; INSERT INTO tt VALUES (1), (2) ; "
                                       "CREATE TEMPORARY TABLE tt (a INT) ; INSERT INTO tt VALUES (5)",
                             "SELECT a FROM tt | SELECT a, COUNT(*) FROM tt GROUP BY a")
    for view in ("transform:view", "transform:view_temptable"):  # the transforms take turns
        skipped = oracles[view]["skipped_by_reason"]
        assert skipped == {"reads a temporary table of its session": oracles[view]["checked"]} and skipped, oracles
    assert oracles["transform:derived"]["passed"] > 0, oracles


def test_a_session_that_changed_its_database_is_no_wrong_result_through_a_view(tmp_path):
    """The view's second connection reads the session's database as it is now (a USE of the suite's tests
    met it in a corpus round: its view read test.t1, the session other.t1)."""
    oracles = _through_views(tmp_path, "CREATE DATABASE IF NOT EXISTS other ; CREATE TABLE other.tt (a INT, b INT) ; "
                                       "INSERT INTO other.tt VALUES (1, 2) ; CREATE TABLE test.tt (a INT) ; USE other",
                             "SELECT * FROM tt | SELECT a FROM tt WHERE b > 0")
    assert oracles["transform:view"]["passed"] > 0 and oracles["transform:view_temptable"]["passed"] > 0, oracles


def test_a_session_in_information_schema_reads_server_metadata_unqualified(tmp_path):
    """After USE INFORMATION_SCHEMA, FROM PROCESSLIST reads the server's sessions, the query's own text
    among them (a corpus round's window met it: the join_cache transform's rewrite was another text)."""
    oracles = _through_views(tmp_path, "USE INFORMATION_SCHEMA",
                             "SELECT USER, COMMAND, INFO FROM PROCESSLIST ORDER BY ID")
    for name, o in oracles.items():
        assert o["skipped_by_reason"] == {"reads server metadata (USE INFORMATION_SCHEMA)": o["checked"]}, oracles


def test_ddl_affected_rows_are_no_divergence(tmp_path):
    # ALTER TABLE ... ADD KEY: InnoDB builds the index in place (0 rows), MyISAM copies the table (every row).
    g = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS k (a INT, b INT) ; INSERT INTO k SELECT seq, seq FROM seq_1_to_50 ;\n"
        "query: ALTER TABLE k ADD KEY kb (b) ; ALTER TABLE k DROP KEY kb ;\n")
    targets = two_targets({"default_storage_engine": "InnoDB"}, {"default_storage_engine": "MyISAM"})
    r = gauntlet.run(g, threads=1, queries=3, duration=0, data="none", out=tmp_path / "ddl", oracles="differential",
                     targets=targets)
    d = r.summary()["oracles"]["differential"]
    assert not r.findings and d["fired"] == 0 and d["passed"] >= 6, (r.table(), d)
    # (test_outcomes.py's affected-rows test is the positive control: DML counts still diverge.)


@pytest.mark.slow
def test_a_paused_gauntlet_is_no_hang(tmp_path):
    """SIGSTOP of Gauntlet's own process past the hang timeout, three times, while eight sessions read
    large results: the server waits for us ("Writing to net"), so no hang. (Before: a hang finding in
    2 runs of 2.)"""
    g = tmp_path / "big.yy"
    g.write_text("query: SELECT a, REPEAT('x', 20000) FROM vt, (SELECT seq FROM seq_1_to_20) s WHERE a > _digit"
                 " | SELECT SLEEP(0.05) ;\n"
                 "query_init: CREATE TABLE IF NOT EXISTS vt (a INT) ; INSERT INTO vt SELECT seq FROM seq_1_to_10 ;\n")
    p = _popen("run", "--grammar", g, "--threads", "8", "--duration", "25", "--hang-timeout", "3",
               "--data", "none", "--out", tmp_path / "out")
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "out" / "events.jsonl").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        for pause in (5, 6, 5):
            time.sleep(1.5)
            os.kill(p.pid, signal.SIGSTOP)
            time.sleep(pause)
            os.kill(p.pid, signal.SIGCONT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert not summary["findings"] and summary["stop_reason"] == "duration", out + err
    assert p.returncode == 0 and "FINDING" not in out


def _popen(*args):
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    return subprocess.Popen([sys.executable, "-m", "gauntlet", *map(str, args)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _cli(*args, timeout=120):
    p = _popen(*args)
    out, err = p.communicate(timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def test_setup_mistakes_exit_2_at_once_and_name_the_reason(tmp_path):
    """A wrong password, an unknown database and a value the server refuses: exit 2 within seconds (the
    hang timeout is 60 s), the server's own words, no password, and a summary that says so."""
    grammar = REPO / "grammars" / "optimizer.yy"
    server = gauntlet.ManagedServer(tmp_path / "server").start()
    try:
        c = server.connect()
        c.query("CREATE USER IF NOT EXISTS 'u1'@'localhost' IDENTIFIED BY 'right'")
        c.query("GRANT ALL ON *.* TO 'u1'@'localhost'")
        c.query("CREATE DATABASE IF NOT EXISTS test")
        for dsn, words in [(f"mysql://u1:s3cret@localhost/test?socket={server.socket}", "Access denied"),
                           (f"mysql://u1:right@localhost/nosuchdb?socket={server.socket}", "Unknown database")]:
            t0 = time.monotonic()
            r = _cli("run", "--grammar", grammar, "--server", dsn, "--duration", "10", "--out", tmp_path / "dsn",
                     "--overwrite")
            assert r.returncode == 2 and time.monotonic() - t0 < 20, (r.stdout, r.stderr)
            assert words in r.stderr and "refused the login" in r.stderr and "s3cret" not in r.stderr + r.stdout
            assert "FINDING" not in r.stdout
            summary = json.loads((tmp_path / "dsn" / "summary.json").read_text())
            assert summary["stop_reason"] == "error" and summary["error"]["kind"] == "input" and not summary["findings"]
    finally:
        server.stop()
    t0 = time.monotonic()
    r = _cli("run", "--grammar", grammar, "--mysqld", "innodb_buffer_pool_size=oops", "--duration", "10",
             "--out", tmp_path / "refused")
    assert r.returncode == 2 and time.monotonic() - t0 < 20, (r.stdout, r.stderr)
    assert "refused to start" in r.stderr and "oops" in r.stderr and "FINDING" not in r.stdout, r.stderr
    # The Python API says the same with a type of its own, with the server's [ERROR] lines.
    with pytest.raises(gauntlet.ServerRefused, match="NO_SUCH_MODE") as e:
        gauntlet.run(gauntlet.Grammar.from_string("query: SELECT 1 ;"), mysqld=["sql_mode=NO_SUCH_MODE"],
                     duration=5, data="none", out=tmp_path / "api")
    assert isinstance(e.value, gauntlet.InvalidInput) and e.value.log_errors, e.value


def test_a_grammar_of_syntax_errors_exits_2_naming_its_rules(tmp_path):
    g = tmp_path / "typos.yy"
    g.write_text("query: " + "typo | " * 39 + "fine ;\n"  # 1 in 40 is fine
                 "typo: SELEC _digit | SELECT FROM WHERE | INSRT INTO t VALUES (1) ;\n"
                 "fine: SELECT _digit ;\n")
    r = _cli("run", "--grammar", g, "--threads", "2", "--duration", "60", "--data", "none", "--out", tmp_path / "out")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "of the run's first 300 statements were syntax errors" in r.stdout + r.stderr
    assert "typo (" in r.stdout + r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    rules = {x["rule"]: x for x in summary["rules"]}
    assert rules["typo"]["syntax_errors"] == rules["typo"]["statements"] > 0 and rules["fine"]["syntax_errors"] == 0
    assert summary["error"]["kind"] == "grammar" and summary["seconds"] < 30
    # A grammar with some syntax errors (a third) is a run like any other.
    g.write_text("query: typo | fine | fine ;\ntypo: SELEC _digit ;\nfine: SELECT _digit ;\n")
    ok = _cli("run", "--grammar", g, "--threads", "2", "--queries", "300", "--data", "none", "--out", tmp_path / "ok",
              "--overwrite")
    assert ok.returncode == 0, (ok.stdout, ok.stderr)


def test_a_grammar_that_never_returns_a_statement_exits_2(tmp_path):
    g = tmp_path / "stuck.yy"
    g.write_text("query: SELECT { sleep 100; 1 } ;\n")
    r = _cli("run", "--grammar", g, "--duration", "4", "--data", "none", "--out", tmp_path / "out")
    assert r.returncode == 2 and "no session's generation returned a query" in r.stdout + r.stderr, (r.stdout, r.stderr)
    # Past the generation timeout, the stuck block is named.
    r = _cli("run", "--grammar", g, "--duration", "30", "--generate-timeout", "2", "--data", "none",
             "--out", tmp_path / "long")
    assert r.returncode == 2 and "stuck.yy:1" in r.stdout + r.stderr, (r.stdout, r.stderr)


def _hidden_rand_grammar(annotation: str) -> gauntlet.Grammar:
    # A stored function's RAND() is out of the SQL text's sight: only the grammar's author knows.
    return gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS hr (a INT) ; INSERT INTO hr SELECT seq FROM seq_1_to_30 ;"
        " CREATE FUNCTION IF NOT EXISTS dice() RETURNS INT NOT DETERMINISTIC RETURN FLOOR(RAND() * 30) ;\n"
        "query: rolled | plain ;\n"
        f"rolled{annotation}: SELECT a FROM hr WHERE a > dice() | SELECT COUNT(*) FROM hr WHERE a < dice() ;\n"
        "plain: SELECT a FROM hr WHERE a > _digit ;\n")


def test_a_rule_kept_from_oracles_is_skipped_by_them_and_only_them(tmp_path):
    fired = gauntlet.run(_hidden_rand_grammar(""), queries=60, duration=0, data="none", out=tmp_path / "bare",
                         oracles=["tlp", "norec"])
    # The control: TLP fires (NoREC's re-check mostly sees the count change: "the data changed meanwhile").
    assert "tlp" in {f["oracle"] for f in fired.findings}, fired.table()
    kept = gauntlet.run(_hidden_rand_grammar(" ==NO_ORACLES:tlp, norec=="), queries=60, duration=0, data="none",
                        out=tmp_path / "kept", oracles=["tlp", "norec"])
    assert not kept.findings, kept.table()
    s = kept.summary()["oracles"]
    why = "the grammar keeps rule 'rolled' from it (==NO_ORACLES==)"
    assert s["tlp"]["skipped_by_reason"][why] > 10 and s["norec"]["skipped_by_reason"][why] > 10, s
    assert s["tlp"]["passed"] > 0 and s["norec"]["passed"] > 0  # the plain rule is still checked
    # Kept from NoREC only: TLP still checks the rule, and fires.
    one = gauntlet.run(_hidden_rand_grammar(" ==NO_ORACLES:norec=="), queries=60, duration=0, data="none",
                       out=tmp_path / "one", oracles=["tlp", "norec"])
    assert {f["oracle"] for f in one.findings} == {"tlp"}, one.table()
    assert why not in one.summary()["oracles"]["tlp"]["skipped_by_reason"]
    with pytest.raises(gauntlet.InvalidInput, match=r"<string>:3:1: rule 'rolled': ==NO_ORACLES== names an unknown "
                                                    r"oracle 'tpl'"):
        gauntlet.run(_hidden_rand_grammar(" ==NO_ORACLES:tpl=="), queries=1, duration=0, data="none",
                     out=tmp_path / "typo")
