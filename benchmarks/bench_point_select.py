"""Point selects against sysbench, on the same managed server, in one run.

Gauntlet runs grammars/oltp (oltp_common.yy + oltp_point_select.yy: the same
`SELECT c FROM sbtest1 WHERE id = N` as sysbench) and sysbench runs
`oltp_point_select --db-ps-mode=disable` (text protocol, as Gauntlet sends),
both with 2 threads over the Unix socket against the table sysbench
prepared. After a warm-up, the two alternate (A B B A ...) in rounds of
SECONDS/2 so that neither profits from going first on a noisy machine;
reported are the medians of queries/second, their ratio (goal >= 1.0), and
client CPU per statement (user+system time of the client process / queries).
Also: the time from "start server" to "ready with data" for a template copy.

With GAUNTLET_BASELINE=DIR (the python/ folder of another build, e.g. a
worktree of the previous commit with its _core module built), that build runs
the same workload in the same rotation, in a subprocess, and the report adds
the throughput ratio of this build to it: how a change moved the hot path
(e.g. "one target without result oracles stays within 5%").

    make bench   # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_point_select.py [seconds]
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


def sysbench(server, *args) -> tuple:
    cmd = ["sysbench", "oltp_point_select", f"--mysql-socket={server.socket}", "--mysql-user=root",
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
        sysbench(server, "prepare")

        def gauntlet_round(seconds):
            cpu0 = cpu_self()
            r = gauntlet.run(str(ROOT / "grammars" / "oltp" / "oltp_common.yy"),
                             redefine=[str(ROOT / "grammars" / "oltp" / "oltp_point_select.yy")],
                             server=server, data="none", threads=2, duration=seconds, out=work / "gauntlet",
                             overwrite=True)
            s = r.summary()
            assert s["outcomes"]["ok"] == s["statements"], s["outcomes"]
            return s["statements_per_second"], (cpu_self() - cpu0) / s["statements"], s["latency_ms"]["p95"]

        baseline = os.environ.get("GAUNTLET_BASELINE")

        def baseline_round(seconds):
            code = (f"import gauntlet, json; r = gauntlet.run({str(ROOT / 'grammars' / 'oltp' / 'oltp_common.yy')!r}, "
                    f"redefine=[{str(ROOT / 'grammars' / 'oltp' / 'oltp_point_select.yy')!r}], "
                    f"server={server.dsn!r}, data='none', threads=2, duration={seconds}, "
                    f"out={str(work / 'baseline')!r}, overwrite=True); s = r.summary(); "
                    "print(json.dumps([s['statements_per_second'], s['statements'], s['latency_ms']['p95']]))")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": baseline}).stdout
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            qps, n, p95 = json.loads(out.strip().splitlines()[-1])
            return qps, ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / n, p95

        def sysbench_round(seconds):
            out, cpu = sysbench(server, "--db-ps-mode=disable", "--threads=2", f"--time={int(seconds)}",
                                "--report-interval=0", "run")
            m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", out)
            p95 = float(re.search(r"95th percentile:\s+([\d.]+)", out).group(1))
            return float(m.group(2)), cpu / int(m.group(1)), p95

        gauntlet_round(3)  # warm-up: buffer pool, template caches
        sysbench_round(3)
        rounds = {"g": [], "s": [], "b": []}
        half = max(2, SECONDS / 2)
        play = {"g": gauntlet_round, "s": sysbench_round, "b": baseline_round}
        for order in (("gsb", "bsg", "gsb", "bsg") if baseline else ("gs", "sg", "gs", "sg")):
            for who in order:
                rounds[who].append(play[who](half))
    finally:
        server.stop()

    def median(values):
        values = sorted(values)
        return values[len(values) // 2] if len(values) % 2 else sum(values[len(values) // 2 - 1:][:2]) / 2

    g = [median([r[i] for r in rounds["g"]]) for i in range(3)]
    sb = [median([r[i] for r in rounds["s"]]) for i in range(3)]
    print(f"| client | queries/s | client CPU µs/query | p95 ms |")
    print(f"| --- | ---: | ---: | ---: |")
    print(f"| Gauntlet (grammars/oltp point select) | {g[0]:,.0f} | {1e6 * g[1]:.1f} | {g[2]:.3f} |")
    print(f"| sysbench oltp_point_select --db-ps-mode=disable | {sb[0]:,.0f} | {1e6 * sb[1]:.1f} | {sb[2]:.3f} |")
    print(f"ratio Gauntlet/sysbench: {g[0] / sb[0]:.2f} (goal >= 1.0); medians of 4 rounds of {half:.0f} s, "
          f"2 threads; per-round ratios "
          f"{', '.join(f'{a[0] / b[0]:.2f}' for a, b in zip(rounds['g'], rounds['s']))}")
    if rounds["b"]:
        b = [median([r[i] for r in rounds["b"]]) for i in range(3)]
        print(f"baseline {os.environ['GAUNTLET_BASELINE']}: {b[0]:,.0f} queries/s, {1e6 * b[1]:.1f} µs CPU/query; "
              f"this build / baseline: {g[0] / b[0]:.3f} (per round "
              f"{', '.join(f'{a[0] / x[0]:.3f}' for a, x in zip(rounds['g'], rounds['b']))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
