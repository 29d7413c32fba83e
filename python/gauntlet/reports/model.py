"""What a report says, read from any folder Gauntlet writes: a hunt's (hunt.json), a run's
(summary.json, or findings.jsonl while it runs), a campaign's (results.jsonl) or a bench's
(verdict.json). The writers (JUnit, Markdown, HTML) render this one value, so the three agree.

Test cases: for a hunt or a run, one per grammar and oracle (failed when it found a new root cause,
passed when it found nothing new), and one per known cause (skipped, named by its known bug); for
a campaign one per row; for a bench one per target and metric.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
from typing import Dict, List, Optional, Tuple

from .. import _core
from ..formats import read_json
from ..results import triage
from ..results.reach import Reach, read_reach

_SERVER_ORACLE = "crash"  # crashes, hangs, shutdowns, corruption: what every run watches


@dataclasses.dataclass
class Cause:
    """A root cause as a report shows it."""
    key: str
    kind: str
    count: int
    known: Optional[str]
    where: List[Tuple[str, str]]  # (grammar, oracle) of its findings
    example: str                  # a finding's folder, relative to the report's folder
    statement: str
    minimal: Optional[str]
    reproducer: Optional[str] = None       # the .test file (relative), when there is one
    reproducer_text: str = ""
    verified: Optional[bool] = None        # None: not checked
    why: str = ""
    diff: str = ""

    @property
    def new(self) -> bool:
        return not self.known


@dataclasses.dataclass
class Case:
    """A JUnit test case."""
    suite: str
    name: str
    status: str  # passed, failed, skipped
    message: str = ""
    text: str = ""
    seconds: float = 0.0


@dataclasses.dataclass
class Report:
    """Everything the writers render."""
    kind: str  # hunt, run, campaign, bench
    folder: pathlib.Path
    title: str
    totals: Dict[str, str]
    causes: List[Cause]
    cases: List[Case]
    timelines: List[Tuple[str, List[float], List[float]]]  # (label, seconds, statements/s)
    running: bool  # written while the run went on
    reach: Optional[Reach] = None  # what of the server's surface the statements used (a hunt's or run's)

    @property
    def new_causes(self) -> List[Cause]:
        return [c for c in self.causes if c.new]


def load_report(folder) -> Report:
    """The report of ``folder``; InvalidInput when it holds none of Gauntlet's results."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise _core.InvalidInput(f"{folder}: no such folder")
    if (folder / "hunt.json").is_file():
        return _hunt(folder)
    if (folder / "summary.json").is_file() or (folder / "findings.jsonl").is_file():
        return _run(folder)
    if (folder / "results.jsonl").is_file():
        return _campaign(folder)
    if (folder / "verdict.json").is_file():
        return _bench(folder)
    raise _core.InvalidInput(f"{folder}: not a hunt, run, campaign or bench folder (no hunt.json, summary.json, "
                             "findings.jsonl, results.jsonl or verdict.json)")


def _read(path: pathlib.Path, limit: int = 20000) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text if len(text) <= limit else text[:limit] + "\n... (cut)"


def _oracle_of(finding_folder: pathlib.Path) -> str:
    try:
        f = json.loads((finding_folder / "finding.json").read_text())
    except (OSError, ValueError):
        return _SERVER_ORACLE
    return f.get("oracle") or _SERVER_ORACLE


