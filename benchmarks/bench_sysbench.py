"""Gauntlet's OLTP grammars against sysbench's scripts, on the same managed server, in one run.

For oltp_point_select and oltp_read_only, Gauntlet runs grammars/oltp (oltp_common.yy + the
workload's file: the same statements and transactions as sysbench) and sysbench runs the same
script with --db-ps-mode=disable (text protocol, as Gauntlet sends) and --rand-type=uniform
(the grammars' keys are uniform; sysbench's default "special" sends 75% of the queries to 1% of
the keys, which costs its server ~3% less CPU per point select here), both with 2 threads over
the Unix socket against the table sysbench prepared. After a warm-up, the two alternate
(A B B A ...) in rounds of SECONDS/2 so that neither profits from going first on a noisy
machine; reported are the medians of transactions/s and queries/s, their ratios (goal: within
10%, Gauntlet not slower), the p95 of both (per transaction, or per point select: sysbench's
events), and client CPU per query (user+system time of the
client process / queries).
Also: the time from "start server" to "ready with data" for a template copy.

With GAUNTLET_BASELINE=DIR (the python/ folder of another build, e.g. a
worktree of the previous commit with its _core module built), that build runs
the same workload in the same rotation, in a subprocess, and the report adds
the throughput ratio of this build to it: how a change moved the hot path
(e.g. "one target without result oracles stays within 5%").

    make bench   # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_sysbench.py [seconds]
"""

import json
import os
import pathlib
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import gauntlet  # noqa: E402

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 20
TABLE_SIZE = 10000


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


WORKLOADS = ("oltp_point_select", "oltp_read_only")
# RQG's way to pick a key: a Perl block (run without entering Perl when it is just this call).
PERL_POINT_SELECT = "query: SELECT c FROM sbtest1 WHERE id = { $prng->int(1,10000) } ;"


