"""Performance statistics on synthetic series with known answers: no change, a 5% shift, a stall,
a warm-up ramp, and too few runs to tell."""

import numpy as np
import pytest

import gauntlet
from gauntlet.perf import compare, summarize, warmup_end


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
