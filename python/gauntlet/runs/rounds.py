"""Keep-going runs: a crash, hang or shutdown is recorded and the run goes on with fresh servers.

A plain run ends at its first crash, which on a server that crashes every
few seconds leaves most of a 30-minute hunt unused. A keep-going run is a
sequence of rounds, each a whole run in ``OUT/rounds/NNN`` (its own run.json,
servers, data, statement logs and findings; ``gauntlet replay
OUT/rounds/NNN`` replays it), round N with seed ``seed + N - 1`` so that no
two rounds repeat each other. ``OUT`` holds their sum, written after every
round: summary.json (totals, latency merged from the rounds' histograms, the
findings one per signature with the rounds they occurred in),
events.jsonl (the rounds' seconds on one clock, and a line per round),
findings.jsonl and findings/<id> (a link to the folder of the round that
found it first), and root_causes.json (the findings grouped by cause).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shutil
import sys
import time
from typing import Callable, Optional

from .. import _core
from ..results import RunResult
from ..results.reach import add_reach
from ..formats import stamped
from ..server import ManagedServer
from .execute import run_workload
from .folder import claim_out, write_atomically
from .plan import RunPlan, data_spec
from .preparation import remove_stopped_server
from .signals import Interrupts, progress_printer

# How a round ends when the server, not the run, stopped it: the next round starts.
GO_ON = ("crash", "shutdown", "hang", "unreachable", "killed")  # killed: the recovery oracle's, on purpose


def keep_going(workload, label: str, data, plan: RunPlan):
    """run(keep_going=True): the rounds, and their sum in ``plan.out``."""
    settings = plan.settings
    if settings["duration"] == 0:
        raise _core.InvalidInput("keep_going: a keep-going run ends by its duration; give duration "
                                 "(queries, if given, ends a round)")
    for t in plan.targets:
        if t.is_dsn or isinstance(t.server, ManagedServer):
            raise _core.InvalidInput(f"keep_going: target {t.name}: each round starts fresh servers, so every "
                                     "server must be one Gauntlet starts ('default' or a binary path)")
    out = plan.out
    lock = claim_out(out, plan.overwrite)
    try:
        rounds = out / "rounds"
        if rounds.exists():  # an earlier run's, which overwrite replaces
            for server_dir in sorted(rounds.glob("*/server*")):
                if server_dir.is_dir():
                    remove_stopped_server(server_dir)
            shutil.rmtree(rounds)
        from ..version import __version__
        record = {**plan.record, "keep_going": True, "gauntlet_version": __version__}
        (out / "run.json").write_text(json.dumps(stamped("run", record), indent=2, default=str) + "\n")

        def start_round(n, folder, left, tick):
            seed = round_seed(settings["seed"], record, n)
            mine = dataclasses.replace(
                plan, spec=data_spec(data, seed, record.get("trusted_perl", False)), settings={**settings, "seed": seed, "duration": left},
                out=folder, progress=tick, keep_server=False, overwrite=False,
                record={**record, "seed": seed, "duration": left, "keep_going": False, "round": n,
                        "round_of": str(out)})
            return run_workload(workload, {"grammar": label, "round": n}, mine)

        info = {"grammar": label, "settings": record, "seed": settings["seed"], "threads": settings["threads"]}
        with Interrupts() as interrupts:
            return run_rounds(start_round, info, out, settings["duration"], plan.progress, interrupts)
    finally:
        lock.close()


def round_seed(seed: int, record: dict, n: int) -> int:
    """Round n's seed: the run's + n - 1, so that no two rounds repeat each other; a shard's rounds step
    by the shard count, so that the shards' rounds interleave instead of meeting."""
    return seed + (n - 1) * (record.get("shard") or {}).get("count", 1)


