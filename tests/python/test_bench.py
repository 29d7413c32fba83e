"""gauntlet bench on real servers: a short A/B run with a known effect (the redo log flushed at
every commit or not), the verdict, the files and the plots; open loop; a scaling curve;
best-to-best over option plans; the query-level comparison; and bad input."""

import csv
import json
import subprocess
import sys

import gauntlet
import pytest

from faults import ENV

pytestmark = pytest.mark.timing


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
    with pytest.raises(gauntlet.InvalidInput, match="targets: a list of targets"):
        gauntlet.bench([], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="threads must be distinct whole numbers"):
        gauntlet.scaling([{"name": "a"}], threads=[2, 2], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="best_to_best: two sides"):
        gauntlet.best_to_best([{"name": "a", "space": {"parameters": {"x": [1]}}}], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="varies server options, not the workload .threads."):
        gauntlet.best_to_best([{"name": "a", "plan": [{"threads": 2}]}, {"name": "b"}], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="compare_queries: two targets or more"):
        gauntlet.compare_queries([{"name": "a"}], out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="runs must be 2 or more"):
        gauntlet.bench([{"name": "a"}, {"name": "b"}], runs=1, out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="neither a grammar file nor one of: .*oltp_point_select"):
        gauntlet.bench([{"name": "a"}, {"name": "b"}], workload="oltp_nothing", out=tmp_path)
    with pytest.raises(gauntlet.InvalidInput, match="servers Gauntlet starts"):
        gauntlet.bench([{"name": "a"}, {"name": "b", "server": "mysql://root@localhost/"}], out=tmp_path)


def test_open_loop_keeps_the_rate_and_idle_sessions_are_no_hang(tmp_path):
    grammar = gauntlet.Grammar.from_string("query: SELECT 1 ; SELECT 2 ;")
    paced = gauntlet.run(grammar, data="none", threads=2, duration=4, rate=100, out=tmp_path / "paced")
    s = paced.summary()
    assert s["stop_reason"] == "duration" and s["rate"] == 100
    # Poisson arrivals: 400 expected, a standard deviation of 20.
    assert 300 <= s["queries_done"] <= 500 and s["statements"] == 2 * s["queries_done"], s["queries_done"]
    assert all(0 < sec["queries"] < 250 for sec in paced.timeline()), [x["queries"] for x in paced.timeline()]
    assert s["query_latency_ms"]["p95"] >= s["latency_ms"]["p95"] > 0  # a query is its two statements
    closed = gauntlet.run(grammar, data="none", threads=2, duration=2, out=tmp_path / "closed").summary()
    assert closed["rate"] == 0 and closed["queries_per_second"] > 5 * s["queries_per_second"]
    # A query every 5 s on average, a 2 s hang timeout: sessions wait for work, nothing hangs.
    idle = gauntlet.run(grammar, data="none", threads=2, duration=6, rate=0.2, hang_timeout=2, out=tmp_path / "idle")
    assert idle.summary()["stop_reason"] == "duration", idle.summary()["findings"]
    with pytest.raises(gauntlet.InvalidInput, match="rate: must be a number from 0"):
        gauntlet.run(grammar, data="none", rate=-1, out=tmp_path / "bad")


def test_a_scaling_curve_over_thread_counts(tmp_path):
    curve = gauntlet.scaling([{"name": "one"}], threads=[1, 2], workload="oltp_point_select", runs=2, duration=2,
                             table_size=1000, warmup=0, out=tmp_path)
    assert curve.threads == [1, 2] and not curve.regressed
    points = curve.curve()["one"]
    assert [p[0] for p in points] == [1, 2] and all(p[2] <= p[1] <= p[3] and p[1] > 100 for p in points)
    lines = list(csv.DictReader((tmp_path / "scaling.csv").read_text().splitlines()))
    assert [(x["threads"], x["run"]) for x in lines] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert all(float(x["p95_ms"]) > 0 and float(x["qps"]) > 0 for x in lines)
    assert (tmp_path / "scaling.png").read_bytes()[:4] == b"\x89PNG" and (tmp_path / "threads-2" / "runs.csv").exists()
    assert "baseline" in curve.table() and "<ScalingResult threads [1, 2]" in repr(curve)


def test_best_to_best_screens_each_plan_and_compares_the_bests(tmp_path):
    config = tmp_path / "targets.json"
    (tmp_path / "durability.json").write_text(json.dumps({"parameters": {"innodb_flush_log_at_trx_commit": [1, 2]}}))
    config.write_text(json.dumps({"targets": [
        {"name": "tuned", "space": "durability.json"},
        {"name": "strict", "plan": [{"innodb_flush_log_at_trx_commit": 1}]}]}))
    out = tmp_path / "b2b"
    cmd = [sys.executable, "-m", "gauntlet", "bench", "--workload", "oltp_write_only", "--config", str(config),
           "--runs", "2", "--duration", "1.5", "--screen-duration", "2", "--screen-runs", "1", "--threads", "2",
           "--table-size", "1000", "--warmup", "0", "--out", str(out)]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    screened = {(x["side"], x["options"]): float(x["throughput"])
                for x in csv.DictReader((out / "screening.csv").read_text().splitlines())}
    fsync, no_fsync = "innodb_flush_log_at_trx_commit=1", "innodb_flush_log_at_trx_commit=2"
    assert sorted(screened) == [("strict", fsync), ("tuned", fsync), ("tuned", no_fsync)]
    assert screened[("tuned", no_fsync)] > screened[("tuned", fsync)], screened  # no fsync at each commit
    assert "tuned: best by throughput: innodb_flush_log_at_trx_commit=2" in r.stdout
    final = json.loads((out / "final" / "verdict.json").read_text())
    assert [t["options"] for t in final["settings"]["targets"]] == [{"innodb_flush_log_at_trx_commit": "2"},
                                                                   {"innodb_flush_log_at_trx_commit": "1"}]
    assert final["verdicts"]["strict"]["throughput"]["runs"] == [2, 2]
    assert "jitter" not in final["verdicts"]["strict"]  # one second a run: no jitter to compare


