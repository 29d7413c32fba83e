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

from . import _core, analysis
from .data import load_data_spec
from .grammar import Grammar, Schema
from .server import DEFAULT_BINARY, ManagedServer, _redact, parse_dsn
from .oracle import Oracle
from .targets import Target, make_targets
from .preparation import Stop, prepare_target

KINDS = analysis.KINDS


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
        from .reduction import reduce
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
        timeline = []
        events = out / "events.jsonl"
        if events.exists():
            for line in events.read_text().splitlines():
                event = json.loads(line)
                if event.get("type") == "second":
                    timeline.append({k: v for k, v in event.items() if k != "type"})
        return cls(out, json.loads((out / "summary.json").read_text()), timeline)

    def summary(self) -> dict:
        """The run's summary.json as a dict: totals, rates, outcomes, errors with examples, latency, findings, settings, server_info, stop_reason."""
        return self._summary

    def timeline(self) -> list:
        """One dict per second: t, statements, transactions, outcomes, p50/p95/p99/max_ms."""
        return self._timeline

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
        from .reduction import reduce
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
        return analysis.timeline_frame(self._timeline)

    def to_dict(self, flat: bool = False) -> dict:
        """The summary; ``flat=True``: one level of ``name: scalar`` (``latency_ms.p95``,
        ``settings.seed``, ``errors.1146``, ...), what :func:`gauntlet.compare` tabulates."""
        return analysis.flatten(self._summary) if flat else dict(self._summary)

    def to_series(self):
        """The flat summary as a pandas Series."""
        import pandas as pd
        return pd.Series(self.to_dict(flat=True), name=self.out.name)

    def plot(self):
        """Throughput, latency percentiles and errors over time (a matplotlib Figure)."""
        return analysis.plot_timeline(self._timeline, title=f"{self._summary.get('grammar', '')} ({self.out})")

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
        if s.get("cancelled"):
            lines.append(f"  cancelled  {s['cancelled']:>12,}  (in flight at the end; not in the counts above)")
        for e in s.get("errors", [])[:8]:
            lines.append(f"  error {e['code']} {e['name']} ({e['kind']}): {e['count']:,}")
            for x in e.get("examples", [])[:1]:
                lines.append(f"    e.g. {x['message'][:100]}  <- {x['statement'][:100]}")
        for e in s.get("connect_errors", [])[:4]:
            lines.append(f"  connect error {e['code']} {e['name']}: {e['count']:,}")
        for name, o in s.get("oracles", {}).items():
            skipped = ", ".join(f"{why}: {n:,}" for why, n in sorted(o["skipped_by_reason"].items(),
                                                                       key=lambda x: -x[1])[:4])
            lines.append(f"  oracle {name}: {o['checked']:,} checked, {o['passed']:,} passed, {o['fired']:,} fired, "
                         f"{o['skipped']:,} skipped" + (f" ({skipped})" if skipped else ""))
        for f in self.findings:
            known = f" [known: {f['known']}]" if f.get("known") else ""
            times = f" (x{f['occurrences']})" if f.get("occurrences", 1) > 1 else ""
            where = f" in {self.out / 'findings' / f['id']}" if f.get("id") else ""
            lines.append(f"FINDING {f['kind']}{times}{known}: {f['signature'][:200]}{where}")
        if s.get("error"):
            e = s["error"]
            where = f" (session {e['thread']})" if e.get("thread") else ""
            lines.append(f"ERROR {e['kind']}{where}: {e['message']}")
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


# Settings of a run: name -> (kind, low, high). The CLI and config files use
# the same names; every value is checked here, so Python and the command
# line refuse the same mistakes with the same words.
_LIMITS = {
    "threads": (int, 1, 4096), "duration": (float, 0, 366 * 86400), "queries": (int, 0, 2**63 - 1),
    "seed": (int, 0, 2**64 - 1), "rate": (float, 0, 1e9), "statement_timeout": (float, 0, 86400 * 7),
    "hang_timeout": (float, 0, 86400 * 7), "generate_timeout": (float, 0, 86400 * 7),
    "max_depth": (int, 1, 100000), "until_seq": (int, 0, 2**63 - 1),
    "attempts": (int, 1, 10000),
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


_RUN_FILES = ("summary.json", "events.jsonl", "run.json", "findings.jsonl")


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
                     if p.name in _RUN_FILES or (p.name.startswith("statements-") and p.suffix == ".jsonl"))
    if earlier and not overwrite:
        lock.close()
        raise _core.InvalidInput(f"out: {out} holds an earlier run ({', '.join(earlier)}); choose another "
                                 "folder, or pass overwrite=True (--overwrite) to replace it")
    for name in earlier:
        (out / name).unlink()
    shutil.rmtree(out / "findings", ignore_errors=True)
    return lock


