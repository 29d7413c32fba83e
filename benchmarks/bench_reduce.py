"""The reducer on planted findings: statements before and after, attempts and seconds per stage.

Three cases, each hidden in a multi-session history of noise (selects, writes, DDL, SET;
tests/python/planted.py): a crash of Debian's MariaDB 10.11 whose table two other sessions
create and fill, in about 10,000 statements of 4 sessions (goal: <= 10 statements in <= 120
s); a wrong result (TLP) in about 6,000; and a divergence between two servers that needs two
of the five options one of them was started with; a hang of two sessions (a table lock
one holds, another waits for) in about 1,200; and a slow join (timing oracle: a target
started with join_cache_level=0 and one option more) in 300. Each reproducer is then run
by mariadb-test-run, whose verdict is printed.

    make bench            # or: PYTHONPATH=python /usr/bin/python3 benchmarks/bench_reduce.py
"""

import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
from planted import CRASH, HANG, SLOW_JOIN, TWO_OPTIONS, WRONG, planted_run  # noqa: E402


def case(label: str, out: pathlib.Path, plant: dict, goal=None, kind=None, reduce_args=None, **run_args) -> bool:
    t0 = time.monotonic()
    result = planted_run(out, plant, **run_args)
    finding = next(f for f in result.findings if not f.get("known") and kind in (None, f["kind"]))
    print(f"\n{label}: run of {result.summary()['statements']:,} statements in {time.monotonic() - t0:.1f} s; "
          f"finding {finding['id']}: {finding['signature'][:90]}")
    reduction = finding.reduce(budget=600, **(reduce_args or {}))
    r = reduction.record
    print(f"  {'stage':<11} {'before':>7} {'after':>6} {'attempts':>9} {'seconds':>8}")
    for s in r["stages"]:
        print(f"  {s['stage']:<11} {s['before']:>7} {s['after']:>6} {s['attempts']:>9} {s['seconds']:>8.1f}"
              + ("  (out of time)" if s.get("out_of_time") else ""))
    reduce_seconds = r["seconds"] - r["verification"].get("seconds", 0)
    print(f"  total: {r['statements_before']:,} -> {r['statements_after']} statements "
          f"(+{r['setup_after']} data statements), options {r['options_after']}, {r['attempts']} attempts, "
          f"{reduce_seconds:.0f} s reducing; mariadb-test-run: "
          f"{'verified' if reduction.verified else 'NOT verified'} ({r['verification'].get('why')})")
    if goal is None:
        return True
    ok = r["statements_after"] <= goal[0] and reduce_seconds <= goal[1]
    print(f"  goal <= {goal[0]} statements in <= {goal[1]} s: {'met' if ok else 'MISSED'}")
    return ok


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-reduce-") as tmp:
        tmp = pathlib.Path(tmp)
        crash = {**CRASH, (1, 2550): CRASH[(1, 1450)]}
        del crash[(1, 1450)]
        ok = case("crash", tmp / "crash", crash, goal=(10, 120), queries=2700)
        case("wrong result (TLP)", tmp / "wrong", WRONG, oracles="tlp", quiet=True)
        case("two options (divergence)", tmp / "options", TWO_OPTIONS, threads=1, queries=1000,
             oracles="differential",
             targets=[{"name": "plain"}, {"name": "tuned", "options": {
                 "table_open_cache": 200, "div_precision_increment": 8, "tmp_table_size": 8388608,
                 "lc_time_names": "es_ES", "max_connections": 200}}])
        case("hang (two sessions)", tmp / "hang", HANG, queries=300, hang_timeout=3, reduce_args={"hang_timeout": 2})
        case("slow join (timing)", tmp / "timing", SLOW_JOIN, kind="timing", threads=1, queries=300, oracles="timing",
             targets=[{"name": "a"}, {"name": "b", "options": {"join_cache_level": 0, "max_connections": 200}}])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
