"""Runs: a grammar against a server, with data, for a duration; replays of a run; runs in the background."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import sys
import warnings
from typing import Callable, Optional, Sequence, Tuple, Union

from .. import _core
from ..arguments import capped_duration, flag_argument, number_argument, path_argument, shard_argument
from ..corpus import corpus_named
from ..grammar import Grammar, Schema
from ..oracles import Oracle
from ..results import RunResult, timeline_frame
from ..formats import newer_than
from ..server import ManagedServer, Target, option_list, recorded_login, without_password
from .execute import run_workload
from .signals import raise_if_signalled
from .plan import (RUN_DEFAULTS, RunPlan, check_kept_oracles, check_setting, check_threads_fit, checked_targets, data_spec,
                   oracle_label, oracle_names)
from .plan import known_bugs as known_bugs_of
from .recovery import recovery_run
from .replication import replicas_of, replication_run
from .rounds import keep_going as run_keep_going


_D = RUN_DEFAULTS


def run(grammar: Union[str, Grammar], *, redefine: Sequence[str] = (), data: Union[None, str, Schema] = None,
        threads: int = _D["threads"], duration: float = _D["duration"], queries: int = _D["queries"],
        seed: int = _D["seed"], rate: float = _D["rate"], server: Union[str, ManagedServer] = _D["server"],
        mysqld=None, out: Union[str, os.PathLike] = _D["out"], statement_timeout: float = _D["statement_timeout"],
        hang_timeout: float = _D["hang_timeout"], generate_timeout: float = _D["generate_timeout"],
        statement_log: bool = _D["statement_log"], max_depth: int = _D["max_depth"],
        trusted_perl: bool = _D["trusted_perl"], progress: Union[bool, Callable] = False,
        keep_server: bool = False, data_template: bool = False, overwrite: bool = False,
        targets: Optional[Sequence[Union[dict, Target]]] = None,
        oracles: Union[str, Sequence[Union[str, Oracle]]] = ("crash",),
        known_bugs: Union[None, str, os.PathLike] = None, keep_going: bool = False,
        shard: Union[None, str, Tuple[int, int]] = None, crash_every: float = _D["crash_every"],
        kill_signal: str = _D["kill_signal"], replicas: Union[int, Sequence[dict]] = _D["replicas"],
        replica_server: Optional[str] = _D["replica_server"], replica_mysqld=None,
        checkpoint_every: float = _D["checkpoint_every"],
        replica_crash_every: float = _D["replica_crash_every"]) -> RunResult:
    """Runs ``grammar`` with ``threads`` sessions against a server and returns the result.

    ``server``: "default" (Debian's MariaDB, started by Gauntlet in OUT/server),
    a path to a mariadbd/mysqld binary, a DSN (mysql://...) of a server that is
    already running, or a ManagedServer. ``data``: None for RQG's default
    tables A..DD, a Schema (with row counts and value expressions), a JSON data
    spec, an RQG ``.zz`` file, or "none" to use what the server already has.
    ``trusted_perl``: the grammar's and the ``.zz`` file's Perl may run processes, open files
    and load native code (see :class:`Grammar`; a Grammar object brings its own). ``data_template``: keep the loaded datadir in the
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

    ``progress``: True prints the grammar's warnings and then a line a second on stderr; a
    callable gets each second's numbers (returning True stops the run).

    ``shard``: "I/N", this run's part of work split over N CI jobs: it runs seed + I - 1 (a
    keep-going run's round k seed + I - 1 + (k - 1) N), so that the jobs' seeds (and random
    schemas) differ; ``gauntlet.triage`` over their folders gives one list.

    ``oracles=[..., "recovery"]``: the server is killed under load (``kill_signal``: SIGKILL, SIGSEGV or
    SIGABRT) about every ``crash_every`` seconds (default 10; at a random moment of each period's
    second half), restarted on its datadir and checked: it recovers, its InnoDB tables check clean,
    and every commit of Gauntlet's own ledger the server acknowledged is there, whole
    (gauntlet/runs/recovery.py). The rounds are in OUT/rounds/NNN, as a keep-going run's.

    ``replicas``: N replicas follow the server (the primary, started with a binary log) by GTID,
    each of ``replica_server`` (default: the primary's build) with ``replica_mysqld`` options (after
    ``mysqld``, which applies to them too), or a list of replicas ``{"server": ..., "mysqld": [...]}``
    each with its own build and options (after those); every ``checkpoint_every`` seconds (default 10) the workload
    pauses, each replica must catch up and hold the same rows in every table (CHECKSUM TABLE, then the
    rows): ``replication-divergence`` and ``replication-error`` findings. ``replica_crash_every``: a
    replica is killed and restarted about that often and must resume (gauntlet/runs/replication.py).
    With the recovery oracle, the checkpoints come after each recovery of the primary (its binary log
    and InnoDB synced at every commit): the replicas must agree with what it recovered.

    ``keep_going``: a crash, hang, shutdown or unreachable server does not end
    the run: it is recorded, and the run goes on with fresh servers and data
    until ``duration`` is over, as rounds in OUT/rounds/NNN (round N with seed
    ``seed + N - 1``; each replays on its own); OUT sums them up, one finding
    per signature with the rounds it occurred in (``gauntlet.rounds``).

    Every way a run can end leaves ``out/summary.json``: the duration or
    query budget, a finding (crash, shutdown, hang, unreachable, a server that
    will not start), a grammar that fails or gets stuck while generating
    (``summary["error"]``), or SIGINT/SIGTERM/SIGHUP (``summary["signal"]``;
    the server is stopped; then :class:`Stopped`, a KeyboardInterrupt, is raised with the
    RunResult in ``result``). Bad arguments raise InvalidInput before anything starts.
    """
    out = path_argument("out", out)
    redefine = [path_argument("redefine", r) for r in redefine]
    known_bugs = path_argument("known_bugs", known_bugs, optional=True)
    for name, value in (("statement_log", statement_log), ("keep_server", keep_server), ("overwrite", overwrite),
                        ("data_template", data_template), ("keep_going", keep_going), ("trusted_perl", trusted_perl)):
        flag_argument(name, value)
    corpus = grammar if isinstance(grammar, str) and grammar.startswith("corpus:") else None
    error_log_ignore: list = []
    if corpus:  # a corpus's statements at random: "corpus:FILE" or "corpus:default"
        named = corpus_named(corpus[len("corpus:"):])
        grammar, error_log_ignore = named.grammar(), named.suppressions
    if not isinstance(grammar, Grammar):
        grammar = path_argument("grammar (a path or a Grammar)", grammar)
    if not isinstance(data, Schema):
        data = path_argument("data (a path, 'none', 'random[:SEED]', a Schema or None)", data, optional=True)
    settings = {name: check_setting(name, value) for name, value in (
        ("threads", threads), ("duration", duration), ("queries", queries), ("seed", seed), ("rate", rate),
        ("statement_timeout", statement_timeout), ("hang_timeout", hang_timeout),
        ("generate_timeout", generate_timeout), ("max_depth", max_depth))}
    settings["duration"] = capped_duration("duration", settings["duration"])
    shard = shard_argument(shard)
    if shard:
        settings["seed"] = check_setting("seed", settings["seed"] + shard[0] - 1)
    if settings["duration"] == 0 and settings["queries"] == 0:
        raise _core.InvalidInput("duration, queries: give one of them: the run needs an end")
    check_threads_fit(settings["threads"])
    mysqld = option_list(mysqld) or None
    if isinstance(grammar, Grammar) and redefine:
        raise _core.InvalidInput("redefine: applies to grammar files; give them to Grammar.from_file(path, "
                                 "*redefine) or pass the grammar as a path")
    if isinstance(grammar, Grammar) and trusted_perl:
        raise _core.InvalidInput("trusted_perl: applies to grammar files; give it to Grammar.from_file(path, "
                                 "trusted_perl=True) or pass the grammar as a path")
    g = grammar if isinstance(grammar, Grammar) else Grammar.from_file(os.fspath(grammar), *redefine,
                                                                       trusted_perl=trusted_perl)
    trusted_perl = g.trusted_perl
    if progress is True:
        _say_warnings(g)
    spec = data_spec(data, settings["seed"], trusted_perl)
    # The grammar's start rules and Perl, checked before any server starts (the data's tables stand in
    # for those a server would have).
    _core.Generator(g._g, (spec or Schema.rqg_default())._s, settings["seed"], 1, settings["threads"],
                    settings["max_depth"])
    chosen = checked_targets(targets, server, mysqld)
    checks = oracle_names(oracles, chosen)
    check_kept_oracles(g._g, checks)
    known = known_bugs_of(known_bugs)
    record = {"grammar": corpus or (os.fspath(grammar) if not isinstance(grammar, Grammar) else None),
              "redefine": [os.fspath(r) for r in redefine],
              "grammar_sources": [{"source": name, "sha256": hashlib.sha256(g._g.source_text(name)).hexdigest()}
                                  for name in g._g.sources],
              "python_rules": g.python_rules, "trusted_perl": trusted_perl, **settings,
              "data": data if data is None or isinstance(data, str) else {"schema": json.loads(data.to_json())},
              "server": without_password(server) if isinstance(server, str) else None, "mysqld": mysqld,
              "statement_log": statement_log, "targets": [t.to_dict() for t in chosen] if targets else None,
              "oracles": [oracle_label(c) for c in checks], "known_bugs": os.fspath(known_bugs) if known_bugs else None,
              **({"shard": {"index": shard[0], "count": shard[1]}} if shard else {}),
              **({"error_log_ignore": error_log_ignore} if error_log_ignore else {})}
    recovering = "recovery" in checks
    if "replication" in checks and not replicas:
        replicas = 1  # the oracle asked for by name: one replica
    replication = replicas_of(replicas, replica_server and os.fspath(path_argument("replica_server", replica_server)),
                              replica_mysqld, checkpoint_every, replica_crash_every)
    if replication is not None:
        if keep_going:
            raise _core.InvalidInput("keep_going: a replicated run goes in rounds of its own, a checkpoint after "
                                     "each; a crash of the primary ends it")
        checks = list(dict.fromkeys([*checks, "replication"]))
        record.update({"oracles": [oracle_label(c) for c in checks], "replicas": replication.count,
                       "replica_each": replication.to_dict(), "checkpoint_every": replication.checkpoint_every,
                       "replica_crash_every": replication.crash_every})
    if recovering:
        crash_every = float(number_argument("crash_every", crash_every)) or 10.0
        record.update({"crash_every": crash_every, "kill_signal": kill_signal})
        if keep_going:
            raise _core.InvalidInput("keep_going: the recovery oracle's rounds go on after its kills; "
                                     "a crash of the workload's ends the run")
    label = getattr(g, "_label", str(g))
    if keep_going and keep_server:
        raise _core.InvalidInput("keep_server: a keep-going run starts servers per round and stops each; "
                                 "replay a round with keep_server=True to keep one")
    plan = RunPlan(spec=spec, settings=settings, targets=chosen, out=pathlib.Path(out), record=record, oracles=checks,
                   known=known, mysqld=mysqld, statement_log=statement_log, progress=progress,
                   keep_server=keep_server, data_template=data_template, overwrite=overwrite,
                   error_log_ignore=error_log_ignore)
    if recovering:  # with replicas: a checkpoint after each recovery
        return raise_if_signalled(recovery_run(g._g, label, plan, crash_every, kill_signal, replication))
    if replication is not None:
        return raise_if_signalled(replication_run(g._g, label, plan, replication))
    if keep_going:
        return raise_if_signalled(run_keep_going(g._g, label, data, plan))
    return raise_if_signalled(run_workload(g._g, {"grammar": label}, plan))


def _say_warnings(g: Grammar, shown: int = 5) -> None:
    """A grammar's warnings (a misspelt rule name printed as written, ...) on stderr, before the run."""
    for w in g.warnings[:shown]:
        print(f"warning: {w}", file=sys.stderr)
    if len(g.warnings) > shown:
        print(f"warning: ... and {len(g.warnings) - shown} more (gauntlet gensql --warnings lists them all)",
              file=sys.stderr)


def _login_of(target: dict) -> dict:
    """A target of run.json as replay uses it: its DSN's password comes from where the run took it (an
    environment variable, an option file), since a password given in the DSN was never recorded."""
    t = {k: v for k, v in target.items() if k != "password_from"}
    if not isinstance(t.get("server"), str) or "://" not in t["server"]:
        return t
    source = "dsn" if ":***@" in t["server"] else target.get("password_from")  # ***: a run.json of before
    t["server"] = recorded_login(t["server"], source)
    if source == "dsn" and not (os.environ.get("GAUNTLET_PASSWORD") or os.environ.get("MYSQL_PWD")):
        raise _core.InvalidInput(f"targets: {t.get('name')}: the run had the password in the DSN, which Gauntlet "
                                 "never records; give it in $GAUNTLET_PASSWORD (or $MYSQL_PWD) to replay")
    return t


def _warn_if_logs_incomplete(run_dir: pathlib.Path, logged: int) -> None:
    """Says so when the statement logs hold fewer statements than the run's summary counts (a full
    disk, a log shortened or torn by hand): the replay then executes only the ``logged`` ones."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
        error = summary.get("error") or {}
        ran = summary["statements"] + summary.get("cancelled", 0)
    except (OSError, ValueError, AttributeError, KeyError, TypeError):  # a run killed outright: no summary
        return
    if error.get("kind") == "output":
        warnings.warn(f"{run_dir}: the run's results are incomplete, the replay executes what was logged: "
                      f"{error.get('message')}", stacklevel=3)
    elif logged < ran:
        warnings.warn(f"{run_dir}: the statement logs hold {logged:,} of the {ran:,} statements the run's summary "
                      "counts (a log shortened, or its last line torn): the replay executes those", stacklevel=3)


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
    run_dir = pathlib.Path(path_argument("run_dir", run_dir))
    out = path_argument("out", out, optional=True)
    for name, value in (("ordered", ordered), ("statement_log", statement_log), ("keep_server", keep_server),
                        ("overwrite", overwrite)):
        flag_argument(name, value)
    try:
        recorded = json.loads((run_dir / "run.json").read_text())
    except FileNotFoundError:
        raise _core.InvalidInput(f"{run_dir}: no run.json: not a run folder (or a run older than replay)") from None
    except json.JSONDecodeError as e:
        raise _core.InvalidInput(f"{run_dir / 'run.json'}:{e.lineno}:{e.colno}: {e.msg}") from None
    newer_than(recorded, "run", run_dir / "run.json")
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
    if not until_seq:
        _warn_if_logs_incomplete(run_dir, script.statements)
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
    mysqld = option_list(mysqld) or None
    settings = {"threads": script.sessions, "duration": 0, "queries": 0, "seed": recorded["seed"],
                "statement_timeout": check_setting("statement_timeout", recorded.get("statement_timeout", 0)
                                                   if statement_timeout is None else statement_timeout),
                "hang_timeout": check_setting("hang_timeout", recorded.get("hang_timeout", _D["hang_timeout"])
                                              if hang_timeout is None else hang_timeout),
                "generate_timeout": 0, "max_depth": recorded.get("max_depth", _D["max_depth"])}
    record = {"replay_of": str(run_dir), "sessions": sessions, "ordered": ordered, "until_seq": until_seq,
              **{k: recorded.get(k) for k in ("grammar", "redefine", "data", "max_depth")},
              "trusted_perl": recorded.get("trusted_perl", False), **settings,
              **({"error_log_ignore": recorded["error_log_ignore"]} if recorded.get("error_log_ignore") else {}),
              "server": without_password(server) if isinstance(server, str) else None, "mysqld": mysqld,
              "statement_log": statement_log}
    attempts = check_setting("attempts", attempts)
    spec = data_spec(recorded.get("data"), recorded["seed"], recorded.get("trusted_perl", False))
    # A run with several targets replays on all of them, unless a server is given.
    recorded_targets = recorded.get("targets") if server == (recorded.get("server") or "default") else None
    if recorded_targets:
        recorded_targets = [_login_of(t) for t in recorded_targets]
    chosen = checked_targets(recorded_targets, server, mysqld)
    record["targets"] = [t.to_dict() for t in chosen] if recorded_targets else None
    checks = [n for n in recorded.get("oracles", ["crash"])
              if not n.startswith("custom:") and (n not in ("differential", "timing") or len(chosen) > 1)]
    plan = RunPlan(spec=spec, settings=settings, targets=chosen, record=record, oracles=checks,
                   out=pathlib.Path(run_dir / "replay" if out is None else out),
                   known=known_bugs_of(recorded.get("known_bugs")), mysqld=mysqld, statement_log=statement_log,
                   progress=progress, keep_server=keep_server, overwrite=overwrite,
                   error_log_ignore=recorded.get("error_log_ignore", []))
    for attempt in range(1, attempts + 1):
        guess = _guess(script, attempt)
        # One session has nobody to wait for: the guesses move the cut-off statement instead.
        workload = script.serialized() if script.sessions == 1 else script
        result = run_workload(workload, {"grammar": f"replay of {run_dir}", "attempt": attempt, "guess": guess},
                              plan)
        if result.findings or result.summary()["stop_reason"] != "script":
            break
        plan = dataclasses.replace(plan, overwrite=True)  # the next attempt replaces this one
    return raise_if_signalled(result)


def _guess(script, attempt: int) -> dict:
    """Sets how ``script`` reads the run's times for ``attempt``; returns the guess for the summary.

    Which of two statements sent close together the server applied first is a guess from their times: a
    loaded machine delays replies and statements. The run's timing says one thing; the statement that
    crashed may have been read late, after later ones committed, or early, before a slow DELETE started
    just before it committed; and the start order another (a SELECT that crashed the server ran on until
    the crash was noticed while the next statements started).
    """
    reading, level = ("timing", 0) if attempt == 1 else (("late", "early", "order")[(attempt - 2) % 3],
                                                         min((attempt - 2) // 3, 3))
    script.let_first = (1, 3, 8, 20)[level] if reading == "late" else 0
    script.hold_back = 0.001 * 4 ** level if reading == "early" else 0
    script.reply_window = {"order": 0.004 * 4 ** min(level, 2), "early": 0}.get(reading, 0.001)
    script.head_start = script.reply_window if reading == "order" else 0
    return {"reading": reading, "let_first": script.let_first, "hold_back": script.hold_back,
            "reply_window": script.reply_window, "head_start": script.head_start}


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
        """Starts the run in a background thread; returns self. A Run starts once."""
        import threading
        if self._thread is not None:
            raise RuntimeError("Run.start(): this run was started already; make a new Run for another")
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
        self._started("stop")
        self._stop = True
        return self.wait()

    def wait(self, timeout: Optional[float] = None) -> Optional[RunResult]:
        """Waits for the run to end (at most `timeout` seconds); its RunResult, or None if still running. Re-raises what the run raised."""
        self._started("wait")
        self._thread.join(timeout)
        if self._error is not None:
            raise self._error
        return self._result

    def _started(self, method: str) -> None:
        if self._thread is None:
            raise RuntimeError(f"Run.{method}(): the run was not started; call start() first")

    @property
    def running(self) -> bool:
        """True while the run goes on."""
        return self._thread is not None and self._thread.is_alive()

    def timeline(self) -> list:
        """The seconds closed so far, as RunResult.timeline() gives them."""
        return list(self._seconds)

    def to_pandas(self):
        """The seconds closed so far as a DataFrame (see RunResult.to_pandas)."""
        return timeline_frame(self.timeline())

    def __repr__(self) -> str:
        if self._result is not None:
            return f"Run(done: {self._result!r})"
        n = sum(s["statements"] for s in self._seconds)
        return f"Run({'running' if self.running else 'not started'}, {len(self._seconds)} s, {n:,} statements)"
