"""Reduction: findings planted in long multi-session histories become small test cases that
Debian's mariadb-test-run fails on the same server binary."""

import json
import re
import shutil
import subprocess
import sys

import gauntlet
import pytest
from gauntlet.lab import _compressed
from gauntlet.testcase import Case, Step, _test_case, verify_with_mtr
from gauntlet.targets import Target

from faults import ENV
from planted import CRASH, FOLLOW_UP_CRASH, HANG, SLOW_JOIN, TWO_OPTIONS, WRONG, planted_run


def _files(repro, name):
    return {p.name for p in repro.iterdir()} >= {f"{name}{s}" for s in (".test", ".opt", ".result", ".sql")} | {
        "README.md", "reduction.json"}


@pytest.fixture(scope="module")
def crash_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("crash") / "run"
    result = planted_run(out, CRASH)
    assert result.summary()["stop_reason"] == "crash"
    assert result.summary()["statements"] >= 5000
    return out, result


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


def test_a_crash_of_an_oracles_follow_up_is_reduced_in_the_place_of_the_query_it_came_from(tmp_path):
    result = planted_run(tmp_path / "run", FOLLOW_UP_CRASH, oracles="tlp")
    crash = next(f for f in result.findings if f["kind"] == "crash")
    logged = {json.loads(line).get("sql") for p in (tmp_path / "run").glob("statements-*.jsonl")
              for line in p.read_text().splitlines()}
    assert FOLLOW_UP_CRASH[(1, 1450)] in logged and "HAVING NOT" in crash["statement"]
    assert crash["statement"] not in logged  # TLP's query: not in the log, where reduction looks
    reduction = result.reduce(crash, budget=240)
    r = reduction.record
    assert r["reproduced"] and r["statements_after"] <= 3, r
    assert reduction.verified, r["verification"]
    assert "HAVING NOT" in reduction.test and "INSERT INTO noise" not in reduction.test


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


def test_a_wrong_result_becomes_a_test_case_that_checks_the_relation(tmp_path):
    result = planted_run(tmp_path / "run", WRONG, oracles="tlp", quiet=True)
    tlp = [f for f in result.findings if f["kind"] == "tlp"]
    assert [f["statement"] for f in tlp] == [WRONG[(1, 1450)]]
    reduction = result.reduce(tlp[0], budget=300)
    r = reduction.record
    assert r["statements_after"] <= 5 and r["setup_after"] <= 2, r
    assert reduction.verified, r["verification"]
    log = (reduction.folder / "mtr.log").read_text()
    assert "relation unordered fails: WHERE p, WHERE NOT p and WHERE p IS NULL" in log
    # Where the relation holds the same test case passes, against the .result it ships with.
    holds = _verified_without_the_bug(tmp_path, result, reduction, "e NOT IN (SELECT 1 FROM t)", "e = 'a'")
    assert holds["passed"] and not holds["verified"], holds


def _verified_without_the_bug(tmp_path, result, reduction, cause: str, instead: str) -> dict:
    """mariadb-test-run's verdict on the reduction's test case with its cause replaced."""
    name = reduction.record["name"]
    fixed = tmp_path / "fixed"
    fixed.mkdir()
    for suffix in (".test", ".opt", ".result"):
        text = (reduction.folder / f"{name}{suffix}").read_text()
        (fixed / f"{name}{suffix}").write_text(text.replace(cause, instead))
    finding = json.loads((result.out / "findings" / reduction.record["finding"] / "finding.json").read_text())
    return verify_with_mtr(fixed, name, finding, Target("default"))


