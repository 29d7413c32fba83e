"""Performance statistics: a run reduced to summary values, and a verdict between two sides.

Seconds of one run are not independent samples (they are autocorrelated: a t-test on them
raises false alarms about half the time with no change at all), so a run is first reduced to
summary values by ``summarize``: the warm-up cut off (given, or detected by the marginal
standard error rule of steady-state simulation: ``warmup_end``), then the median throughput, the
median per-second p95 latency, jitter (the coefficient of variation of per-second
throughput), the share of seconds below 90% of the median, and stalls (runs of seconds at or
near zero). ``compare`` then judges runs, not seconds: n summary values a side, the
Hodges-Lehmann estimate of the ratio B/A with its confidence interval (from the pairwise log
ratios), the Mann-Whitney p-value (scipy), and a practical threshold the interval must clear.
The verdict is regressed, improved, same (the interval inside the threshold) or unknown (then
how many runs a side would decide, from the measured noise). Background and formulas:
../shared/notes/combinatorics.md part B.
"""

from __future__ import annotations

import dataclasses
import math
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core


def _scipy_stats():
    # Imported when a verdict is computed, not with gauntlet: scipy takes ~0.4 s to import, which
    # every command (a run, a hunt's rounds) paid before.
    from scipy import stats
    return stats


@dataclasses.dataclass
class RunSummary:
    """One run as summary values (after ``warmup_seconds``): ``throughput`` (median per-second
    rate of ``metric``), ``p95_ms`` (median per-second p95 of a query's latency: a transaction's in
    the OLTP grammars, as sysbench's), ``qps`` (median statements a second), ``jitter`` (CV of the per-second
    rate), ``low_share`` (seconds below 90% of the median), ``stalls`` (lengths in seconds of
    runs of seconds at or below 5% of the median), and ``seconds`` measured."""
    metric: str
    warmup_seconds: int
    seconds: int
    throughput: float
    p95_ms: float
    qps: float
    jitter: float
    low_share: float
    stalls: List[int]

    def __repr__(self) -> str:
        stalls = f", stalls {self.stalls}" if self.stalls else ""
        return (f"<RunSummary {self.throughput:,.1f} {self.metric}/s, p95 {self.p95_ms:.2f} ms, jitter {self.jitter:.1%}, "
                f"{self.seconds} s after {self.warmup_seconds} s warm-up{stalls}>")


