"""The server's own test suite as a corpus (pquery's way): mysqltest files read as mysqltest reads them,
the statements a hunt may not run on its own server left out, one of each shape kept, and a run that
sends them at random in many sessions."""

import json
import shutil
import subprocess
import sys

import gauntlet
from gauntlet.corpus import SUITE, Corpus, build, statements, unsafe
from gauntlet.corpus.corpus import EXPECTS_CORRUPTION
from gauntlet.corpus.draw import EDGE_VALUES, LOCK_WAITS, closing, mutated, set_variables, spliced

from conftest import REPO

A_TEST = """--source include/have_innodb.inc
# a comment
--error ER_NO_SUCH_TABLE
SELECT * FROM nothere;
CREATE TABLE t1 (a INT, b VARCHAR(10) DEFAULT 'x;y') ENGINE=InnoDB;  # after it
--echo hello
let $x = 1;
eval SELECT $x;
delimiter |;
CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END|
delimiter ;|
if ($x)
{
  INSERT INTO t1 VALUES (1, 'it''s');
}
--write_file $MYSQLTEST_VARDIR/tmp/f.txt
SELECT 'in a file, not run';
EOF
--send SELECT 1 + 1
--reap
--disable_parsing
SELECT 'not parsed';
--enable_parsing
SELECT JSON_EXTRACT('{"a": 1}', '$.a');
SET GLOBAL max_connections = 1;
SHUTDOWN;
DROP TABLE t1;
"""


def test_a_mysqltest_file_gives_its_sql_as_mysqltest_reads_it():
    got = [(s.sql, s.may_fail) for s in statements(A_TEST)]
    assert got == [("SELECT * FROM nothere", True),
                   ("CREATE TABLE t1 (a INT, b VARCHAR(10) DEFAULT 'x;y') ENGINE=InnoDB", False),
                   ("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END", False),
                   ("INSERT INTO t1 VALUES (1, 'it''s')", False),
                   ("SELECT 1 + 1", False),
                   ("SELECT JSON_EXTRACT('{\"a\": 1}', '$.a')", False),
                   ("SET GLOBAL max_connections = 1", False), ("SHUTDOWN", False), ("DROP TABLE t1", False)], got


def test_what_a_hunt_may_not_run_on_its_own_server_is_left_out_saying_why():
    for sql, why in [("SHUTDOWN", "stops"), ("SET @@global.max_connections = 1", "global"),
                     ("CREATE PROCEDURE p() BEGIN SET GLOBAL x = 1; END", "global"),
                     ("GRANT ALL ON *.* TO u", "accounts"), ("SELECT a INTO OUTFILE '/tmp/x' FROM t", "files"),
                     ("LOCK TABLES t1 WRITE", "blocks"), ("DELETE FROM mysql.user", "system schemas"),
                     ("DROP DATABASE test", "run's database"), ("INSTALL SONAME 'ha_x'", "loads code"),
                     ("CHANGE MASTER TO master_host='h'", "replication")]:
        assert why in unsafe(sql), (sql, unsafe(sql))
    for sql in ("SELECT 1", "ALTER SEQUENCE s RESTART", "DROP DATABASE mysqltest", "SET SESSION sql_mode = ''",
                "SELECT JSON_EXTRACT(j, '$.a') FROM t"):
        assert unsafe(sql) == "", sql


def test_a_mutation_swaps_one_literal_for_an_edge_value_by_recorded_draws():
    draws = iter([1, EDGE_VALUES.index("''")])
    assert mutated("SELECT a1 FROM t1 WHERE b = 'x''y' AND c > 10.5", lambda n: next(draws)) == \
        "SELECT a1 FROM t1 WHERE b = 'x''y' AND c > ''"
    draws = iter([0, EDGE_VALUES.index("-9223372036854775808")])
    assert mutated("INSERT INTO t2 VALUES (1, 'it''s')", lambda n: next(draws)) == \
        "INSERT INTO t2 VALUES (-9223372036854775808, 'it''s')"
    assert mutated("SELECT t1.c2, @v1 FROM t1", lambda n: 0) == "SELECT t1.c2, @v1 FROM t1"  # names stay


def _suite(tmp_path):
    """A suite of two tests of ours and three of the server's (a healthy feature: CASE, IF, COUNT(DISTINCT))."""
    suite = tmp_path / "mysql-test"
    (suite / "main").mkdir(parents=True)
    (suite / "main" / "ours.test").write_text(A_TEST)
    (suite / "main" / "again.test").write_text("SELECT 1;\nSELECT 2;\nSELECT 'x' FROM DUAL;\n")
    for name in ("count_distinct", "case", "func_if"):
        shutil.copy(SUITE / "main" / f"{name}.test", suite / "main")
    return suite


