"""One hunt or run split over N CI jobs (--shard I/N): the jobs do disjoint work (seeds, rounds, option
rows), and triage over their folders gives one list."""

import json
import os
import subprocess
import sys

import pytest

from gauntlet import triage
from conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO / "python")}
# The known wrong result of test_hunt.py (temporal-conversion-is-null), new here (--known-bugs none).
PLANTED = """query_init: CREATE TABLE IF NOT EXISTS tv (e ENUM('a','b'), b VARBINARY(0)) ; INSERT INTO tv VALUES ('a', ''), ('b', '') ;
query: SELECT e FROM tv WHERE CAST(IFNULL(' 1', e) AS DATE) = b | SELECT e FROM tv WHERE e = _digit ;
"""


def gauntlet(cwd, *args, wait=True):
    p = subprocess.Popen([sys.executable, "-m", "gauntlet", *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return p.communicate() + (p.returncode,) if wait else p


def test_a_run_shard_takes_its_own_seed_and_its_rounds_step_by_the_shard_count(tmp_path):
    (tmp_path / "g.yy").write_text("query: SELECT _digit ;\n")
    out, err, code = gauntlet(tmp_path, "run", "--grammar", "g.yy", "--data", "none", "--seed", "10", "--queries", "5",
                              "--shard", "3/4", "--out", "r")
    assert code == 0, err
    record = json.loads((tmp_path / "r" / "run.json").read_text())
    assert record["seed"] == 12 and record["shard"] == {"index": 3, "count": 4}
    for bad in ("0/2", "3/2", "2", "a/b"):
        _, err, code = gauntlet(tmp_path, "run", "--grammar", "g.yy", "--queries", "1", "--shard", bad, "--out", "x")
        assert code == 2 and f"shard: I/N with 1 <= I <= N (the Ith of N CI jobs), not '{bad}'" in err
    _, err, code = gauntlet(tmp_path, "hunt", "--duration", "30", "--shard", "2/1", "--out", "h")
    assert code == 2 and "shard: I/N" in err


@pytest.mark.slow
def test_two_shards_of_a_hunt_do_disjoint_rounds_and_triage_over_both_gives_one_list(tmp_path):
    (tmp_path / "planted.yy").write_text(PLANTED)
    (tmp_path / "space.json").write_text('{"parameters": {"join_cache_level": [0, 8], "div_precision_increment": [2, 9]}}')
    jobs = [gauntlet(tmp_path, "hunt", "--duration", "36", "--round-seconds", "10", "--reduce-share", "0",
                     "--grammar", "planted.yy", "--no-stock", "--known-bugs", "none", "--options", "space.json",
                     "--threads", "1", "--shard", f"{i}/2", "--out", f"shard{i}", wait=False) for i in (1, 2)]
    for job in jobs:  # as two CI jobs at once
        out, err = job.communicate()
        assert job.returncode == 1, out + err[-3000:]  # the planted bug is new to each
    rounds = {i: json.loads((tmp_path / f"shard{i}" / "hunt.json").read_text())["rounds"] for i in (1, 2)}
    assert all(len(r) >= 2 for r in rounds.values()), rounds
    assert [r["round"] for r in rounds[1]] == list(range(1, 2 * len(rounds[1]), 2))  # 1, 3, ...
    assert [r["round"] for r in rounds[2]] == list(range(2, 2 * len(rounds[2]) + 1, 2))  # 2, 4, ...
    seeds = [{r["seed"] for r in rounds[i]} for i in (1, 2)]
    assert not seeds[0] & seeds[1]
    plan = json.loads((tmp_path / "shard1" / "hunt.json").read_text())["settings"]["options"]
    rows = [[plan.index(r["options"]) for r in rounds[i]] for i in (1, 2)]
    assert not set(rows[0]) & set(rows[1]), rows  # rows 1, 3 and 2, 4 of the covering array
    both = triage(tmp_path / "shard1", tmp_path / "shard2")
    [cause] = both.root_causes
    assert {f.split("/shard")[1][0] for f in cause["findings"]} == {"1", "2"}  # one cause, found by both jobs
    out, err, code = gauntlet(tmp_path, "triage", "shard1", "shard2")
    assert code == 0 and out.startswith("1 root causes of"), out + err
