"""The query builder's speed: generation per core, and a run's end-to-end rate with the
logic oracles on.

Generation: `builtin:select` (one `_query` per statement) against the stock optimizer
grammar, both measured here in the same process: one thread, CPU time
(time.process_time) of Generator.advance(N) after a warm-up, best of 3. The goal is
100,000 builder queries per CPU second.

End to end: `gauntlet.run` of `builtin:select` on a random schema against the managed
MariaDB for BENCH_SECONDS (default 30), 2 sessions, without oracles and with
tlp,norec; statements per second of each, and the ratio (what the oracles' follow-up
queries cost).

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_builder.py
"""

import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import gauntlet  # noqa: E402

QUERIES = int(os.environ.get("BENCH_QUERIES", "100000"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "30"))


def generation(grammar: "gauntlet.Grammar", schema) -> tuple:
    best = float("inf")
    for attempt in range(3):
        gen = grammar.generator(seed=attempt + 1, schema=schema)
        gen.advance(1000)
        start = time.process_time()
        nbytes = gen.advance(QUERIES)
        best = min(best, time.process_time() - start)
    return QUERIES / best, nbytes / QUERIES


def end_to_end(oracles: str) -> float:
    with tempfile.TemporaryDirectory() as out:
        r = gauntlet.run("builtin:select", data="random:3", threads=2, duration=SECONDS, out=out,
                         oracles=oracles or "crash")
        s = r.summary()
        return s["statements"] / s["seconds"]


def main() -> int:
    print("| generator | schema | q/s per core | avg bytes | vs optimizer.yy |")
    print("| --- | --- | ---: | ---: | ---: |")
    peer, peer_bytes = generation(gauntlet.Grammar(str(ROOT / "grammars" / "optimizer.yy")), None)
    print(f"| grammars/optimizer.yy | RQG's A..DD | {peer:,.0f} | {peer_bytes:.0f} | 1.00 |", flush=True)
    for label, schema in (("RQG's A..DD", None), ("random:3", gauntlet.Schema.random(3))):
        qps, avg = generation(gauntlet.Grammar("builtin:select"), schema)
        print(f"| builtin:select | {label} | {qps:,.0f} | {avg:.0f} | {qps / peer:.2f} |", flush=True)
    plain = end_to_end("")
    checked = end_to_end("tlp,norec")
    print(f"\nend to end, builtin:select on random:3, 2 sessions, {SECONDS:.0f} s: {plain:,.0f} statements/s "
          f"without oracles, {checked:,.0f} with tlp,norec ({checked / plain:.2f} of it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
