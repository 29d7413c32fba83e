"""Performance comparisons: a workload run n times on each target, interleaved A B A B with a
fresh server (from the same data template) before every run, each run reduced to summary
values, and a verdict per metric between the baseline (the first target) and each other.

    result = gauntlet.bench([{"name": "A", "options": {"innodb_flush_log_at_trx_commit": 1}},
                             {"name": "B", "options": {"innodb_flush_log_at_trx_commit": 2}}],
                            workload="oltp_read_write", runs=5, duration=30, threads=4, out="OUT")
    result.verdicts          # per target and metric: regressed, improved, same or unknown
    result.plot_timelines(); result.plot_boxes()

``OUT/verdict.json`` (per metric: verdict, ratio, interval, p-value, runs, noise, detectable
change), ``OUT/runs.csv`` (a line per run: its summary values), ``OUT/timelines.csv`` (a line
per second of every run, with server counters), ``OUT/timelines.png``/``.svg`` and
``OUT/boxes.png``/``.svg``, and each run's folder ``OUT/runs/TARGET/NN``. Workloads: the stock
sysbench-equivalent OLTP grammars (``grammars/oltp``: oltp_point_select, oltp_read_only,
oltp_read_write, oltp_write_only, ...) over ``tables`` x ``table_size`` rows, or any grammar
file with ``data``. Statistics: :mod:`gauntlet.perf`.
"""

from __future__ import annotations

import csv
import json
import os
import pathlib
import shutil
import threading
import time
from typing import Dict, List, Optional, Sequence, Union

from .. import _core, stock
from ..formats import read_json, version
from ..arguments import capped_duration, number_argument, writable_folder
from ..server import ManagedServer, check_known_options, make_targets
from ..results import server_lines, servers_of
from .stats import RunSummary, Verdict, compare, separate_groups, summarize

OLTP = stock.OLTP
# Server counters sampled every second (deltas, except the gauges), to explain a dip.
COUNTERS = ("Innodb_buffer_pool_pages_flushed", "Innodb_data_fsyncs", "Innodb_os_log_written",
            "Innodb_row_lock_waits", "Innodb_checkpoint_age", "Threads_running",
            # Plans: rows read by key, in index order, and by full scans.
            "Handler_read_key", "Handler_read_next", "Handler_read_rnd_next")
_GAUGES = ("Innodb_checkpoint_age", "Threads_running")
# The metrics a verdict is given on, and whether higher is better.
METRICS = {"throughput": True, "p95_ms": False, "jitter": False}


def stock_workload(workload: str, tables: int, table_size: int, out: pathlib.Path):
    """A stock OLTP workload's grammar files and data spec for this size, or (grammar, None)."""
    stock = OLTP / f"{workload}.yy"
    if not stock.exists():
        if pathlib.Path(workload).exists():
            return [str(pathlib.Path(workload).resolve())], None
        known = sorted(p.stem for p in OLTP.glob("oltp_*.yy") if p.stem != "oltp_common")
        raise _core.InvalidInput(f"workload: {workload!r} is neither a grammar file nor one of: {', '.join(known)}")
    names = " | ".join(f"`sbtest{i + 1}`" for i in range(tables))
    size = out / "size.yy"
    size.write_text(f"table: {names} ;\nkey_id: _uniform(1, {table_size}) ;\nk_value: _uniform(1, {table_size}) ;\n")
    spec = json.loads((OLTP / "sbtest.json").read_text())
    table = spec["tables"][0]
    for column in table["columns"]:
        if column["name"] == "k":
            column["values"] = f"_uniform(1, {table_size})"
    spec["tables"] = [{**table, "name": f"sbtest{i + 1}", "rows": table_size} for i in range(tables)]
    data = out / "sbtest.json"
    data.write_text(json.dumps(spec, indent=1))
    return [str(OLTP / "oltp_common.yy"), str(stock), str(size)], str(data)


class _Sampler(threading.Thread):
    """SHOW GLOBAL STATUS every second on a server, as deltas per second (gauges as they are)."""

    def __init__(self, server: ManagedServer):
        super().__init__(daemon=True)
        self.server, self.rows, self.done = server, [], threading.Event()

    def run(self) -> None:
        conn, last, t0 = None, None, None
        names = ", ".join(f"'{c}'" for c in COUNTERS)
        while not self.done.wait(1.0 if conn is not None else 0.05):
            try:
                if conn is None:
                    conn = _core.Connection.open(self.server.connection)
                    t0 = time.monotonic()
                _, _, rows = conn.execute(f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})")
            except _core.GauntletError:
                conn = None  # not up yet, or going down
                continue
            now = {name: float(value) for name, value in rows}
            if last is not None:
                self.rows.append({"t": round(time.monotonic() - t0), **{
                    c: now.get(c, 0.0) if c in _GAUGES else now.get(c, 0.0) - last.get(c, 0.0) for c in COUNTERS}})
            last = now