def test_the_options_a_finding_needs_are_found(tmp_path):
    targets = [{"name": "plain"},
               {"name": "tuned", "options": {"table_open_cache": 200, "div_precision_increment": 8,
                                             "tmp_table_size": 8388608, "lc_time_names": "es_ES",
                                             "max_connections": 200}}]
    result = planted_run(tmp_path / "run", TWO_OPTIONS, threads=1, queries=1000, oracles="differential",
                         targets=targets)
    divergence = [f for f in result.findings if f["kind"] == "divergence"]
    assert len(divergence) == 1
    reduction = result.reduce(divergence[0], budget=300)
    r = reduction.record
    assert r["options_after"] == {"plain": [], "tuned": ["div_precision_increment=8", "lc_time_names=es_ES"]}
    assert r["statements_after"] == 1 and TWO_OPTIONS[(1, 700)] in reduction.test
    assert [s["stage"] for s in r["stages"]] == ["statements", "statement", "data", "options"]
    # One server cannot show a divergence: said so, never called verified.
    assert not reduction.verified and "cannot check itself" in r["verification"]["why"]


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
    from gauntlet.reduction import _sql_cuts
    cuts = _sql_cuts("SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3")
    assert "SELECT a, f(b, 'x,  y'), c FROM t GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (1,2) ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT f(b, 'x,  y'), c FROM t WHERE a IN (1,2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert "SELECT a, f(b, 'x,  y'), c FROM t WHERE a IN (2) GROUP BY a, b ORDER BY 1 LIMIT 3" in cuts
    assert all(("'x" in c) == ("'x,  y'" in c) for c in cuts)  # a quoted comma is no list
    assert len(cuts) == len(set(cuts)) and [len(c) for c in cuts] == sorted(len(c) for c in cuts)


def test_a_wrong_value_does_not_shrink_into_a_value_cut_short():
    """A reduction of a wrong value once slipped into another bug, a JSON text cut short in a view."""
    from gauntlet.lab import _matches
    wanted = {"kind": "metamorphic", "oracle": "transform:view",
              "signature": "transform:view: SELECT VARIANCE(_ . _) AS _ FROM _ AS _ WHERE _ . _ > '12:30'"}
    cut = {**wanted, "signature": "transform:view [truncated]: SELECT JSON_ARRAY_APPEND(?) AS _ FROM _ AS _"}
    shorter = {**wanted, "signature": "transform:view: SELECT VARIANCE(_ . _) AS _ FROM _ AS _"}
    assert _matches(wanted, shorter, None, False)
    assert not _matches(wanted, cut, None, False)
    assert _matches(cut, {**cut, "signature": "transform:view [truncated] [warnings 1292]: SELECT ?"}, None, False)
    assert not _matches(wanted, {**shorter, "oracle": "tlp"}, None, False)


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


def test_a_hang_of_two_sessions_becomes_a_verified_test_case(tmp_path):
    result = planted_run(tmp_path / "run", HANG, queries=300, hang_timeout=3)
    hang = [f for f in result.findings if f["kind"] == "hang"]
    assert len(hang) == 1 and result.summary()["stop_reason"] == "hang", result.findings
    reduction = hang[0].reduce(budget=300, hang_timeout=2)
    r = reduction.record
    # One session cannot wait for its own lock: the two sessions stay.
    assert r["reproduced"] and r["statements_after"] == 3 and r["sessions"] == 0, r
    test = reduction.test
    for sql in HANG.values():
        assert sql in test
    assert "--send\nSELECT * FROM th;" in test and "include/wait_condition.inc" in test
    # It hangs every time: one round of the statements is enough.
    assert r["replays"]["hits"] == r["replays"]["tries"] and r["rounds"] == 1 and "while (" not in test, r
    assert reduction.verified, r["verification"]
    assert "hang: no statement finished for 2 s" in (reduction.folder / "mtr.log").read_text()
    assert "every statement finishes within 2 s" in (reduction.folder / "README.md").read_text()
    # Where nothing holds the lock, the same test case passes against the .result it ships with.
    passes = _verified_without_the_bug(tmp_path, result, reduction, "LOCK TABLES th WRITE", "SELECT 1")
    assert passes["passed"] and not passes["verified"], passes


@pytest.mark.timing
def test_a_slowdown_keeps_its_statements_and_the_option_that_causes_it(tmp_path):
    targets = [{"name": "a"}, {"name": "b", "options": {"join_cache_level": 0, "max_connections": 200}}]
    result = planted_run(tmp_path / "run", SLOW_JOIN, threads=1, queries=300, oracles="timing", targets=targets)
    timing = [f for f in result.findings if f["kind"] == "timing" and "tj1" in f["statement"]]
    assert len(timing) == 1, result.findings
    reduction = timing[0].reduce(budget=300)
    r = reduction.record
    assert r["reproduced"] and r["options_after"] == {"a": [], "b": ["join_cache_level=0"]}, r
    # The tables and their rows are what makes it slow.
    assert r["statements_after"] == 5, reduction.test
    assert "seq_1_to_1000" in reduction.test and "noise" not in reduction.test
    assert not reduction.verified and "cannot check itself" in r["verification"]["why"]


