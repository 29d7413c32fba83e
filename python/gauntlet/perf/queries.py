"""Query-level comparison: the statements of a workload timed on A and B, by class.

    cmp = gauntlet.compare_queries([{"name": "A"}, {"name": "B", "options": {"join_cache_level": 0}}],
                                   workload="my.yy", data="random", duration=60, out="OUT")
    cmp.classes["B"]          # QueryClass per statement skeleton, slowest first
    cmp.plot()

Total throughput hides a class of queries that got slower while the rest got faster; here every
statement runs on every target in turn (lockstep, the timing oracle's setting), each target's
time is in the statement log, and each class of statements (their skeleton: literals and names
taken out) gets the distribution of its per-statement ratios B/A and a verdict
(:func:`gauntlet.perf.query_classes`). The timing oracle runs too: a single statement that is
slower beyond its repeated, alternating re-runs is a finding of its own. Files:
``OUT/run`` (the run), ``OUT/query_classes.csv``/``.json``/``.txt``, ``OUT/queries.png``/``.svg``.
``QueryComparison.from_run(DIR)`` reads any run with two targets or more and a statement log.
"""

from __future__ import annotations

import csv
import json
import os
import pathlib
import shutil
from typing import Dict, List, Optional, Union

import numpy as np

from .. import _core
from ..formats import read_json, version
from ..server import ManagedServer, make_targets
from .bench import stock_workload
from .stats import QueryClass, query_classes


class QueryComparison:
    """Per target after the first: ``classes`` (QueryClass list, slowest first), ``ratios`` (per
    class, every statement's B/A), and ``findings`` (the timing oracle's)."""

    def __init__(self, out: pathlib.Path, baseline: str, classes: Dict[str, List[QueryClass]],
                 ratios: Dict[str, Dict[str, np.ndarray]], findings: List[dict], threshold: float):
        self.out, self.baseline, self.classes, self.ratios = out, baseline, classes, ratios
        self.findings, self.threshold = findings, threshold

    @classmethod
    def from_run(cls, run_dir: Union[str, os.PathLike], *, threshold: float = 0.10, alpha: float = 0.05,
                 min_statements: int = 6) -> "QueryComparison":
        """The comparison of a finished run's statements (two targets or more, a statement log)."""
        run_dir = pathlib.Path(run_dir)
        summary = read_json(run_dir / "summary.json", "summary")
        names = [t["name"] for t in summary.get("targets", [])]
        logs = sorted(run_dir.glob("statements-*.jsonl"))
        if len(names) < 2 or not logs:
            raise _core.InvalidInput(f"{run_dir}: a query-level comparison needs a run with two targets or more "
                                     f"and a statement log (--statement-log); this one has {len(names)} target(s) "
                                     f"and {len(logs)} statement log(s)")
        timings: Dict[str, list] = {n: [] for n in names[1:]}
        for log in logs:
            for s in _core.read_statement_log(str(log)):
                ms = s["target_ms"]
                if s["outcome"] != "ok" or not ms or not isinstance(s["sql"], str):
                    continue
                skeleton = _core.sql_skeleton(s["sql"])
                for name, b in zip(names[1:], ms[1:]):
                    timings[name].append((skeleton, ms[0], b))
        classes = {n: query_classes(t, threshold=threshold, alpha=alpha, min_statements=min_statements)
                   for n, t in timings.items()}
        ratios: Dict[str, Dict[str, np.ndarray]] = {}
        for name, t in timings.items():
            kept = {c.skeleton for c in classes[name]}
            per: Dict[str, list] = {}
            for skeleton, a, b in t:
                if skeleton in kept and a > 0 and b > 0:
                    per.setdefault(skeleton, []).append(b / a)
            ratios[name] = {k: np.asarray(v) for k, v in per.items()}
        findings = [f for f in summary.get("findings", []) if f.get("kind") == "timing"]
        return cls(run_dir, names[0], classes, ratios, findings, threshold)

    @property
    def regressed(self) -> bool:
        """Whether a class of statements is slower on some target."""
        return any(c.verdict == "slower" for per in self.classes.values() for c in per)

    def table(self, limit: int = 20) -> str:
        """The classes per target, slowest first (``limit`` a target), and the timing findings."""
        lines = []
        for name, per in self.classes.items():
            lines.append(f"{name} against {self.baseline}: {len(per)} classes, "
                         f"{sum(c.verdict == 'slower' for c in per)} slower, {sum(c.verdict == 'faster' for c in per)} "
                         f"faster, {sum(c.verdict == 'same' for c in per)} the same")
            lines.append(f"  {'verdict':<8} {'B/A':>7} {'interval':>17} {'p':>9} {'n':>7} {'A ms':>9} {'B ms':>9}  class")
            for c in per[:limit]:
                lines.append(f"  {c.verdict:<8} {c.ratio:>7.3f} [{c.interval[0]:.3f}, {c.interval[1]:.3f}] "
                             f"{c.p_value:>9.3g} {c.statements:>7} {c.a_ms:>9.3f} {c.b_ms:>9.3f}  {c.skeleton[:100]}")
        for f in self.findings:
            lines.append(f"timing finding: {f.get('signature', '')[:120]}")
        return "\n".join(lines)

    def plot(self, target: Optional[str] = None, top: int = 12):
        """Per-statement ratios B/A of ``target``'s (default: the first's) most frequent classes
        as boxes on a log scale, the threshold band shaded (a matplotlib Figure)."""
        import matplotlib.pyplot as plt
        name = target or next(iter(self.classes))
        chosen = sorted(self.classes[name], key=lambda c: -c.statements)[:top]
        fig, ax = plt.subplots(figsize=(10, 1 + 0.45 * max(len(chosen), 1)))
        if chosen:
            ax.boxplot([self.ratios[name][c.skeleton] for c in chosen], vert=False, showfliers=False,
                       labels=[f"{c.verdict[:6]} {c.skeleton[:60]}" for c in chosen])
        ax.set_xscale("log")
        ax.axvline(1.0, color="grey", linewidth=0.8)
        ax.axvspan(1 - self.threshold, 1 + self.threshold, color="grey", alpha=0.15)
        ax.set_xlabel(f"time on {name} / time on {self.baseline}, per statement")
        ax.invert_yaxis()
        fig.tight_layout()
        return fig

    def write(self) -> None:
        """query_classes.csv/.json/.txt and queries.png/.svg in the comparison's folder."""
        import matplotlib.pyplot as plt
        with open(self.out / "query_classes.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["target", "verdict", "ratio", "low", "high", "p_value", "statements", "a_ms", "b_ms",
                        "skeleton"])
            for name, per in self.classes.items():
                for c in per:
                    w.writerow([name, c.verdict, c.ratio, *c.interval, c.p_value, c.statements, c.a_ms, c.b_ms,
                                c.skeleton])
        (self.out / "query_classes.json").write_text(json.dumps(
            {"format": version("query-classes"), "baseline": self.baseline, "threshold": self.threshold, "regressed": self.regressed,
             "classes": {n: [c.to_dict() for c in per] for n, per in self.classes.items()},
             "timing_findings": self.findings}, indent=1) + "\n")
        (self.out / "query_classes.txt").write_text(self.table() + "\n")
        figure = self.plot()
        for suffix in ("png", "svg"):
            figure.savefig(self.out / f"queries.{suffix}")
        plt.close(figure)

    def __repr__(self) -> str:
        per = {n: {v: sum(c.verdict == v for c in cs) for v in ("slower", "faster", "same", "unknown")}
               for n, cs in self.classes.items()}
        return f"<QueryComparison against {self.baseline}: {per}>"


