"""One run of a workload against its prepared targets, whatever happens ending in OUT/summary.json."""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import sys
import traceback

from .. import _core
from ..results import RunResult
from ..formats import stamped
from ..server.surface import read_surface, table_definitions
from .folder import claim_out, write_atomically
from .preparation import Stop, prepare_target
from .plan import RunPlan, oracle_label
from .signals import Interrupts, progress_printer


def run_workload(workload, info: dict, plan: RunPlan) -> RunResult:
    """Runs ``workload`` (a grammar's generator or a replay Script) as ``plan`` says, in ``plan.out``;
    ``info`` (what ran) goes into the summary."""
    from ..version import __version__
    record = {**plan.record, "gauntlet_version": __version__}
    info = {**info, "settings": record}
    lock = claim_out(plan.out, plan.overwrite)
    _reserve_room(plan.out)
    try:
        try:
            write_atomically(plan.out / "run.json", json.dumps(stamped("run", record), indent=2, default=str) + "\n")
        except OSError as e:  # nothing started: the folder holds no run
            raise _core.OutputError(f"cannot write {plan.out / 'run.json'}: {e.strerror}; the run did not start")
        with Interrupts() as interrupts:
            summary, timeline = _run_claimed(workload, info, plan, interrupts)
    finally:
        lock.close()
    return RunResult(plan.out, summary, timeline)


def _run_claimed(workload, info: dict, plan: RunPlan, interrupts: Interrupts):
    """The part of a run that owns ``plan.out``: whatever happens, summary.json is written."""
    started = []  # the ManagedServers this run started, to stop at the end
    info = {**info, "seed": plan.settings["seed"], "threads": plan.settings["threads"]}
    described = {t.name: t.to_dict() for t in plan.targets}
    summary, timeline = None, []
    try:
        ready, schema = _prepare_targets(plan, info, interrupts, started)
        reach, tables = _surface(plan, ready, schema)
        summary, timeline = _execute(workload, plan, ready, schema, described, interrupts, reach)
        if tables is not None and "reach" in summary:
            summary["reach"] = _with_tables(summary["reach"], tables)
    except Stop as stop:
        summary = _core.empty_summary()
        summary["stop_reason"] = stop.reason
        if stop.finding is not None:
            summary["findings"] = _core.record_findings(str(plan.out), [stop.finding], plan.known, described)
            summary["finding_counts"] = _core.finding_counts(summary["findings"])
    except (_core.InvalidInput, _core.GauntletError) as e:
        summary = _core.empty_summary()
        summary["stop_reason"] = "error"
        kind = "input" if isinstance(e, _core.InvalidInput) else "output" if isinstance(e, _core.OutputError) \
            else "internal"
        summary["error"] = {"kind": kind, "at": 0, "thread": 0, "message": str(e)}
        raise
    finally:
        try:
            if plan.keep_server:
                for managed in started:
                    managed.detach()  # `gauntlet server stop --dir OUT/server` stops it
            else:
                _stop_all(started)
        finally:
            if summary is None:  # an unexpected error: still leave a summary
                summary = _core.empty_summary()
                summary["stop_reason"] = "error"
                summary["error"] = {"kind": "internal", "at": 0, "thread": 0,
                                    "message": "".join(traceback.format_exception_only(*sys.exc_info()[:2])).strip()}
            _write_summary(summary, info, plan, interrupts)
    return summary, timeline


def _stop_all(started: list) -> None:
    """Stops the run's servers at once (each shutdown waits for its server, ~0.4 s here)."""
    if len(started) < 2:
        for managed in started:
            managed.stop()
        return
    with concurrent.futures.ThreadPoolExecutor(len(started)) as pool:
        for done in [pool.submit(m.stop) for m in started]:
            done.result()


def _prepare_targets(plan: RunPlan, info: dict, interrupts: Interrupts, started: list):
    """Every target's server started (or reached) with the data: [(target, ManagedServer or None,
    ConnectionParams)] and the schema they hold."""
    targets = plan.targets
    ready, schema = [], None
    for target in targets:
        tinfo = info if len(targets) == 1 else info.setdefault("target_info", {}).setdefault(target.name, {})
        managed, params, target_schema = prepare_target(target, plan, interrupts, tinfo, started)
        schema = schema or target_schema
        ready.append((target, managed, params))
    if len(targets) > 1:  # the first target's, as for one target
        first = info["target_info"][targets[0].name]
        info.update({k: first.get(k) for k in
                     ("server", "server_info", "server_ready_seconds", "load", "ready_with_data_seconds")
                     if k in first})
    if interrupts:
        raise Stop("interrupted")
    return ready, schema


