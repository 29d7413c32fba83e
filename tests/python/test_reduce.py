"""Reduction: findings planted in long multi-session histories become small test cases that
Debian's mariadb-test-run fails on the same server binary."""

import json
import re
import shutil
import subprocess
import sys

import gauntlet
import pytest

from faults import ENV
from conftest import REPO
from planted import CRASH, TWO_OPTIONS, WRONG, planted_run, verified_without_the_bug


def _files(repro, name):
    return {p.name for p in repro.iterdir()} >= {f"{name}{s}" for s in (".test", ".opt", ".result", ".sql")} | {
        "README.md", "reduction.json"}


def _reduce_cli(folder, *flags):
    return subprocess.run([sys.executable, "-m", "gauntlet", "reduce", str(folder), *flags], capture_output=True,
                          text=True, env=ENV, timeout=900)


@pytest.fixture(scope="module")
def crash_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("crash") / "run"
    result = planted_run(out, CRASH)
    assert result.summary()["stop_reason"] == "crash"
    assert result.summary()["statements"] >= 5000
    return out, result


@pytest.mark.slow
def test_a_crash_in_5000_statements_of_4_sessions_becomes_a_verified_test_case(crash_run):
    out, result = crash_run
    threads = {json.loads(line)["thread"] for p in out.glob("statements-*.jsonl")
               for line in p.read_text().splitlines() if '"seq"' in line}
    assert threads == {1, 2, 3, 4}
    crash = next(f for f in result.findings if f["kind"] == "crash")
    reduction = result.reduce(crash, budget=300)
    r = reduction.record
    assert r["reproduced"] and r["statements_before"] >= 5000
    assert r["statements_after"] <= 5 and r["setup_after"] <= 2, r
    assert [s["stage"] for s in r["stages"]] == ["statements", "statement", "data"]
    assert all(s["attempts"] > 0 for s in r["stages"])
    test = reduction.test
    for sql in CRASH.values():
        assert sql in test
    assert "INSERT INTO noise" not in test and "scratch" not in test
    assert reduction.verified, r["verification"]
    assert r["verification"]["signature"].startswith("signal 11: Item_func_json_extract::read_json")
    assert _files(reduction.folder, r["name"])
    readme = (reduction.folder / "README.md").read_text()
    assert "verified by mariadb-test-run" in readme and "| statements | " in readme
    assert "verified" in repr(reduction) and "NOT" not in repr(reduction)


@pytest.mark.slow
def test_a_reduction_out_of_time_keeps_its_best_case(crash_run, tmp_path):
    out, result = crash_run
    copy = tmp_path / "run"
    shutil.copytree(out, copy, symlinks=True, ignore=shutil.ignore_patterns("*.sock", "repro"))
    crash = next(f for f in result.findings if f["kind"] == "crash")
    reduction = gauntlet.reduce(copy / "findings" / crash["id"], budget=20)
    r = reduction.record
    assert r["reproduced"]
    assert any(s.get("out_of_time") for s in r["stages"]), r["stages"]
    assert r["statements_after"] <= r["statements_before"]
    # The best case so far is on disk, as a test case mariadb-test-run can run.
    assert _files(reduction.folder, r["name"])
    assert CRASH[(1, 1450)] in reduction.test
    saved = json.loads((reduction.folder / "reduction.json").read_text())
    assert saved["statements_after"] == r["statements_after"]


@pytest.mark.slow
def test_a_wrong_result_becomes_a_test_case_that_checks_the_relation(tmp_path):
    result = planted_run(tmp_path / "run", WRONG, oracles="tlp", quiet=True)
    tlp = [f for f in result.findings if f["kind"] == "tlp"]
    assert [f["statement"] for f in tlp] == [WRONG[(1, 1450)]]
    # Through the command line: exit 0 for a verified test case.
    cli = _reduce_cli(result.out / "findings" / tlp[0]["id"], "--budget", "300")
    assert cli.returncode == 0, cli.stdout[-3000:] + cli.stderr[-3000:]
    reduction = gauntlet.Reduction.load(result.out / "findings" / tlp[0]["id"])
    r = reduction.record
    assert r["statements_after"] <= 5 and r["setup_after"] <= 2, r
    assert reduction.verified, r["verification"]
    assert f"test case: {reduction.folder} (" in cli.stdout and repr(reduction) in cli.stdout
    log = (reduction.folder / "mtr.log").read_text()
    assert "relation unordered fails: WHERE p, WHERE NOT p and WHERE p IS NULL" in log
    # Where the relation holds the same test case passes, against the .result it ships with.
    holds = verified_without_the_bug(tmp_path, result, reduction, "e NOT IN (SELECT 1 FROM t)", "e = 'a'")
    assert holds["passed"] and not holds["verified"], holds


