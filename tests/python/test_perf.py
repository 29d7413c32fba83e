"""Performance statistics on synthetic series with known answers: no change, a 5% shift, a stall,
a warm-up ramp, too few runs to tell, and per-statement ratios by class."""

import numpy as np
import pytest

import gauntlet
from gauntlet.perf import compare, query_classes, summarize, warmup_end


def runs(n, level, noise, rng):
    return level * np.exp(rng.normal(0, noise, n))


def timeline(values, p95=2.0):
    return [{"t": float(i + 1), "statements": float(v), "transactions": 0, "p95_ms": p95} for i, v in enumerate(values)]


def test_no_change_rarely_raises_an_alarm_and_is_mostly_judged_the_same():
    rng = np.random.default_rng(1)
    verdicts = [compare(runs(10, 1000, 0.01, rng), runs(10, 1000, 0.01, rng)).verdict for _ in range(300)]
    alarms = sum(v in ("regressed", "improved") for v in verdicts) / len(verdicts)
    assert alarms <= 0.05, alarms
    assert verdicts.count("same") / len(verdicts) > 0.5


def test_a_five_percent_slowdown_is_a_regression_with_an_interval_around_it():
    rng = np.random.default_rng(2)
    found = 0
    for _ in range(100):
        v = compare(runs(10, 1000, 0.01, rng), runs(10, 950, 0.01, rng))
        found += v.verdict == "regressed"
        assert v.interval[0] <= v.ratio <= v.interval[1]
    assert found >= 95
    v = compare(runs(10, 1000, 0.01, rng), runs(10, 950, 0.01, rng))
    assert v.interval[0] < 0.95 < v.interval[1] and v.p_value < 0.01 and v.detectable < 0.02
    # Latency: higher is worse.
    lat = compare(runs(10, 2.0, 0.01, rng), runs(10, 2.2, 0.01, rng), metric="p95_ms", higher_is_better=False)
    assert lat.verdict == "regressed" and "p95_ms: regressed" in repr(lat)


def test_too_few_noisy_runs_say_unknown_and_how_many_would_decide():
    rng = np.random.default_rng(3)
    v = compare(runs(3, 1000, 0.05, rng), runs(3, 970, 0.05, rng))
    assert v.verdict == "unknown" and v.runs_needed > 10
    assert v.to_dict()["runs"] == (3, 3)


def test_a_stall_is_counted_with_its_length():
    rng = np.random.default_rng(4)
    values = 1000 + rng.normal(0, 10, 60)
    values[30:33] = [0, 3, 0]
    s = summarize(timeline(values), warmup=0)
    assert s.stalls == [3] and s.low_share == pytest.approx(3 / 60)
    assert 990 < s.throughput < 1010 and s.jitter > 0.1  # the stall makes the run jittery
    assert "stalls [3]" in repr(s)


def test_a_warm_up_ramp_is_cut_off():
    rng = np.random.default_rng(5)
    ramp = np.linspace(100, 1000, 15)
    values = np.concatenate([ramp, 1000 + rng.normal(0, 15, 45)])
    cut = warmup_end(values)
    assert 10 <= cut <= 20, cut
    s = summarize(timeline(values))
    assert s.warmup_seconds == cut and s.seconds == 60 - cut and s.jitter < 0.03
    assert summarize(timeline(values), warmup=0).jitter > 0.1  # with the ramp kept
    assert all(warmup_end(1000 + np.random.default_rng(seed).normal(0, 15, 60)) <= 5 for seed in range(50))


def test_bad_input_to_the_statistics():
    with pytest.raises(gauntlet.InvalidInput, match="at least 2 runs"):
        compare([1.0], [1.0, 2.0])
    with pytest.raises(gauntlet.InvalidInput, match="positive"):
        compare([1.0, 0.0], [1.0, 2.0])
    with pytest.raises(gauntlet.InvalidInput, match="no whole second"):
        summarize([])
    with pytest.raises(gauntlet.InvalidInput, match="metric"):
        summarize(timeline([1, 2, 3]), metric="bytes")


def test_query_classes_find_the_slower_class_and_call_the_unchanged_one_the_same():
    rng = np.random.default_rng(3)
    timings = []
    for _ in range(400):  # a join 30% slower on B, a point select unchanged; both with 10% noise a side
        a = 20.0 * rng.lognormal(0, 0.1)
        timings.append(("SELECT COUNT(*) FROM _ JOIN _", a, 1.3 * a * rng.lognormal(0, 0.1)))
        a = 0.2 * rng.lognormal(0, 0.1)
        timings.append(("SELECT _ FROM _ WHERE _ = ?", a, a * rng.lognormal(0, 0.1)))
    timings += [("SELECT ?", 1.0, 9.0)] * 5  # too few to judge
    classes = query_classes(timings, threshold=0.10)
    assert [c.skeleton for c in classes] == ["SELECT COUNT(*) FROM _ JOIN _", "SELECT _ FROM _ WHERE _ = ?"]
    join, point = classes
    assert join.verdict == "slower" and 1.25 < join.ratio < 1.35 and join.interval[0] > 1.2 and join.p_value < 1e-6
    assert join.statements == 400 and 19 < join.a_ms < 21
    assert point.verdict == "same" and 0.95 < point.interval[0] <= point.ratio <= point.interval[1] < 1.05
    assert "slower: B/A 1.3" in repr(join)
    faster = query_classes([(s, b, a) for s, a, b in timings])[-1]  # the other way round
    assert faster.verdict == "faster" and faster.ratio < 0.8


def test_query_classes_on_no_change_rarely_call_a_class_slower():
    rng = np.random.default_rng(4)
    alarms = 0
    for trial in range(200):
        timings = [("q", a, a * rng.lognormal(0, 0.3)) for a in rng.lognormal(0, 1, 30)]
        alarms += query_classes(timings, threshold=0.0)[0].verdict in ("slower", "faster")
    assert alarms <= 200 * 0.08, alarms  # alpha 0.05, with room for chance


def test_runs_that_do_not_belong_together_are_separated():
    from gauntlet.perf.stats import separate_groups
    # The bench: runs 3 and 5 at about a third of the others.
    low, high, ratio = separate_groups([4376, 4864, 1652, 4500, 1732, 4610])
    assert (low, high) == ([2, 4], [0, 1, 3, 5]) and 0.3 < ratio < 0.4
    # Run-to-run noise of a few percent, and even 20%, is one population.
    assert separate_groups([4376, 4864, 4652, 4500, 4732, 4610]) is None
    assert separate_groups([1000, 1200, 1100, 1150]) is None
    assert separate_groups([5.0, 5.0]) is None