def run(grammar: Union[str, Grammar], *, redefine: Sequence[str] = (), data: Union[None, str, Schema] = None,
        threads: int = 2, duration: float = 30, queries: int = 0, seed: int = 1, rate: float = 0,
        server: Union[str, ManagedServer] = "default", mysqld=None, out: Union[str, os.PathLike] = "gauntlet-run",
        statement_timeout: float = 0, hang_timeout: float = 60, generate_timeout: float = 10,
        statement_log: bool = False, max_depth: int = 64, progress: Union[bool, Callable] = False,
        keep_server: bool = False, data_template: bool = False, overwrite: bool = False,
        targets: Optional[Sequence[Union[dict, Target]]] = None,
        oracles: Union[str, Sequence[Union[str, Oracle]]] = ("crash",),
        known_bugs: Union[None, str, os.PathLike] = None, keep_going: bool = False) -> RunResult:
    """Runs ``grammar`` with ``threads`` sessions against a server and returns the result.

    ``server``: "default" (Debian's MariaDB, started by Gauntlet in OUT/server),
    a path to a mariadbd/mysqld binary, a DSN (mysql://...) of a server that is
    already running, or a ManagedServer. ``data``: None for RQG's default
    tables A..DD, a Schema (with row counts and value expressions), a JSON data
    spec, an RQG ``.zz`` file, or "none" to use what the server already has. ``data_template``: keep the loaded datadir in the
    template cache and start later runs with the same binary, options, data
    and seed from a copy of it (a second template level, for campaigns that
    restart often). ``out`` must not hold an earlier run unless ``overwrite``.

    ``targets``: two or more servers that every session sends each statement to,
    in turn (lockstep): dicts ``{"name": "a", "server": "default", "options":
    {"div_precision_increment": 4}, "engine": "InnoDB"}`` or :class:`Target` objects
    (``server`` defaults to the ``server`` argument; ``mysqld`` applies to every
    managed one). ``oracles``: the checks to run, by name or as
    "crash,errorlog,differential" (crash is always on), and :class:`gauntlet.Oracle`
    objects (custom checks in Python). ``known_bugs``: a file
    of signature patterns (``PATTERN ## NOTE`` a line); findings that match are
    marked known and do not fail the run.

    ``rate``: open loop: queries start at this many a second over all sessions (Poisson
    arrivals, as sysbench's ``--rate``), each on the next free session, and a query's latency
    (``summary["query_latency_ms"]``) counts from when it was due, queueing included; 0
    (default): closed loop, each session starts its next query when the last ends.

    ``keep_going``: a crash, hang, shutdown or unreachable server does not end
    the run: it is recorded, and the run goes on with fresh servers and data
    until ``duration`` is over, as rounds in OUT/rounds/NNN (round N with seed
    ``seed + N - 1``; each replays on its own); OUT sums them up, one finding
    per signature with the rounds it occurred in (``gauntlet.rounds``).

    Every way a run can end leaves ``out/summary.json``: the duration or
    query budget, a finding (crash, shutdown, hang, unreachable, a server that
    will not start), a grammar that fails or gets stuck while generating
    (``summary["error"]``), or SIGINT/SIGTERM/SIGHUP (``summary["signal"]``;
    the server is stopped). Bad arguments raise InvalidInput before anything
    starts.
    """
    settings = {name: check_setting(name, value) for name, value in (
        ("threads", threads), ("duration", duration), ("queries", queries), ("seed", seed), ("rate", rate),
        ("statement_timeout", statement_timeout), ("hang_timeout", hang_timeout),
        ("generate_timeout", generate_timeout), ("max_depth", max_depth))}
    if settings["duration"] == 0 and settings["queries"] == 0:
        raise _core.InvalidInput("duration, queries: give one of them: the run needs an end")
    _check_threads_fit(settings["threads"])
    if isinstance(grammar, Grammar) and redefine:
        raise _core.InvalidInput("redefine: applies to grammar files; give them to Grammar.from_file(path, "
                                 "*redefine) or pass the grammar as a path")
    g = grammar if isinstance(grammar, Grammar) else Grammar.from_file(os.fspath(grammar), *redefine)
    if isinstance(data, os.PathLike):
        data = os.fspath(data)
    spec = _data_spec(data, settings["seed"])
    chosen = _checked_targets(targets, server, mysqld)
    checks = _oracle_names(oracles, chosen)
    known = _known_bugs(known_bugs)
    record = {"grammar": os.fspath(grammar) if not isinstance(grammar, Grammar) else None,
              "redefine": [os.fspath(r) for r in redefine],
              "grammar_sources": [{"source": name, "sha256": hashlib.sha256(g._g.source_text(name)).hexdigest()}
                                  for name in g._g.sources],
              "python_rules": g.python_rules, **settings,
              "data": data if data is None or isinstance(data, str) else {"schema": json.loads(data.to_json())},
              "server": _redact(server) if isinstance(server, str) else None, "mysqld": mysqld,
              "statement_log": statement_log, "targets": [t.to_dict() for t in chosen] if targets else None,
              "oracles": [_oracle_label(c) for c in checks], "known_bugs": os.fspath(known_bugs) if known_bugs else None}
    label = getattr(g, "_label", str(g))
    if keep_going:
        if keep_server:
            raise _core.InvalidInput("keep_server: a keep-going run starts servers per round and stops each; "
                                     "replay a round with keep_server=True to keep one")
        from .rounds import keep_going as run_keep_going
        return run_keep_going(g._g, label, data, settings, chosen, mysqld, out, statement_log, progress,
                              data_template, overwrite, record, checks, known)
    return _run_workload(g._g, {"grammar": label}, spec, settings, chosen, mysqld, out,
                         statement_log, progress, keep_server, data_template, overwrite, record, checks, known)


