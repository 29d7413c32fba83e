"""Replay: a run re-created from its statement log, on a real MariaDB started by Gauntlet."""

import json
import subprocess
import sys

import gauntlet
import pytest
from gauntlet import Grammar, formats

from conftest import REPO
from gauntlet.results import KINDS

pytestmark = pytest.mark.timing

UDF_DIR = REPO / "build" / "tests" / "udf"

# Session 1 fills and empties a table; session 2 crashes the server (through a
# UDF) when it sees four rows or more: a crash that needs both sessions, in an
# order that the seed decides.
CRASH_GRAMMAR = """
query_init: CREATE FUNCTION IF NOT EXISTS crash_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so' ; CREATE TABLE IF NOT EXISTS t (a INT) ENGINE=InnoDB ;
thread1: INSERT INTO t VALUES (1) | INSERT INTO t VALUES (2) | DELETE FROM t ;
thread2: SELECT crash_if(COUNT(*) >= 4) FROM t | SELECT COUNT(*) FROM t ;
"""


@pytest.fixture(scope="module")
def udf_dir():
    if not (UDF_DIR / "gauntlet_crash_if.so").exists():
        pytest.fail(f"{UDF_DIR}/gauntlet_crash_if.so is not built (make build)")
    return UDF_DIR


def logged(out):
    lines = []
    for path in sorted(out.glob("statements-*.jsonl")):
        records = [json.loads(l) for l in path.read_text().splitlines()]
        assert all(r["format"] == formats.version("statement") for r in records)  # one shape, no header
        lines += records
    return sorted(lines, key=lambda l: l["seq"])


def test_the_statement_log_orders_statements_and_regenerates_each_query(tmp_path):
    out = tmp_path / "run"
    result = gauntlet.run(REPO / "grammars" / "optimizer.yy", threads=3, duration=3, out=out, statement_log=True)
    lines = logged(out)
    assert len(lines) == result.summary()["statements"] + result.summary()["cancelled"] > 300
    assert [l["seq"] for l in lines] == list(range(len(lines)))  # one global order, no gaps
    assert {l["thread"] for l in lines} == {1, 2, 3}
    for l in lines:
        assert l["start"] <= l["end"] <= result.summary()["seconds"] and l["outcome"] in KINDS + ("cancelled",)
    # Every query's key re-creates its statements on a fresh generator.
    grammar = Grammar.from_file(str(REPO / "grammars" / "optimizer.yy"))
    fresh = grammar.generator(seed=99)
    queries = {}
    for l in lines:
        queries.setdefault((l["thread"], l["query"]), []).append(l)
    assert len(queries) > 100
    for (thread, index), pieces in queries.items():
        key = pieces[0]["key"]
        assert (key["thread"], key["index"], key["seed"]) == (thread, index, 1)
        text = fresh.replay(key).text
        assert gauntlet.split_statements(text)[:len(pieces)] == [p["sql"] for p in pieces]


