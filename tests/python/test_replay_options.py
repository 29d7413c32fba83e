"""Replay's --until-seq and --unordered, through the command a user types, on a real MariaDB."""

import json
import subprocess
import sys

import gauntlet

GRAMMAR = ("query_init: CREATE TABLE IF NOT EXISTS t (a INT) ;\n"
           "query: INSERT INTO t VALUES (_digit) | SELECT COUNT(*) FROM t | DELETE FROM t WHERE a = _digit ;")


def test_until_seq_and_unordered_replay_what_they_say(tmp_path):
    run = tmp_path / "run"
    r = gauntlet.run(gauntlet.Grammar.from_string(GRAMMAR), threads=2, queries=60, duration=0, data="none",
                     statement_log=True, out=run)
    logged = sorted(line["seq"] for n in (1, 2) for line in gauntlet._core.read_statement_log(
        str(run / f"statements-{n}.jsonl")))
    assert len(logged) == r.summary()["statements"] >= 120
    cut = logged[len(logged) // 2]
    p = subprocess.run([sys.executable, "-m", "gauntlet", "replay", str(run), "--until-seq", str(cut),
                        "--unordered", "--out", str(tmp_path / "half")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    half = gauntlet.RunResult.load(tmp_path / "half")
    assert half.summary()["statements"] == cut  # seq 0 .. cut-1, no more
    assert half.summary()["stop_reason"] == "script" and not half.findings
    recorded = json.loads((tmp_path / "half" / "run.json").read_text())
    assert (recorded["until_seq"], recorded["ordered"]) == (cut, False)
    # Unordered: each session runs its own statements freely, all of them, each once.
    replayed = [line for n in (1, 2)
                for line in gauntlet._core.read_statement_log(str(tmp_path / "half" / f"statements-{n}.jsonl"))]
    assert sorted(x["sql"] for x in replayed) == sorted(
        x["sql"] for n in (1, 2) for x in gauntlet._core.read_statement_log(str(run / f"statements-{n}.jsonl"))
        if x["seq"] < cut)
