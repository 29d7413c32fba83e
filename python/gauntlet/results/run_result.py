"""A run's results as Python reads them back: RunResult (summary, timeline, findings), Finding, and
compare() to set runs side by side."""

from __future__ import annotations

import json
import os
import pathlib
import signal
from typing import Iterable, Optional, Sequence, Union

from .. import _core
from . import frames
from ..formats import read_json
from .frames import KINDS
from .reach import Reach, read_reach


class Finding(dict):
    """One finding of a run: a dict (kind, oracle, signature, detail, statement, preceding, targets,
    key, occurrences, id, known) that can also reduce itself."""

    def __init__(self, data: dict, run_out: pathlib.Path):
        super().__init__(data)
        self._out = run_out

    @property
    def folder(self) -> pathlib.Path:
        """``OUT/findings/ID``: finding.json and, once reduced, repro/."""
        return self._out / "findings" / self["id"]

    def reduce(self, *, budget: float = 600, any_crash: bool = False, progress: bool = False,
               hang_timeout: Optional[float] = None):
        """Reduces it to a verified mysql-test-run test case in ``folder/repro`` (see
        :func:`gauntlet.reduce`); returns the Reduction."""
        from ..reduction import reduce
        return reduce(self.folder, budget=budget, any_crash=any_crash, progress=progress, hang_timeout=hang_timeout)

    def __repr__(self) -> str:
        return f"<Finding {self.get('id', '?')}: {self.get('signature', '')[:100]!r}>"


