"""Generation speed per core against RQG's measured figures.

RQG cannot run here (it is not packaged), so its CPU figures come from
../shared/notes/machine.md, measured with gensql.pl on this machine type:
100,000 queries, user CPU time. We measure the same way: one thread, CPU time,
best of 3. "engine" is Generator.advance() after a warm-up (time.process_time);
"CLI" is the command a user runs, `gauntlet gensql --queries N > /dev/null`,
start-up, grammar loading, splitting and writing included (the child's user +
system CPU time), with N = 10 x BENCH_QUERIES.

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_generate.py
"""

import os
import pathlib
import resource
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import gauntlet  # noqa: E402

SHARED = pathlib.Path(os.environ.get("GAUNTLET_SHARED",
                                     pathlib.Path(__file__).resolve().parents[2] / "shared"))
# Queries per CPU second of RQG's gensql.pl (machine.md).
RQG = {
    "conf__examples__example.yy": 18_700,
    "conf__percona_qa__5.6__5.6.yy": 23_800,
    "conf__transactions__transactions.yy": 9_500,
    "conf__optimizer__optimizer_no_subquery.yy": 1_170,
}
QUERIES = int(os.environ.get("BENCH_QUERIES", "100000"))


def measure(path: pathlib.Path) -> tuple:
    grammar = gauntlet.Grammar.from_file(str(path))
    best = float("inf")
    for attempt in range(3):
        gen = grammar.generator(seed=attempt + 1)
        gen.advance(1000)
        start = time.process_time()
        nbytes = gen.advance(QUERIES)
        best = min(best, time.process_time() - start)
    return QUERIES / best, nbytes / QUERIES


def measure_cli(path: pathlib.Path) -> float:
    queries = 10 * QUERIES
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[1] / "python")}
    best = float("inf")
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "gauntlet", "gensql", "--grammar", str(path), "--queries",
                        str(queries)], stdout=subprocess.DEVNULL, env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return queries / best


def main() -> int:
    print("| grammar | engine q/s | CLI q/s | CLI / engine | RQG q/s | engine / RQG | CLI / RQG | avg bytes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, rqg in RQG.items():
        path = SHARED / "rqg-grammars" / name
        qps, avg = measure(path)
        cli = measure_cli(path)
        print(f"| {name} | {qps:,.0f} | {cli:,.0f} | {cli / qps:.2f} | {rqg:,} | {qps / rqg:,.0f}x | "
              f"{cli / rqg:,.0f}x | {avg:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
