"""`gauntlet hunt`, the CI main job: exit 1 on a new root cause with its reproducer verified by
mariadb-test-run, 0 when what it meets is known or nothing, 2 on bad input before any server starts."""

import io
import json
import subprocess
import sys

import pytest
from lxml import etree

from gauntlet import formats
from gauntlet.hunts import parse_duration
from gauntlet.hunts.hunt import _Progress
from gauntlet.hunts.rounds import HuntGrammar, schedule
from gauntlet.reports.junit import XSD

from conftest import REPO

# A known wrong result of MariaDB 10.11 (catalogue entry temporal-conversion-is-null) on a table
# of its own: TLP finds it in every statement.
PLANTED = """query_init: CREATE TABLE IF NOT EXISTS tv (e ENUM('a','b'), b VARBINARY(0)) ; INSERT INTO tv VALUES ('a', ''), ('b', '') ;
query: SELECT e FROM tv WHERE CAST(IFNULL(' 1', e) AS DATE) = b ;
"""
HEALTHY = """query_init: CREATE TABLE IF NOT EXISTS tv (e ENUM('a','b'), b VARBINARY(0)) ; INSERT INTO tv VALUES ('a', ''), ('b', '') ;
query: SELECT e FROM tv WHERE e = 'a' | SELECT COUNT(*) FROM tv WHERE b = '' | SELECT e, b FROM tv ORDER BY e ;
"""


def hunt(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "gauntlet", "hunt", *args], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})


def test_durations_read_as_ci_people_write_them():
    assert [parse_duration(t) for t in ("90", "90s", "30m", "2h", "1h30m", 45)] == [90, 90, 1800, 7200, 5400, 45]
    for bad in ("abc", "", "10x", "-5", 0):
        with pytest.raises(Exception, match="duration"):
            parse_duration(bad)


def test_the_users_grammars_take_every_other_round():
    pool = [HuntGrammar("mine.yy", "mine", True, 2, 10)] + [HuntGrammar(f"{n}.yy", n, False, 2, 10) for n in "abc"]
    names = [schedule(pool, n, seed=1).name for n in range(6)]
    assert names == ["mine", "a", "mine", "b", "mine", "c"]
    assert [schedule(pool, n, seed=2).name for n in range(4)] == ["mine", "b", "mine", "c"]
    alone = [HuntGrammar("x.yy", "x", True, 2, 10), HuntGrammar("y.yy", "y", True, 2, 10)]
    assert [schedule(alone, n, seed=1).name for n in range(4)] == ["x", "y", "x", "y"]


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_a_log():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    log, tty = io.StringIO(), Tty()
    for stream in (log, tty):
        p = _Progress(True, 100, stream)
        p.status = "round 1: dml.yy"
        p.redraw()
        p.line("round 1 dml.yy (seed 1): 10 statements in 1 s, 0 findings")
        p.done()
    assert log.getvalue() == "round 1 dml.yy (seed 1): 10 statements in 1 s, 0 findings\n"
    assert "\r" in tty.getvalue() and "[" in tty.getvalue() and "/100 s  round 1: dml.yy" in tty.getvalue()


@pytest.mark.parametrize("args, says", [
    (["--duration", "soon"], "duration: seconds, or a time such as"),
    (["--duration", "60", "--grammar", "nosuch.yy"], "nosuch.yy"),
    (["--duration", "60", "--grammar", "bad.yy"], "bad.yy:2:"),
    (["--duration", "60", "--known-bugs", "nosuch.toml"], "known_bugs: nosuch.toml: no such file"),
    (["--duration", "60", "--no-stock"], "grammars: none to hunt with"),
    (["--duration", "60", "--server", "/nonexistent/mariadbd"], "server: cannot run /nonexistent/mariadbd"),
    (["--duration", "60", "--options", "space.json"], "space.json"),
    (["--duration", "60", "--reduce-share", "1.5"], "reduce_share"),
    (["--duration", "60", "--rounds", "0"], "rounds"),
])
def test_bad_input_exits_2_naming_it_before_any_server_starts(tmp_path, args, says):
    (tmp_path / "bad.yy").write_text("query: SELECT 1 ;\nnäme: 1 ;\n")
    (tmp_path / "space.json").write_text('{"parameters": {"x": []}}')
    r = hunt(tmp_path, *args, "--out", "out")
    assert r.returncode == 2, r.stderr
    assert says in r.stderr, r.stderr
    assert not (tmp_path / "out" / "rounds").exists()