@pytest.mark.parametrize("seed", [3, 11, 12, 14])
def test_replay_refinds_a_multi_session_crash(tmp_path, udf_dir, seed):
    out = tmp_path / "run"
    grammar = Grammar.from_string(CRASH_GRAMMAR)
    result = gauntlet.run(grammar, threads=2, duration=60, seed=seed, out=out, statement_log=True,
                          mysqld=[f"plugin-dir={udf_dir}"])
    assert [f["kind"] for f in result.findings] == ["crash"], result.summary()
    original = result.findings[0]
    assert "crash_if" in original["statement"]
    assert json.loads((out / "run.json").read_text())["seed"] == seed

    # The CLI, as a user runs it: same server options and data, the logged order. Statements
    # sent microseconds apart reach the server in either order, so a race may take attempts.
    cli = subprocess.run([sys.executable, "-m", "gauntlet", "replay", str(out), "--attempts", "5"],
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 1, cli.stdout + cli.stderr
    again = gauntlet.RunResult.load(out / "replay")
    assert [f["kind"] for f in again.findings] == ["crash"]
    assert again.findings[0]["signature"] == original["signature"]
    assert "crash_if" in again.findings[0]["statement"]
    assert again.summary()["stop_reason"] == "crash"
    assert 1 <= again.summary()["attempt"] <= 5
    assert again.summary()["guess"]["reading"] in ("timing", "late", "early", "order")
    # The replay logged its own statements: no more than the run executed.
    assert 0 < len(logged(out / "replay")) <= len(logged(out))

    # One session running everything in the run's start order finds it too.
    serial = gauntlet.replay(out, out=tmp_path / "serial", sessions=1, attempts=5)
    assert [f["kind"] for f in serial.findings] == ["crash"]
    assert serial.summary()["threads"] == 1

    # Session 2's statements alone never crash: the crash needs both sessions.
    only = tmp_path / "only2"
    only.mkdir()
    (only / "run.json").write_text((out / "run.json").read_text())
    (only / "statements-2.jsonl").write_text((out / "statements-2.jsonl").read_text())
    alone = gauntlet.replay(only, mysqld=[f"plugin-dir={udf_dir}"])
    assert alone.findings == [] and alone.summary()["stop_reason"] == "script"


@pytest.mark.foreign_files
def test_replay_refuses_what_it_cannot_replay(tmp_path):
    with pytest.raises(gauntlet.InvalidInput, match="no run.json"):
        gauntlet.replay(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"seed": 1}))
    with pytest.raises(gauntlet.InvalidInput, match="statement log"):
        gauntlet.replay(tmp_path)
    (tmp_path / "statements-1.jsonl").write_text('{"seq": 0, "thread": 1, "sql": "SELECT 1"}\nnot json\n'
                                                 '{"seq": 1, "thread": 1, "sql": "SELECT 2"}\n')
    with pytest.raises(gauntlet.InvalidInput, match=r"statements-1.jsonl:2"):
        gauntlet.replay(tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="sessions"):
        gauntlet.replay(tmp_path, sessions=3)
    # A log shorter than the run was (cut by hand, its last line torn): said, before anything starts.
    (tmp_path / "statements-1.jsonl").write_text('{"seq": 0, "thread": 1, "sql": "SELECT 1"}\n'
                                                 '{"seq": 1, "thread": 1, "sql": "SELECT 2"}\n{"seq": 2, "thr')
    (tmp_path / "summary.json").write_text(json.dumps({"statements": 4, "cancelled": 1, "error": None}))
    with pytest.warns(UserWarning, match="the statement logs hold 2 of the 5 statements"):
        with pytest.raises(gauntlet.InvalidInput, match="cannot connect"):
            gauntlet.replay(tmp_path, server="mysql://root@127.0.0.1:1/t")
    # A finding.json edited by hand: the field that does not fit, named.
    finding = tmp_path / "findings" / "0001-crash"
    finding.mkdir(parents=True)
    for text, message in [('{"id": "0001-crash"}', "'kind' is a required property"),
                          ('{"id": "0001-crash", "kind": "crash", "signature": 5}', "signature: 5 is not of type"),
                          ("[1, 2]", "is not of type 'object'"), ("{", "cannot read it as finding")]:
        (finding / "finding.json").write_text(text)
        with pytest.raises(gauntlet.InvalidInput, match=message):
            gauntlet.reduce(finding)


def test_a_statement_log_is_one_shape_that_pandas_reads_and_gauntlet_reads_in_order(tmp_path):
    """Day-one bug: the log's header line broke pandas.read_json(lines=True)."""
    import pandas as pd
    out = tmp_path / "run"
    gauntlet.run(Grammar.from_string("query: SELECT _digit | SELECT 'caf\u00e9' ;"), threads=2, queries=50, duration=0,
                 out=out, statement_log=True)
    frame = pd.read_json(out / "statements-1.jsonl", lines=True)
    assert set(frame["format"]) == {formats.version("statement")} and frame["seq"].dtype.kind == "i"
    assert frame["sql"].notna().all()
    rows = gauntlet.read_statement_log(out)  # both sessions, in start order
    assert [r["seq"] for r in rows] == sorted(r["seq"] for r in rows) and {r["thread"] for r in rows} == {1, 2}
    assert len(rows) == 100
    table = gauntlet.read_statement_log(out / "statements-2.jsonl", frame=True)
    assert len(table) == 50 and set(table["thread"]) == {2}
    with pytest.raises(gauntlet.InvalidInput, match="no statements-N.jsonl"):
        gauntlet.read_statement_log(tmp_path)
