"""gauntlet bench on real servers: a short A/B run with a known effect (the redo log flushed at
every commit or not), the verdict, the files and the plots; and bad input."""

import csv
import json
import subprocess
import sys

import gauntlet
import pytest

from faults import ENV


def test_a_slower_durability_setting_is_a_regression_with_files_and_plots(tmp_path):
    out = tmp_path / "bench"
    cmd = [sys.executable, "-m", "gauntlet", "bench", "--workload", "oltp_write_only", "--runs", "4",
           "--duration", "3", "--threads", "2", "--table-size", "1000", "--warmup", "0",
           "--target", "fast,innodb_flush_log_at_trx_commit=2", "--target", "safe,innodb_flush_log_at_trx_commit=1",
           "--out", str(out)]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr  # exit 1: a regression, for CI
    verdict = json.loads((out / "verdict.json").read_text())
    throughput = verdict["verdicts"]["safe"]["throughput"]
    assert verdict["regressed"] and throughput["verdict"] == "regressed", throughput
    assert throughput["ratio"] < 0.9 and throughput["interval"][1] < 0.98 and throughput["p_value"] < 0.05
    assert throughput["runs"] == [4, 4]
    runs = list(csv.DictReader((out / "runs.csv").read_text().splitlines()))
    assert [(x["target"], x["run"]) for x in runs] == [(t, str(i)) for i in range(1, 5) for t in ("fast", "safe")]
    assert all(x["metric"] == "transactions" and float(x["throughput"]) > 0 for x in runs)
    seconds = list(csv.DictReader((out / "timelines.csv").read_text().splitlines()))
    assert len(seconds) >= 8 * 2 and any(float(s["Innodb_data_fsyncs"] or 0) > 0 for s in seconds)
    for name in ("timelines", "boxes", "stalls"):
        png = (out / f"{name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
        assert (out / f"{name}.svg").read_text().count("<path") > 10
    assert "safe         throughput  regressed" in r.stdout


def test_bad_input_to_bench(tmp_path):
    with pytest.raises(gauntlet.InvalidInput, match="two targets or more"):
        gauntlet.bench([{"name": "a"}], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="runs must be 2 or more"):
        gauntlet.bench([{"name": "a"}, {"name": "b"}], runs=1, out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="neither a grammar file nor one of: .*oltp_point_select"):
        gauntlet.bench([{"name": "a"}, {"name": "b"}], workload="oltp_nothing", out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="servers Gauntlet starts"):
        gauntlet.bench([{"name": "a"}, {"name": "b", "server": "mysql://root@localhost/"}], out=tmp_path)
