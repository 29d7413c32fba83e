"""Campaigns on real servers: a row per plan row, a server that refuses a row's options recorded as
an invalid combination, resume after a kill, parallel rows (processes and a Dask LocalCluster),
the failing values and pairs, and the minimal option set of a finding."""

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time

import gauntlet
import pytest
from gauntlet import Campaign, CampaignResult, OptionSpace

from conftest import REPO
from faults import ENV, killed_outright_leaves_nothing

UDF_DIR = REPO / "build" / "tests" / "udf"
# The server crashes (a UDF standing in for a bug) only when both div_precision_increment=8 and
# lc_time_names=es_ES are set.
GRAMMAR = """
query_init: CREATE FUNCTION IF NOT EXISTS crash_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so' ;
query: ==FACTOR:20== SELECT _digit | SELECT crash_if((1/3 = 0.33333333) AND (DAYNAME('2024-01-07') = 'domingo')) ;
"""
SPACE = {"parameters": {"div_precision_increment": [4, 8], "lc_time_names": ["en_US", "es_ES"],
                        "table_open_cache": [200, 400], "tmp_table_size": ["8M", "16M"],
                        "optimizer_switch.mrr": ["on", "off"]},
         "invalid": {"innodb_flush_method": ["bogus_method"]}}


@pytest.fixture(scope="module")
def grammar_file(tmp_path_factory):
    if not (UDF_DIR / "gauntlet_crash_if.so").exists():
        pytest.fail(f"{UDF_DIR}/gauntlet_crash_if.so is not built (make build)")
    path = tmp_path_factory.mktemp("g") / "crash_when_both.yy"
    path.write_text(GRAMMAR)
    return path


def _space_dict():
    return dict(SPACE, parameters={**SPACE["parameters"], "innodb_flush_method": ["fsync"]})


def _space():
    return OptionSpace.from_dict(_space_dict())


def _settings(grammar_file):
    return {"grammar": grammar_file, "threads": 1, "queries": 60, "duration": 0,
            "mysqld": [f"plugin-dir={UDF_DIR}"]}


@pytest.fixture(scope="module")
def campaign(grammar_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("campaign") / "out"
    plan = _space().covering()
    result = Campaign(plan, out, **_settings(grammar_file)).run()
    return plan, out, result


def test_every_row_runs_and_a_refused_combination_is_recorded(campaign):
    plan, out, result = campaign
    assert len(result.rows) == len(plan) and [r["row"] for r in result.rows] == list(range(len(plan)))
    statuses = [r["status"] for r in result.rows]
    invalid = [r for r in result.rows if r["status"] == "invalid"]
    assert len(invalid) == 1 and invalid[0]["values"]["innodb_flush_method"] == "bogus_method"
    assert "Error while setting value 'bogus_method' to 'innodb-flush-method'" in invalid[0]["error_lines"]
    both = [r for r in result.rows if r["values"]["div_precision_increment"] == 8
            and r["values"]["lc_time_names"] == "es_ES" and r["status"] != "invalid"]
    assert both and all(r["status"] == "failed" for r in both)
    assert statuses.count("failed") == len(both) and "error" not in statuses
    for r in both:
        assert [f["kind"] for f in r["findings"]] == ["crash"]
    for r in result.rows:
        assert (out / "rows" / f"{r['row'] + 1:03d}" / "summary.json").exists()
        if r["status"] == "passed":  # day-one bug: rows lacked throughput and latency
            assert r["statements_per_second"] > 0 and 0 < r["latency_ms"]["p50"] <= r["latency_ms"]["p99"], r
        assert "plugin-dir=" + str(UDF_DIR) == r["mysqld"][0]
    frame = result.to_pandas()
    assert {"statements_per_second", "p50_ms", "p95_ms", "p99_ms"} <= set(frame.columns)
    assert "optimizer_switch=mrr=" in " ".join(result.rows[0]["mysqld"])
    assert "invalid" in repr(result) and "failing pair" in result.table()


@pytest.mark.slow
def test_the_failing_pair_stands_out_and_its_options_are_found_minimal(campaign):
    _, out, result = campaign
    pairs = result.by_pair()
    top = [p["values"] for p in pairs if (p["share"], p["failed"]) == (pairs[0]["share"], pairs[0]["failed"])]
    assert {"div_precision_increment": 8, "lc_time_names": "es_ES"} in top and pairs[0]["share"] == 1.0
    # No value alone goes with failures always: in a pairwise plan each of the two also meets
    # the other's other value, and those rows pass.
    assert all(v["share"] < 1.0 for v in result.by_value())
    failed = next(r for r in result.rows if r["status"] == "failed")
    minimal = CampaignResult.load(out).minimal_options(failed["row"])
    assert sorted(minimal) == ["div_precision_increment=8", "lc_time_names=es_ES"]
    invalid = next(r for r in result.rows if r["status"] == "invalid")
    assert result.minimal_options(invalid["row"]) == ["innodb_flush_method=bogus_method"]


@pytest.mark.slow
def test_an_interrupted_campaign_resumes_where_it_stopped(grammar_file, tmp_path):
    space = tmp_path / "space.json"
    space.write_text(json.dumps(_space_dict()))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "gauntlet", "campaign", str(space), "--grammar", str(grammar_file),
           "--threads", "1", "--queries", "60", "--duration", "0", "--mysqld", f"plugin-dir={UDF_DIR}",
           "--out", str(out)]
    log = open(tmp_path / "first.log", "w")
    first = subprocess.Popen(cmd, env=ENV, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 2):
        assert first.poll() is None, (tmp_path / "first.log").read_text()
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)  # no goodbye: the way a machine goes down
    first.wait()
    log.close()
    before = results.read_text().splitlines()
    assert 2 <= len(before) < len(json.loads((out / "campaign.json").read_text())["rows"])
    again = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1, again.stdout + again.stderr  # a row crashed the server
    after = results.read_text().splitlines()
    assert after[:len(before)] == before  # the rows done were not run again
    rows = [json.loads(line)["row"] for line in after]
    assert sorted(rows) == list(range(len(json.loads((out / "campaign.json").read_text())["rows"])))
    assert "campaign" in again.stdout and "failing pair: div_precision_increment=8 lc_time_names=es_ES" in again.stdout
    other = subprocess.run(cmd[:-1] + [str(out)] + ["--strength", "1"], env=ENV, capture_output=True, text=True)
    assert other.returncode == 2 and "holds another campaign" in other.stderr