def warmup_end(series: Sequence[float]) -> int:
    """Seconds of warm-up to cut, by MSER (the marginal standard error rule of steady-state
    simulation, White 1997): for each truncation point d up to half the series, the squared
    standard error of the mean of the rest; the first d within 1.5 times the smallest. Taking
    the minimum itself cuts too much of a short steady series by chance (measured on 200
    synthetic runs: a 15 s ramp before 45 s of 1.5% noise is cut at 10-20 s in 72% of them with
    5 s batches and the minimum, in all of them this way; a steady run is never cut)."""
    x = np.asarray(series, dtype=float)
    n = len(x)
    if n < 4:
        return 0
    scores = np.array([x[d:].var(ddof=1) / (n - d) for d in range(n // 2 + 1)])
    return int(np.argmax(scores <= 1.5 * scores.min()))


def summarize(timeline: Union[Sequence[dict], "object"], *, warmup: Union[str, float] = "auto",
              metric: Optional[str] = None) -> RunSummary:
    """Summary values of one run (a RunResult or its ``timeline()``). ``warmup``: seconds to cut,
    or "auto" (warmup_end); ``metric``: "transactions" (COMMITs), "queries" (the grammar's queries
    that finished: sysbench's events) or "statements" (default: transactions when the run
    counted any, else queries)."""
    seconds = timeline.timeline() if hasattr(timeline, "timeline") else list(timeline)
    if not seconds:
        raise _core.InvalidInput("summarize: the run has no whole second")
    if metric is None:
        metric = "transactions" if any(s.get("transactions") for s in seconds) else \
            "queries" if "queries" in seconds[0] else "statements"
    if metric not in ("transactions", "queries", "statements"):
        raise _core.InvalidInput(f"summarize: metric is transactions, queries or statements, not {metric!r}")
    rate = np.array([float(s.get(metric, 0)) for s in seconds])
    if warmup == "auto":
        cut = warmup_end(rate)
    elif isinstance(warmup, (int, float)) and warmup >= 0:
        cut = int(math.ceil(warmup))
    else:
        raise _core.InvalidInput(f"summarize: warmup is seconds or 'auto', not {warmup!r}")
    cut = min(cut, len(rate) - 1)
    steady = rate[cut:]
    p95_key = "query_p95_ms" if "query_p95_ms" in seconds[0] else "p95_ms"
    p95 = np.array([float(s.get(p95_key, 0)) for s in seconds[cut:]])
    qps = float(np.median([float(s.get("statements", 0)) for s in seconds[cut:]]))
    median = float(np.median(steady))
    stalls, run = [], 0
    for value in steady:
        if value <= 0.05 * median:
            run += 1
        elif run:
            stalls.append(run)
            run = 0
    if run:
        stalls.append(run)
    mean = float(steady.mean())
    return RunSummary(metric, cut, len(steady), median, float(np.median(p95)) if len(p95) else 0.0, qps,
                      float(steady.std(ddof=1) / mean) if len(steady) > 1 and mean > 0 else 0.0,
                      float((steady < 0.9 * median).mean()), stalls)


@dataclasses.dataclass
class Verdict:
    """B against A on one metric: ``verdict`` (regressed, improved, same, unknown), ``ratio``
    (B/A, Hodges-Lehmann) and its ``interval``, the Mann-Whitney ``p_value``, the runs a side,
    the ``noise`` (CV of the per-run values), the smallest change these runs could detect
    (``detectable``), and for unknown the runs a side that would decide (``runs_needed``)."""
    metric: str
    verdict: str
    ratio: float
    interval: tuple
    p_value: float
    runs: tuple
    threshold: float
    noise: float
    detectable: float
    runs_needed: Optional[int] = None

    def to_dict(self) -> dict:
        """For verdict.json."""
        return dataclasses.asdict(self)

    def __repr__(self) -> str:
        more = f", ~{self.runs_needed} runs a side would decide" if self.runs_needed else ""
        return (f"<Verdict {self.metric}: {self.verdict}, B/A {self.ratio:.3f} [{self.interval[0]:.3f}, "
                f"{self.interval[1]:.3f}], p {self.p_value:.3g}, runs {self.runs[0]}+{self.runs[1]}, noise "
                f"{self.noise:.1%}, detectable {self.detectable:.1%}{more}>")


def separate_groups(values: Sequence[float], gap: float = 1.3) -> Optional[Tuple[List[int], List[int], float]]:
    """Runs of one target that do not belong together: the sorted values split at their widest
    ratio between neighbours, when that is ``gap`` or more (run-to-run noise is a few percent; a
    third of the speed is another population). Returns (low run indexes, high run indexes, the
    low group's median over the high group's), or None for one population."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    best, at = 1.0, None
    for k in range(1, len(order)):
        lo, hi = values[order[k - 1]], values[order[k]]
        ratio = hi / lo if lo > 0 else float("inf")
        if ratio > best:
            best, at = ratio, k
    if at is None or best < gap:
        return None
    low, high = sorted(order[:at]), sorted(order[at:])
    return low, high, float(np.median([values[i] for i in low]) / np.median([values[i] for i in high]))


def runs_needed(ratio: float, noise: float, threshold: float, alpha: float = 0.05, power: float = 0.8,
                have: int = 0) -> int:
    """Runs a side that would decide an undecided comparison: enough for the interval to clear
    the threshold's boundary nearest the estimate, n = 2 (z_a/2 + z_power)^2 (noise / margin)^2
    with margin the estimate's distance (in log ratio) from that boundary (at least a quarter of
    the threshold), and at least what Mann-Whitney needs to reach ``alpha`` at all (4 a side for
    0.05: its smallest two-sided p-value is 2 / C(2n, n))."""
    zz = _scipy_stats().norm.ppf(1 - alpha / 2) + _scipy_stats().norm.ppf(power)
    effect = abs(math.log(ratio))
    margin = max(abs(effect - math.log(1 + threshold)), math.log(1 + threshold) / 4)
    n = int(math.ceil(2 * (zz * max(noise, 1e-6) / margin) ** 2))
    smallest = 2
    while 2 / math.comb(2 * smallest, smallest) >= alpha:
        smallest += 1
    return max(n, smallest, have + 1)


def compare(a: Sequence[float], b: Sequence[float], *, metric: str = "throughput", higher_is_better: bool = True,
            threshold: float = 0.02, alpha: float = 0.05, power: float = 0.8) -> Verdict:
    """The verdict between per-run values ``a`` (baseline) and ``b``: regressed or improved when
    the Mann-Whitney test rejects "no difference" at ``alpha`` and the whole confidence interval
    (1 - alpha) of the ratio lies beyond ``threshold`` (a relative change) in one direction;
    same when the interval lies inside it; unknown otherwise."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        raise _core.InvalidInput("compare: at least 2 runs a side")
    if (a <= 0).any() or (b <= 0).any():
        raise _core.InvalidInput("compare: values must be positive (rates, latencies)")
    logs = np.sort((np.log(b)[None, :] - np.log(a)[:, None]).ravel())
    ratio = float(math.exp(np.median(logs)))
    # The interval from the order statistics of the pairwise log ratios, at Mann-Whitney's
    # critical count (normal approximation).
    na, nb = len(a), len(b)
    z = _scipy_stats().norm.ppf(1 - alpha / 2)
    k = int(math.floor(na * nb / 2 - z * math.sqrt(na * nb * (na + nb + 1) / 12)))
    k = max(0, min(k, len(logs) // 2))
    interval = (float(math.exp(logs[k])), float(math.exp(logs[len(logs) - 1 - k])))
    p = float(_scipy_stats().mannwhitneyu(b, a, alternative="two-sided").pvalue)
    noise = float(math.sqrt((np.var(np.log(a), ddof=1) * (na - 1) + np.var(np.log(b), ddof=1) * (nb - 1))
                            / (na + nb - 2)))
    zz = z + _scipy_stats().norm.ppf(power)
    detectable = float(zz * noise * math.sqrt(1 / na + 1 / nb))
    worse = (lambda lo, hi: hi < 1 - threshold) if higher_is_better else (lambda lo, hi: lo > 1 + threshold)
    better = (lambda lo, hi: lo > 1 + threshold) if higher_is_better else (lambda lo, hi: hi < 1 - threshold)
    lo, hi = interval
    needed = None
    if p < alpha and worse(lo, hi):
        verdict = "regressed"
    elif p < alpha and better(lo, hi):
        verdict = "improved"
    elif 1 - threshold < lo and hi < 1 + threshold:
        verdict = "same"
    else:
        verdict = "unknown"
        needed = runs_needed(ratio, noise, threshold, alpha, power, max(na, nb))
    return Verdict(metric, verdict, ratio, interval, p, (na, nb), threshold, noise, detectable, needed)


@dataclasses.dataclass
class QueryClass:
    """Statements of one class (their skeleton: literals and names taken out) timed on A and B in
    lockstep: ``ratio`` (median per-statement B/A) with its ``interval`` (from the order
    statistics of the log ratios at the sign test's critical count), the sign test's ``p_value``
    (scipy's binomtest), medians of both sides' ``a_ms``/``b_ms``, and the ``verdict``: slower,
    faster, same (the interval inside the threshold) or unknown."""
    skeleton: str
    statements: int
    a_ms: float
    b_ms: float
    ratio: float
    interval: tuple
    p_value: float
    verdict: str

    def to_dict(self) -> dict:
        """For query_classes.json."""
        return dataclasses.asdict(self)

    def __repr__(self) -> str:
        return (f"<QueryClass {self.verdict}: B/A {self.ratio:.3f} [{self.interval[0]:.3f}, {self.interval[1]:.3f}], "
                f"p {self.p_value:.3g}, {self.statements} statements, {self.a_ms:.3f} -> {self.b_ms:.3f} ms: "
                f"{self.skeleton[:80]}>")


def query_classes(timings: Sequence[tuple], *, threshold: float = 0.10, alpha: float = 0.05,
                  min_statements: int = 6) -> List[QueryClass]:
    """Per-statement ratios by class: ``timings`` are (skeleton, a_ms, b_ms), one a statement that
    ran on both sides. Each class's statements are paired samples (the same statement on A and
    B), so its verdict needs no assumption about their spread: the median ratio, the sign test
    and the distribution-free interval of the median; slower or faster when the test rejects at
    ``alpha`` and the interval clears ``threshold``. Classes with fewer than ``min_statements``
    (at least 6: the sign test cannot reach 0.05 with fewer) are left out; the rest come slowest
    first."""
    by_class: dict = {}
    for skeleton, a, b in timings:
        if a > 0 and b > 0:
            by_class.setdefault(skeleton, ([], []))
            by_class[skeleton][0].append(a)
            by_class[skeleton][1].append(b)
    out = []
    for skeleton, (a, b) in by_class.items():
        n = len(a)
        if n < max(min_statements, 6):
            continue
        a, b = np.asarray(a), np.asarray(b)
        logs = np.sort(np.log(b) - np.log(a))
        k = int(_scipy_stats().binom.ppf(alpha / 2, n, 0.5))  # the interval's order statistics: k-th from each end
        k = max(0, min(k - 1, n // 2))
        interval = (float(math.exp(logs[k])), float(math.exp(logs[n - 1 - k])))
        slower = int((logs > 0).sum())
        decided = slower + int((logs < 0).sum())
        p = float(_scipy_stats().binomtest(slower, decided, 0.5).pvalue) if decided else 1.0
        lo, hi = interval
        if p < alpha and lo > 1 + threshold:
            verdict = "slower"
        elif p < alpha and hi < 1 - threshold:
            verdict = "faster"
        elif 1 - threshold < lo and hi < 1 + threshold:
            verdict = "same"
        else:
            verdict = "unknown"
        out.append(QueryClass(skeleton, n, float(np.median(a)), float(np.median(b)),
                              float(math.exp(np.median(logs))), interval, p, verdict))
    return sorted(out, key=lambda c: -c.ratio)