def _checked_targets(targets, server, mysqld) -> list:
    """The run's targets, each server checked before anything starts."""
    chosen = make_targets(targets, server)
    for t in chosen:
        _server_params(t.server, mysqld if len(chosen) == 1 else None)
        if t.options and isinstance(t.server, ManagedServer):
            raise _core.InvalidInput(f"targets: {t.name}: options go to ManagedServer(..., mysqld=...) when the "
                                     "server is one")
    return chosen


def _oracle_names(oracles, targets) -> list:
    """The oracles, checked: known names (differential and timing only with two or more targets) and
    :class:`gauntlet.Oracle` objects."""
    if oracles is None:
        oracles = ("crash",)
    elif not isinstance(oracles, (str, list, tuple)):
        raise _core.InvalidInput(f"oracles: names (\"tlp,norec\" or a list) or gauntlet.Oracle objects, "
                                 f"not {type(oracles).__name__}")
    names = [n.strip() for n in oracles.split(",")] if isinstance(oracles, str) else list(oracles)
    known = [name for name, _ in _core.known_oracles()]
    for n in names:
        if isinstance(n, Oracle):
            if not isinstance(getattr(n, "name", None), str) or not n.name:
                raise _core.InvalidInput(f"oracles: {n!r} needs a name (a non-empty str)")
            continue
        if not isinstance(n, str):
            raise _core.InvalidInput(f"oracles: an oracle is a name or a gauntlet.Oracle, not {n!r}")
        if n not in known:
            raise _core.InvalidInput(f"oracles: unknown oracle {n!r}; known: {', '.join(known)}")
    for n in ("differential", "timing"):
        if n in names and len(targets) < 2:
            raise _core.InvalidInput(f"oracles: {n} compares targets: give two or more (targets=, --target)")
    return list(dict.fromkeys(["crash", *names]))


def _oracle_label(oracle) -> str:
    """How run.json and the summary name an oracle; custom ones as custom:NAME (replay leaves them out)."""
    return oracle if isinstance(oracle, str) else f"custom:{oracle.name}"


def _known_bugs(path) -> list:
    return _core.load_known_bugs(os.fspath(path)) if path else []


def _data_spec(data, seed: int = 1) -> Optional[Schema]:
    if isinstance(data, Schema):
        return data
    if isinstance(data, str) and re.fullmatch(r"random(:\d+)?", data):
        return Schema.random(int(data.split(":")[1]) if ":" in data else seed)
    if isinstance(data, dict) and "schema" in data:  # as run.json records a Schema object
        return Schema.from_json(json.dumps(data["schema"]))
    return None if data == "none" else Schema.rqg_default() if data is None else load_data_spec(data)


