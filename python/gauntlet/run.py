"""Runs: a grammar against a server, with data, for a duration; results on disk."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import fcntl
import math
import shutil
import signal
import sys
import threading
import time
import traceback
from typing import Callable, Optional, Sequence, Union

from . import _core
from .data import load_data_spec
from .grammar import Grammar, Schema
from .server import DEFAULT_BINARY, ManagedServer, ServerError, parse_dsn

KINDS = ("ok", "syntax", "semantic", "deadlock", "resource", "timeout", "connection", "corruption", "crash")


class RunResult:
    """What a run did: ``summary()``, ``timeline()``, ``findings``, ``to_pandas()``.

    Everything is also on disk in ``out``: summary.json, events.jsonl (one
    line per second and per finding, written as they happen) and, with
    ``statement_log=True``, statements-N.log.
    """

    def __init__(self, out: pathlib.Path, summary: dict, timeline: list):
        self.out = out
        self._summary = summary
        self._timeline = timeline

    @classmethod
    def load(cls, out: Union[str, os.PathLike]) -> "RunResult":
        """Reads a finished (or interrupted) run back from its directory."""
        out = pathlib.Path(out)
        timeline = []
        events = out / "events.jsonl"
        if events.exists():
            for line in events.read_text().splitlines():
                event = json.loads(line)
                if event.get("type") == "second":
                    timeline.append({k: v for k, v in event.items() if k != "type"})
        return cls(out, json.loads((out / "summary.json").read_text()), timeline)

    def summary(self) -> dict:
        return self._summary

    def timeline(self) -> list:
        """One dict per second: t, statements, transactions, outcomes, p50/p95/p99/max_ms."""
        return self._timeline

    @property
    def findings(self) -> list:
        return self._summary.get("findings", [])

    @property
    def exit_code(self) -> int:
        """What ``gauntlet run`` exits with: 1 when something was found (what CI should fail
        on), else 2 when the grammar or an input failed during the run (``summary()["error"]``),
        else 128+N when signal N ended it (130 for Ctrl-C), else 0."""
        s = self._summary
        if self.findings:
            return 1
        if s.get("error"):
            return 2
        if s.get("signal"):
            return 128 + int(getattr(signal.Signals, s["signal"]))
        return 0

    def to_pandas(self):
        """The timeline as a DataFrame indexed by second (needs pandas)."""
        import pandas as pd
        rows = []
        for s in self._timeline:
            row = {k: v for k, v in s.items() if k != "outcomes"}
            row.update({f"n_{k}": v for k, v in s["outcomes"].items()})
            rows.append(row)
        return pd.DataFrame(rows).set_index("t") if rows else pd.DataFrame()

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

    def table(self) -> str:
        """The summary as text, for terminals."""
        s = self._summary
        lat = s["latency_ms"]
        lines = [f"statements   {s['statements']:>12,}   {s['statements_per_second']:>10,.0f}/s",
                 f"transactions {s['transactions']:>12,}   {s['transactions_per_second']:>10,.0f}/s",
                 f"latency ms   p50 {lat['p50']:.3f}  p95 {lat['p95']:.3f}  p99 {lat['p99']:.3f}  "
                 f"max {lat['max']:.3f}"]
        for kind in KINDS:
            n = s["outcomes"].get(kind, 0)
            if n:
                lines.append(f"  {kind:<11}{n:>12,}  {100.0 * n / max(1, s['statements']):6.2f}%")
        for e in s.get("errors", [])[:8]:
            lines.append(f"  error {e['code']} {e['name']} ({e['kind']}): {e['count']:,}")
        for e in s.get("connect_errors", [])[:4]:
            lines.append(f"  connect error {e['code']} {e['name']}: {e['count']:,}")
        for f in self.findings:
            lines.append(f"FINDING {f['kind']}: {f['signature']}")
        if s.get("error"):
            e = s["error"]
            where = f" (session {e['thread']})" if e.get("thread") else ""
            lines.append(f"ERROR {e['kind']}{where}: {e['message']}")
        if s.get("signal"):
            lines.append(f"stopped by {s['signal']}")
        lines.append(f"stopped by {s['stop_reason']} after {s['seconds']:.1f} s; results in {self.out}")
        return "\n".join(lines)


def _progress_printer(stream) -> Callable:
    state = {"t0": time.monotonic(), "n": 0}

    def tick(second):
        if second is None:
            return False
        state["n"] += second["statements"]
        errors = sum(v for k, v in second["outcomes"].items() if k != "ok")
        line = (f"[{second['t']:6.0f}s] {second['statements']:>8,} stmt/s  p95 {second['p95_ms']:8.2f} ms  "
                f"errors/s {errors:>6,}  total {state['n']:,}")
        if stream.isatty():
            stream.write("\r" + line)
        else:
            stream.write(line + "\n")
        stream.flush()
        return False
    return tick


class _Interrupts:
    """While a run lasts, SIGINT, SIGTERM and SIGHUP only set a flag.

    The run then ends at the next safe point (the executor's tick, between
    load batches, between the steps of a run) and still writes its results
    and stops its server; a second signal does not break that. Only the main
    thread can take signals; elsewhere (a background Run) this does nothing.
    """

    SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __init__(self):
        self.signum: Optional[int] = None
        self._previous: dict = {}

    def __enter__(self) -> "_Interrupts":
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                try:
                    self._previous[s] = signal.signal(s, self._handle)
                except (OSError, ValueError):
                    pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)

    def __bool__(self) -> bool:
        return self.signum is not None


class _Stop(Exception):
    """Ends a run early at a safe point; the summary says why."""

    def __init__(self, reason: str, finding: Optional[dict] = None):
        super().__init__(reason)
        self.reason = reason
        self.finding = finding


def _data_template(server: ManagedServer, spec: Schema, seed: int, mysqld) -> pathlib.Path:
    """Where a datadir with this data, loaded by this binary, is cached."""
    binary = os.path.realpath(server.binary)
    st = os.stat(binary)
    key = json.dumps([binary, st.st_size, st.st_mtime_ns, sorted(map(str, mysqld or [])), spec.to_json(), seed])
    return pathlib.Path(_core.template_cache_dir()) / "data" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _load(conn, spec: Schema, seed: int, info: dict, interrupts: _Interrupts, strict: bool) -> None:
    t0 = time.monotonic()
    source = getattr(spec, "_source", "")
    try:
        info["load"] = _core.load_schema(conn, spec._s, seed, strict, lambda: bool(interrupts))
    except _core.InvalidInput as e:  # a value expression that does not compile
        raise _core.InvalidInput(f"data {source}: {e}".replace("data : ", "data: ")) from None
    except _core.GauntletError as e:
        raise _core.InvalidInput(f"data {source}: the server refused it: {e}".replace("data : ", "data: ")) from None
    info["load"]["rows_per_second"] = info["load"]["rows"] / max(info["load"]["seconds"], 1e-9)
    info["ready_with_data_seconds"] = info.get("server_ready_seconds", 0) + (time.monotonic() - t0)
    warnings = info["load"]["warnings"]
    for warning in warnings[:5]:
        print(f"gauntlet: data: skipped: {warning.splitlines()[0][:300]}", file=sys.stderr)
    if len(warnings) > 5:
        print(f"gauntlet: data: ... {len(warnings) - 5} more (summary.json: load.warnings)", file=sys.stderr)
    if interrupts:
        raise _Stop("interrupted")


def _finding_from_start(error: Exception) -> dict:
    """A server that will not start is a finding of the run, recorded like any other."""
    lines = list(getattr(error, "log_errors", []))
    first = lines[0] if lines else str(error).splitlines()[0]
    signature = "start: " + re.sub(r"^[\d\- :]+(\d+ )?", "", first)  # without the timestamp
    return {"kind": "start", "at": 0, "signature": signature, "detail": str(error), "thread": 0, "statement": ""}


# Settings of a run: name -> (kind, low, high). The CLI and config files use
# the same names; every value is checked here, so Python and the command
# line refuse the same mistakes with the same words.
_LIMITS = {
    "threads": (int, 1, 4096), "duration": (float, 0, 366 * 86400), "queries": (int, 0, 2**63 - 1),
    "seed": (int, 0, 2**64 - 1), "statement_timeout": (float, 0, 86400 * 7),
    "hang_timeout": (float, 0, 86400 * 7), "generate_timeout": (float, 0, 86400 * 7),
    "max_depth": (int, 1, 100000),
}


def check_setting(name: str, value):
    """``value`` as the setting's type, or InvalidInput naming the setting and the allowed range."""
    kind, low, high = _LIMITS[name]
    what = "a whole number" if kind is int else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and isinstance(value, float) and not value.is_integer()):
        raise _core.InvalidInput(f"{name}: must be {what} from {low} to {high}, not {value!r}")
    if math.isnan(value) or not low <= value <= high:
        raise _core.InvalidInput(f"{name}: must be {what} from {low} to {high}, not {value!r}")
    return kind(value)