def compare_queries(targets, *, workload: str = "oltp_read_write", duration: float = 30, threads: int = 2,
                    tables: int = 1, table_size: int = 10000, data: Optional[str] = None, seed: int = 1,
                    threshold: float = 0.10, alpha: float = 0.05, timing_oracle: bool = True,
                    out: Union[str, os.PathLike] = "gauntlet-bench", progress: bool = False) -> QueryComparison:
    """Runs ``workload`` once on every target in lockstep (fresh servers, the same data, a
    statement log; the timing oracle unless ``timing_oracle`` is False) and compares each target's
    statement times with the first's, class by class (``OUT/run``, ``OUT/query_classes.*``)."""
    chosen = make_targets(targets, "default")
    if len(chosen) < 2:
        raise _core.InvalidInput("compare_queries: two targets or more (the first is the baseline)")
    if any(t.is_dsn for t in chosen):
        raise _core.InvalidInput("compare_queries: targets are servers Gauntlet starts (a binary or 'default')")
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    grammar, spec = stock_workload(workload, tables, table_size, out)
    from ..runs import run
    servers = []
    for t in chosen:
        folder = out / "servers" / t.name
        shutil.rmtree(folder, ignore_errors=True)
        servers.append(ManagedServer(folder, binary=t.binary, mysqld=t.mysqld(), die_with_parent=True))
    r = run(grammar[0], redefine=grammar[1:], data=data or spec, threads=threads, duration=duration, seed=seed,
            targets=[{"name": t.name, "server": s, "engine": t.engine} for t, s in zip(chosen, servers)],
            oracles=("crash", "timing") if timing_oracle else ("crash",), statement_log=True, out=out / "run",
            overwrite=True, data_template=True, progress=progress)
    stop = r.summary().get("stop_reason")
    if stop != "duration":
        raise _core.GauntletError(f"compare_queries: the run stopped by {stop} "
                                  f"({', '.join(f['signature'] for f in r.findings) or r.summary().get('error')})")
    result = QueryComparison.from_run(out / "run", threshold=threshold, alpha=alpha)
    result.out = out
    result.write()
    return result
