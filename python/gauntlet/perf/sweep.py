"""Comparisons over more than one setting: a thread-count scaling curve, and best-to-best over
option plans (the MySQL 5.6 GA posts' method: each side at its best configuration).

    curve = gauntlet.scaling(targets, threads=[1, 2, 4, 8], workload="oltp_read_only", runs=3,
                             duration=20, out="OUT")
    curve.plot()               # throughput and p95 against threads, a line per target
    b2b = gauntlet.best_to_best([{"name": "old", "space": "tuning.json"},
                                 {"name": "new", "server": "/path/mariadbd", "space": "tuning.json"}],
                                workload="oltp_read_write", runs=5, out="OUT")
    b2b.bests, b2b.result.verdicts

``scaling`` runs :func:`gauntlet.bench` at each thread count (``OUT/threads-N``) and writes
``OUT/scaling.csv`` and ``OUT/scaling.png``/``.svg``. ``best_to_best`` screens every row of each
side's option plan (``OUT/screening/SIDE/ROW``, ``OUT/screening.csv``), takes each side's best
row by the chosen metric, and compares the two bests with fresh runs (``OUT/final``), so the
verdict is not biased by having picked the luckiest screening run.
"""

from __future__ import annotations

import csv
import os
import pathlib
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from .. import _core
from ..combi import WORKLOAD, OptionSpace, Plan, row_mysqld
from ..server import Target, make_targets
from .bench import METRICS, BenchResult, bench, measure, stock_workload


def _save(figure, out: pathlib.Path, name: str) -> None:
    import matplotlib.pyplot as plt
    for suffix in ("png", "svg"):
        figure.savefig(out / f"{name}.{suffix}")
    plt.close(figure)


class ScalingResult:
    """``bench`` at each thread count: ``results`` (threads -> BenchResult), ``threads``."""

    def __init__(self, out: pathlib.Path, results: Dict[int, BenchResult]):
        self.out, self.results = out, results

    @property
    def threads(self) -> List[int]:
        """The thread counts, ascending."""
        return sorted(self.results)

    @property
    def regressed(self) -> bool:
        """Whether a target regressed at some thread count."""
        return any(r.regressed for r in self.results.values())

    def curve(self, metric: str = "throughput") -> Dict[str, List[tuple]]:
        """Per target: (threads, median, lowest, highest) of ``metric``'s per-run values."""
        out: Dict[str, List[tuple]] = {}
        for n in self.threads:
            for name, runs in self.results[n].runs.items():
                values = [getattr(r, metric) for r in runs]
                out.setdefault(name, []).append((n, float(np.median(values)), min(values), max(values)))
        return out

    def table(self) -> str:
        """Median throughput and p95 per thread count and target, with the verdict on throughput."""
        lines = [f"{'threads':>7} {'target':<12} {'throughput':>12} {'p95 ms':>9} {'verdict':<10}"]
        for n in self.threads:
            r = self.results[n]
            for name, runs in r.runs.items():
                verdict = r.verdicts.get(name, {}).get("throughput")
                lines.append(f"{n:>7} {name:<12} {np.median([x.throughput for x in runs]):>12,.1f} "
                             f"{np.median([x.p95_ms for x in runs]):>9.3f} {verdict.verdict if verdict else 'baseline':<10}")
        return "\n".join(lines)

    def plot(self):
        """Throughput and p95 against threads, a line per target with each point's range of runs
        (a matplotlib Figure)."""
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, metric, label in ((axes[0], "throughput", "per second"), (axes[1], "p95_ms", "p95 ms (a query)")):
            for i, (name, points) in enumerate(self.curve(metric).items()):
                x = [p[0] for p in points]
                y = np.array([p[1] for p in points])
                err = np.array([[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]])
                ax.errorbar(x, y, yerr=err, color=f"C{i}", marker="o", capsize=3, label=name)
            ax.set_xscale("log", base=2)
            ax.set_xticks(self.threads, [str(n) for n in self.threads])
            ax.set_xlabel("threads")
            ax.set_ylabel(label)
            ax.legend()
        first = self.results[self.threads[0]].settings
        fig.suptitle(f"{first['workload']}: scaling over threads")
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        return f"<ScalingResult threads {self.threads}, regressed {self.regressed}>"