@pytest.mark.slow
def test_the_options_a_finding_needs_are_found(tmp_path):
    targets = [{"name": "plain"},
               {"name": "tuned", "options": {"table_open_cache": 200, "div_precision_increment": 8,
                                             "tmp_table_size": 8388608, "lc_time_names": "es_ES",
                                             "max_connections": 200}}]
    result = planted_run(tmp_path / "run", TWO_OPTIONS, threads=1, queries=1000, oracles="differential",
                         targets=targets)
    divergence = [f for f in result.findings if f["kind"] == "divergence"]
    assert len(divergence) == 1
    # Through the command line: exit 1, since no test case on one server can be verified.
    cli = _reduce_cli(result.out / "findings" / divergence[0]["id"], "--budget", "300")
    assert cli.returncode == 1, cli.stdout[-3000:] + cli.stderr[-3000:]
    reduction = gauntlet.Reduction.load(result.out / "findings" / divergence[0]["id"] / "repro")
    r = reduction.record
    assert r["options_after"] == {"plain": [], "tuned": ["div_precision_increment=8", "lc_time_names=es_ES"]}
    assert r["statements_after"] == 1 and TWO_OPTIONS[(1, 700)] in reduction.test
    assert [s["stage"] for s in r["stages"]] == ["statements", "statement", "data", "options"]
    # One server cannot show a divergence: said so, never called verified.
    assert not reduction.verified and "cannot check itself" in r["verification"]["why"]


@pytest.mark.foreign_files
def test_bad_input_to_reduce(tmp_path):
    with pytest.raises(gauntlet.InvalidInput, match="not a finding folder"):
        gauntlet.reduce(tmp_path)
    cli = subprocess.run([sys.executable, "-m", "gauntlet", "reduce", str(tmp_path)], capture_output=True,
                         text=True, env=ENV)
    assert cli.returncode == 2 and "not a finding folder" in cli.stderr
    folder = tmp_path / "findings" / "0001-unreachable"
    folder.mkdir(parents=True)
    (folder / "finding.json").write_text(json.dumps({"id": "0001-unreachable", "kind": "unreachable",
                                                     "signature": "unreachable"}))
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(gauntlet.InvalidInput, match="an? unreachable finding cannot be reduced"):
        gauntlet.reduce(folder)
    with pytest.raises(gauntlet.InvalidInput, match="budget"):
        gauntlet.reduce(folder, budget=0)
    with pytest.raises(gauntlet.InvalidInput, match="hang_timeout"):
        gauntlet.reduce(folder, hang_timeout=-1)
    (folder / "finding.json").write_text(json.dumps({"id": "0001-crash", "kind": "crash", "signature": "s"}))
    (tmp_path / "run.json").unlink()
    with pytest.raises(gauntlet.InvalidInput, match="no run.json"):
        gauntlet.reduce(folder)
    assert re.search(r"reduce FINDING_DIR|FINDING_DIR", subprocess.run(
        [sys.executable, "-m", "gauntlet", "reduce", "--help"], capture_output=True, text=True, env=ENV).stdout)


def test_a_script_checks_only_the_statements_marked_check(tmp_path):
    """What lets an attempt check only the finding's statement: Script.from_statements' check."""
    from gauntlet import _core
    with gauntlet.ManagedServer(tmp_path / "server") as server:
        conn = _core.Connection.open(server.connection)
        conn.execute("CREATE DATABASE IF NOT EXISTS test")
        wrong = WRONG[(1, 1450)]
        again = "SELECT t.e FROM t WHERE t.e NOT IN (SELECT 1 FROM t)"
        steps = [WRONG[(2, 300)], WRONG[(3, 600)], wrong, again, "SELECT e FROM t WHERE e = 'a'"]
        statements = [{"seq": i, "thread": 1, "sql": sql, "check": i >= 3} for i, sql in enumerate(steps)]
        script = _core.Script.from_statements(statements, 1)
        assert (script.sessions, script.statements) == (1, 5)
        options = _core.RunOptions()
        options.threads, options.out_dir, options.statement_log, options.hang_timeout = 1, str(tmp_path / "o"), \
            False, 30
        params = server.connection
        params.database = "test"
        target = {"name": "default", "connection": params, "server": server._s, "setup": [], "description": {}}
        summary, _ = _core.execute_run(script, _core.Schema([], []), [target], options, ["tlp"], {}, None)
    assert summary["statements"] == 5
    assert summary["oracles"]["tlp"]["checked"] == 2
    assert [f["statement"] for f in summary["findings"]] == [again]