def _causes(folder: pathlib.Path, root_causes: List[dict], grammar_of, extra: Dict[str, dict]) -> List[Cause]:
    """Causes from root_causes.json entries; ``extra``: what the hunt added (reproducers, known tests)."""
    out = []
    for c in root_causes:
        # triage names findings by path, a run's own root_causes.json by id under OUT/findings
        paths = [pathlib.Path(p) if os.path.isabs(p) or os.sep in p else folder / "findings" / p for p in c["findings"]]
        where = sorted({(grammar_of(p), _oracle_of(p)) for p in paths})
        more = extra.get(c["key"], {})
        minimal = c.get("minimal") or {}
        cause = Cause(key=c["key"], kind=c["kind"], count=c["count"], known=c.get("known"), where=where,
                      example=os.path.relpath(paths[0], folder), statement=c.get("statement", ""),
                      minimal=minimal.get("sql"), diff=minimal.get("diff", "") or "")
        repro = more.get("reproducer") or {}
        test = repro.get("test") or more.get("known_reproducer")
        if test:
            path = pathlib.Path(test) if os.path.isabs(test) else folder / test
            cause.reproducer, cause.reproducer_text = str(test), _read(path)
        if repro:
            cause.verified, cause.why = bool(repro.get("verified")), repro.get("why", "")
        elif cause.known and test:
            cause.why = "the known bug's reproducer in the catalogue"
        out.append(cause)
    return out


def _cases(causes: List[Cause], oracles: Dict[str, List[str]], seconds: Dict[str, float]) -> List[Case]:
    """A case per grammar and oracle (failed by its new causes), and a skipped one per known cause."""
    cases = []
    for grammar, names in oracles.items():
        checks = [_SERVER_ORACLE] + [n for n in names if n != _SERVER_ORACLE]
        share = seconds.get(grammar, 0.0) / len(checks)  # the checks ran together: the grammar's time split
        for oracle in checks:
            new = [c for c in causes if c.new and (grammar, oracle) in c.where]
            if new:
                text = "\n\n".join(_case_text(c) for c in new)
                cases.append(Case(grammar, oracle, "failed", f"{len(new)} new root cause(s): "
                                  + "; ".join(c.key for c in new), text, share))
            else:
                cases.append(Case(grammar, oracle, "passed", seconds=share))
    for c in causes:
        if c.known:
            grammar = c.where[0][0] if c.where else "gauntlet"
            cases.append(Case(grammar, f"known: {c.known}", "skipped",
                              f"known bug {c.known}: {c.kind} x{c.count}: {c.key}"))
    return cases


def _case_text(c: Cause) -> str:
    lines = [f"{c.kind} x{c.count}: {c.key}", f"finding: {c.example}"]
    if c.minimal:
        lines.append(f"minimal query: {c.minimal}")
    if c.reproducer:
        state = "verified by mariadb-test-run" if c.verified else f"not verified: {c.why}"
        lines += [f"reproducer: {c.reproducer} ({state})", c.reproducer_text]
    else:
        lines.append(f"statement: {c.statement}")
    return "\n".join(lines)


def _timeline(run: pathlib.Path) -> Tuple[List[float], List[float]]:
    """Statements per second of a run (its events.jsonl's seconds), rounds one after another."""
    ts, rates, offset = [], [], 0.0
    sources = sorted(run.glob("rounds/*/events.jsonl")) or [run / "events.jsonl"]
    for events in sources:
        last = 0.0
        for line in _read(events, limit=50_000_000).splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") == "second":
                ts.append(offset + e["t"])
                rates.append(e["statements"])
                last = e["t"]
        offset += last
    return ts, rates


def _hunt(folder: pathlib.Path) -> Report:
    record = read_json(folder / "hunt.json", "hunt")
    rounds = record["rounds"]
    by_folder = {(folder / r["folder"]).resolve(): pathlib.Path(r["grammar"]).name for r in rounds}

    def grammar_of(finding: pathlib.Path) -> str:
        for parent in finding.resolve().parents:
            if parent in by_folder:
                return by_folder[parent]
        return "hunt"

    root = read_json(folder / "root_causes.json", "root-causes")["root_causes"] if (folder / "root_causes.json").is_file() else []
    extra = {c["key"]: c for c in record["causes"]}
    causes = _causes(folder, root, grammar_of, extra)
    oracles: Dict[str, List[str]] = {}
    seconds: Dict[str, float] = {}
    timelines = []
    for r in rounds:
        name = pathlib.Path(r["grammar"]).name
        summary = folder / r["folder"] / "summary.json"
        ran = list(json.loads(summary.read_text()).get("oracles", {})) if summary.is_file() else []
        oracles[name] = sorted(set(oracles.get(name, [])) | set(ran))
        seconds[name] = seconds.get(name, 0.0) + r["seconds"]
        timelines.append((f"round {r['round']} {name}", *_timeline(folder / r["folder"])))
    statements = sum(r["statements"] for r in rounds)
    totals = {"rounds": str(len(rounds)), "statements": f"{statements:,}", "seconds": f"{record['seconds']:.0f}",
              "root causes": str(len(causes)), "new": str(sum(c.new for c in causes)),
              "known": str(sum(not c.new for c in causes)),
              "known bugs": record["settings"].get("known_bugs") or "none"}
    return Report("hunt", folder, f"gauntlet hunt: {folder.name}", totals, causes, _cases(causes, oracles, seconds),
                  timelines, running=False, reach=read_reach(folder))


