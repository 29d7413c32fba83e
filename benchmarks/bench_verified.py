"""How many statements the oracles check through per second, against the plain statement rate.

`make demo`'s setup: grammars/optimizer.yy on the stock data, seed 1, 2 sessions, BENCH_SECONDS
(default 30) each run, against the managed MariaDB. Runs alternate, plain (the error log only, no
statement checked) and checked (errorlog, tlp, norec, transforms), BENCH_RUNS times each (default
2), so that both meet the same machine. Printed: each run's statements/s, the checked runs'
verified/s (statements at least one oracle passed or fired on), the median ratio of verified/s to
the plain statements/s (issue 40 asks for at least 0.2), and each oracle's skip share (skipped of
what it saw: passed + fired + skipped; issue 40 asks for at most 15%).

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_verified.py
"""

import os
import pathlib
import statistics
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import gauntlet  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "30"))
RUNS = int(os.environ.get("BENCH_RUNS", "2"))
CHECKED = ["errorlog", "tlp", "norec", "transforms"]


def run(oracles: list) -> dict:
    with tempfile.TemporaryDirectory() as out:
        r = gauntlet.run(str(ROOT / "grammars" / "optimizer.yy"), seed=1, threads=2, duration=SECONDS,
                         oracles=oracles, out=out)
        return r.summary()


def per_second(summary: dict, key: str) -> float:
    return summary[key] / max(summary["seconds"], 1e-9)


def main() -> int:
    plain, checked = [], []
    for _ in range(RUNS):
        plain.append(run(["errorlog"]))
        checked.append(run(CHECKED))
    print(f"optimizer.yy, stock data, seed 1, 2 sessions, {SECONDS:.0f} s a run, {RUNS} runs a side")
    print("| run | statements/s | verified/s | verified/s : plain statements/s |")
    print("| --- | ---: | ---: | ---: |")
    ratios = []
    for p, c in zip(plain, checked):
        ratio = per_second(c, "verified") / per_second(p, "statements")
        ratios.append(ratio)
        print(f"| plain | {per_second(p, 'statements'):,.0f} | | |")
        print(f"| {', '.join(CHECKED)} | {per_second(c, 'statements'):,.0f} | {per_second(c, 'verified'):,.0f} | "
              f"{ratio:.2f} |")
    print(f"median verified/s : plain statements/s: {statistics.median(ratios):.2f}")
    print("| oracle | saw | skipped | skip share |")
    print("| --- | ---: | ---: | ---: |")
    for name in sorted(checked[-1]["oracles"]):
        saw = sum(c["oracles"][name]["checked"] for c in checked)
        skipped = sum(c["oracles"][name]["skipped"] for c in checked)
        if saw:
            print(f"| {name} | {saw:,} | {skipped:,} | {skipped / saw:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