class BenchResult:
    """What ``bench`` measured: ``runs`` (per target, the RunSummary of each run), ``verdicts``
    (per target after the first, per metric), ``timelines`` (per target, each run's seconds),
    ``groups`` (per target whose runs fall into separate groups of throughput: slow_runs,
    fast_runs, ratio, seeds, templates, and the server counters that differ 2x or more),
    ``servers`` (per target, the server its runs met: version and binary)."""

    def __init__(self, out: pathlib.Path, baseline: str, runs: Dict[str, List[RunSummary]],
                 timelines: Dict[str, List[list]], verdicts: Dict[str, Dict[str, Verdict]], settings: dict,
                 groups: Optional[Dict[str, dict]] = None, servers: Optional[Dict[str, dict]] = None):
        self.out, self.baseline, self.runs, self.timelines = out, baseline, runs, timelines
        self.verdicts, self.settings = verdicts, settings
        self.groups, self.servers = groups or {}, servers or {}

    @property
    def regressed(self) -> bool:
        """Whether a target regressed on some metric (what ``gauntlet bench`` exits 1 for)."""
        return any(v.verdict == "regressed" for per in self.verdicts.values() for v in per.values())

    def table(self) -> str:
        """The verdicts as text: one line per target and metric."""
        lines = server_lines(self.servers)
        lines.append(f"{'target':<12} {'metric':<11} {'verdict':<10} {'B/A':>7} {'interval':>17} {'p':>8} {'noise':>7} "
                     f"{'detectable':>10}")
        for name, per in self.verdicts.items():
            for metric, v in per.items():
                more = f"  (~{v.runs_needed} runs a side would decide)" if v.runs_needed else ""
                lines.append(f"{name:<12} {metric:<11} {v.verdict:<10} {v.ratio:>7.3f} "
                             f"[{v.interval[0]:.3f}, {v.interval[1]:.3f}] {v.p_value:>8.3g} {v.noise:>7.1%} "
                             f"{v.detectable:>10.1%}{more}")
        for name, g in self.groups.items():
            seeds = g["seeds"]
            lines.append(f"{name}: runs {', '.join(map(str, g['slow_runs']))} ran at {g['ratio']:.2f} of runs "
                         f"{', '.join(map(str, g['fast_runs']))}: they do not belong together, and their noise is "
                         f"no noise (seeds {', '.join(str(seeds[str(r)]) for r in g['slow_runs'])} against "
                         f"{', '.join(str(seeds[str(r)]) for r in g['fast_runs'])})")
            for c, v in g["counters"].items():
                lines.append(f"{name}:   {c}: {v['slow']:,.1f}/s in the slow runs, {v['fast']:,.1f}/s in the others")
        return "\n".join(lines)

    def plot_timelines(self, metric: str = "throughput"):
        """Per-second throughput and p95 of every run, a colour per target, on one chart each (a
        matplotlib Figure); the warm-up cut off is shaded."""
        import matplotlib.pyplot as plt
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
        for i, (name, runs) in enumerate(self.timelines.items()):
            colour = f"C{i}"
            for j, seconds in enumerate(runs):
                key = self.runs[name][j].metric
                t = [s["t"] for s in seconds]
                top.plot(t, [s[key] for s in seconds], color=colour, alpha=0.6, label=name if j == 0 else None)
                bottom.plot(t, [s.get("query_p95_ms", s["p95_ms"]) for s in seconds], color=colour, alpha=0.6)
                top.axvspan(0, self.runs[name][j].warmup_seconds, color=colour, alpha=0.05)
        top.set_ylabel(f"{self.runs[self.baseline][0].metric}/s")
        bottom.set_ylabel("p95 ms (a query)")
        bottom.set_xlabel("second")
        top.legend()
        top.set_title(f"{self.settings['workload']}, {self.settings['threads']} threads")
        fig.tight_layout()
        return fig

    def plot_boxes(self):
        """Boxplots per target of each metric's per-run values (a matplotlib Figure)."""
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(METRICS), figsize=(4 * len(METRICS), 4))
        names = list(self.runs)
        for ax, metric in zip(axes, METRICS):
            ax.boxplot([[getattr(r, metric) for r in self.runs[n]] for n in names], labels=names)
            ax.set_title(metric)
        fig.tight_layout()
        return fig

    def plot_stalls(self):
        """Per-second throughput of every run against its own median, stalls marked (a Figure)."""
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(10, 3))
        for i, (name, runs) in enumerate(self.timelines.items()):
            for j, seconds in enumerate(runs):
                summary = self.runs[name][j]
                rel = [s[summary.metric] / summary.throughput if summary.throughput else 0 for s in seconds]
                ax.plot([s["t"] for s in seconds], rel, color=f"C{i}", alpha=0.5, label=name if j == 0 else None)
        ax.axhline(0.9, color="grey", linestyle="--", linewidth=0.8)
        ax.axhline(0.05, color="red", linestyle=":", linewidth=0.8)
        ax.set_ylabel("of the run's median")
        ax.legend()
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        counts = {}
        for per in self.verdicts.values():
            for v in per.values():
                counts[v.verdict] = counts.get(v.verdict, 0) + 1
        runs = {n: len(r) for n, r in self.runs.items()}
        return f"<BenchResult {self.settings['workload']}: runs {runs}, verdicts {counts}>"


