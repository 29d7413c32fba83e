"""Runs: a grammar against a server, with data, for a duration; results on disk."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import shutil
import sys
import time
from typing import Callable, Optional, Sequence, Union

from . import _core
from .data import load_data_spec
from .grammar import Grammar, Schema
from .server import DEFAULT_BINARY, ManagedServer, parse_dsn

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
        """0 clean, 1 when something was found (what CI should fail on)."""
        return 1 if self.findings else 0

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
        for f in self.findings:
            lines.append(f"FINDING {f['kind']}: {f['signature']}")
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


def _data_template(server: ManagedServer, spec: Schema, seed: int, mysqld) -> pathlib.Path:
    """Where a datadir with this data, loaded by this binary, is cached."""
    binary = os.path.realpath(server.binary)
    st = os.stat(binary)
    key = json.dumps([binary, st.st_size, st.st_mtime_ns, sorted(map(str, mysqld or [])), spec.to_json(), seed])
    return pathlib.Path(_core.template_cache_dir()) / "data" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _load(conn, spec: Schema, seed: int, info: dict) -> None:
    t0 = time.monotonic()
    info["load"] = _core.load_schema(conn, spec._s, seed)
    info["load"]["rows_per_second"] = info["load"]["rows"] / max(info["load"]["seconds"], 1e-9)
    info["ready_with_data_seconds"] = info.get("server_ready_seconds", 0) + (time.monotonic() - t0)


def _refused_to_start(out: pathlib.Path, info: dict, error: Exception) -> RunResult:
    """A server that will not start is a finding of the run, recorded like any other."""
    lines = list(getattr(error, "log_errors", []))
    first = lines[0] if lines else str(error).splitlines()[0]
    signature = "start: " + re.sub(r"^[\d\- :]+(\d+ )?", "", first)  # without the timestamp
    summary = {"seconds": 0, "threads": info["threads"], "seed": info["seed"], "queries": 0, "statements": 0,
               "transactions": 0, "statements_per_second": 0, "transactions_per_second": 0,
               "outcomes": {k: 0 for k in KINDS}, "errors": [],
               "latency_ms": {"p50": 0, "p95": 0, "p99": 0, "max": 0, "mean": 0},
               "findings": [{"kind": "start", "at": 0, "signature": signature, "detail": str(error),
                             "thread": 0, "statement": ""}],
               "stop_reason": "start", **info}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return RunResult(out, summary, [])


def run(grammar: Union[str, Grammar], *, redefine: Sequence[str] = (), data: Union[None, str, Schema] = None,
        threads: int = 2, duration: float = 30, queries: int = 0, seed: int = 1,
        server: Union[str, ManagedServer] = "default", mysqld=None, out: Union[str, os.PathLike] = "gauntlet-run",
        statement_timeout: float = 0, hang_timeout: float = 60, statement_log: bool = False,
        max_depth: int = 64, progress: Union[bool, Callable] = False, keep_server: bool = False,
        data_template: bool = False) -> RunResult:
    """Runs ``grammar`` with ``threads`` sessions against a server and returns the result.

    ``server``: "default" (Debian's MariaDB, started by Gauntlet in OUT/server),
    a path to a mariadbd/mysqld binary, a DSN (mysql://...) of a server that is
    already running, or a ManagedServer. ``data``: None for RQG's default
    tables A..DD, a Schema (with row counts and value expressions), a JSON data
    spec, an RQG ``.zz`` file, or "none" to use what the server already has. ``data_template``: keep the loaded datadir in the
    template cache and start later runs with the same binary, options, data
    and seed from a copy of it (a second template level, for campaigns that
    restart often). Ctrl-C stops the run and still writes the results.
    """
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    g = grammar if isinstance(grammar, Grammar) else Grammar.from_file(os.fspath(grammar), *redefine)
    managed: Optional[ManagedServer] = None
    started_here = False
    info = {"grammar": getattr(g, "_label", str(grammar)), "seed": seed, "threads": threads}
    try:
        if isinstance(server, ManagedServer):
            managed = server
        elif server.startswith(("mysql://", "mariadb://")):
            params = parse_dsn(server)
        else:
            binary = DEFAULT_BINARY if server == "default" else server
            managed = ManagedServer(out / "server", binary=binary, mysqld=mysqld)
        if isinstance(data, Schema):
            spec = data
        else:
            spec = None if data == "none" else Schema.rqg_default() if data is None else load_data_spec(data)
        template = None
        if managed is not None and spec is not None and data_template and not managed.alive:
            template = _data_template(managed, spec, seed, mysqld)
            if (template / "READY").exists() and not os.path.exists(managed.datadir):
                _core.copy_datadir(str(template / "data"), managed.datadir)
                info["load"] = {"from_template": str(template)}
                spec_loaded = True
            else:
                spec_loaded = False
        if managed is not None:
            if not managed.alive:
                try:
                    managed.start()
                except _core.ServerError as e:
                    return _refused_to_start(out, info, e)
                started_here = True
            params = managed.connection
            info["server_ready_seconds"] = managed.ready_seconds
        info["server"] = str(params)

        conn = _core.Connection.open(params)
        if spec is not None and not (template is not None and spec_loaded):
            _load(conn, spec, seed, info)
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
        schema = _core.introspect_schema(conn, databases)
        del conn
        if not params.database:
            params.database = schema.databases[0] if schema.databases else "test"

        options = _core.RunOptions()
        options.threads, options.duration, options.queries, options.seed = threads, duration, queries, seed
        options.statement_timeout, options.hang_timeout = statement_timeout, hang_timeout
        options.out_dir, options.statement_log, options.max_depth = str(out), statement_log, max_depth
        tick = _progress_printer(sys.stderr) if progress is True else (progress or None)
        summary, timeline = _core.execute_run(g._g, schema, params, options,
                                              managed._s if managed is not None else None, tick)
        if progress is True and sys.stderr.isatty():
            sys.stderr.write("\n")
        summary.update(info)
    finally:
        if managed is not None and started_here:
            if keep_server:
                managed.detach()  # `gauntlet server stop --dir OUT/server` stops it
            else:
                managed.stop()
    result = RunResult(out, summary, timeline)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return result


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