def _check_threads_fit(threads: int) -> None:
    """Refuses a session count the machine cannot give threads for, before anything starts."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = soft if soft != resource.RLIM_INFINITY else None
    try:
        with open("/proc/sys/kernel/threads-max") as f:
            kernel = int(f.read()) // 2
        limit = kernel if limit is None else min(limit, kernel)
    except (OSError, ValueError):
        pass
    if limit is not None and threads > limit:
        raise _core.InvalidInput(f"threads: {threads} sessions need {threads} threads; this machine allows "
                                 f"about {limit} (ulimit -u, kernel.threads-max)")


_RUN_FILES = ("summary.json", "events.jsonl")


def _claim_out(out: pathlib.Path, overwrite: bool):
    """Makes ``out`` this run's folder: a writable directory that no other run uses.

    Returns the open lock file (held for the whole run). A folder holding an
    earlier run is refused unless ``overwrite``, which removes that run's
    files first: two runs' events never mix.
    """
    if out.exists() and not out.is_dir():
        raise _core.InvalidInput(f"out: {out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = open(out / ".gauntlet.lock", "a+")
    except OSError as e:
        raise _core.InvalidInput(f"out: cannot write results to {out}: {e.strerror}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        raise _core.InvalidInput(f"out: {out} is in use by another run (pid {holder})") from None
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    earlier = sorted(p.name for p in out.iterdir()
                     if p.name in _RUN_FILES or (p.name.startswith("statements-") and p.suffix == ".log"))
    if earlier and not overwrite:
        lock.close()
        raise _core.InvalidInput(f"out: {out} holds an earlier run ({', '.join(earlier)}); choose another "
                                 "folder, or pass overwrite=True (--overwrite) to replace it")
    for name in earlier:
        (out / name).unlink()
    return lock


def run(grammar: Union[str, Grammar], *, redefine: Sequence[str] = (), data: Union[None, str, Schema] = None,
        threads: int = 2, duration: float = 30, queries: int = 0, seed: int = 1,
        server: Union[str, ManagedServer] = "default", mysqld=None, out: Union[str, os.PathLike] = "gauntlet-run",
        statement_timeout: float = 0, hang_timeout: float = 60, generate_timeout: float = 10,
        statement_log: bool = False, max_depth: int = 64, progress: Union[bool, Callable] = False,
        keep_server: bool = False, data_template: bool = False, overwrite: bool = False) -> RunResult:
    """Runs ``grammar`` with ``threads`` sessions against a server and returns the result.

    ``server``: "default" (Debian's MariaDB, started by Gauntlet in OUT/server),
    a path to a mariadbd/mysqld binary, a DSN (mysql://...) of a server that is
    already running, or a ManagedServer. ``data``: None for RQG's default
    tables A..DD, a Schema (with row counts and value expressions), a JSON data
    spec, an RQG ``.zz`` file, or "none" to use what the server already has. ``data_template``: keep the loaded datadir in the
    template cache and start later runs with the same binary, options, data
    and seed from a copy of it (a second template level, for campaigns that
    restart often). ``out`` must not hold an earlier run unless ``overwrite``.

    Every way a run can end leaves ``out/summary.json``: the duration or
    query budget, a finding (crash, shutdown, hang, unreachable, a server that
    will not start), a grammar that fails or gets stuck while generating
    (``summary["error"]``), or SIGINT/SIGTERM/SIGHUP (``summary["signal"]``;
    the server is stopped). Bad arguments raise InvalidInput before anything
    starts.
    """
    settings = {name: check_setting(name, value) for name, value in (
        ("threads", threads), ("duration", duration), ("queries", queries), ("seed", seed),
        ("statement_timeout", statement_timeout), ("hang_timeout", hang_timeout),
        ("generate_timeout", generate_timeout), ("max_depth", max_depth))}
    if settings["duration"] == 0 and settings["queries"] == 0:
        raise _core.InvalidInput("duration, queries: give one of them: the run needs an end")
    _check_threads_fit(settings["threads"])
    g = grammar if isinstance(grammar, Grammar) else Grammar.from_file(os.fspath(grammar), *redefine)
    if isinstance(data, Schema):
        spec = data
    else:
        spec = None if data == "none" else Schema.rqg_default() if data is None else load_data_spec(data)
    params = None
    if isinstance(server, ManagedServer):
        if mysqld:
            raise _core.InvalidInput("mysqld: options go to ManagedServer(..., mysqld=...) when server= is one")
    elif not isinstance(server, str):
        raise _core.InvalidInput(f"server: must be 'default', a binary path, a DSN or a ManagedServer, "
                                 f"not {server!r}")
    elif "://" in server:
        params = parse_dsn(server)
        if mysqld:
            raise _core.InvalidInput("mysqld: server options cannot apply to an external server (a DSN); "
                                     "set them on that server")
    else:
        _core.check_server_binary(DEFAULT_BINARY if server == "default" else server)
    out = pathlib.Path(out)
    lock = _claim_out(out, overwrite)
    try:
        with _Interrupts() as interrupts:
            summary, timeline = _run_claimed(g, spec, settings, server, params, mysqld, out, statement_log,
                                             progress, keep_server, data_template, overwrite, interrupts)
    finally:
        lock.close()
    return RunResult(out, summary, timeline)


def _run_claimed(g, spec, settings, server, params, mysqld, out, statement_log, progress, keep_server,
                 data_template, overwrite, interrupts):
    """The part of run() that owns ``out``: whatever happens, summary.json is written."""
    managed: Optional[ManagedServer] = None
    started_here = False
    info = {"grammar": getattr(g, "_label", str(g)), "seed": settings["seed"], "threads": settings["threads"]}
    summary, timeline = None, []
    try:
        if isinstance(server, ManagedServer):
            managed = server
        elif params is None:
            binary = DEFAULT_BINARY if server == "default" else server
            if overwrite and (out / "server").exists():
                _remove_stopped_server(out / "server")
            managed = ManagedServer(out / "server", binary=binary, mysqld=mysqld, _die_with_parent=True)
        template = None
        spec_loaded = False
        if managed is not None and spec is not None and data_template and not managed.alive:
            template = _data_template(managed, spec, settings["seed"], mysqld)
            if (template / "READY").exists() and not os.path.exists(managed.datadir):
                _core.copy_datadir(str(template / "data"), managed.datadir)
                info["load"] = {"from_template": str(template)}
                spec_loaded = True
        if managed is not None:
            if not managed.alive:
                try:
                    managed.start()
                except ServerError as e:
                    raise _Stop("start", finding=_finding_from_start(e)) from None
                started_here = True
            params = managed.connection
            info["server_ready_seconds"] = managed.ready_seconds
        info["server"] = str(params)
        if interrupts:
            raise _Stop("interrupted")

        conn = _first_connection(params, managed, settings["hang_timeout"])
        try:
            schema = _prepare_data(conn, managed, spec, spec_loaded, template, params, settings, info, interrupts)
        except (_core.GauntletError, _core.InvalidInput) as e:
            if managed is not None and _died(managed):  # the server died under the load
                raise _Stop("crash", finding=_crash_finding(managed, "while loading data", e)) from None
            raise
        del conn
        if not params.database:
            params.database = schema.databases[0] if schema.databases else "test"
        if interrupts:
            raise _Stop("interrupted")

        options = _core.RunOptions()
        for name, value in settings.items():
            setattr(options, name, value)
        options.out_dir, options.statement_log = str(out), statement_log
        user_tick = _progress_printer(sys.stderr) if progress is True else (progress or None)

        def tick(second):
            stop = bool(user_tick(second)) if user_tick is not None else False
            return stop or bool(interrupts)

        summary, timeline = _core.execute_run(g._g, schema, params, options,
                                              managed._s if managed is not None else None, tick)
        if progress is True and sys.stderr.isatty():
            sys.stderr.write("\n")
    except _Stop as stop:
        summary = _core.empty_summary()
        summary["stop_reason"] = stop.reason
        if stop.finding is not None:
            summary["findings"] = [stop.finding]
    except (_core.InvalidInput, _core.GauntletError) as e:
        summary = _core.empty_summary()
        summary["stop_reason"] = "error"
        summary["error"] = {"kind": "input" if isinstance(e, _core.InvalidInput) else "internal",
                            "at": 0, "thread": 0, "message": str(e)}
        raise
    finally:
        try:
            if managed is not None and started_here:
                if keep_server:
                    managed.detach()  # `gauntlet server stop --dir OUT/server` stops it
                else:
                    managed.stop()
        finally:
            if summary is None:  # an unexpected error: still leave a summary
                summary = _core.empty_summary()
                summary["stop_reason"] = "error"
                summary["error"] = {"kind": "internal", "at": 0, "thread": 0,
                                    "message": "".join(traceback.format_exception_only(*sys.exc_info()[:2])).strip()}
            summary.update(info)
            if interrupts.signum is not None:
                summary["stop_reason"] = "interrupted"
                summary["signal"] = signal.Signals(interrupts.signum).name
            try:
                (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            except OSError as e:  # a full or vanished disk under OUT: the result object still has it all
                print(f"gauntlet: cannot write {out / 'summary.json'}: {e.strerror}", file=sys.stderr)
    return summary, timeline


def _prepare_data(conn, managed, spec, spec_loaded, template, params, settings, info, interrupts):
    """Loads the data (or takes it from a template) and reads the schema back."""
    if spec is not None and not spec_loaded:
        _load(conn, spec, settings["seed"], info, interrupts, strict=not getattr(spec, "_lenient", False))
        if template is not None:  # keep this datadir for the next runs
            del conn
            managed.stop()
            tmp = template.with_name(template.name + f".tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            _core.copy_datadir(managed.datadir, str(tmp / "data"))
            shutil.rmtree(template, ignore_errors=True)
            tmp.rename(template)
            (template / "READY").write_text(spec.to_json())
            managed.start()
            conn = _core.Connection.open(params)
    elif template is not None:
        info["ready_with_data_seconds"] = managed.ready_seconds
    databases = list(spec.databases) if spec is not None else []
    return _core.introspect_schema(conn, databases)


def _first_connection(params, managed: Optional[ManagedServer], patience: float):
    """The run's first session. A server that answers but refuses (too many connections)
    for ``patience`` seconds is an "unreachable" finding; a DSN where nothing answers is a
    usage error."""
    deadline = time.monotonic() + (patience or 60)
    while True:
        try:
            return _core.Connection.open(params)
        except _core.GauntletError as e:
            answers = managed.alive if managed is not None else _core.server_answers(params)
            if not answers:
                if managed is None:
                    raise _core.InvalidInput(f"server: {e}") from None
                raise
            if time.monotonic() > deadline:
                raise _Stop("unreachable", finding={
                    "kind": "unreachable", "at": 0, "signature": "unreachable: " + str(e).split(": ")[-1],
                    "detail": f"the server answers but refused connections for {patience:g} s: {e}",
                    "thread": 0, "statement": ""}) from None
            time.sleep(0.1)


def _died(managed: ManagedServer, patience: float = 10) -> bool:
    """True when the server is gone or going: a crashing server still writes its report
    for a moment after its connections dropped."""
    deadline = time.monotonic() + patience
    while managed.alive:
        try:
            managed.connect()
            return False
        except _core.GauntletError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
    return True


def _crash_finding(managed: ManagedServer, phase: str, error: Exception) -> dict:
    crash = managed.crash()
    signature = crash["signature"] or "crash: no report in the error log"
    return {"kind": "crash", "at": 0, "signature": signature, "detail": f"{phase}: {error}\n{crash['log_excerpt']}",
            "thread": 0, "statement": "", "crash": crash}


def _remove_stopped_server(dir: pathlib.Path) -> None:
    """Clears an earlier run's server folder, unless a server still runs there."""
    info = dir / "server.json"
    if info.exists() and ManagedServer.attach(dir).alive:
        raise _core.InvalidInput(f"out: the earlier run's server in {dir} is still running; "
                                 f"stop it with: gauntlet server stop --dir {dir}")
    shutil.rmtree(dir)


class Run:
    """A run in the background, for notebooks: ``Run(grammar, ...).start()``.

    Takes the same arguments as :func:`run`. ``timeline()`` grows while it
    runs; ``stop()`` ends it early (results are still written); ``wait()``
    returns the RunResult.
    """

    def __init__(self, grammar, **kwargs):
        self._grammar = grammar
        self._kwargs = kwargs
        self._seconds: list = []
        self._stop = False
        self._result: Optional[RunResult] = None
        self._error: Optional[BaseException] = None
        self._thread = None

    def start(self) -> "Run":
        import threading
        user_tick = self._kwargs.pop("progress", None)

        def tick(second):
            if second is not None:
                self._seconds.append(second)
            stop = callable(user_tick) and user_tick(second)
            return self._stop or bool(stop)

        def body():
            try:
                self._result = run(self._grammar, progress=tick, **self._kwargs)
            except BaseException as e:  # handed to wait()
                self._error = e

        self._thread = threading.Thread(target=body, name="gauntlet-run", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> RunResult:
        self._stop = True
        return self.wait()

    def wait(self, timeout: Optional[float] = None) -> Optional[RunResult]:
        self._thread.join(timeout)
        if self._error is not None:
            raise self._error
        return self._result

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def timeline(self) -> list:
        return list(self._seconds)

    def __repr__(self) -> str:
        if self._result is not None:
            return f"Run(done: {self._result!r})"
        n = sum(s["statements"] for s in self._seconds)
        return f"Run({'running' if self.running else 'not started'}, {len(self._seconds)} s, {n:,} statements)"