@pytest.mark.slow
def test_parallel_rows_run_at_once_on_their_own_servers(grammar_file, tmp_path):
    plan = _space().covering()
    result = Campaign(plan, tmp_path / "out", parallel=2, **_settings(grammar_file)).run()
    assert sorted(r["row"] for r in result.rows) == list(range(len(plan)))
    assert sum(r["status"] == "failed" for r in result.rows) >= 1
    spans = sorted((r["started"], r["seconds"]) for r in result.rows)
    assert any(b[0] < a[0] + a[1] for a, b in zip(spans, spans[1:]))  # some overlapped


# Debian's distributed 2022.12 with its newer tornado: deprecation warnings of theirs, not ours.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_rows_run_on_a_dask_cluster(grammar_file, tmp_path):
    import distributed  # python3-distributed, installed by make deps
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        plan = _space().covering()
        result = Campaign(plan, tmp_path / "out", cluster=client, **_settings(grammar_file)).run()
        # The command line's way in: a scheduler's address, where the campaign opens its own client.
        space = tmp_path / "space.json"
        space.write_text(json.dumps(_space_dict()))
        address = cl.scheduler_address
        assert address.startswith("tcp://127.0.0.1:"), address
        cli = subprocess.run([sys.executable, "-m", "gauntlet", "campaign", str(space), "--grammar", str(grammar_file),
                              "--threads", "1", "--queries", "60", "--duration", "0", "--mysqld",
                              f"plugin-dir={UDF_DIR}", "--cluster", address, "--out", str(tmp_path / "cli")],
                             env=ENV, capture_output=True, text=True, timeout=600)
        # Both campaigns' rows went through the scheduler: one task per row each.
        done = client.run_on_scheduler(lambda dask_scheduler: sorted({
            str(t[0]) for t in dask_scheduler.transition_log if str(t[0]).startswith("run_row-") and t[2] == "memory"}))
    assert sorted(r["row"] for r in result.rows) == list(range(len(plan)))
    assert [r["status"] for r in result.rows].count("invalid") == 1
    assert sum(r["status"] == "failed" for r in result.rows) >= 1
    assert cli.returncode == 1, cli.stdout + cli.stderr  # a row crashed its server
    rows = CampaignResult(tmp_path / "cli").rows
    assert sorted(r["row"] for r in rows) == list(range(len(plan)))
    assert [r["status"] for r in rows] == [r["status"] for r in sorted(result.rows, key=lambda r: r["row"])]
    assert len(done) == 2 * len(plan), done