def _server_params(server, mysqld) -> Optional["_core.ConnectionParams"]:
    """The connection of an external server (a DSN), or None for one Gauntlet manages."""
    if isinstance(server, ManagedServer):
        if mysqld:
            raise _core.InvalidInput("mysqld: options go to ManagedServer(..., mysqld=...) when server= is one")
        return None
    if not isinstance(server, str):
        raise _core.InvalidInput(f"server: must be 'default', a binary path, a DSN or a ManagedServer, "
                                 f"not {server!r}")
    if "://" in server:
        if mysqld:
            raise _core.InvalidInput("mysqld: server options cannot apply to an external server (a DSN); "
                                     "set them on that server")
        return parse_dsn(server)
    _core.check_server_binary(DEFAULT_BINARY if server == "default" else server)
    return None


def _run_workload(workload, info, spec, settings, targets, mysqld, out, statement_log, progress,
                  keep_server, data_template, overwrite, record, oracles=("crash",), known=()) -> RunResult:
    from . import __version__
    record = {**record, "gauntlet_version": __version__}
    info = {**info, "settings": record}
    out = pathlib.Path(out)
    lock = _claim_out(out, overwrite)
    try:
        try:
            (out / "run.json").write_text(json.dumps(record, indent=2, default=str) + "\n")
        except OSError as e:
            print(f"gauntlet: cannot write {out / 'run.json'}: {e.strerror}", file=sys.stderr)
        with _Interrupts() as interrupts:
            summary, timeline = _run_claimed(workload, info, spec, settings, targets, mysqld, out,
                                             statement_log, progress, keep_server, data_template, overwrite,
                                             interrupts, list(oracles), list(known))
    finally:
        lock.close()
    return RunResult(out, summary, timeline)


