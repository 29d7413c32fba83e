"""Generation speed per core against RQG's measured figures.

RQG cannot run here (it is not packaged), so its CPU figures come from
../shared/notes/machine.md, measured with gensql.pl on this machine type:
100,000 queries, user CPU time. We measure the same way: one thread, CPU time
(time.process_time), 100,000 queries per grammar after a warm-up, best of 3.

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_generate.py
"""

import os
import pathlib
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


def main() -> int:
    print(f"| grammar | Gauntlet q/s (1 core, CPU) | RQG q/s | ratio | avg bytes |")
    print(f"| --- | ---: | ---: | ---: | ---: |")
    for name, rqg in RQG.items():
        qps, avg = measure(SHARED / "rqg-grammars" / name)
        print(f"| {name} | {qps:,.0f} | {rqg:,} | {qps / rqg:,.0f}x | {avg:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