def test_a_multi_session_test_case_sends_what_overlapped_and_reaps_it_later():
    steps = [Step(1, 1, "LOCK TABLES t WRITE", 0.0, 0.001), Step(2, 2, "SELECT * FROM t", 0.002, 0.5),
             Step(3, 1, "UNLOCK TABLES", 0.1, 0.101), Step(4, 2, "SELECT 1", 0.6, 0.61)]
    case = Case(["CREATE TABLE t (a INT)"], [], steps, None, 0, {})
    finding = {"kind": "divergence", "id": "0001-divergence", "signature": "s"}
    test = _test_case(case, finding, "n", {"codes": {"SELECT * FROM t": {1146}}}, "a")[".test"]
    body = test[test.index("--connection con1"):test.index("--disconnect")].strip().split("\n")
    assert body == ["--connection con1", "LOCK TABLES t WRITE;", "--connection con2", "--send",
                    "SELECT * FROM t;", "--connection con1", "UNLOCK TABLES;", "--connection con2",
                    "--error 0,1146", "--reap", "SELECT 1;", "--echo # done"], body


def test_a_rare_hang_is_sent_round_after_round_until_it_comes(tmp_path):
    """A race the replay hit now and then: the test case repeats its sessions' statements; here the
    hang comes in round 3 only, so one round passes and five fail the way the finding did."""
    steps = [Step(1, 1, "UPDATE cnt SET n = n + 1", 0.0, 0.001),
             Step(2, 1, "SELECT IF(n = 3, GET_LOCK('g', 0), 0) FROM cnt", 0.002, 0.003),
             Step(3, 2, "SELECT GET_LOCK('g', 100) + RELEASE_LOCK('g')", 0.004, 5.0)]
    case = Case(["CREATE DATABASE IF NOT EXISTS test", "USE test", "CREATE TABLE cnt (n INT)",
                 "INSERT INTO cnt VALUES (0)"], [], steps, None, 0, {})
    finding = {"kind": "hang", "id": "0001-hang", "signature": "hang: no statement finished for 2 s"}
    verdicts = {}
    for rounds in (1, 5):
        folder = tmp_path / str(rounds)
        folder.mkdir()
        files = _test_case(case, finding, "race", {"rounds": rounds, "hang_timeout": 2}, "default")
        for suffix, text in files.items():
            (folder / f"race{suffix}").write_text(text)
        assert ("while ($gauntlet_round)" in files[".test"]) == (rounds > 1)
        verdicts[rounds] = verify_with_mtr(folder, "race", finding, Target("default"))
    assert verdicts[1]["passed"] and not verdicts[1]["verified"], verdicts[1]
    assert verdicts[5]["verified"], verdicts[5]
    # Two statements that overlapped: the second is sent a swept gap after the first.
    overlap = [Step(1, 1, "ALTER TABLE t ENGINE=MEMORY", 0.0, 5.0), Step(2, 2, "UPDATE t SET a = 1", 0.001, 5.0)]
    test = _test_case(case.replace(history=overlap), finding, "race", {"rounds": 24}, "default")[".test"]
    assert "--send\nALTER TABLE t ENGINE=MEMORY;\n--connection con2\n--sleep $gauntlet_gap\n--send\nUPDATE" in test
    assert "--let $gauntlet_gap= `SELECT $gauntlet_round % 40 * 0.000050`" in test


def test_compressed_times_keep_the_order_and_cut_long_pauses():
    steps = [Step(1, 1, "a", 0.0, 0.0005), Step(2, 2, "b", 0.0004, 9.0), Step(3, 1, "c", 5.0, 5.002)]
    out = _compressed(steps)
    events = lambda ss: sorted((t, i, w) for i, s in enumerate(ss) for w, t in enumerate((s.start, s.end)))
    assert [e[1:] for e in events(out)] == [e[1:] for e in events(steps)]
    assert out[1].start - out[0].start == pytest.approx(0.0004)  # short gaps kept exactly
    assert out[2].start - out[0].end <= 0.0101 and out[1].end < 0.05