def _run(folder: pathlib.Path) -> Report:
    summary_path = folder / "summary.json"
    running = not summary_path.is_file()
    summary = read_json(summary_path, "summary") if not running else {}
    run = read_json(folder / "run.json", "run") if (folder / "run.json").is_file() else {}
    grammar = pathlib.Path(run.get("grammar") or summary.get("grammar") or "grammar").name
    causes_json = folder / "root_causes.json"
    if causes_json.is_file():
        root = read_json(causes_json, "root-causes")["root_causes"]
    else:
        root = triage(folder).root_causes
    causes = _causes(folder, root, lambda _: grammar, {})
    ran = list(summary.get("oracles", {})) or list(run.get("oracles") or [])
    seconds = float(summary.get("seconds", 0.0))
    totals = {"statements": f"{summary.get('statements', 0):,}", "seconds": f"{seconds:.0f}",
              "root causes": str(len(causes)), "new": str(sum(c.new for c in causes)),
              "known": str(sum(not c.new for c in causes))}
    if running:
        totals["state"] = "running (findings so far)"
    return Report("run", folder, f"gauntlet run: {folder.name}", totals, causes,
                  _cases(causes, {grammar: ran}, {grammar: seconds}), [(grammar, *_timeline(folder))], running,
                  reach=None if running else read_reach(folder))


def _campaign(folder: pathlib.Path) -> Report:
    rows = [json.loads(line) for line in _read(folder / "results.jsonl", limit=50_000_000).splitlines() if line.strip()]
    cases = []
    for r in rows:
        values = ", ".join(f"{k}={v}" for k, v in (r.get("values") or {}).items())
        status = {"passed": "passed", "failed": "failed"}.get(r["status"], "failed")
        message = {"failed": f"{r.get('findings', 0)} new finding(s)", "invalid": "the server refused the options",
                   "error": r.get("error", "")}.get(r["status"], "")
        text = r.get("error_lines") or r.get("error") or ""
        cases.append(Case("campaign", f"row {r['row']}: {values}", status, message, text, r.get("seconds", 0.0)))
    totals = {"rows": str(len(rows)), **{s: str(sum(r["status"] == s for r in rows)) for s in ("passed", "failed",
                                                                                                "invalid", "error")}}
    return Report("campaign", folder, f"gauntlet campaign: {folder.name}", totals, [], cases, [], running=False)


def _bench(folder: pathlib.Path) -> Report:
    verdict = read_json(folder / "verdict.json", "verdict")
    cases = []
    for target, metrics in (verdict.get("verdicts") or {}).items():
        for metric, v in metrics.items():
            failed = v.get("verdict") == "regressed"
            cases.append(Case("bench", f"{target} {metric}", "failed" if failed else "passed",
                              f"{metric} regressed: ratio {v.get('ratio')}" if failed else "",
                              json.dumps(v, indent=1) if failed else ""))
    totals = {"baseline": str(verdict.get("baseline", "")), "regressed": str(bool(verdict.get("regressed")))}
    return Report("bench", folder, f"gauntlet bench: {folder.name}", totals, [], cases, [], running=False)