class RunResult:
    """What a run did: ``summary()``, ``timeline()``, ``findings``, ``to_pandas()``.

    Everything is also on disk in ``out``: run.json (the settings, for
    ``gauntlet replay``), summary.json, events.jsonl (one line per second and
    per finding, written as they happen) and, with ``statement_log=True``,
    statements-N.jsonl (every statement, in start order by ``seq``).
    """

    def __init__(self, out: pathlib.Path, summary: dict, timeline: list):
        self.out = out
        self._summary = summary
        self._timeline = timeline

    @classmethod
    def load(cls, out: Union[str, os.PathLike]) -> "RunResult":
        """Reads a finished (or interrupted) run back from its directory."""
        out = pathlib.Path(out)
        if not (out / "summary.json").exists():
            raise _core.InvalidInput(
                f"{out}: no summary.json: " + ("the run is still going, or was killed outright (its events.jsonl "
                                               "and statement logs hold what it did)" if (out / "run.json").exists()
                                               else "not a run folder"))
        timeline = []
        events = out / "events.jsonl"
        if events.exists():
            for line in events.read_text().splitlines():
                try:
                    event = json.loads(line)
                except ValueError:  # a line torn by a kill
                    continue
                if event.get("type") == "second":
                    timeline.append({k: v for k, v in event.items() if k != "type"})
        return cls(out, read_json(out / "summary.json", "summary"), timeline)

    def summary(self) -> dict:
        """The run's summary.json as a dict: totals, rates, outcomes, errors with examples, latency, findings, settings, server_info, stop_reason."""
        return self._summary

    def timeline(self) -> list:
        """One dict per second: t, statements, transactions, outcomes, p50/p95/p99/max_ms."""
        return self._timeline

    @property
    def reach(self) -> Optional[Reach]:
        """Which of the server's own names the statements used (a Reach: ``table()``, ``to_pandas()``),
        or None when the run counted none (the server's lists could not be read)."""
        return read_reach(self.out)

    @property
    def findings(self) -> list:
        """The findings, one per signature: dicts with kind (crash, shutdown, hang, corruption, unreachable,
        start, divergence, error-mismatch, error-log, ...), oracle, signature, detail, statement, preceding
        (the session's statements before it), targets, key (to replay it), occurrences, id (its folder
        under OUT/findings) and known (the known-bugs note it matched); ``finding.reduce()`` reduces one."""
        return [Finding(f, self.out) for f in self._summary.get("findings", [])]

    def reduce(self, finding: Union[str, dict], *, budget: float = 600, any_crash: bool = False,
               progress: bool = False, hang_timeout: Optional[float] = None):
        """Reduces one finding (its id or dict) to a verified mysql-test-run test case in
        OUT/findings/ID/repro (see :func:`gauntlet.reduce`); returns the Reduction."""
        from ..reduction import reduce
        fid = finding.get("id") if isinstance(finding, dict) else finding
        if not isinstance(fid, str) or not (self.out / "findings" / fid).exists():
            raise _core.InvalidInput(f"reduce: {finding!r} is no finding of the run in {self.out}")
        return reduce(self.out / "findings" / fid, budget=budget, any_crash=any_crash, progress=progress,
                      hang_timeout=hang_timeout)

    @property
    def exit_code(self) -> int:
        """What ``gauntlet run`` exits with: 1 when something was found that is not a known bug (what
        CI should fail on), else 2 when the grammar or an input failed during the run (``summary()["error"]``),
        else 128+N when signal N ended it (130 for Ctrl-C), else 0."""
        s = self._summary
        if any(not f.get("known") for f in self.findings):
            return 1
        if s.get("error"):
            return 2
        if s.get("signal"):
            return 128 + int(getattr(signal.Signals, s["signal"]))
        return 0

    def to_pandas(self):
        """The timeline as a DataFrame indexed by second ``t`` (needs pandas): statements,
        transactions, p50/p95/p99/max_ms and ``n_<kind>`` per outcome kind. A run that never
        started gives an empty frame with these columns."""
        return frames.timeline_frame(self._timeline)

    def to_dict(self, flat: bool = False) -> dict:
        """The summary; ``flat=True``: one level of ``name: scalar`` (``latency_ms.p95``,
        ``settings.seed``, ``errors.1146``, ...), what :func:`gauntlet.compare` tabulates."""
        return frames.flatten(self._summary) if flat else dict(self._summary)

    def to_series(self):
        """The flat summary as a pandas Series."""
        import pandas as pd
        return pd.Series(self.to_dict(flat=True), name=self.out.name)

    def plot(self):
        """Throughput, latency percentiles and errors over time (a matplotlib Figure)."""
        return frames.plot_timeline(self._timeline, title=f"{self._summary.get('grammar', '')} ({self.out})")

    def __repr__(self) -> str:
        s = self._summary
        return (f"RunResult({s.get('statements', 0):,} statements in {s.get('seconds', 0):.1f} s "
                f"({s.get('statements_per_second', 0):,.0f}/s), {len(self.findings)} findings, "
                f"stopped by {s.get('stop_reason')})")

    def _repr_html_(self) -> str:
        s = self._summary
        rows = "".join(f"<tr><td>{k}</td><td>{v:,}</td></tr>" for k, v in s["outcomes"].items() if v)
        found = "".join(f"<li><b>{f['kind']}</b>: {f['signature']}</li>" for f in self.findings)
        return (f"<b>{self!r}</b><table>{rows}</table>"
                + (f"<ul>{found}</ul>" if found else ""))

    def table(self, *, error: bool = True) -> str:
        """The summary as text, for terminals; ``error=False`` leaves out the run's error (the
        command line prints it on stderr, see :meth:`error_line`)."""
        s = self._summary
        lat = s["latency_ms"]
        lines = server_lines(servers_of(s)) + [
                 f"statements   {s['statements']:>12,}   {s['statements_per_second']:>10,.0f}/s",
                 f"transactions {s['transactions']:>12,}   {s['transactions_per_second']:>10,.0f}/s",
                 f"latency ms   p50 {lat['p50']:.3f}  p95 {lat['p95']:.3f}  p99 {lat['p99']:.3f}  "
                 f"max {lat['max']:.3f}"]
        for kind in KINDS:
            n = s["outcomes"].get(kind, 0)
            if n:
                lines.append(f"  {kind:<11}{n:>12,}  {100.0 * n / max(1, s['statements']):6.2f}%")
        if s.get("cancelled"):
            lines.append(f"  cancelled  {s['cancelled']:>12,}  (in flight at the end; not in the counts above)")
        for e in s.get("errors", [])[:8]:
            lines.append(f"  error {e['code']} {e['name']} ({e['kind']}): {e['count']:,}")
            for x in e.get("examples", [])[:1]:
                lines.append(f"    e.g. {x['message'][:100]}  <- {x['statement'][:100]}")
        for e in s.get("connect_errors", [])[:4]:
            lines.append(f"  connect error {e['code']} {e['name']}: {e['count']:,}")
        if s.get("verified"):
            lines.append(f"verified     {s['verified']:>12,}   {s['verified_per_second']:>10,.0f}/s   "
                         "(statements an oracle checked through)")
        for name, o in s.get("oracles", {}).items():
            skipped = ", ".join(f"{why}: {n:,}" for why, n in sorted(o["skipped_by_reason"].items(),
                                                                       key=lambda x: -x[1])[:4])
            lines.append(f"  oracle {name}: {o['checked']:,} checked, {o['passed']:,} passed, {o['fired']:,} fired, "
                         f"{o['skipped']:,} skipped" + (f" ({skipped})" if skipped else ""))
        rec = s.get("recovery")
        if rec:
            times = rec.get("recovery_seconds") or []
            crashes = f" and {rec['crashes']} crashes of the workload's" if rec.get("crashes") else ""
            lines.append(f"recovery     {rec['kills']} kills ({rec.get('signal')}){crashes}, {rec['recoveries']} recoveries"
                         + (f" in {sum(times) / len(times):.1f} s on average, {max(times):.1f} s at most" if times else "")
                         + f"; {rec.get('tables_checked', 0)} tables and {rec.get('commits_checked', 0):,} acknowledged "
                           "commits checked after the last")
        rep = s.get("replication")
        if rep:
            kills = f", {rep['replica_kills']} replica kills" if rep.get("replica_kills") else ""
            lines.append(f"replication  {rep['replicas']} replicas, {rep['checkpoints']} checkpoints{kills}: "
                         f"{rep['tables_compared']:,} tables and {rep['rows_compared']:,} rows compared, "
                         f"{rep['diverged_tables']} diverged; caught up in {rep['catch_up_seconds']:.1f} s at most")
            lines += [f"  {r['name']}: {r['version']} ({r['binary']})" for r in rep.get("servers", [])]
            if rep.get("interrupted_skipped"):
                lines.append(f"  {rep['interrupted_skipped']} statements interrupted by the run skipped on replicas "
                             "(half done on the primary by design); the tables they changed no longer compared")
            if rep.get("one_phase_tables"):
                lines.append(f"  no longer compared after a primary kill: {', '.join(rep['one_phase_tables'])} (a "
                             "transaction that also wrote Aria, committed in one phase, was in flight: the binary log "
                             "may hold it while InnoDB does not)")
        for f in self.findings:
            known = f" [known: {f['known']}]" if f.get("known") else ""
            times = f" (x{f['occurrences']})" if f.get("occurrences", 1) > 1 else ""
            where = f" in {self.out / 'findings' / f['id']}" if f.get("id") else ""
            lines.append(f"FINDING {f['kind']}{times}{known}: {f['signature'][:200]}{where}")
        causes = s.get("finding_counts", {}).get("causes")
        if causes is not None:
            met = sorted({f["known"] for f in self.findings if f.get("known")})
            lines.append(f"root causes {causes['total']}: {causes['known']} known"
                         + (f" ({', '.join(met)})" if met else "") + f", {len(causes['new'])} new"
                         + (": " + "; ".join(causes["new"][:10]) if causes["new"] else ""))
        if error and self.error_line():
            lines.append(self.error_line())
        if s.get("signal"):
            lines.append(f"stopped by {s['signal']}")
        if s.get("rounds"):
            ended: dict = {}
            for r in s["rounds"]:
                ended[r["stop_reason"]] = ended.get(r["stop_reason"], 0) + 1
            lines.append(f"rounds {len(s['rounds'])} (ended by " + ", ".join(f"{k} {v}" for k, v in ended.items())
                         + f"): {s['seconds']:.1f} s of statements in {s.get('wall_seconds', 0):.1f} s, "
                           f"each in {self.out / 'rounds'}/NNN")
        lines.append(f"stopped by {s['stop_reason']} after {s['seconds']:.1f} s; results in {self.out}")
        return "\n".join(lines)


    def error_line(self) -> str:
        """What ended the run when it was an error ("ERROR grammar (session 2): ..."), else ""."""
        e = self._summary.get("error")
        if not e:
            return ""
        where = f" (session {e['thread']})" if e.get("thread") else ""
        return f"ERROR {e['kind']}{where}: {e['message']}"