@pytest.mark.slow
def test_run_reduce_reduces_each_new_finding_after_the_run(tmp_path):
    grammar = tmp_path / "crash.yy"
    grammar.write_text("query_init: CREATE TABLE IF NOT EXISTS tj (c CHAR(5)) ; INSERT INTO tj VALUES ('zz') ;\n"
                       "query: ==FACTOR:3000== SELECT _digit | " + CRASH[(1, 1450)] + " ;\n")
    out = tmp_path / "out"
    cli = subprocess.run([sys.executable, "-m", "gauntlet", "run", "--grammar", str(grammar), "--threads", "2",
                          "--duration", "30", "--data", "none", "--statement-log", "--reduce",
                          "--reduce-budget", "120", "--out", str(out)],
                         capture_output=True, text=True, env=ENV, timeout=600)
    assert cli.returncode == 1, cli.stderr[-2000:]  # a finding
    assert "gauntlet reduce: statements:" in cli.stderr
    assert re.search(r"<Reduction 0001-crash: \d+ -> [1-5] statements, .*verified by mariadb-test-run", cli.stdout), \
        cli.stdout
    test = (out / "findings" / "0001-crash" / "repro" / "gauntlet_0001_crash.test").read_text()
    assert "CREATE TABLE IF NOT EXISTS tj" in test and CRASH[(1, 1450)] in test


def test_sql_cuts_leave_out_list_items_and_clauses_not_quoted_text():
    from gauntlet.reduction.sql_cuts import sql_cuts
    cuts = sql_cuts("SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3")
    assert "SELECT a, f(b, 'x,  y'), c FROM t GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (1,2) ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT f(b, 'x,  y'), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert all(("'x" in c) == ("'x,  y'" in c) for c in cuts)  # a quoted comma is no list
    assert len(cuts) == len(set(cuts)) and [len(c) for c in cuts] == sorted(len(c) for c in cuts)


def test_a_wrong_value_does_not_shrink_into_a_value_cut_short():
    """A reduction of a wrong value once slipped into another bug, a JSON text cut short in a view."""
    from gauntlet.reduction.lab import matches
    wanted = {"kind": "metamorphic", "oracle": "transform:view",
              "signature": "transform:view: SELECT VARIANCE(_ . _) AS _ FROM _ AS _ WHERE _ . _ > '12:30'"}
    cut = {**wanted, "signature": "transform:view [truncated]: SELECT JSON_ARRAY_APPEND(?) AS _ FROM _ AS _"}
    shorter = {**wanted, "signature": "transform:view: SELECT VARIANCE(_ . _) AS _ FROM _ AS _"}
    assert matches(wanted, shorter, None, False)
    assert not matches(wanted, cut, None, False)
    assert matches(cut, {**cut, "signature": "transform:view [truncated] [warnings 1292]: SELECT ?"}, None, False)
    assert not matches(wanted, {**shorter, "oracle": "tlp"}, None, False)


@pytest.mark.slow
def test_a_shrunk_statement_is_checked_by_its_own_relation(tmp_path):
    """The test case of a wrong result whose statement the reducer shortened computes the two sides
    of the shortened statement (its oracle's follow-ups), not the original's."""
    grammar = tmp_path / "wrong.yy"
    grammar.write_text("query_init: " + WRONG[(2, 300)] + " ; " + WRONG[(3, 600)] + " ;\n"
                       "query: ==FACTOR:50== SELECT _digit | SELECT e, 'pad', LENGTH(e) FROM t WHERE e NOT IN "
                       "(SELECT 1 FROM t) ORDER BY e ;\n")
    result = gauntlet.run(gauntlet.Grammar(grammar), threads=1, queries=200, out=tmp_path / "out",
                          statement_log=True, data="none", oracles="tlp")
    tlp = [f for f in result.findings if f["kind"] == "tlp"]
    assert len(tlp) == 1, result.findings
    reduction = result.reduce(tlp[0], budget=120)
    r = reduction.record
    statement = next(s for s in r["stages"] if s["stage"] == "statement")
    assert statement["after"] < statement["before"]
    assert "'pad'" not in reduction.test and "LENGTH(e)" not in reduction.test
    assert reduction.verified, r["verification"]