def _surface(plan: RunPlan, ready: list, schema):
    """The first target's surface, written to OUT/surface.json, indexed for the run to count its reach
    (RunOptions.reach), and the reach of the tables the run starts with; (None, None) when the
    server's lists cannot be read (the run goes on without its reach)."""
    try:
        conn = _core.Connection.open(ready[0][2])
        surface = read_surface(conn)
        tables = table_definitions(conn, list(schema.databases) if schema is not None else [])
        write_atomically(plan.out / "surface.json", surface.dumps())
    except _core.GauntletError as e:
        print(f"gauntlet: the run counts no reach: the server's lists: {e}", file=sys.stderr)
        return None, None
    except OSError as e:
        print(f"gauntlet: the run counts no reach: cannot write {plan.out / 'surface.json'}: {e.strerror}",
              file=sys.stderr)
        return None, None
    index = surface.index()
    return index, _core.tally_reach(index, tables)


def _with_tables(reach: dict, tables: dict) -> dict:
    """The run's reach with what its starting tables' definitions use (``tables``: their count)."""
    for name, category in tables["categories"].items():
        reached = reach["categories"][name]["reached"]
        for used, n in category["reached"].items():
            reached[used] = reached.get(used, 0) + n
    return {**reach, "tables": tables["statements"]}


def _execute(workload, plan: RunPlan, ready: list, schema, described: dict, interrupts: Interrupts, reach=None):
    """The statements themselves, in C++ with the GIL released: (summary, timeline). ``reach``: the
    ReachIndex whose names the run counts, or None."""
    options = _core.RunOptions()
    for name, value in plan.settings.items():
        setattr(options, name, value)
    options.reach = reach
    options.out_dir, options.statement_log = str(plan.out), plan.statement_log
    options.known_bugs = plan.known
    progress = plan.progress
    user_tick = progress_printer(sys.stderr) if progress is True else (progress or None)

    def tick(second):
        stop = bool(user_tick(second)) if user_tick is not None else False
        return stop or bool(interrupts)

    core_targets = []
    twins = _core.temporary_twin_sql(plan.spec._s) if plan.spec is not None else []
    for target, managed, params in ready:
        if not params.database:
            params.database = schema.databases[0] if schema.databases else "test"
        core_targets.append({"name": target.name, "connection": params,
                             "server": managed._s if managed is not None else None,
                             "setup": (target.session_setup() if target.is_dsn else []) + twins,
                             "description": described[target.name]})
    result = _core.execute_run(workload, schema, core_targets, options, plan.oracles,
                               {"error_log_ignore": plan.error_log_ignore}, tick)
    if progress is True and sys.stderr.isatty():
        sys.stderr.write("\n")
    return result


# Disk space held from the start for summary.json, so that a run that fills the disk (its statement
# logs, a server's files under OUT) can still say so in its summary.
_SUMMARY_ROOM = ".gauntlet.summary-room"


def _reserve_room(out) -> None:
    try:
        with open(out / _SUMMARY_ROOM, "wb") as f:
            os.posix_fallocate(f.fileno(), 0, 1 << 20)
    except OSError:  # a disk too full already: the run finds out soon enough, and says so
        (out / _SUMMARY_ROOM).unlink(missing_ok=True)


def _write_summary(summary: dict, info: dict, plan: RunPlan, interrupts: Interrupts) -> None:
    (plan.out / _SUMMARY_ROOM).unlink(missing_ok=True)
    summary.update(info)
    summary["oracles_run"] = [oracle_label(o) for o in plan.oracles]
    if interrupts.signum is not None:
        summary["stop_reason"] = "interrupted"
        summary["signal"] = signal.Signals(interrupts.signum).name
    try:
        write_atomically(plan.out / "summary.json", json.dumps(summary, indent=2) + "\n")
    except OSError as e:  # a full or vanished disk under OUT: the result object still has it all
        message = f"cannot write {plan.out / 'summary.json'}: {e.strerror}; the run's folder has no summary"
        print(f"gauntlet: {message}", file=sys.stderr)
        if not summary.get("error"):  # the run itself went well: exit 2 says its results did not
            summary["stop_reason"] = "error"
            summary["error"] = {"kind": "output", "at": summary.get("seconds", 0), "thread": 0, "message": message}