def compare(results: Iterable, labels: Optional[Sequence[str]] = None):
    """One row per run (a RunResult, or its folder), its flattened summary as columns: the
    settings and server options side by side with throughput, latency, outcomes and errors.
    ``labels`` name the rows (default: each run's folder name)."""
    import pandas as pd
    results = [r if isinstance(r, RunResult) else RunResult.load(r) for r in results]
    if labels is None:
        labels = [r.out.name for r in results]
    if len(labels) != len(results):
        raise ValueError(f"labels: {len(labels)} labels for {len(results)} runs")
    frame = pd.DataFrame([r.to_dict(flat=True) for r in results], index=list(labels))
    frame.index.name = "run"
    return frame


def servers_of(summary: dict) -> dict:
    """Each target's server as a run's summary.json records it: {target: {"version", "binary"}} (the
    binary None for a server reached by DSN), so that a comparison of two builds says which was which."""
    targets = summary.get("settings", {}).get("targets") or [{}]
    per_target = summary.get("target_info") or {targets[0].get("name", "default"): summary}
    return {name: {"version": (info.get("server_info") or {}).get("version"),
                   "binary": (info.get("server_info") or {}).get("binary")}
            for name, info in per_target.items() if (info.get("server_info") or {}).get("version")}


def server_lines(servers: dict) -> list:
    """``servers_of``'s record as text, a line a server."""
    return [f"server {name}: {s['version']}" + (f" ({s['binary']})" if s.get("binary") else "")
            for name, s in servers.items()]
