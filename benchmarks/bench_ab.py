"""The verdicts' statistical behaviour measured, not assumed, on real servers.

1. A/A: the same configuration as both sides, TRIALS times: how often a verdict says
   regressed or improved when nothing changed (the false-alarm rate), and the noise measured.
2. A/B with a known large effect: innodb_flush_log_at_trx_commit=1 against 2 on
   oltp_read_write.
3. A/B with a smaller one: performance_schema=ON against OFF on oltp_read_only.
4. The query-level comparison (gauntlet.compare_queries): A/A trials (classes called slower or
   faster with nothing changed) and performance_schema OFF -> ON class by class.

Printed: each comparison's verdicts with the ratio and its interval, the p-value, the noise
and the smallest change the runs could detect.

    PYTHONPATH=python /usr/bin/python3 benchmarks/bench_ab.py [RUNS] [SECONDS] [TRIALS]
    (defaults 5 runs a side, 10 s a run, 4 A/A trials; make bench runs it with these)
"""

import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import gauntlet  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10
TRIALS = int(sys.argv[3]) if len(sys.argv) > 3 else 4


def show(label: str, result) -> list:
    print(f"\n{label}")
    print("  " + result.table().replace("\n", "\n  "))
    return [v for per in result.verdicts.values() for v in per.values()]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gauntlet-bench-ab-") as tmp:
        tmp = pathlib.Path(tmp)
        alarms, verdicts = 0, 0
        for trial in range(TRIALS):
            same = {"innodb_flush_log_at_trx_commit": 2}
            r = gauntlet.bench([{"name": "A", "options": same}, {"name": "A2", "options": same}],
                               workload="oltp_read_write", runs=RUNS, duration=SECONDS, threads=2,
                               out=tmp / f"aa{trial}", seed=100 * trial + 1)
            vs = show(f"A/A trial {trial + 1}: oltp_read_write, the same options on both sides", r)
            alarms += sum(v.verdict in ("regressed", "improved") for v in vs)
            verdicts += len(vs)
        print(f"\nA/A false alarms: {alarms} of {verdicts} verdicts ({alarms / max(verdicts, 1):.0%}; "
              f"alpha 5% a verdict)")
        big = gauntlet.bench([{"name": "flush1", "options": {"innodb_flush_log_at_trx_commit": 1}},
                              {"name": "flush2", "options": {"innodb_flush_log_at_trx_commit": 2}}],
                             workload="oltp_read_write", runs=RUNS, duration=SECONDS, threads=2, out=tmp / "flush")
        show("A/B: innodb_flush_log_at_trx_commit 1 -> 2 on oltp_read_write (known: faster)", big)
        small = gauntlet.bench([{"name": "ps_off", "options": {"performance_schema": "OFF"}},
                                {"name": "ps_on", "options": {"performance_schema": "ON"}}],
                               workload="oltp_read_only", runs=RUNS, duration=SECONDS, threads=2, out=tmp / "ps")
        show("A/B: performance_schema OFF -> ON on oltp_read_only (known: a little slower)", small)
        # The query-level comparison: every statement on both sides in lockstep, by class.
        false_classes, classes = 0, 0
        for trial in range(TRIALS):
            aa = gauntlet.compare_queries([{"name": "A"}, {"name": "A2"}], workload="oltp_read_write",
                                          duration=2 * SECONDS, threads=2, seed=trial + 1, out=tmp / f"qaa{trial}")
            print(f"\nquery-level A/A trial {trial + 1}: oltp_read_write\n  " + aa.table().replace("\n", "\n  "))
            false_classes += sum(c.verdict in ("slower", "faster") for c in aa.classes["A2"])
            classes += len(aa.classes["A2"])
        print(f"\nquery-level A/A: {false_classes} of {classes} classes called slower or faster "
              f"(alpha 5% and a 10% threshold a class)")
        ps = gauntlet.compare_queries([{"name": "ps_off", "options": {"performance_schema": "OFF"}},
                                       {"name": "ps_on", "options": {"performance_schema": "ON"}}],
                                      workload="oltp_read_write", duration=2 * SECONDS, threads=2, out=tmp / "qps")
        print("\nquery-level A/B: performance_schema OFF -> ON on oltp_read_write\n  "
              + ps.table().replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