def test_a_query_level_comparison_finds_the_class_an_option_slows(tmp_path, tmp_path_factory):
    grammar = tmp_path / "joins.yy"
    grammar.write_text("query: join | point ;\n"
                       "join: SELECT COUNT(*) FROM t1 AS x JOIN t2 AS y ON x.v = y.v ;\n"
                       "point: SELECT v FROM t1 WHERE id = _digit ;\n")
    data = tmp_path / "joins.json"
    data.write_text(json.dumps({"tables": [
        {"name": name, "rows": 500, "columns": [{"name": "id", "type": "int", "primary": True, "auto_increment": True},
                                                 {"name": "v", "type": "int", "values": "_uniform(1, 100)"}]}
        for name in ("t1", "t2")]}))
    out = tmp_path / "cmp"
    cmd = [sys.executable, "-m", "gauntlet", "bench", "--workload", str(grammar), "--data", str(data), "--runs", "0",
           "--per-query", "--duration", "5", "--threads", "1", "--target", "base", "--target",
           "nobuffer,join_cache_level=0", "--out", str(out)]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr  # a slower class is a regression
    classes = {c["skeleton"]: c for c in json.loads((out / "queries" / "query_classes.json").read_text())
               ["classes"]["nobuffer"]}
    join = classes["SELECT COUNT(*) FROM _ AS _ JOIN _ AS _ ON _ . _ = _ . _"]
    assert join["verdict"] == "slower" and join["interval"][0] > 1.2, join  # 1.36 under CI load, 1.6-2.2 quiet
    # (Point selects right after such a join are slower on that server too, about 2x: measured
    # with the joins in the mix and not without them; so no claim about them here.)
    assert classes["SELECT _ FROM _ WHERE _ = ?"]["statements"] >= 6  # measured: in the table at all
    again = gauntlet.QueryComparison.from_run(out / "queries" / "run")
    assert again.regressed and again.classes["nobuffer"][0].skeleton == join["skeleton"]
    assert (out / "queries" / "queries.png").read_bytes()[:4] == b"\x89PNG"
    assert "slower" in r.stdout and "SELECT COUNT(*)" in r.stdout
    # A planted, partial summary (outside tmp_path, whose files must fit their formats).
    one = tmp_path_factory.mktemp("one")
    (one / "summary.json").write_text(json.dumps({"targets": [{"name": "a"}]}))
    with pytest.raises(gauntlet.InvalidInput, match="two targets or more and a statement log"):
        gauntlet.QueryComparison.from_run(one)


def test_a_planted_slow_group_of_runs_is_named_in_the_verdict(tmp_path):
    # Each run draws, once, whether its statements sleep: the runs' seeds decide, as a template did.
    planted = tmp_path / "planted.yy"
    planted.write_text("query: { $slow //= (rand() < 0.5 ? 1 : 0); $slow ? 'SELECT SLEEP(0.002)' : 'SELECT 1' } ;\n")
    r = gauntlet.bench([{"name": "a"}], workload=str(planted), runs=6, duration=3, threads=1, warmup=0,
                       out=tmp_path / "planted")
    [group] = r.groups.values()
    with open(tmp_path / "planted" / "runs.csv") as f:
        rates = {int(row["run"]): float(row["throughput"]) for row in csv.DictReader(f)}
    assert group["slow_runs"] and group["fast_runs"] and group["ratio"] < 0.2, group
    assert max(rates[i] for i in group["slow_runs"]) < 0.2 * min(rates[i] for i in group["fast_runs"]), rates
    verdict = json.loads((tmp_path / "planted" / "verdict.json").read_text())
    assert verdict["groups"]["a"]["slow_runs"] == group["slow_runs"]
    text = (tmp_path / "planted" / "verdict.txt").read_text()
    assert f"a: runs {', '.join(map(str, group['slow_runs']))} ran at" in text and "do not belong together" in text
    # The same sleep in every run: one population, no groups.
    steady = tmp_path / "steady.yy"
    steady.write_text("query: SELECT SLEEP(0.002) ;\n")
    quiet = gauntlet.bench([{"name": "a"}], workload=str(steady), runs=4, duration=3, threads=1, warmup=0,
                           out=tmp_path / "steady")
    assert not quiet.groups and "do not belong" not in (tmp_path / "steady" / "verdict.txt").read_text()