def bench(targets: Sequence[dict], *, workload: str = "oltp_read_write", runs: int = 5, duration: float = 30,
          threads: int = 4, warmup: Union[str, float] = "auto", tables: int = 1, table_size: int = 10000,
          data: Optional[str] = None, out: Union[str, os.PathLike] = "gauntlet-bench", threshold: float = 0.02,
          alpha: float = 0.05, pin: Optional[Sequence[int]] = None, seed: int = 1, rate: float = 0,
          progress: bool = False) -> BenchResult:
    """Runs ``workload`` ``runs`` times on each target (dicts as for ``run``'s targets: name, server,
    options), interleaved, each run on a fresh server from the same data, and judges each target
    against the first on throughput, p95 and jitter (one target: measured, no verdict). ``pin``: CPUs for the server (taskset); the
    client runs on the others. ``rate``: open loop at this many queries a second (see ``run``);
    throughput is then what the server kept up with, and p95 counts queueing."""
    chosen = make_targets(targets, "default")
    if any(t.is_dsn for t in chosen):
        raise _core.InvalidInput("bench: targets are servers Gauntlet starts (a binary or 'default'), "
                                 "restarted before every run")
    for t in chosen:  # all of them before any server starts
        check_known_options(t.binary, t.mysqld(), f"targets: {t.name}")
    for name, value in (("tables", tables), ("table_size", table_size)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _core.InvalidInput(f"bench: {name} must be a whole number, 1 or more, not {value!r}")
    if not isinstance(runs, int) or runs < 2:
        raise _core.InvalidInput(f"bench: runs must be 2 or more, not {runs!r}")
    if number_argument("duration", duration) <= 0:
        raise _core.InvalidInput("bench: duration must be more than 0 seconds")
    duration = capped_duration("duration", duration)
    out = writable_folder("out", out)
    grammar, spec = stock_workload(workload, tables, table_size, out)
    spec = data or spec
    summaries: Dict[str, List[RunSummary]] = {t.name: [] for t in chosen}
    timelines: Dict[str, List[list]] = {t.name: [] for t in chosen}
    rows, servers = [], {}
    for i in range(runs):
        for t in chosen:  # A B A B ...
            folder = out / "runs" / t.name / f"{i + 1:02d}"
            summary, seconds, row = measure(t, folder, grammar, spec, threads=threads,
                                             duration=duration, seed=seed + i, warmup=warmup, pin=pin, rate=rate)
            servers.update({t.name: s for s in servers_of(read_json(folder / "summary.json", "summary")).values()})
            summaries[t.name].append(summary)
            timelines[t.name].append(seconds)
            rows.append({"target": t.name, "run": i + 1, **row})
            if progress:
                print(f"gauntlet bench: {t.name} run {i + 1}/{runs}: {summary!r}", flush=True)
    base = chosen[0].name
    # A ratio needs positive values: jitter is 0 for a run of one steady second, and then has no verdict.
    verdicts = {t.name: {m: compare([getattr(x, m) for x in summaries[base]], [getattr(x, m) for x in summaries[t.name]],
                                    metric=m, higher_is_better=better, threshold=threshold, alpha=alpha)
                         for m, better in METRICS.items()
                         if all(getattr(x, m) > 0 for x in summaries[base] + summaries[t.name])}
                for t in chosen[1:]}
    settings = {"workload": workload, "runs": runs, "duration": duration, "threads": threads, "rate": rate, "warmup": warmup,
                "tables": tables, "table_size": table_size, "threshold": threshold, "alpha": alpha,
                "targets": [t.to_dict() for t in chosen], "pin": list(pin) if pin else None}
    groups = {}
    for t in chosen:
        split = separate_groups([x.throughput for x in summaries[t.name]])
        if split is not None:
            groups[t.name] = _group_report(split, [r for r in rows if r["target"] == t.name], timelines[t.name])
    result = BenchResult(out, base, summaries, timelines, verdicts, settings, groups, servers)
    _write(result, rows)
    return result


def _group_report(split, rows: List[dict], timelines: List[list]) -> dict:
    """What a target's separate groups of runs are, and what differed between them: their seeds,
    data templates and the server counters (per second, means over the run) that differ 2x or more."""
    low, high, ratio = split

    def mean(i: int, counter: str) -> float:
        values = [sec.get(counter) for sec in timelines[i] if sec.get(counter) is not None]
        return sum(values) / len(values) if values else 0.0

    counters = {}
    for c in COUNTERS:
        slow, fast = (sum(mean(i, c) for i in g) / len(g) for g in (low, high))
        if max(slow, fast) >= 1 and max(slow, fast) >= 2 * max(min(slow, fast), 1e-9):
            counters[c] = {"slow": round(slow, 1), "fast": round(fast, 1)}
    return {"slow_runs": [rows[i]["run"] for i in low], "fast_runs": [rows[i]["run"] for i in high],
            "ratio": round(ratio, 3), "seeds": {str(r["run"]): r["seed"] for r in rows},
            "templates": {str(r["run"]): r["template"] for r in rows}, "counters": counters}


def measure(t, folder: pathlib.Path, grammar: List[str], spec: Optional[str], *, threads: int, duration: float,
             seed: int, warmup, pin: Optional[Sequence[int]], rate: float = 0):
    """One run of target ``t`` on a fresh server (from the data template) in ``folder``: its
    summary, its seconds with the server's counters, and its line of runs.csv."""
    from ..runs import run
    binary = t.binary
    shutil.rmtree(folder / "server", ignore_errors=True)  # a fresh server: from the data template
    server = ManagedServer(folder / "server", binary=binary, mysqld=t.mysqld(), die_with_parent=True,
                           wrapper=["taskset", "-c", ",".join(map(str, pin))] if pin else ())
    cpus = sorted(os.sched_getaffinity(0))
    client_cpus = [c for c in cpus if pin is None or c not in pin] or cpus
    sampler = _Sampler(server)
    sampler.start()
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, client_cpus)
    try:
        r = run(grammar[0], redefine=grammar[1:], data=spec, threads=threads, duration=duration, seed=seed, rate=rate,
                targets=[{"name": t.name, "server": server, "engine": t.engine}], out=folder, overwrite=True,
                data_template=True)
    finally:
        os.sched_setaffinity(0, previous)
        sampler.done.set()
        sampler.join()
    s = r.summary()
    if s.get("stop_reason") != "duration" or r.findings:
        raise _core.GauntletError(f"bench: run {folder} stopped by {s.get('stop_reason')} "
                                  f"({', '.join(f['signature'] for f in r.findings) or s.get('error')})")
    summary = summarize(r.timeline(), warmup=warmup)
    counters = {row["t"]: row for row in sampler.rows}
    seconds = [{**sec, **{c: counters.get(int(sec["t"]), {}).get(c) for c in COUNTERS}} for sec in r.timeline()]
    row = {"seed": seed, "template": s.get("load", {}).get("from_template") or s.get("load", {}).get("template"),
           "throughput": summary.throughput, "metric": summary.metric, "qps": summary.qps, "p95_ms": summary.p95_ms,
           "jitter": summary.jitter, "low_share": summary.low_share, "stalls": len(summary.stalls),
           "warmup_seconds": summary.warmup_seconds, "p99_ms_whole_run": s["query_latency_ms"]["p99"]}
    return summary, seconds, row