def _gauntlet(*args):
    return subprocess.run([sys.executable, "-m", "gauntlet", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO)


def test_a_corpus_is_built_once_per_suite_version_and_sent_at_random_in_many_sessions(tmp_path):
    suite = _suite(tmp_path)
    p = _gauntlet("corpus", "build", "--suite", suite, "--out", tmp_path / "corpus.json")
    assert p.returncode == 0, p.stderr
    corpus = Corpus.load(tmp_path / "corpus.json")
    assert corpus.tests == 5 and corpus.version.startswith("files-"), corpus
    sqls = [s.sql for s in corpus.statements]
    # one statement of each shape: SELECT 1 and SELECT 2 are one; the unsafe ones are counted, not kept
    assert sum(s in ("SELECT 1", "SELECT 2") for s in sqls) == 1 and "SHUTDOWN" not in sqls
    left = corpus.left_out
    assert left["stops the server or ends sessions"] == 1 and left["changes a global setting"] >= 1, left
    assert any(s.may_fail for s in corpus.statements) and any(s.test == "main/ours" for s in corpus.statements)
    cached = build(suite)  # into the cache, by the suite's version; read back the second time
    assert cached.version == corpus.version and cached.path.is_file() and build(suite).path == cached.path
    # a healthy feature's statements in three sessions, twice: no finding
    for attempt in (1, 2):
        p = _gauntlet("run", "--corpus", tmp_path / "corpus.json", "--threads", "3", "--queries", "200",
                      "--duration", "0", "--data", "none", "--seed", attempt, "--oracle", "errorlog,tlp,norec",
                      "--statement-timeout", "5", "--out", tmp_path / f"run{attempt}")
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
        summary = json.loads((tmp_path / f"run{attempt}" / "summary.json").read_text())
        assert summary["stop_reason"] == "queries" and summary["queries"] == 600, summary["stop_reason"]
        assert summary["outcomes"]["ok"] > 200 and not summary["findings"], summary["outcomes"]
        assert summary["reach"]["categories"]["functions"]["reached"], summary["reach"]
    # the same seed gives the same statements
    logs = []
    for out in ("a", "b"):
        r = gauntlet.run(Corpus.load(tmp_path / "corpus.json").grammar(), threads=1, queries=30, duration=0,
                         data="none", seed=7, statement_log=True, out=tmp_path / out)
        logs.append([json.loads(x)["sql"] for x in (r.out / "statements-1.jsonl").read_text().splitlines()])
    assert logs[0] == logs[1] and len(set(logs[0])) > 10


def test_a_corpus_that_is_not_there_is_an_error_naming_it(tmp_path):
    p = _gauntlet("run", "--corpus", tmp_path / "no.json", "--out", tmp_path / "r")
    assert p.returncode == 2 and "no.json: no such file" in p.stderr, p.stderr
    p = _gauntlet("corpus", "build", "--suite", tmp_path / "none")
    assert p.returncode == 2 and "none: no such folder" in p.stderr, p.stderr


# A test whose windows, cut anywhere, leave the session in a state that fails all that follows it: an XA
# transaction ACTIVE (1399), a memory limit no statement fits in (1290), a read-only session (1792), no
# database (1046).
STATEFUL = """CREATE TABLE IF NOT EXISTS w1 (a INT) ENGINE=InnoDB;
XA START 'x';
INSERT INTO w1 VALUES (1);
SET SESSION max_session_mem_used = 50000;
SELECT COUNT(*) FROM w1;
SET SESSION TRANSACTION READ ONLY;
CREATE DATABASE IF NOT EXISTS gone;
USE gone;
DROP DATABASE gone;
SELECT 1;
"""


def _one_test_corpus(tmp_path, text, name="stateful"):
    suite = tmp_path / "mysql-test"
    (suite / "main").mkdir(parents=True)
    (suite / "main" / f"{name}.test").write_text(text)
    return build(suite, tmp_path / "corpus.json")


def test_a_window_is_a_tests_statements_in_its_order_and_what_it_left_open_is_undone(tmp_path):
    corpus = _one_test_corpus(tmp_path, STATEFUL)
    test = [s.strip().rstrip(";") for s in STATEFUL.strip().splitlines()]
    init, *queries = corpus.grammar(mutate=0, windows=1).generate(40, seed=5)
    assert init == LOCK_WAITS
    starts = set()
    for q in queries:
        head, *window = q.split(" ;\n")
        assert head == LOCK_WAITS, q
        i = test.index(window[0])
        # consecutive statements in the test's order, then what undoes what they left open
        assert any(window[:k] == test[i:i + k] and window[k:] == closing(window[:k], "test")
                   for k in range(1, len(window) + 1)), q
        starts.add(i)
    assert 0 in starts and len(starts) > 3, starts
    assert closing(test, "test") == ["XA END 'x'", "XA ROLLBACK 'x'", "SET SESSION TRANSACTION READ WRITE",
                                     "SET SESSION max_session_mem_used = DEFAULT", "USE test"]
    assert closing(["BEGIN", "SET autocommit = 0", "SET @u = 1, lock_wait_timeout = 9"], "db") == [
        "ROLLBACK", "SET SESSION autocommit = DEFAULT", LOCK_WAITS]
    assert closing(["BEGIN NOT ATOMIC SELECT 1; END", "START TRANSACTION", "COMMIT"], "db") == []
    # On a server: each window's first statement runs as if the session were fresh (without the closing
    # statements the CREATE TABLE failed with 1399, 1290 or 1046 after the first window cut short).
    r = gauntlet.run(corpus.grammar(mutate=0, windows=1), threads=1, queries=60, duration=0, data="none",
                     seed=3, statement_log=True, out=tmp_path / "run")
    lines = [json.loads(x) for x in (r.out / "statements-1.jsonl").read_text().splitlines()]
    creates = [x for x in lines if x["sql"].startswith("CREATE TABLE")]
    assert len(creates) >= 10 and all(x["outcome"] == "ok" for x in creates), \
        [(x["seq"], x["error"]) for x in creates if x["outcome"] != "ok"]


def test_the_suites_expected_error_log_lines_are_kept_and_its_provoked_internal_errors_left_out(tmp_path):
    suite = tmp_path / "mysql-test"
    (suite / "main").mkdir(parents=True)
    (suite / "include").mkdir()
    (suite / "include" / "mtr_warnings.sql").write_text(
        'INSERT INTO global_suppressions VALUES\n ("Aborted connection"),\n ("Invalid \\\\(old\\\\?\\\\) table");\n')
    (suite / "main" / "a.test").write_text(
        'call mtr.add_suppression("InnoDB: In RENAME TABLE table `test`.`t4` is referenced");\n'
        "CALL mtr.add_suppression('.*');\n"  # would hide every line: dropped
        'call mtr.add_suppression("WSREP: Send action {.* STATE_REQUEST}");\n'  # no ECMAScript: dropped
        "--error ER_INTERNAL_ERROR\nALTER TABLE t1 DISCARD TABLESPACE;\n"
        "--error 0,ER_NO_SUCH_TABLE\nSELECT * FROM t1;\n")
    corpus = build(suite, tmp_path / "corpus.json")
    assert corpus.suppressions == ["Aborted connection", "Invalid \\(old\\?\\) table",
                                   "InnoDB: In RENAME TABLE table `[^`]*`.`[^`]*` is referenced"], corpus.suppressions
    assert corpus.texts == ["SELECT * FROM t1"] and corpus.statements[0].may_fail
    assert corpus.left_out == {EXPECTS_CORRUPTION: 1}, corpus.left_out
    [s] = [s for s in statements("--error 1815,ER_BAD_TABLE_ERROR\nDROP TABLE t;\n")]
    assert s.errors == ("1815", "ER_BAD_TABLE_ERROR") and s.may_fail
    # A run of the corpus hands them to its error-log oracle, and records them for a replay.
    r = gauntlet.run("corpus:" + str(tmp_path / "corpus.json"), queries=5, duration=0, data="none",
                     oracles="errorlog", out=tmp_path / "run")
    assert json.loads((r.out / "run.json").read_text())["error_log_ignore"] == corpus.suppressions


def test_a_splice_swaps_a_where_clause_for_another_of_the_tests_statements_of_its_kind():
    wheres = ["WHERE a > 1", "WHERE b IS NULL AND (c, d) IN ((1, 2))"]
    assert spliced("SELECT a FROM t1 WHERE a > 1 ORDER BY a", wheres, lambda n: 0) == \
        "SELECT a FROM t1 WHERE b IS NULL AND (c, d) IN ((1, 2)) ORDER BY a"  # never its own clause again
    assert spliced("DELETE FROM t1 WHERE x = 'WHERE'", wheres, lambda n: 1) == \
        "DELETE FROM t1 WHERE b IS NULL AND (c, d) IN ((1, 2)) "
    assert spliced("SELECT a FROM t1", wheres, lambda n: 0) == "SELECT a FROM t1"
    assert spliced("SELECT (SELECT 1 FROM u WHERE v) FROM t1", wheres, lambda n: 0) == \
        "SELECT (SELECT 1 FROM u WHERE v) FROM t1"  # a subquery's WHERE is not the statement's


def test_set_variables_names_the_session_variables_a_set_assigns():
    assert set_variables("SET SESSION max_session_mem_used=50000, @x=1, @@sql_mode='a,b', "
                         "optimizer_switch='x=on,y=off'") == ["max_session_mem_used", "sql_mode", "optimizer_switch"]
    assert set_variables("set @@session.`time_zone` := '+01:00', LOCAL sort_buffer_size = 1") == [
        "time_zone", "sort_buffer_size"]
    for none in ("SET @@global.x = 1", "SET NAMES utf8", "SET STATEMENT a = 1 FOR SELECT 1", "SET @u = (1, 2)",
                 "SELECT 1", "SET TRANSACTION READ ONLY"):
        assert set_variables(none) == [], none
