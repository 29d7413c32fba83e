"""One hunt over many machines: `gauntlet hunt --dask ADDRESS` hands its rounds to a Dask cluster's
workers (each with its own servers) and gathers their round folders in one folder, triaged as one
hunt. Tested with a local cluster of two worker processes."""

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, check_output_files

# A grammar of the known wrong result of test_hunt.py (temporal-conversion-is-null), new here.
PLANTED = """query_init: CREATE TABLE IF NOT EXISTS tv (e ENUM('a','b'), b VARBINARY(0)) ; INSERT INTO tv VALUES ('a', ''), ('b', '') ;
query: SELECT e FROM tv WHERE CAST(IFNULL(' 1', e) AS DATE) = b | SELECT e FROM tv WHERE e = _digit ;
"""


# Debian's distributed 2022.12 with its newer tornado: deprecation warnings of theirs, not ours.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_hunt_on_a_cluster_of_two_workers_gathers_both_workers_rounds(tmp_path):
    import distributed  # python3-distributed, installed by make deps
    (tmp_path / "planted.yy").write_text(PLANTED)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        # A quarter of the budget kept for the end: mariadb-test-run checks the cause's minimal query.
        # Four rounds, two at a time, whatever the machine's load: the budget only a ceiling.
        r = subprocess.run([sys.executable, "-m", "gauntlet", "hunt", "--duration", "120", "--rounds", "4",
                            "--round-seconds", "10", "--reduce-share", "0.25", "--grammar", "planted.yy", "--no-stock",
                            "--known-bugs", "none", "--threads", "1", "--dask", cl.scheduler_address, "--out", "out"],
                           cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(REPO / "python")}, capture_output=True, text=True,
                           timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr[-3000:]  # the planted bug, new
    record = json.loads((tmp_path / "out" / "hunt.json").read_text())
    rounds = record["rounds"]
    assert len({x["worker"] for x in rounds}) == 2, rounds  # both workers ran rounds
    assert [x["round"] for x in rounds] == [1, 2, 3, 4] and record["stop_reason"] == "rounds"
    assert all(x["grammar"] == str(tmp_path / "planted.yy") for x in rounds)
    for x in rounds:  # each folder back in OUT, without the servers' datadirs, naming this machine's paths
        folder = tmp_path / "out" / x["folder"]
        assert (folder / "summary.json").is_file() and not list(folder.glob("rounds/*/server*/data"))
        assert json.loads((folder / "run.json").read_text())["grammar"] == str(tmp_path / "planted.yy")
    [cause] = record["causes"]
    assert cause["count"] >= len(rounds) and cause["reproducer"]["verified"], cause
    assert "1 new" in r.stdout
    check_output_files(tmp_path / "out")
