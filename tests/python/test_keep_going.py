"""Keep-going runs: crashes and shutdowns of a real server under load end rounds, not the run."""

import json
import signal
import subprocess
import sys
import time

import gauntlet
import pytest
from gauntlet import Grammar

from faults import ENV, processes_under

# A crash of Debian's MariaDB 10.11 (README: "What the oracles find"), a
# shutdown, and plain statements around them, from 4 sessions. A crash comes
# about every 1,000 statements: under make test's load a round of 6,000 took
# 15 s (1 s alone), and the 20-s run had two rounds where it asks for three.
CRASHING = """
query_init: CREATE TABLE IF NOT EXISTS tj (c CHAR(5)) ; INSERT INTO tj VALUES ('zz') ;
query: ==FACTOR:1000== SELECT _digit | crash | ==FACTOR:0.5== SHUTDOWN ;
crash: SELECT COUNT(*) FROM tj WHERE JSON_EXTRACT('{}', '$') <=> UNHEX(c) ;
"""


@pytest.mark.slow
def test_crashes_and_shutdowns_end_rounds_and_the_run_goes_on(tmp_path):
    out = tmp_path / "out"
    result = gauntlet.run(Grammar.from_string(CRASHING), threads=4, duration=20, out=out, keep_going=True,
                          statement_log=True)
    s = result.summary()
    rounds = s["rounds"]
    assert len(rounds) >= 3, rounds
    assert all(r["stop_reason"] in ("crash", "shutdown") for r in rounds[:-1]), rounds
    assert s["stop_reason"] == "duration" and 18 < s["wall_seconds"] < 50, s
    # Each round is a whole run with its own seed, and the sum adds up.
    seeds = [json.loads((out / r["dir"] / "run.json").read_text())["seed"] for r in rounds]
    assert seeds == list(range(1, len(rounds) + 1))
    parts = [json.loads((out / r["dir"] / "summary.json").read_text()) for r in rounds]
    assert s["statements"] == sum(p["statements"] for p in parts) > 0
    assert s["outcomes"]["ok"] == sum(p["outcomes"]["ok"] for p in parts)
    assert s["latency_ms"]["max"] == pytest.approx(max(p["latency_ms"]["max"] for p in parts))
    assert 0 < s["latency_ms"]["p50"] <= s["latency_ms"]["p99"] <= s["latency_ms"]["max"]
    # One finding per signature, counted over the rounds, its folder the first round's.
    kinds = sorted(f["kind"] for f in s["findings"])
    assert "crash" in kinds and len(kinds) == len(set(f["signature"] for f in s["findings"]))
    crash = next(f for f in s["findings"] if f["kind"] == "crash")
    assert "Item_func_json_extract::read_json" in crash["signature"], crash["signature"]
    ended_by_crash = [r["round"] for r in rounds if r["stop_reason"] == "crash"]
    assert set(ended_by_crash) <= set(crash["rounds"]) and crash["occurrences"] >= len(crash["rounds"])
    folder = out / "findings" / crash["id"]
    assert json.loads((folder / "finding.json").read_text())["signature"] == crash["signature"]
    assert folder.resolve().parent.parent.name == f"{crash['round']:03d}"
    # Root causes over the rounds: the crash's cause, every occurrence counted.
    causes = json.loads((out / "root_causes.json").read_text())["root_causes"]
    [cause] = [c for c in causes if crash["id"] in c["findings"]]
    assert cause["count"] >= crash["occurrences"] and cause["key"].startswith("crash: signal 11: "), cause
    assert result.exit_code == 1
    assert gauntlet.RunResult.load(out).findings == s["findings"]
    timeline = result.timeline()  # the rounds' whole seconds, on the run's clock
    seconds = [sum('"second"' in line for line in (out / r["dir"] / "events.jsonl").read_text().splitlines())
               for r in rounds]
    # A round's seconds close on a 50 ms watch tick, so one that crashed within ~1.05 s may have none.
    assert len(timeline) == sum(seconds) and (timeline or max(p["seconds"] for p in parts) < 1.5)
    assert [x["t"] for x in timeline] == sorted(x["t"] for x in timeline)
    assert {x["round"] for x in timeline} <= {r["round"] for r in rounds}
    assert processes_under(out) == []
    # The whole run does not replay (it had fresh servers); each round does.
    with pytest.raises(gauntlet.InvalidInput, match="replay one of its rounds"):
        gauntlet.replay(out)
    replayed = gauntlet.replay(out / crash["dir"] if "dir" in crash else out / f"rounds/{crash['round']:03d}",
                               attempts=3)
    assert any(f["signature"] == crash["signature"] for f in replayed.findings), replayed.findings


def test_known_crashes_do_not_fail_a_keep_going_run(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text("Item_func_json_extract::read_json ## the JSON_EXTRACT <=> crash\nshutdown\n")
    # 10 s: two rounds under make test's load (with 6, one when pytest ran six processes on two cores).
    result = gauntlet.run(Grammar.from_string(CRASHING), threads=2, duration=10, out=tmp_path / "out",
                          keep_going=True, known_bugs=known)
    assert len(result.summary()["rounds"]) >= 2
    assert result.findings and all(f["known"] for f in result.findings)
    assert result.exit_code == 0


@pytest.mark.slow
def test_ctrl_c_ends_a_keep_going_run_between_or_inside_rounds(tmp_path):
    grammar = tmp_path / "crash.yy"
    grammar.write_text(CRASHING)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "gauntlet", "run", "--grammar", str(grammar), "--keep-going",
                             "--duration", "120", "--threads", "4", "--out", str(out)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out / "rounds" / "003").exists():
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert "Traceback" not in stderr
    s = json.loads((out / "summary.json").read_text())
    assert proc.returncode == (1 if s["findings"] else 130), stderr  # findings first, as in any run
    assert s["stop_reason"] == "interrupted" and s["signal"] == "SIGINT"
    assert len(s["rounds"]) >= 2 and "rounds " in stdout
    deadline = time.monotonic() + 10
    while processes_under(out) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_under(out) == []