def _write(result: BenchResult, rows: List[dict]) -> None:
    out = result.out
    (out / "verdict.json").write_text(json.dumps(
        {"format": version("verdict"), "settings": result.settings, "baseline": result.baseline,
         "verdicts": {n: {m: v.to_dict() for m, v in per.items()} for n, per in result.verdicts.items()},
         "regressed": result.regressed, "groups": result.groups, "servers": result.servers}, indent=2) + "\n")
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(out / "timelines.csv", "w", newline="") as f:
        fields = ["target", "run", "t", "statements", "transactions", "queries", "p50_ms", "p95_ms", "p99_ms", "max_ms",
                  "query_p50_ms", "query_p95_ms", "query_p99_ms", "query_max_ms", "errors", *COUNTERS]
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for name, runs in result.timelines.items():
            for i, seconds in enumerate(runs):
                for s in seconds:
                    errors = sum(v for k, v in s.get("outcomes", {}).items() if k != "ok")
                    w.writerow({"target": name, "run": i + 1, "errors": errors,
                                **{k: s.get(k) for k in fields if k not in ("target", "run", "errors")}})
    import matplotlib.pyplot as plt
    for name, figure in (("timelines", result.plot_timelines()), ("boxes", result.plot_boxes()),
                         ("stalls", result.plot_stalls())):
        for suffix in ("png", "svg"):
            figure.savefig(out / f"{name}.{suffix}")
        plt.close(figure)
    (out / "verdict.txt").write_text(result.table() + "\n")