def run_rounds(start_round: Callable, info: dict, out: pathlib.Path, duration: float, progress, interrupts,
               go_on: tuple = GO_ON):
    """Runs rounds until ``duration`` seconds have passed or a round ends for another reason
    than the server's (the duration, an interrupt, an error, a server that will not start), or
    than ``go_on``'s stop reasons (replication's rounds end by their duration, a checkpoint each).
    ``start_round(n, folder, seconds_left, tick)`` runs round ``n`` and returns its RunResult."""
    total = _Total(out, info)
    printer = progress_printer(sys.stderr) if progress is True else (progress or None)
    t0 = time.monotonic()
    n = 0
    while not interrupts:
        left = duration - (time.monotonic() - t0)
        if left < 1:
            break
        n += 1
        offset = time.monotonic() - t0
        result = start_round(n, out / "rounds" / f"{n:03d}", left, _shifted(printer, offset))
        total.add(n, result, offset, time.monotonic() - t0)
        if result.summary().get("stop_reason") not in go_on or result.summary().get("signal"):
            break
    if interrupts:
        total.interrupted(interrupts.signum)
    elif total.summary["stop_reason"] in GO_ON:  # the last round's server stopped it, and the time was up
        total.summary["stop_reason"] = "duration"
        total.write_summary()
    return RunResult(out, total.summary, total.timeline)


def amended_result(result: RunResult, findings: list, extra: dict, plan: RunPlan, described: dict) -> RunResult:
    """A round's result with what was checked after it: ``findings`` recorded in its folder (``described``:
    targets the plan does not name, such as replicas), ``extra``'s keys in its summary."""
    summary = {**result.summary(), **extra}
    if findings:
        targets = {t.name: t.to_dict() for t in plan.targets}
        recorded = _core.record_findings(str(result.out), findings, plan.known, {**targets, **described})
        summary["findings"] = list(summary.get("findings", [])) + recorded
        summary["finding_counts"] = _core.finding_counts(summary["findings"])
    write_atomically(result.out / "summary.json", json.dumps(stamped("summary", summary), indent=1) + "\n")
    return RunResult(result.out, summary, result.timeline())


def _shifted(tick: Optional[Callable], offset: float) -> Optional[Callable]:
    """The progress callback seeing a round's seconds on the whole run's clock."""
    if tick is None:
        return None
    return lambda second: tick(None if second is None else {**second, "t": second["t"] + offset})