@pytest.mark.slow
def test_a_new_cause_exits_1_with_a_reproducer_that_mariadb_test_run_verified(tmp_path):
    (tmp_path / "planted.yy").write_text(PLANTED)
    r = hunt(tmp_path, "--duration", "30", "--grammar", "planted.yy", "--no-stock", "--threads", "1",
             "--known-bugs", "none", "--out", "out", "--junit", "j.xml", "--markdown", "m.md", "--html", "r.html")
    assert r.returncode == 1, r.stderr[-3000:]
    record = json.loads((tmp_path / "out" / "hunt.json").read_text())
    formats.check("hunt", record, "hunt.json")
    assert record["rounds"] and all(x["grammar"].endswith("planted.yy") for x in record["rounds"])
    [cause] = record["causes"]
    assert cause["key"] == "tlp/norec: temporal" and "known" not in cause
    assert cause["reproducer"]["verified"], cause
    test = tmp_path / "out" / cause["reproducer"]["test"]
    assert "CAST(e AS DATE) = b" in test.read_text()
    assert "NEW root cause: tlp" in r.stderr and "round 1 planted.yy (seed 1)" in r.stderr  # a CI log's lines
    assert f"reproducer {cause['reproducer']['test']} (verified by mariadb-test-run)" in r.stdout
    assert (tmp_path / "out" / "root_causes.json").is_file()
    # The reports: the grammar's tlp case fails with the verified reproducer; the others pass.
    doc = etree.parse(str(tmp_path / "j.xml"))
    assert etree.XMLSchema(etree.parse(str(XSD))).validate(doc)
    [failed] = [c for c in doc.iter("testcase") if c.find("failure") is not None]
    assert (failed.get("classname"), failed.get("name")) == ("gauntlet.hunt.planted.yy", "tlp")
    assert "verified by mariadb-test-run" in failed.find("failure").text and "--die" in failed.find("failure").text
    assert "**1 new root cause**" in (tmp_path / "m.md").read_text()
    assert "verify/minimal_001.test" in (tmp_path / "r.html").read_text()


@pytest.mark.slow
def test_a_known_cause_does_not_fail_the_hunt_and_shows_the_catalogues_reproducer(tmp_path):
    (tmp_path / "planted.yy").write_text(PLANTED)
    r = hunt(tmp_path, "--duration", "15", "--grammar", "planted.yy", "--no-stock", "--threads", "1", "--out", "out")
    assert r.returncode == 0, r.stderr[-3000:]
    record = json.loads((tmp_path / "out" / "hunt.json").read_text())
    [cause] = record["causes"]
    assert cause["known"] == "temporal-conversion-is-null"
    assert cause["known_reproducer"].endswith("06-temporal-conversion-is-null.test")
    assert "known: temporal-conversion-is-null" in r.stdout


@pytest.mark.slow
def test_a_healthy_grammar_hunts_quietly_again_and_again_and_rounds_take_the_option_rows(tmp_path):
    (tmp_path / "healthy.yy").write_text(HEALTHY)
    (tmp_path / "space.json").write_text('{"parameters": {"join_cache_level": [0, 8], "div_precision_increment": [2, 9]}}')
    for attempt in range(2):
        # Two rounds, whatever the machine's load: the budget only a ceiling.
        r = hunt(tmp_path, "--duration", "120", "--rounds", "2", "--round-seconds", "10", "--reduce-share", "0",
                 "--grammar", "healthy.yy", "--no-stock", "--seed", str(attempt + 1), "--known-bugs", "none",
                 "--options", "space.json", "--out", f"out{attempt}")
        assert r.returncode == 0, r.stdout + r.stderr[-3000:]
        out = tmp_path / f"out{attempt}"
        record = json.loads((out / "hunt.json").read_text())
        assert record["causes"] == [] and sum(x["statements"] for x in record["rounds"]) > 1000
        plan = record["settings"]["options"]
        # The covering array of 2 x 2 values: every pair; the rounds take its rows in turn.
        assert len(plan) == 4 and len(record["rounds"]) == 2 and record["stop_reason"] == "rounds", record["rounds"]
        assert record["settings"]["rounds"] == 2 and record["settings"]["round_seconds"] == 10
        for n, round_ in enumerate(record["rounds"]):
            assert round_["options"] == plan[n % len(plan)]
            server = json.loads(next((out / round_["folder"]).glob("rounds/001/server_variables.json")).read_text())
            assert str(server["join_cache_level"]) == str(round_["options"]["join_cache_level"])
            assert str(server["div_precision_increment"]) == str(round_["options"]["div_precision_increment"])


# A crash of MariaDB 10.11 (catalogue entry json-extract-null-safe-crash) between plain statements.
CRASHING = """query_init: CREATE TABLE IF NOT EXISTS tj (c CHAR(5)) ; INSERT INTO tj VALUES ('zz') ;
query: ==FACTOR:300== SELECT _digit | SELECT COUNT(*) FROM tj WHERE JSON_EXTRACT('{}', '$') <=> UNHEX(c) ;
"""


@pytest.mark.slow
def test_a_new_crash_is_reduced_within_the_hunts_budget(tmp_path):
    (tmp_path / "crashing.yy").write_text(CRASHING)
    r = hunt(tmp_path, "--duration", "70", "--reduce-share", "0.6", "--grammar", "crashing.yy", "--no-stock",
             "--threads", "1", "--known-bugs", "none", "--out", "out")
    assert r.returncode == 1, r.stderr[-3000:]
    record = json.loads((tmp_path / "out" / "hunt.json").read_text())
    assert record["seconds"] < 70 + 10, record["seconds"]  # the reduction is killed at the deadline
    [crash] = [c for c in record["causes"] if c["kind"] == "crash"]
    assert "Item_func_json_extract" in crash["key"]
    repro = crash["reproducer"]
    assert repro["how"] == "reduce"
    if repro["verified"]:  # in the time left, usually: then its test case is there and names the crash
        assert "JSON_EXTRACT" in (tmp_path / "out" / repro["test"]).read_text()
    else:
        assert repro["why"], repro