def replay(run_dir: Union[str, os.PathLike], *, out: Union[None, str, os.PathLike] = None,
           sessions: Optional[int] = None, ordered: bool = True, until_seq: int = 0,
           server: Union[None, str, ManagedServer] = None, mysqld=None, hang_timeout: Optional[float] = None,
           statement_timeout: Optional[float] = None, statement_log: bool = True, progress=False,
           keep_server: bool = False, overwrite: bool = False, attempts: int = 1) -> RunResult:
    """Executes again what a run recorded in its statement logs (``statement_log=True``).

    The server is set up as the run's was (its binary and options, the same
    data from the same seed; ``server``/``mysqld`` override them), then each
    session executes its statements; ``ordered`` starts every statement only
    after all that started before it in the run (by ``seq``), which re-creates
    the run's interleaving. ``sessions=1`` runs everything in one session, in
    start order. ``until_seq`` leaves out statements from that seq on.
    Findings are reported as a run reports them; results go to ``out``
    (default RUN_DIR/replay). Statements sent microseconds apart can reach
    the server in either order, so a race may need more than one replay:
    ``attempts`` replays (each on a fresh server) until one finds something.
    Which of two overlapping statements the server applied first is a guess,
    so the first attempt follows the run's timing (a statement that ended
    within 1 ms after another started counts as applied before it) and later
    ones take turns: a late crash (the statement a crash cut off waits for
    the next 1, 3, 8, then 20 statements of other sessions), an early crash
    (it goes 1, 4, 16, then 64 ms before another session's statement that
    started just before it), and the start order (a statement that ended up
    to 4, 16, then 64 ms after another started counts as applied before it,
    and one still running keeps the next statement of another session
    waiting that long); with ``sessions=1`` the late and early guesses move
    the cut-off statement instead. ``summary()["attempt"]`` says which
    attempt found it, and ``summary()["guess"]`` how it read the times.
    """
    run_dir = pathlib.Path(run_dir)
    try:
        recorded = json.loads((run_dir / "run.json").read_text())
    except FileNotFoundError:
        raise _core.InvalidInput(f"{run_dir}: no run.json: not a run folder (or a run older than replay)") from None
    except json.JSONDecodeError as e:
        raise _core.InvalidInput(f"{run_dir / 'run.json'}:{e.lineno}:{e.colno}: {e.msg}") from None
    if recorded.get("keep_going"):
        raise _core.InvalidInput(f"{run_dir}: a keep-going run; replay one of its rounds (a finding's \"round\"): "
                                 f"gauntlet replay {run_dir / 'rounds' / '001'}")
    logs = sorted(run_dir.glob("statements-*.jsonl"), key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
    if not logs:
        raise _core.InvalidInput(f"{run_dir}: no statements-N.jsonl: the run had no statement log "
                                 "(run with statement_log=True / --statement-log)")
    if sessions not in (None, 1):
        raise _core.InvalidInput(f"sessions: None (the run's sessions) or 1, not {sessions!r}")
    script = _core.Script.from_statement_logs([str(p) for p in logs], sessions or 0, check_setting("until_seq", until_seq))
    script.ordered = ordered
    if script.statements == 0:
        raise _core.InvalidInput(f"{run_dir}: the statement logs hold no statements")
    if server is None:
        server = recorded.get("server") or "default"
        if "://" in server:
            raise _core.InvalidInput("server: the run used an external server; give its DSN (server=...) "
                                     "to replay against it")
        if mysqld is None:
            mysqld = recorded.get("mysqld")
    settings = {"threads": script.sessions, "duration": 0, "queries": 0, "seed": recorded["seed"],
                "statement_timeout": check_setting("statement_timeout", recorded.get("statement_timeout", 0)
                                                   if statement_timeout is None else statement_timeout),
                "hang_timeout": check_setting("hang_timeout", recorded.get("hang_timeout", 60)
                                              if hang_timeout is None else hang_timeout),
                "generate_timeout": 0, "max_depth": recorded.get("max_depth", 64)}
    record = {"replay_of": str(run_dir), "sessions": sessions, "ordered": ordered, "until_seq": until_seq,
              **{k: recorded.get(k) for k in ("grammar", "redefine", "data", "max_depth")}, **settings,
              "server": _redact(server) if isinstance(server, str) else None, "mysqld": mysqld,
              "statement_log": statement_log}
    attempts = check_setting("attempts", attempts)
    spec = _data_spec(recorded.get("data"), recorded["seed"])
    # A run with several targets replays on all of them, unless a server is given.
    recorded_targets = recorded.get("targets") if server == (recorded.get("server") or "default") else None
    chosen = _checked_targets(recorded_targets, server, mysqld)
    record["targets"] = [t.to_dict() for t in chosen] if recorded_targets else None
    checks = [n for n in recorded.get("oracles", ["crash"])
              if not n.startswith("custom:") and (n not in ("differential", "timing") or len(chosen) > 1)]
    known = _known_bugs(recorded.get("known_bugs"))
    for attempt in range(1, attempts + 1):
        # Which of two statements sent close together the server applied first is a guess from their times: a
        # loaded machine delays replies and statements. The run's timing says one thing; the statement that
        # crashed may have been read late, after later ones committed, or early, before a slow DELETE started
        # just before it committed; and the start order another (a SELECT that crashed the server ran on until
        # the crash was noticed while the next statements started).
        reading, level = ("timing", 0) if attempt == 1 else (("late", "early", "order")[(attempt - 2) % 3],
                                                             min((attempt - 2) // 3, 3))
        script.let_first = (1, 3, 8, 20)[level] if reading == "late" else 0
        script.hold_back = 0.001 * 4 ** level if reading == "early" else 0
        script.reply_window = {"order": 0.004 * 4 ** min(level, 2), "early": 0}.get(reading, 0.001)
        script.head_start = script.reply_window if reading == "order" else 0
        guess = {"reading": reading, "let_first": script.let_first, "hold_back": script.hold_back,
                 "reply_window": script.reply_window, "head_start": script.head_start}
        # One session has nobody to wait for: the guesses move the cut-off statement instead.
        workload = script.serialized() if script.sessions == 1 else script
        result = _run_workload(workload, {"grammar": f"replay of {run_dir}", "attempt": attempt, "guess": guess},
                               spec, settings, chosen, mysqld, run_dir / "replay" if out is None else out,
                               statement_log, progress, keep_server, False, overwrite or attempt > 1, record, checks,
                               known)
        if result.findings or result.summary()["stop_reason"] != "script":
            break
    return result


def _run_claimed(workload, info, spec, settings, targets, mysqld, out, statement_log, progress,
                 keep_server, data_template, overwrite, interrupts, oracles, known):
    """The part of run() that owns ``out``: whatever happens, summary.json is written. ``info``
    (what ran) goes into the summary."""
    started = []  # the ManagedServers this run started, to stop at the end
    info = {**info, "seed": settings["seed"], "threads": settings["threads"]}
    described = {t.name: t.to_dict() for t in targets}
    summary, timeline = None, []
    try:
        ready, schema = [], None
        for target in targets:
            tinfo = info if len(targets) == 1 else info.setdefault("target_info", {}).setdefault(target.name, {})
            managed, params, target_schema = prepare_target(target, len(targets), spec, settings, mysqld, out,
                                                             overwrite, data_template, interrupts, tinfo, started)
            schema = schema or target_schema
            ready.append((target, managed, params))
        if len(targets) > 1:  # the first target's, as for one target
            info.update({k: info["target_info"][targets[0].name].get(k) for k in
                         ("server", "server_info", "server_ready_seconds", "load", "ready_with_data_seconds")
                         if k in info["target_info"][targets[0].name]})
        if interrupts:
            raise Stop("interrupted")

        options = _core.RunOptions()
        for name, value in settings.items():
            setattr(options, name, value)
        options.out_dir, options.statement_log = str(out), statement_log
        options.known_bugs = known
        user_tick = _progress_printer(sys.stderr) if progress is True else (progress or None)

        def tick(second):
            stop = bool(user_tick(second)) if user_tick is not None else False
            return stop or bool(interrupts)

        core_targets = []
        twins = _core.temporary_twin_sql(spec._s) if spec is not None else []
        for target, managed, params in ready:
            if not params.database:
                params.database = schema.databases[0] if schema.databases else "test"
            core_targets.append({"name": target.name, "connection": params,
                                 "server": managed._s if managed is not None else None,
                                 "setup": (target.session_setup() if target.is_dsn else []) + twins,
                                 "description": described[target.name]})
        summary, timeline = _core.execute_run(workload, schema, core_targets, options, oracles, {}, tick)
        if progress is True and sys.stderr.isatty():
            sys.stderr.write("\n")
    except Stop as stop:
        summary = _core.empty_summary()
        summary["stop_reason"] = stop.reason
        if stop.finding is not None:
            summary["findings"] = _core.record_findings(str(out), [stop.finding], known, described)
            summary["finding_counts"] = _finding_counts(summary["findings"])
    except (_core.InvalidInput, _core.GauntletError) as e:
        summary = _core.empty_summary()
        summary["stop_reason"] = "error"
        summary["error"] = {"kind": "input" if isinstance(e, _core.InvalidInput) else "internal",
                            "at": 0, "thread": 0, "message": str(e)}
        raise
    finally:
        try:
            for managed in started:
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
            summary["oracles_run"] = [_oracle_label(o) for o in oracles]
            if interrupts.signum is not None:
                summary["stop_reason"] = "interrupted"
                summary["signal"] = signal.Signals(interrupts.signum).name
            try:
                (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            except OSError as e:  # a full or vanished disk under OUT: the result object still has it all
                print(f"gauntlet: cannot write {out / 'summary.json'}: {e.strerror}", file=sys.stderr)
    return summary, timeline


def _finding_counts(findings: list) -> dict:
    by_kind: dict = {}
    for f in findings:
        by_kind[f["kind"]] = by_kind.get(f["kind"], 0) + 1
    known = sum(1 for f in findings if f.get("known"))
    return {"total": len(findings), "new": len(findings) - known, "known": known, "by_kind": by_kind}


class Run:
    """A run in the background, for notebooks: ``Run(grammar, ...).start()``.

    Takes the same arguments as :func:`run`. ``timeline()`` grows while it
    runs; ``stop()`` ends it early (results are still written); ``wait()``
    returns the RunResult.
    """

    def __init__(self, grammar, **kwargs):
        import inspect
        inspect.signature(run).bind(grammar, **kwargs)  # a misspelt argument fails here, not at wait()
        self._grammar = grammar
        self._kwargs = kwargs
        self._seconds: list = []
        self._stop = False
        self._result: Optional[RunResult] = None
        self._error: Optional[BaseException] = None
        self._thread = None

    def start(self) -> "Run":
        """Starts the run in a background thread; returns self."""
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
        """Ends the run early (results are still written) and returns its RunResult."""
        self._stop = True
        return self.wait()

    def wait(self, timeout: Optional[float] = None) -> Optional[RunResult]:
        """Waits for the run to end (at most `timeout` seconds); its RunResult, or None if still running. Re-raises what the run raised."""
        self._thread.join(timeout)
        if self._error is not None:
            raise self._error
        return self._result

    @property
    def running(self) -> bool:
        """True while the run goes on."""
        return self._thread is not None and self._thread.is_alive()

    def timeline(self) -> list:
        """The seconds closed so far, as RunResult.timeline() gives them."""
        return list(self._seconds)

    def to_pandas(self):
        """The seconds closed so far as a DataFrame (see RunResult.to_pandas)."""
        return analysis.timeline_frame(self.timeline())

    def __repr__(self) -> str:
        if self._result is not None:
            return f"Run(done: {self._result!r})"
        n = sum(s["statements"] for s in self._seconds)
        return f"Run({'running' if self.running else 'not started'}, {len(self._seconds)} s, {n:,} statements)"