class _Total:
    """The sum of the rounds so far, rewritten to OUT after each."""

    def __init__(self, out: pathlib.Path, info: dict):
        self.out = out
        self.info = info
        self.summary = {**_core.empty_summary(), **info, "keep_going": True, "rounds": []}
        self.timeline: list = []
        self.histograms: dict = {"latency": [], "query_latency": []}
        self.targets: dict = {}
        self.by_signature: dict = {}
        self.reach = None  # the rounds' Reach

    def add(self, n: int, result, offset: float, wall: float) -> None:
        s, r = self.summary, result.summary()
        for key in ("queries", "statements", "cancelled", "transactions", "queries_done", "verified",
                    "generate_cpu_seconds"):
            s[key] += r.get(key, 0)
        s["seconds"] += r.get("seconds", 0)
        s["wall_seconds"] = wall
        s["statements_per_second"] = s["statements"] / max(s["seconds"], 1e-9)
        s["transactions_per_second"] = s["transactions"] / max(s["seconds"], 1e-9)
        s["queries_per_second"] = s["queries_done"] / max(s["seconds"], 1e-9)
        s["verified_per_second"] = s["verified"] / max(s["seconds"], 1e-9)
        _add_counts(s["outcomes"], r.get("outcomes", {}))
        s["errors"] = _merge_by_code(s["errors"], r.get("errors", []))
        s["connect_errors"] = _merge_by_code(s["connect_errors"], r.get("connect_errors", []))
        for name, o in r.get("oracles", {}).items():
            mine = s["oracles"].setdefault(name, {"checked": 0, "passed": 0, "fired": 0, "skipped": 0,
                                                  "skipped_by_reason": {}})
            _add_counts(mine, {k: v for k, v in o.items() if not isinstance(v, dict)})
            _add_counts(mine["skipped_by_reason"], o.get("skipped_by_reason", {}))
            if "minimised" in o:
                _add_counts(mine.setdefault("minimised", {}), o["minimised"])
        for name, histograms in self.histograms.items():
            if f"{name}_histogram" in r:
                histograms.append(r[f"{name}_histogram"])
                s[f"{name}_ms"], s[f"{name}_histogram"] = _core.merge_latency(histograms)
        for t in r.get("targets", []):
            self._add_target(t)
        s["targets"] = [{k: v for k, v in t.items() if k != "histograms"} for t in self.targets.values()]
        for key in ("server", "server_info", "target_info", "oracles_run"):
            if key in r and key not in s:
                s[key] = r[key]
        s["stop_reason"], s["error"] = r.get("stop_reason", ""), r.get("error")
        if r.get("signal"):
            s["signal"] = r["signal"]
        self._add_reach(result.out)
        if "recovery" in r:  # the recovery oracle's round: its kill and what recovery checked
            self._add_recovery(r["recovery"])
        if "replication" in r:  # a replicated run's round: what its checkpoint compared
            self._add_replication(r["replication"])
        ids = [self._add_finding(n, f) for f in r.get("findings", [])]
        s["finding_counts"] = _core.finding_counts(s["findings"])
        s["rounds"].append({"round": n, "dir": f"rounds/{n:03d}", "seed": r.get("seed"), "at": offset,
                            "seconds": r.get("seconds", 0), "statements": r.get("statements", 0),
                            "stop_reason": r.get("stop_reason"), "findings": ids})
        seconds = [{**x, "t": x["t"] + offset, "round": n} for x in result.timeline()]
        self.timeline.extend(seconds)
        self._append("events.jsonl", [{"type": "second", **x} for x in seconds]
                     + [{"type": "round", **s["rounds"][-1]}])
        self.write_summary()

    def _add_reach(self, folder: pathlib.Path) -> None:
        self.reach = add_reach(self.reach, folder)
        if self.reach is not None:
            self.summary["reach"] = self.reach.to_json()
            try:  # the rounds' surfaces together: what the merged reach counts against
                write_atomically(self.out / "surface.json", self.reach.surface.dumps())
            except OSError as e:
                print(f"gauntlet: cannot write {self.out / 'surface.json'}: {e.strerror}", file=sys.stderr)

    def _add_recovery(self, x: dict) -> None:
        mine = self.summary.setdefault("recovery", {"kills": 0, "recoveries": 0, "signal": None,
                                                    "recovery_seconds": [], "tables_checked": 0, "commits_checked": 0})
        mine["kills"] += x.get("kills", 0)
        if x.get("kills") and mine["signal"] is None:  # the signal of the oracle's kills
            mine["signal"] = x.get("signal")
        if x.get("crashes"):  # the workload's own crashes, recovered from and checked as the kills are
            mine["crashes"] = mine.get("crashes", 0) + x["crashes"]
        mine["recoveries"] += x.get("recoveries", 0)
        if "recovery_seconds" in x:
            mine["recovery_seconds"].append(x["recovery_seconds"])
        mine["tables_repaired"] = mine.get("tables_repaired", 0) + x.get("tables_repaired", 0)
        for key in ("tables_checked", "commits_checked"):  # the last check's: the ledger's grow
            mine[key] = x.get(key, mine[key])

    def _add_replication(self, x: dict) -> None:
        mine = self.summary.setdefault("replication", {"replicas": x.get("replicas", 0), "checkpoints": 0,
                                                       "replica_kills": 0, "catch_up_seconds": 0.0,
                                                       "tables_compared": 0, "rows_compared": 0,
                                                       "tables_skipped": 0, "diverged_tables": 0})
        for key in ("checkpoints", "replica_kills", "tables_compared", "rows_compared", "tables_skipped",
                    "diverged_tables", "events_skipped", "interrupted_skipped", "xa_settled"):
            mine[key] = mine.get(key, 0) + x.get(key, 0)
        if x.get("one_phase_tables"):
            mine["one_phase_tables"] = sorted(set(mine.get("one_phase_tables", [])) | set(x["one_phase_tables"]))
        mine["catch_up_seconds"] = max(mine["catch_up_seconds"], x.get("catch_up_seconds", 0.0))
        mine.setdefault("servers", x.get("servers", []))

    def interrupted(self, signum: int) -> None:
        import signal
        self.summary["stop_reason"] = "interrupted"
        self.summary["signal"] = signal.Signals(signum).name
        self.write_summary()

    def _add_target(self, t: dict) -> None:
        mine = self.targets.setdefault(t["name"], {"name": t["name"], "outcomes": {}, "errors": [],
                                                   "latency_ms": {}, "histograms": []})
        _add_counts(mine["outcomes"], t.get("outcomes", {}))
        mine["errors"] = _merge_by_code(mine["errors"], t.get("errors", []))
        if "latency_histogram" in t:
            mine["histograms"].append(t["latency_histogram"])
            mine["latency_ms"], _ = _core.merge_latency(mine["histograms"])

    def _add_finding(self, n: int, f: dict) -> str:
        """One finding per signature across the rounds; the first round's folder is the finding's."""
        known = self.by_signature.get(f["signature"])
        if known is not None:
            known["occurrences"] += f.get("occurrences", 1)
            if n not in known["rounds"]:
                known["rounds"].append(n)
            return known["id"]
        findings = self.summary["findings"]
        mine = {**f, "id": f"{len(findings) + 1:04d}-{f['kind']}", "round": n, "rounds": [n],
                "round_id": f.get("id")}
        findings.append(mine)
        self.by_signature[f["signature"]] = mine
        if f.get("id"):
            link = self.out / "findings" / mine["id"]
            try:
                link.parent.mkdir(exist_ok=True)
                link.symlink_to(pathlib.Path("..") / "rounds" / f"{n:03d}" / "findings" / f["id"])
            except OSError as e:
                print(f"gauntlet: cannot link {link}: {e.strerror}", file=sys.stderr)
        self._append("findings.jsonl", [mine])
        return mine["id"]

    def _append(self, name: str, lines: list) -> None:
        try:
            with open(self.out / name, "a") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
        except OSError as e:  # the rounds' own folders still have it all
            print(f"gauntlet: cannot write {self.out / name}: {e.strerror}", file=sys.stderr)

    def write_summary(self) -> None:
        causes = _core.RootCauses()
        for f in self.summary["findings"]:
            causes.add(f, f["id"])
        self._replace("summary.json", self.summary)
        self._replace("root_causes.json", causes.to_json())

    def _replace(self, name: str, record: dict) -> None:
        try:
            write_atomically(self.out / name, json.dumps(record, indent=2) + "\n")
        except OSError as e:
            print(f"gauntlet: cannot write {self.out / name}: {e.strerror}", file=sys.stderr)


def _add_counts(mine: dict, theirs: dict) -> None:
    for k, v in theirs.items():
        mine[k] = mine.get(k, 0) + v


def _merge_by_code(mine: list, theirs: list) -> list:
    """Error lists (as summaries give them) added up by code, the first examples kept."""
    by_code = {e["code"]: dict(e) for e in mine}
    for e in theirs:
        if e["code"] not in by_code:
            by_code[e["code"]] = dict(e)
            continue
        m = by_code[e["code"]]
        m["count"] += e["count"]
        if "examples" in m:
            m["examples"] = (m["examples"] + e.get("examples", []))[:3]
    return [by_code[c] for c in sorted(by_code)]