@pytest.mark.slow
def test_eight_servers_start_at_once_on_tcp_and_share_one_data_template(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("GAUNTLET_CACHE", str(cache))
    def start(i):
        s = gauntlet.ManagedServer(tmp_path / f"s{i}", tcp=True)
        s.start()
        return s
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        servers = list(pool.map(start, range(8)))
    try:
        assert all(s.alive for s in servers) and len({s.port for s in servers}) == 8
        for s in servers:
            socket.create_connection(("127.0.0.1", s.port), timeout=10).close()
    finally:
        for s in servers:
            s.stop()

    def run(i):
        return gauntlet.run("builtin:select", queries=20, duration=0, threads=1, out=tmp_path / f"r{i}",
                            data_template=True, mysqld=[f"table_open_cache={200 + i}"])
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, range(4)))
    assert all(r.summary()["stop_reason"] == "queries" for r in results), [r.summary()["stop_reason"]
                                                                           for r in results]
    templates = [p for p in (cache / "data").iterdir() if p.is_dir()]
    assert len(templates) == 1 and (templates[0] / "READY").exists()  # the options do not touch the data
    again = run(9)
    assert again.summary()["load"].get("from_template") == str(templates[0])


def test_workload_dimensions_vary_by_row(tmp_path):
    rows = [{"engine": "MyISAM", "threads": 1, "join_cache_level": 2},
            {"engine": "InnoDB", "threads": 2, "join_cache_level": 4}]
    result = Campaign(rows, tmp_path / "out", grammar="builtin:select", queries=10, duration=0).run()
    assert [r["status"] for r in result.rows] == ["passed", "passed"]
    for r in result.rows:
        folder = tmp_path / "out" / "rows" / f"{r['row'] + 1:03d}"
        run = json.loads((folder / "run.json").read_text())
        assert run["targets"][0]["engine"] == rows[r["row"]]["engine"]
        assert json.loads((folder / "summary.json").read_text())["threads"] == rows[r["row"]]["threads"]
        assert r["mysqld"] == [f"join_cache_level={rows[r['row']]['join_cache_level']}"]


@pytest.mark.slow
def test_a_campaign_killed_outright_leaves_no_row_and_no_server(grammar_file, tmp_path):
    """Only the campaign's own process is killed (not its process group): its row processes and
    their servers go with it."""
    space = tmp_path / "space.json"
    space.write_text(json.dumps(_space_dict()))
    out = tmp_path / "out"
    killed_outright_leaves_nothing(["campaign", space, "--grammar", grammar_file, "--threads", "1", "--duration", "60",
                                    "--mysqld", f"plugin-dir={UDF_DIR}", "--parallel", "2", "--out", out], out, servers=2)


def test_a_campaign_in_which_no_row_ran_exits_2_and_a_clamped_value_is_flagged(tmp_path):
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"parameters": {"join_cache_level": [4, 99]}}))
    # A misspelt option of the campaign's: every row errs, so nothing was tested.
    r = subprocess.run([sys.executable, "-m", "gauntlet", "campaign", str(space), "--grammar", "builtin:select",
                        "--queries", "5", "--duration", "0", "--mysqld", "innodb_bufer_pool_size=64M",
                        "--out", str(tmp_path / "none")], env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "no row ran: row 0:" in r.stdout and "innodb_bufer_pool_size" in r.stdout, r.stdout
    # join_cache_level=99 runs as 8 without a word: the row says so; 4 is as planned.
    result = Campaign([{"join_cache_level": 4}, {"join_cache_level": 99}], tmp_path / "clamped",
                      grammar="builtin:select", queries=5, duration=0, mysqld=["innodb_buffer_pool_size=64M"]).run()
    assert [r["status"] for r in result.rows] == ["passed", "passed"] and result.exit_code == 0
    assert "clamped" not in result.rows[0], result.rows[0]  # 64M is 67108864, 4 is 4
    assert result.rows[1]["clamped"] == {"join_cache_level": {"planned": "99", "ran": "8"}}
    assert "row 1: join_cache_level=99 ran as 8" in result.table()
