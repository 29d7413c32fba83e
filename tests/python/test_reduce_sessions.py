"""Reduction of what needs its sessions' order: a crash in an oracle's follow-up, a hang of two
sessions, a rare race, a slowdown; and how multi-session test cases are written (a file apart from
test_reduce.py so that two pytest processes share the reducer's tests)."""

import json

import pytest
from gauntlet.reduction.lab import compressed
from gauntlet.reduction.testcase import Case, Step, mtr_test_files, verify_with_mtr
from gauntlet.server import Target

from planted import FOLLOW_UP_CRASH, HANG, SLOW_JOIN, planted_run, verified_without_the_bug

pytestmark = pytest.mark.slow  # minutes of servers: `make test`, not `make check`


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
    passes = verified_without_the_bug(tmp_path, result, reduction, "LOCK TABLES th WRITE", "SELECT 1")
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
    test = mtr_test_files(case, finding, "n", {"codes": {"SELECT * FROM t": {1146}}}, "a")[".test"]
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
        files = mtr_test_files(case, finding, "race", {"rounds": rounds, "hang_timeout": 2}, "default")
        for suffix, text in files.items():
            (folder / f"race{suffix}").write_text(text)
        assert ("while ($gauntlet_round)" in files[".test"]) == (rounds > 1)
        verdicts[rounds] = verify_with_mtr(folder, "race", finding, Target("default"))
    assert verdicts[1]["passed"] and not verdicts[1]["verified"], verdicts[1]
    assert verdicts[5]["verified"], verdicts[5]
    # Two statements that overlapped: the second is sent a swept gap after the first.
    overlap = [Step(1, 1, "ALTER TABLE t ENGINE=MEMORY", 0.0, 5.0), Step(2, 2, "UPDATE t SET a = 1", 0.001, 5.0)]
    test = mtr_test_files(case.replace(history=overlap), finding, "race", {"rounds": 24}, "default")[".test"]
    assert ("--send\nALTER TABLE t ENGINE=MEMORY;\n--connection con2\n--let $gauntlet_sent2= `SELECT QUERY_ID "
            "FROM information_schema.processlist WHERE ID = CONNECTION_ID()`\n--sleep $gauntlet_gap\n--send\nUPDATE") in test
    assert "--let $gauntlet_gap= `SELECT $gauntlet_round % 40 * 0.000050`" in test


def test_a_hangs_statement_that_the_server_has_not_read_yet_is_still_running(tmp_path):
    """Under load the server may read a sent statement after the test case's wait for every statement
    to end has begun: until the server begins it, it is running, not finished. Here it is never sent
    at all, the extreme of such a delay; the wait must not pass (it did, and the test case then
    waited on the statement's reap for mariadb-test-run's ten-minute limit). Where nothing holds
    the lock, the statement ends and the test case passes."""
    steps = [Step(1, 1, "LOCK TABLES th WRITE", 0.0, 0.001), Step(2, 2, "SELECT * FROM th", 0.002, 5.0)]
    case = Case(["CREATE DATABASE IF NOT EXISTS test", "USE test", "CREATE TABLE th (c INT)"], [], steps, None, 0, {})
    finding = {"kind": "hang", "id": "0001-hang", "signature": "hang: no statement finished for 2 s"}
    files = mtr_test_files(case, finding, "late", {"hang_timeout": 2}, "default")
    send, reap = "--send\nSELECT * FROM th;\n", "--connection con2\n--reap\n"
    assert send in files[".test"] and reap in files[".test"]
    unread = dict(files, **{".test": files[".test"].replace(send, "").replace(reap, "")})
    healthy = dict(files, **{".test": files[".test"].replace("LOCK TABLES th WRITE", "SELECT 1")})
    verdicts = {}
    for name, case_files in (("unread", unread), ("healthy", healthy)):
        folder = tmp_path / name
        folder.mkdir()
        for suffix, text in case_files.items():
            (folder / f"late{suffix}").write_text(text)
        verdicts[name] = verify_with_mtr(folder, "late", finding, Target("default"), timeout=120)
    assert verdicts["unread"]["verified"], verdicts["unread"]
    assert verdicts["healthy"]["passed"] and not verdicts["healthy"]["verified"], verdicts["healthy"]


def test_compressed_times_keep_the_order_and_cut_long_pauses():
    steps = [Step(1, 1, "a", 0.0, 0.0005), Step(2, 2, "b", 0.0004, 9.0), Step(3, 1, "c", 5.0, 5.002)]
    out = compressed(steps)
    events = lambda ss: sorted((t, i, w) for i, s in enumerate(ss) for w, t in enumerate((s.start, s.end)))
    assert [e[1:] for e in events(out)] == [e[1:] for e in events(steps)]
    assert out[1].start - out[0].start == pytest.approx(0.0004)  # short gaps kept exactly
    assert out[2].start - out[0].end <= 0.0101 and out[1].end < 0.05