def sysbench(server, workload, *args) -> tuple:
    cmd = ["sysbench", workload, f"--mysql-socket={server.socket}", "--mysql-user=root",
           "--mysql-db=sbtest", "--tables=1", f"--table-size={TABLE_SIZE}", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, cpu


def main() -> int:
    work = pathlib.Path(tempfile.mkdtemp(prefix="gauntlet-bench-"))
    # Template copy -> ready with RQG's default data (the template exists after
    # the first start on this machine, so start once to make sure).
    gauntlet.ManagedServer(work / "warm").start().stop()
    t0 = time.monotonic()
    probe = gauntlet.run(ROOT / "grammars" / "optimizer.yy", queries=1, duration=0, threads=1, out=work / "probe")
    info = probe.summary()
    print(f"server start from template copy: {info['server_ready_seconds']:.2f} s; "
          f"ready with data (1,242 rows): {info['ready_with_data_seconds']:.2f} s; "
          f"load rate {info['load']['rows_per_second']:,.0f} rows/s; whole probe run {time.monotonic() - t0:.2f} s")

    server = gauntlet.ManagedServer(work / "server", core_file=False)
    server.start()
    try:
        server.connect().query("CREATE DATABASE sbtest")
        sysbench(server, "oltp_point_select", "prepare")  # the table both workloads read
        for workload in WORKLOADS:
            compare_with_sysbench(server, workload, work)
        compare_with_sysbench(server, "oltp_point_select", work, PERL_POINT_SELECT)
    finally:
        server.stop()
    return 0


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if len(values) % 2 else sum(values[len(values) // 2 - 1:][:2]) / 2


def compare_with_sysbench(server, workload: str, work: pathlib.Path, text: str = "") -> None:
    """Gauntlet's grammar for `workload` (or the grammar `text`) against sysbench's `workload`."""
    grammar = [str(ROOT / "grammars" / "oltp" / "oltp_common.yy"), str(ROOT / "grammars" / "oltp" / f"{workload}.yy")]
    label = f"grammars/oltp/{workload}.yy" if not text else text

    def gauntlet_round(seconds):
        cpu0 = cpu_self()
        source = gauntlet.Grammar.from_string(text) if text else grammar[0]
        r = gauntlet.run(source, redefine=[] if text else grammar[1:], server=server, data="none", threads=2,
                         duration=seconds, out=work / "gauntlet", overwrite=True)
        s = r.summary()
        assert s["outcomes"]["ok"] == s["statements"], s["outcomes"]
        # sysbench's events: a transaction, or a point select; latency per event, as sysbench's
        tps = s["transactions_per_second"] or s["queries_per_second"]
        return tps, s["statements_per_second"], (cpu_self() - cpu0) / s["statements"], s["query_latency_ms"]["p95"]

    baseline = None if text else os.environ.get("GAUNTLET_BASELINE")

    def baseline_round(seconds):
        code = (f"import gauntlet, json; r = gauntlet.run({grammar[0]!r}, redefine={grammar[1:]!r}, "
                f"server={server.dsn!r}, data='none', threads=2, duration={seconds}, "
                f"out={str(work / 'baseline')!r}, overwrite=True); s = r.summary(); "
                "print(json.dumps([s['transactions_per_second'] or s.get('queries_per_second', "
                "s['statements_per_second']), s['statements_per_second'], s['statements'], "
                "s.get('query_latency_ms', s['latency_ms'])['p95']]))")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": baseline}).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        tps, qps, n, p95 = json.loads(out.strip().splitlines()[-1])
        return tps, qps, ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / n, p95

    def sysbench_round(seconds):
        out, cpu = sysbench(server, workload, "--db-ps-mode=disable", "--rand-type=uniform", "--threads=2", f"--time={int(seconds)}",
                            "--report-interval=0", "run")
        tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
        m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", out)
        p95 = float(re.search(r"95th percentile:\s+([\d.]+)", out).group(1))
        return tps, float(m.group(2)), cpu / int(m.group(1)), p95

    gauntlet_round(3)  # warm-up: buffer pool, template caches
    sysbench_round(3)
    rounds = {"g": [], "s": [], "b": []}
    half = max(2, SECONDS / 2)
    play = {"g": gauntlet_round, "s": sysbench_round, "b": baseline_round}
    for order in (("gsb", "bsg", "gsb", "bsg") if baseline else ("gs", "sg", "gs", "sg")):
        for who in order:
            rounds[who].append(play[who](half))
    g = [median([r[i] for r in rounds["g"]]) for i in range(4)]
    sb = [median([r[i] for r in rounds["s"]]) for i in range(4)]
    print(f"\n{workload}{' (' + label + ')' if text else ''}: medians of 4 rounds of {half:.0f} s, 2 threads")
    print("| client | transactions/s | queries/s | client CPU µs/query | p95 ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| Gauntlet ({label}) | {g[0]:,.0f} | {g[1]:,.0f} | {1e6 * g[2]:.1f} | {g[3]:.3f} |")
    print(f"| sysbench {workload} --db-ps-mode=disable --rand-type=uniform | {sb[0]:,.0f} | {sb[1]:,.0f} | {1e6 * sb[2]:.1f} | {sb[3]:.3f} |")
    ok = g[0] / sb[0] >= 0.9 and g[1] / sb[1] >= 0.9
    print(f"ratio Gauntlet/sysbench: TPS {g[0] / sb[0]:.2f}, QPS {g[1] / sb[1]:.2f} (goal: within 10%, not slower: "
          f"{'met' if ok else 'MISSED'}); per-round QPS ratios "
          f"{', '.join(f'{a[1] / b[1]:.2f}' for a, b in zip(rounds['g'], rounds['s']))}")
    if rounds["b"]:
        b = [median([r[i] for r in rounds["b"]]) for i in range(4)]
        print(f"baseline {baseline}: {b[1]:,.0f} queries/s, {1e6 * b[2]:.1f} µs CPU/query; this build / baseline: "
              f"{g[1] / b[1]:.3f} (per round {', '.join(f'{a[1] / x[1]:.3f}' for a, x in zip(rounds['g'], rounds['b']))})")


if __name__ == "__main__":
    sys.exit(main())