def test_any_crash_lets_a_reduction_keep_a_crash_with_other_frames():
    """``--any-crash``: another crash counts as the finding; without it only the same frames do."""
    from gauntlet.reduction.lab import matches
    wanted = {"kind": "crash", "signature": "signal 11: f(int) | g() | h()"}
    same = {"kind": "crash", "signature": "signal 11: f(int) | g()"}
    other = {"kind": "crash", "signature": "signal 6: assertion 'x' | k() | m()"}
    wrong = {"kind": "tlp", "oracle": "tlp", "signature": "tlp: SELECT _"}
    assert matches(wanted, same, None, any_crash=False) and matches(wanted, same, None, any_crash=True)
    assert not matches(wanted, other, None, any_crash=False)
    assert matches(wanted, other, None, any_crash=True)
    assert not matches(wanted, wrong, None, any_crash=True)
    flag = subprocess.run([sys.executable, "-m", "gauntlet", "reduce", "--help"], capture_output=True, text=True,
                          env=ENV).stdout
    assert "--any-crash" in flag


@pytest.mark.slow
def test_a_crash_noticed_first_by_a_bystander_session_is_reduced_to_the_crashing_statement(tmp_path):
    # In the field, the session that first sees the server gone is not always the one whose statement
    # crashed it: the finding then names a bystander's statement. Planted: the tour's crash, its finding
    # pointed at another session's statement started before the crashing one.
    r = gauntlet.run(str(REPO / "examples" / "tour.yy"), threads=4, duration=60, statement_log=True, out=tmp_path / "run")
    crash = next(f for f in r.findings if f["kind"] == "crash")
    from gauntlet import _core
    steps = [s for log in (tmp_path / "run").glob("statements-*.jsonl") for s in _core.read_statement_log(str(log))]
    # In flight when the server went (lost connection), not one that failed before tj existed (1146: seen
    # when the machine was loaded and the CREATE TABLE came late; then the planted statement preceded the
    # crash by far, and the reduction rightly found nothing).
    crasher = next(s for s in steps if "JSON_EXTRACT" in str(s["sql"]) and s["outcome"] == "connection")
    bystander = max((s for s in steps if s["thread"] != crasher["thread"] and s["seq"] < crasher["seq"]),
                    key=lambda s: s["seq"])
    folder = tmp_path / "run" / "findings" / crash["id"]
    finding = json.loads((folder / "finding.json").read_text())
    finding.update(thread=bystander["thread"], statement=bystander["sql"], at=max(finding["at"], crasher["start"]))
    (folder / "finding.json").write_text(json.dumps(finding))
    reduction = gauntlet.reduce(folder, budget=300)
    assert reduction.verified, reduction
    assert "JSON_EXTRACT('{}', '$') <=> UNHEX(c)" in reduction.test, reduction.test


@pytest.mark.slow
def test_a_crash_on_a_row_that_a_later_started_statement_wrote_is_reduced(tmp_path):
    """A field run (the tour, 4 sessions, three test processes on two cores), kept as it was in
    field-runs/: the finding names a bystander's INSERT; the crashing SELECT started before another
    session's INSERT of the row it crashed on, and both were in flight, so in the logs' order the SELECT
    comes first and never crashes. The fallback runs each session's last statements again after the
    history: it did not reproduce before (0 of 2 in every mode)."""
    run = tmp_path / "run"
    shutil.copytree(REPO / "tests" / "python" / "field-runs" / "crash-in-flight-order", run)
    reduction = gauntlet.reduce(run / "findings" / "0001-crash", budget=120)
    assert reduction.verified, reduction
    assert reduction.record["statements_after"] <= 3, reduction.record
    assert "INSERT INTO tj VALUES ('zz')" in reduction.test and "JSON_EXTRACT('{}', '$')" in reduction.test


def test_a_tails_definitions_are_each_named_objects_last_create_that_succeeded_and_what_altered_it_since():
    from gauntlet.reduction.reducer import definitions
    from gauntlet.reduction.testcase import Step
    earlier = [Step(1, 1, "CREATE TABLE t1 (a INT)"), Step(2, 2, "CREATE PROCEDURE p() SELECT 1"),
               Step(3, 1, "DROP TABLE t1"), Step(4, 1, "CREATE OR REPLACE TABLE t1 (z INT)"),
               Step(5, 3, "CREATE TABLE t1 (b INT)", error=1050),  # failed: the t1 of step 4 stands
               Step(6, 1, "ALTER TABLE t1 ADD c INT"), Step(7, 2, "CREATE TABLE unused (a INT)"),
               Step(8, 1, "INSERT INTO t1 VALUES (1)")]
    tail = [Step(9, 1, "INSERT INTO t1 VALUES (2)"), Step(10, 2, "CALL p()")]
    assert [s.seq for s in definitions(earlier, tail)] == [2, 4, 6]