def scaling(targets: Sequence[dict], *, threads: Sequence[int] = (1, 2, 4, 8),
            out: Union[str, os.PathLike] = "gauntlet-bench", **bench_args) -> ScalingResult:
    """``bench(targets, threads=n, ...)`` for each n in ``threads`` (other arguments as
    ``bench``'s), into ``out/threads-N``; the scaling curve is ``scaling.png``/``.svg``."""
    counts = list(threads)
    if not counts or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts) \
            or len(set(counts)) != len(counts):
        raise _core.InvalidInput(f"scaling: threads must be distinct whole numbers of 1 or more, not {threads!r}")
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = {n: bench(targets, threads=n, out=out / f"threads-{n}", **bench_args) for n in sorted(counts)}
    result = ScalingResult(out, results)
    with open(out / "scaling.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["threads", "target", "run", "throughput", "qps", "p95_ms", "jitter"])
        for n in result.threads:
            for name, runs in results[n].runs.items():
                for i, r in enumerate(runs):
                    w.writerow([n, name, i + 1, r.throughput, r.qps, r.p95_ms, r.jitter])
    _save(result.plot(), out, "scaling")
    (out / "scaling.txt").write_text(result.table() + "\n")
    return result


class BestToBest:
    """Each side's option plan screened, then its best row against the other's: ``screening``
    (a dict per screened row: side, row, options, the median of each metric over its runs),
    ``bests`` (side -> the Target of its best row), ``result`` (the final BenchResult)."""

    def __init__(self, screening: List[dict], bests: Dict[str, Target], result: BenchResult, metric: str):
        self.screening, self.bests, self.result, self.metric = screening, bests, result, metric

    @property
    def regressed(self) -> bool:
        """Whether the second side's best regressed against the first's."""
        return self.result.regressed

    def table(self) -> str:
        """Each side's best row and the verdicts between the bests."""
        lines = [f"{side}: best by {self.metric}: {' '.join(t.mysqld()) or '(defaults)'}"
                 for side, t in self.bests.items()]
        return "\n".join(lines + ["", self.result.table()])

    def __repr__(self) -> str:
        return f"<BestToBest {len(self.screening)} rows screened; final {self.result!r}>"


def _side_rows(side: dict, strength: Optional[int]) -> List[dict]:
    name = side.get("name", "?")
    plan = side.get("plan")
    if plan is None and side.get("space") is None:
        return [{}]  # no plan: the side as it is
    if plan is None:
        space = side["space"]
        if not isinstance(space, OptionSpace):
            space = OptionSpace.from_dict(space, f"{name}: space") if isinstance(space, dict) \
                else OptionSpace.from_file(space)
        plan = space.covering(strength)
    rows = list(plan.rows[:len(plan.rows) - plan.negative]) if isinstance(plan, Plan) else [dict(r) for r in plan]
    for row in rows:
        workload = sorted(k for k in row if k in WORKLOAD)
        if workload:
            raise _core.InvalidInput(f"best_to_best: {name}: a plan for a benchmark varies server options, not the "
                                     f"workload ({', '.join(workload)})")
    return rows


def best_to_best(sides: Sequence[dict], *, metric: str = "throughput", strength: Optional[int] = None,
                 screen_runs: int = 2, screen_duration: Optional[float] = None, workload: str = "oltp_read_write",
                 runs: int = 5, duration: float = 30, threads: int = 4, warmup: Union[str, float] = "auto",
                 tables: int = 1, table_size: int = 10000, data: Optional[str] = None,
                 out: Union[str, os.PathLike] = "gauntlet-bench", threshold: float = 0.02, alpha: float = 0.05,
                 pin: Optional[Sequence[int]] = None, seed: int = 1, rate: float = 0,
                 progress: bool = False) -> BestToBest:
    """Two sides (dicts as ``bench``'s targets, plus ``space``: an OptionSpace, its dict or file,
    covered at ``strength``; or ``plan``: a Plan or a list of option rows) each screened row by
    row, ``screen_runs`` runs of ``screen_duration`` (default ``duration``) each on a fresh
    server; each side's best row by ``metric`` (throughput, p95_ms or jitter) is then compared
    with the other's by ``bench`` (``runs`` fresh runs a side, the first side the baseline;
    ``threshold``, ``alpha``, ``pin``, ``seed`` and ``rate`` as there)."""
    if len(sides) != 2:
        raise _core.InvalidInput("best_to_best: two sides (the first is the baseline)")
    if metric not in METRICS:
        raise _core.InvalidInput(f"best_to_best: metric is one of {', '.join(METRICS)}, not {metric!r}")
    if not isinstance(screen_runs, int) or screen_runs < 1:
        raise _core.InvalidInput(f"best_to_best: screen_runs must be 1 or more, not {screen_runs!r}")
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    bases = make_targets([{k: v for k, v in s.items() if k not in ("space", "plan")} for s in sides], "default")
    plans = [_side_rows(s, strength) for s in sides]
    grammar, spec = stock_workload(workload, tables, table_size, out)
    spec = data or spec
    screening, bests = [], {}
    for base, rows in zip(bases, plans):
        scored = []
        for i, row in enumerate(rows):
            options = dict(base.options)
            options.update(o.split("=", 1) for o in row_mysqld(row))
            target = Target(base.name, base.server, options, base.engine)
            values = [measure(target, out / "screening" / base.name / f"{i + 1:03d}" / f"{j + 1:02d}", grammar, spec,
                               threads=threads, duration=screen_duration or duration, seed=seed + j, warmup=warmup,
                               pin=pin, rate=rate)[0] for j in range(screen_runs)]
            line = {"side": base.name, "row": i + 1, "options": " ".join(target.mysqld()),
                    **{m: float(np.median([getattr(v, m) for v in values])) for m in METRICS}}
            screening.append(line)
            scored.append((line[metric], target))
            if progress:
                print(f"gauntlet bench: screening {base.name} row {i + 1}/{len(rows)}: "
                      f"{metric} {line[metric]:,.3f}", flush=True)
        pick = max if METRICS[metric] else min
        bests[base.name] = pick(scored, key=lambda x: x[0])[1]
    with open(out / "screening.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["side", "row", "options", *METRICS])
        w.writeheader()
        w.writerows(screening)
    final = bench([{"name": t.name, "server": t.server, "options": t.options, "engine": t.engine}
                   for t in bests.values()], workload=workload, runs=runs, duration=duration, threads=threads,
                  warmup=warmup, tables=tables, table_size=table_size, data=data, out=out / "final",
                  threshold=threshold, alpha=alpha, pin=pin, seed=seed, rate=rate, progress=progress)
    result = BestToBest(screening, bests, final, metric)
    (out / "best_to_best.txt").write_text(result.table() + "\n")
    return result
