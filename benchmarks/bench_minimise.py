"""What minimising wrong results on the live server costs a hunt: the share of the sessions' time it
took, next to what the relation checks themselves took, measured in the same run.

A run of grammars/hunt/optimizer.yy on a random schema (seed 7) against the managed MariaDB for
BENCH_SECONDS (default 120), 2 sessions, with tlp, norec and transforms, as gauntlet hunt runs it.
From its summary: findings minimised, the relation checks (queries whose relation was checked) and
seconds minimisation took, as a share of the sessions' time (seconds x sessions); and the
statements per second of the run against the same grammar and seed without oracles (the peer), which
is what all oracle work together costs.

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_minimise.py
"""

import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import gauntlet  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "120"))
THREADS = 2


def hunt(oracles: list) -> dict:
    with tempfile.TemporaryDirectory() as out:
        r = gauntlet.run(str(ROOT / "grammars" / "hunt" / "optimizer.yy"), data="random", seed=7, threads=THREADS,
                         duration=SECONDS, statement_timeout=10, oracles=oracles or ["crash"], out=out,
                         keep_going=True)
        return r.summary()


def main() -> int:
    peer = hunt([])
    checked = hunt(["tlp", "norec", "transforms"])
    minimised = {"findings": 0, "checks": 0, "seconds": 0.0, "exhausted": 0}
    for o in checked["oracles"].values():
        for k, v in o.get("minimised", {}).items():
            minimised[k] += v
    session_seconds = checked["seconds"] * THREADS
    rate, peer_rate = (s["statements"] / max(s["seconds"], 1e-9) for s in (checked, peer))
    print(f"hunt/optimizer.yy, random schema, seed 7, {THREADS} sessions, {SECONDS:.0f} s")
    print("| | findings | minimised | checks | seconds | share of session time | statements/s | vs no oracles |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| no oracles | {len(peer['findings'])} | | | | | {peer_rate:,.0f} | 1.00 |")
    print(f"| tlp, norec, transforms | {len(checked['findings'])} | {minimised['findings']} | {minimised['checks']} | "
          f"{minimised['seconds']:.2f} | {minimised['seconds'] / session_seconds:.2%} | {rate:,.0f} | "
          f"{rate / peer_rate:.2f} |")
    if minimised["exhausted"]:
        print(f"{minimised['exhausted']} minimisations ran out of budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
