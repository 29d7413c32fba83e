"""Replication consistency (``replicas=N``): the workload runs on a primary that Gauntlet starts with a
binary log; N replicas Gauntlet starts follow it by GTID (each with its own options, and its own server
build if asked). The run goes in rounds of ``checkpoint_every`` seconds; after each (the workload
quiet), every replica is checked:

- its replication threads run (else a ``replication-error`` finding with the replica's error), and it
  catches up with the primary's binary log within CATCH_UP_TIMEOUT seconds (else the same kind);
- every table of the workload's databases holds the same rows on both sides: ``CHECKSUM TABLE`` first,
  the rows on a mismatch (a ``replication-divergence`` finding with the first differing rows and the
  statements of the run that named the table); a replica that crashed is a ``crash`` finding of its own.

``replica_crash_every``: a replica is also killed (SIGKILL) at a random moment of about every such
period and started again on its datadir: replication must resume where it stopped (crash-safe
replication: GTID position in InnoDB, relay log recovery). Tables of engines that are not crash-safe
(MyISAM, Aria, MEMORY, ...) are left out of a killed replica's comparisons from then on, and said so
(with the recovery oracle, every replica's once the primary was killed), and an event the replica cannot
apply to such tables only (a row torn away or left by the kill) is skipped and counted.
After a primary's kill, the InnoDB tables of a transaction it was committing in one phase (one that
wrote Aria too) are left out as well: the binary log may hold it while InnoDB does not (binlog_tail).
And the XA transactions left prepared are settled once the replica has caught up: the binary logging of
XA PREPARE is not crash-safe in MariaDB 10.11 (MDEV-21469), so a kill may leave an XA transaction
prepared on the replicas only, or on the primary only; it is rolled back where it is (not logged) and
counted, before the workload's next use of its xid stops the replica (1440 XAER_DUPID, 1397 XAER_NOTA).

A statement the run interrupts (KILL QUERY at a round's end, the statement timeout) after it had changed
MyISAM or Aria rows is logged with the interruption's error, and a replica stops on it by design: it is
skipped and counted, and the tables it names are left out of that replica's comparisons from then on.

OUT/server is the primary, OUT/replica-K the replicas, OUT/rounds/NNN the rounds (as a keep-going
run's); each round's summary has ``replication`` (what its checkpoint checked), the run's the sums.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import queue
import random
import re
import shutil
import signal
import threading
import time
from typing import Deque, Dict, List, Optional

from .. import _core
from ..formats import stamped
from ..results import RunResult
from ..server import Connection, ManagedServer, Target, check_known_options, option_list, server_binary
from .execute import run_workload
from .folder import claim_out
from .binlog_tail import committing_sessions, named_tables, one_phase_in_flight
from .plan import RunPlan, check_setting
from .preparation import remove_stopped_server
from .signals import Interrupts

CATCH_UP_TIMEOUT = 120  # seconds a replica may take to apply what the primary logged by a checkpoint
_USER, _PASSWORD = "gauntlet_repl", "gauntlet_repl"
_SYSTEM = ("mysql", "information_schema", "performance_schema", "sys")
_CRASH_SAFE = ("InnoDB",)  # engines whose tables a killed replica still keeps in step
_MAX_DIFF_ROWS = 200_000  # rows per side a mismatching table is compared by
_SHOWN_ROWS = 10
_SHOWN_STATEMENTS = 20
_KEPT_WRITES = 200_000  # the run's last writes, among which a divergence's statements are looked for
# The primary's options (before the user's): a binary log, and MIXED unless the user says otherwise.
PRIMARY_OPTIONS = ["server_id=1", "log_bin=primary-bin", "binlog_format=MIXED"]
_READS = re.compile(r"\s*\(?\s*(SELECT|SHOW|EXPLAIN|DESCRIBE|DESC|HELP)\b", re.I)  # statements that change nothing


@dataclasses.dataclass
class ReplicaSpec:
    """One replica: its server (a binary or an unpacked server's folder; None: the primary's build) and
    its own server options (after the run's mysqld)."""
    server: Optional[str] = None
    mysqld: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Replicas:
    """What ``run(replicas=...)`` asked for: the replicas, checked every ``checkpoint_every`` seconds,
    one of them killed and restarted about every ``crash_every`` seconds (0: never)."""
    each: List[ReplicaSpec]
    checkpoint_every: float = 10.0
    crash_every: float = 0.0

    @property
    def count(self) -> int:
        return len(self.each)

    def to_dict(self) -> List[dict]:
        """As run.json records them (replica_each)."""
        return [dataclasses.asdict(r) for r in self.each]


def replicas_of(replicas, server: Optional[str], mysqld, checkpoint_every: float,
                crash_every: float) -> Optional[Replicas]:
    """``run()``'s replica arguments checked: ``replicas`` a number N (N replicas of ``server`` with
    ``mysqld``) or a list of {"server": ..., "mysqld": [...]} (each its own build and options, after
    ``mysqld``); None for none."""
    common = option_list(mysqld, "replica_mysqld")
    if isinstance(replicas, (list, tuple)):
        each = []
        for k, r in enumerate(replicas, 1):
            if not isinstance(r, dict) or set(r) - {"server", "mysqld"}:
                raise _core.InvalidInput(f"replicas: replica {k}: a dict with server and mysqld, not {r!r}")
            each.append(ReplicaSpec(os.fspath(r["server"]) if r.get("server") else server,
                                    common + option_list(r.get("mysqld"), f"replicas: replica {k}: mysqld")))
        check_setting("replicas", len(each))
    else:
        each = [ReplicaSpec(server, list(common)) for _ in range(check_setting("replicas", replicas))]
    for r in each:
        if r.server is not None and not isinstance(r.server, str):
            raise _core.InvalidInput(f"replica_server: a binary or a folder, not {r.server!r}")
    if not each:
        return None
    return Replicas(each, check_setting("checkpoint_every", checkpoint_every),
                    check_setting("replica_crash_every", crash_every))


class _Replica:
    """One replica: its server, name, and what the run has learnt of it."""

    def __init__(self, number: int, server: ManagedServer):
        self.name = f"replica-{number}"
        self.server = server
        self.killed = False  # it, or its primary: since then its tables of engines that are not crash-safe are left out
        self.stopped: Optional[str] = None  # why it is no longer compared (its threads stopped, it crashed)
        self.reported: set = set()  # tables already found diverging on it
        self.version = ""
        self.skipped = 0  # row events on torn tables of engines that are not crash-safe (see _skipped_torn_event)
        self.left_out: set = set()  # tables an interrupted statement left unknown (see _skipped_interrupted_event)
        self.xa_unsettled = False  # its primary was killed: their prepared XA transactions may differ (_settled_xa)

    def __repr__(self) -> str:
        return f"_Replica({self.name}, {self.server!r})"


def replication_run(workload, label: str, plan: RunPlan, replicas: Replicas) -> RunResult:
    """run() with replicas: the primary and replicas started and connected, rounds of
    ``checkpoint_every`` seconds on the primary, a checkpoint after each."""
    from .rounds import amended_result, run_rounds
    settings, out = plan.settings, plan.out
    target = check_primary(plan)
    # The primary: ours first, so that the user's options (binlog_format, ...) win.
    primary = ManagedServer(out / "server", binary=target.binary, tcp=True, die_with_parent=True,
                            mysqld=[*PRIMARY_OPTIONS, *(plan.mysqld or []), *target.mysqld()])
    copies = ReplicaSet(out, replicas, target.binary, plan.mysqld, settings["seed"])  # options checked first
    lock = claim_out(out, plan.overwrite)
    clear_servers(out)
    try:
        from ..version import __version__
        record = {**plan.record, "keep_going": True, "gauntlet_version": __version__}
        (out / "run.json").write_text(json.dumps(stamped("run", record), indent=2, default=str) + "\n")
        primary.start()  # here, not by the first round's run, which would stop it at its end
        copies.start(primary)

        def start_round(n, folder, left, tick):
            seconds = min(replicas.checkpoint_every, left)
            mine = dataclasses.replace(
                plan, spec=plan.spec if n == 1 else None, targets=[Target(target.name, primary, engine=target.engine)],
                settings={**settings, "duration": seconds}, statement_log=True, out=folder, progress=tick,
                keep_server=False, overwrite=False,
                record={**record, "duration": seconds, "keep_going": False, "round": n, "round_of": str(out)})
            copies.round(seconds)
            try:
                result = run_workload(workload, {"grammar": label, "round": n}, mine)
            finally:
                kills = copies.end_round(folder)
            if result.summary().get("stop_reason") != "duration":
                return result  # the primary crashed or hung, or the run was stopped: no checkpoint
            findings, facts = copies.check(primary, kills)
            return amended_result(result, findings, {"replication": facts}, plan, copies.described())

        info = {"grammar": label, "settings": record, "seed": settings["seed"], "threads": settings["threads"]}
        with Interrupts() as interrupts:
            return run_rounds(start_round, info, out, settings["duration"], plan.progress, interrupts,
                              go_on=("duration",))
    finally:
        copies.stop()
        primary.stop()
        lock.close()


def check_primary(plan: RunPlan) -> Target:
    """The run's one target, which Gauntlet must start to give it a binary log; else InvalidInput."""
    target = plan.targets[0]
    if len(plan.targets) > 1 or target.is_dsn or isinstance(target.server, ManagedServer):
        raise _core.InvalidInput("replicas: Gauntlet starts the primary with a binary log and the replicas beside it: "
                                 "one target, a server Gauntlet starts ('default', a binary or a folder)")
    if plan.data_template:
        raise _core.InvalidInput("data_template: a replica gets its data through replication, not from a copy; "
                                 "leave it off with replicas")
    return target


def clear_servers(out) -> None:
    """An earlier run's rounds, primary and replicas in ``out`` (which overwrite replaces)."""
    for old in [out / "rounds", out / "server", *sorted(out.glob("replica-*"))]:
        if old.is_dir() and old.name != "rounds":
            remove_stopped_server(old)
        if old.exists():
            shutil.rmtree(old)


class ReplicaSet:
    """A run's replicas (OUT/replica-K), what the run has learnt of them, the rounds' writes (for the
    divergences' statements) and the thread that kills them on purpose."""

    def __init__(self, out, replicas: Replicas, primary_binary: str, mysqld, seed: int):
        self.copies = []
        for k, spec in enumerate(replicas.each, 1):
            binary = server_binary(spec.server) if spec.server else primary_binary
            options = list(mysqld or []) + spec.mysqld
            check_known_options(binary, options, "replica_mysqld")
            self.copies.append(_Replica(k, ManagedServer(
                out / f"replica-{k}", binary=binary, die_with_parent=True,
                mysqld=[f"server_id={k + 1}", f"relay_log=replica-{k}-relay", "relay_log_recovery=ON", *options])))
        self.killer = _ReplicaKiller(replicas.crash_every, random.Random(seed))
        self.writes: Deque[dict] = collections.deque(maxlen=_KEPT_WRITES)
        self.committing: Optional[set] = None  # the last round's sessions that may have been committing at its end

    def start(self, primary: ManagedServer) -> None:
        """The replicas started and following ``primary`` (before any data: they get it by replication)."""
        for replica in self.copies:
            replica.server.start()
        _connect(primary, self.copies)

    def follow(self, primary: ManagedServer) -> List[str]:
        """Each replica pointed at ``primary`` again (restarted after a kill: a port of its own), from its GTID
        position. The kill may have torn the primary's tables of engines that are not crash-safe, and the
        tables of a transaction it was committing in one phase may lack it (see binlog_tail): from now on
        they are left out of the comparisons. Returns the tables of crash-safe engines that left out."""
        tables = _tables(Connection(primary))
        in_doubt = [name for name in one_phase_in_flight(Connection(primary), tables, self.committing)
                    if tables.get(name) in _CRASH_SAFE]
        for replica in self.copies:
            replica.killed = True
            replica.xa_unsettled = True
            replica.left_out.update(in_doubt)
            if replica.stopped is None and replica.server.alive:
                _follow(replica, primary)
        return in_doubt

    def round(self, seconds: float) -> None:
        self.killer.round(self.copies, seconds)

    def end_round(self, folder) -> List[dict]:
        """The round's kills (a replica being restarted is waited for); its writes kept."""
        kills = self.killer.end_round()
        self.writes.extend(_logged(folder))
        self.committing = committing_sessions(folder)
        return kills

    def check(self, primary: ManagedServer, kills: List[dict]) -> tuple:
        """A checkpoint: each replica caught up and compared with ``primary`` (quiet); (findings, facts)."""
        facts = {"checkpoints": 1, "replicas": len(self.copies), "replica_kills": len(kills), "catch_up_seconds": 0.0,
                 "tables_compared": 0, "rows_compared": 0, "tables_skipped": 0, "diverged_tables": 0,
                 "servers": [{"name": r.name, "version": r.version, "binary": r.server.binary} for r in self.copies]}
        if kills:
            facts["kills"] = kills
        findings, caught_up = [], []
        p = Connection(primary)
        position = p.query("SELECT @@gtid_binlog_pos")[0][0] or ""
        tables = _tables(p)
        for replica in self.copies:
            if replica.stopped is None:
                r, found = _caught_up(replica, position, tables, facts)
                findings += found
                if r is not None:
                    caught_up.append((replica, r))
        if any(replica.xa_unsettled for replica, _ in caught_up):
            settled = _settled_xa(p, [r for _, r in caught_up])
            if settled:
                facts["xa_settled"] = settled
            for replica, _ in caught_up:
                replica.xa_unsettled = False
        for replica, r in caught_up:
            findings += _compared(replica, p, r, tables, list(self.writes), facts)
        return findings, facts

    def described(self) -> dict:
        """The replicas as findings name their targets."""
        return {r.name: {"name": r.name, "server": r.server.binary, "mysqld": r.server.mysqld} for r in self.copies}

    def stop(self) -> None:
        for replica in self.copies:
            replica.server.stop()
        self.killer.close()

    def __repr__(self) -> str:
        return f"ReplicaSet({', '.join(r.name for r in self.copies)})"


def _connect(primary: ManagedServer, copies: List[_Replica]) -> None:
    """The replication user on the primary (left out of its binary log), and each replica following the
    primary's GTIDs from the start."""
    c = Connection(primary)
    c.query("SET SESSION sql_log_bin = 0")
    # Also for localhost: a fresh datadir's anonymous ''@'localhost' would shadow '%' for 127.0.0.1.
    for host in ("%", "localhost", "127.0.0.1"):
        c.query(f"CREATE USER IF NOT EXISTS '{_USER}'@'{host}' IDENTIFIED BY '{_PASSWORD}'")
        c.query(f"GRANT REPLICATION SLAVE ON *.* TO '{_USER}'@'{host}'")
    for replica in copies:
        _follow(replica, primary)


def _follow(replica: _Replica, primary: ManagedServer) -> None:
    r = Connection(replica.server)
    replica.version = str(r.query("SELECT VERSION()")[0][0])
    r.query("STOP SLAVE")
    r.query(f"CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {primary.port}, MASTER_USER = '{_USER}', "
            f"MASTER_PASSWORD = '{_PASSWORD}', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1")
    r.query("START SLAVE")


class _ReplicaKiller:
    """Kills a replica (SIGKILL) at a random moment of each ``every`` seconds of a round and starts it
    again on its datadir; its replication resumes by itself (its connection to the primary is kept in
    its datadir). One thread for the whole run: a server is killed when the thread that started it ends
    (die_with_parent), so the restarted replicas live as long as the run does."""

    def __init__(self, every: float, chance: random.Random):
        self.every = every
        self.kills: List[dict] = []  # the current round's
        self._chance = chance
        self._rounds: "queue.Queue" = queue.Queue()
        self._done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True) if every > 0 else None
        if self._thread is not None:
            self._thread.start()

    def round(self, copies: List[_Replica], seconds: float) -> None:
        """Kills for a round of ``seconds`` starting now."""
        self.kills = []
        live = [r for r in copies if r.stopped is None]
        if self._thread is None or not live:
            return
        moments, t = [], 0.0
        while t + self.every <= seconds + 1e-9:
            moments.append((t + self.every * self._chance.uniform(0.2, 0.8), self._chance.choice(live)))
            t += self.every
        self._stop.clear()
        self._done.clear()
        self._rounds.put((time.monotonic(), moments))

    def end_round(self) -> List[dict]:
        """Ends the round's kills (a replica being restarted is waited for); returns them."""
        if self._thread is not None and self._rounds.unfinished_tasks:
            self._stop.set()
            self._done.wait()
        return self.kills

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._rounds.put(None)
            self._thread.join()

    def _serve(self) -> None:
        while True:
            item = self._rounds.get()
            if item is None:
                return
            t0, moments = item
            for at, replica in moments:
                if self._stop.wait(max(0.0, at - (time.monotonic() - t0))):
                    break
                self._kill(replica, at)
            self._rounds.task_done()
            self._done.set()

    def _kill(self, replica: _Replica, at: float) -> None:
        replica.server.kill(signal.SIGKILL)
        deadline = time.monotonic() + 30
        while replica.server.alive and time.monotonic() < deadline:
            time.sleep(0.02)
        replica.killed = True
        fact = {"replica": replica.name, "at": round(at, 3)}
        try:
            replica.server.start()
        except (_core.ServerError, _core.InvalidInput) as e:
            fact["restart_error"] = str(e)
        self.kills.append(fact)


def _logged(folder) -> List[dict]:
    """The round's statements that ran (ok) and may change data, from its statement logs, in the run's
    order."""
    lines = []
    for log in sorted(folder.glob("statements-*.jsonl")):
        with open(log) as f:
            for line in f:
                try:
                    s = json.loads(line)
                except ValueError:
                    continue  # a line torn at the round's end
                if s.get("outcome") == "ok" and not _READS.match(s.get("sql", "")):
                    lines.append({"seq": s.get("seq", 0), "sql": s.get("sql", "")})
    return sorted(lines, key=lambda s: s["seq"])


def _tables(c: Connection) -> Dict[str, str]:
    """The workload's base tables, as `db`.`table`, with their engines."""
    rows = c.query("SELECT TABLE_SCHEMA, TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_TYPE = "
                   f"'BASE TABLE' AND TABLE_SCHEMA NOT IN ({', '.join(repr(s) for s in _SYSTEM)})")
    return {f"`{db}`.`{t}`": engine or "" for db, t, engine in rows}


def _finding(kind: str, replica: _Replica, signature: str, detail: str) -> dict:
    return {"kind": kind, "oracle": "replication", "signature": signature, "detail": detail, "statement": "",
            "thread": 0, "at": 0, "targets": [replica.name]}


def _caught_up(replica: _Replica, position: str, tables: Dict[str, str], facts: dict) -> tuple:
    """The replica waited for until it reaches the primary's GTID ``position``, skipping the events it
    stops on by design: (a connection to it, []) then, else (None, the findings on why it did not)."""
    if not replica.server.alive:
        replica.stopped = "crashed"
        crash = replica.server.crash()
        return None, [{**_finding("crash", replica, crash.get("signature") or "crash: replica",
                                  _crash_detail(crash)), "oracle": "crash"}]
    r = Connection(replica.server)
    t0 = time.monotonic()
    # In short waits, so that replication threads that stop meanwhile are seen at once.
    while True:
        stopped = _stopped_threads(r)
        if stopped is not None and _skipped_interrupted_event(replica, r, stopped[2], tables):
            facts["interrupted_skipped"] = facts.get("interrupted_skipped", 0) + 1
            continue
        if stopped is not None and _skipped_torn_event(replica, r, stopped[2], tables):
            facts["events_skipped"] = facts.get("events_skipped", 0) + 1
            continue
        if stopped is not None:
            replica.stopped = "replication stopped"
            return None, [_finding("replication-error", replica, stopped[0], stopped[1])]
        if str(r.query(f"SELECT MASTER_GTID_WAIT('{position}', 0.5)")[0][0]) == "0":
            break
        if time.monotonic() - t0 > CATCH_UP_TIMEOUT:
            break
    facts["catch_up_seconds"] = round(max(facts["catch_up_seconds"], time.monotonic() - t0), 3)
    if time.monotonic() - t0 > CATCH_UP_TIMEOUT:
        replica.stopped = "did not catch up"
        return None, [_finding("replication-error", replica,
                               f"replication-error: the replica did not catch up within {CATCH_UP_TIMEOUT} s",
                               f"{replica.name} did not reach the primary's GTID position {position} within "
                               f"{CATCH_UP_TIMEOUT} s with its replication threads running")]
    return r, []


def _settled_xa(p: Connection, replicas: List[Connection]) -> int:
    """After a primary's kill, with the replicas caught up: an XA transaction prepared on some of the servers
    only (the kill came between XA PREPARE's write to InnoDB and to the binary log, MDEV-21469) is rolled
    back wherever it is held, unlogged; the workload's next XA statements on its xid would otherwise stop a
    replica. All servers at once: settled one replica at a time, an xid the primary shares with one replica
    but not another would be rolled back on the primary alone. The number rolled back: one that will not
    roll back stays, and a replica's stop on it is reported as before."""
    servers = [p, *replicas]
    held = [_prepared_xa(c) for c in servers]
    everywhere = set.intersection(*held)
    settled = 0
    for c, xids in zip(servers, held):
        if xids - everywhere:
            c.query("SET SESSION sql_log_bin = 0")
            settled += sum(c.execute(f"XA ROLLBACK {xid}").outcome["kind"] == "ok" for xid in sorted(xids - everywhere))
            c.query("SET SESSION sql_log_bin = 1")
    return settled


def _prepared_xa(c: Connection) -> set:
    """The server's prepared XA transactions, each as XA ROLLBACK names it (X'gtrid',X'bqual',formatID)."""
    return {str(row[3]) for row in c.query("XA RECOVER FORMAT='SQL'")}


# A row event the replica could not apply names its table: "... Delete_rows_v1 event on table test.t2; ...".
_EVENT_TABLE = re.compile(r"event on table ([^.;\s]+)\.([^;\s]+);")
_EVENT_QUERY = re.compile(r"Query: '(.*)'", re.S)  # a statement event's: "... on query. ... Query: 'INSERT ...'"
_MAX_SKIPPED = 10_000  # torn rows skipped on one replica before its stop counts as an error after all


def _event_tables(message: str, tables: Dict[str, str]) -> List[str]:
    """The tables a failed event names: a row event's table, or the tables of the primary whose names a
    statement event's query mentions."""
    m = _EVENT_TABLE.search(message)
    if m:
        return [f"`{m.group(1)}`.`{m.group(2)}`"]
    q = _EVENT_QUERY.search(message)
    return named_tables(q.group(1), tables) if q else []


def _torn(replica: _Replica, name: str, tables: Dict[str, str]) -> bool:
    """Whether the table may differ on the replica by design: one of an engine that is not crash-safe
    after a kill (an unknown table counts as crash-safe), or one an interrupted statement changed."""
    return name in replica.left_out or (replica.killed and tables.get(name, "InnoDB") not in _CRASH_SAFE)


def _skipped_torn_event(replica: _Replica, r: Connection, message: str, tables: Dict[str, str]) -> bool:
    """A torn table (see _torn) may find a row event's row missing or there already: an event on such
    tables only is skipped (they are no longer compared), True. Any other stop is an error, False."""
    named = _event_tables(message, tables)
    if replica.skipped >= _MAX_SKIPPED or not named or not all(_torn(replica, n, tables) for n in named):
        return False
    _skip_event(r)
    replica.skipped += 1
    return True


# A statement interrupted on the primary after it had changed a table of an engine that is not transactional
# is logged with the interruption's error; a replica stops on it by design (it cannot redo half a statement).
_PARTIAL = re.compile(r"Query partially completed on the master \(error on master: (\d+)\)")
_INTERRUPTIONS = ("ER_QUERY_INTERRUPTED", "ER_STATEMENT_TIMEOUT", "ER_CONNECTION_KILLED", "ER_SERVER_SHUTDOWN")


def _skipped_interrupted_event(replica: _Replica, r: Connection, message: str, tables: Dict[str, str]) -> bool:
    """The run interrupts statements on the primary (KILL QUERY at a round's end, --statement-timeout):
    one that had already changed MyISAM or Aria rows stops the replica's SQL thread by design. Its event
    is skipped and the tables it names (else every table of an engine that is not crash-safe) are no
    longer compared on this replica, True: what it did on the primary is unknown. Any other stop, False."""
    m = _PARTIAL.search(message)
    if not m or _core.error_name(int(m.group(1))) not in _INTERRUPTIONS:
        return False
    named = _event_tables(message, tables)
    replica.left_out.update(named or [name for name, engine in tables.items() if engine not in _CRASH_SAFE])
    _skip_event(r)
    return True


def _skip_event(r: Connection) -> None:
    r.query("SET GLOBAL sql_slave_skip_counter = 1")
    r.query("START SLAVE SQL_THREAD")


def _stopped_threads(r: Connection) -> Optional[tuple]:
    """(signature, detail, the thread's error message) when a replication thread of the replica stopped,
    else None."""
    rows = r.execute("SHOW SLAVE STATUS")
    status = dict(zip([name for name, _ in rows.columns], rows.rows[0])) if rows.rows else {}
    for thread, running in (("SQL", "Slave_SQL_Running"), ("IO", "Slave_IO_Running")):
        errno = int(status.get(f"Last_{thread}_Errno") or 0)
        # An I/O thread "Connecting" (to a primary restarting, say) retries; only a stopped one is an error.
        if str(status.get(running)) != "No":
            continue
        message = str(status.get(f"Last_{thread}_Error") or "")
        name = _core.error_name(errno) if errno else "no error"
        return (f"replication-error: the {thread} thread stopped: error {errno} {name}",
                f"Slave_{thread}_Running: {status.get(running)}; Last_{thread}_Errno: {errno}; "
                f"Last_{thread}_Error: {message}\nGtid_IO_Pos: {status.get('Gtid_IO_Pos', '')}",
                message if thread == "SQL" else "")
    return None


def _compared(replica: _Replica, p: Connection, r: Connection, tables: Dict[str, str],
              statements: List[dict], facts: dict) -> List[dict]:
    theirs = _tables(r)
    findings = []
    for name in sorted(set(tables) ^ set(theirs)):
        where = "the primary" if name in tables else replica.name
        if name in replica.reported:
            continue
        replica.reported.add(name)
        facts["diverged_tables"] += 1
        findings.append(_finding("replication-divergence", replica, f"replication-divergence: {name} only on "
                                 f"{'the primary' if where == 'the primary' else 'a replica'}",
                                 f"{name} exists only on {where}\n" + _touching(name, statements)))
    compared = []
    for name in sorted(set(tables) & set(theirs)):
        engine = tables[name]
        if engine.upper() == "MEMORY" or _torn(replica, name, tables):
            facts["tables_skipped"] += 1  # MEMORY: empty after any restart; others: a kill or an interruption may tear them
            continue
        compared.append(name)
    if not compared:
        return findings
    ours, mine = _checksums(p, compared), _checksums(r, compared)
    facts["tables_compared"] += len(compared)
    for name in compared:
        facts["rows_compared"] += _count(p, name)
        if ours.get(name) == mine.get(name):
            continue
        diff = _row_diff(p, r, name)
        if not diff:
            continue  # the same rows, checksummed apart (a column stored differently)
        facts["diverged_tables"] += 1
        if name in replica.reported:
            continue
        replica.reported.add(name)
        findings.append(_finding("replication-divergence", replica, f"replication-divergence: {name}",
                                 f"{name} ({tables[name]}) differs on {replica.name}: CHECKSUM TABLE "
                                 f"{ours.get(name)} on the primary, {mine.get(name)} on the replica\n{diff}\n"
                                 + _touching(name, statements)))
    return findings


def _checksums(c: Connection, names: List[str]) -> Dict[str, object]:
    out = {}
    for i in range(0, len(names), 50):
        for table, checksum in c.query(f"CHECKSUM TABLE {', '.join(names[i:i + 50])}"):
            db, _, t = str(table).partition(".")
            out[f"`{db}`.`{t}`"] = checksum
    return out


def _count(c: Connection, name: str) -> int:
    return int(c.query(f"SELECT COUNT(*) FROM {name}")[0][0])


def _row_diff(p: Connection, r: Connection, name: str) -> str:
    """The rows on one side only (as multisets), the first few of each; "" when they agree."""
    from collections import Counter
    sql = f"SELECT * FROM {name} LIMIT {_MAX_DIFF_ROWS + 1}"
    a, b = p.execute(sql), r.execute(sql)
    if a.outcome["kind"] != "ok" or b.outcome["kind"] != "ok":
        return f"rows not compared: {a.outcome.get('message') or b.outcome.get('message')}"
    if len(a.rows) > _MAX_DIFF_ROWS or len(b.rows) > _MAX_DIFF_ROWS:
        return f"rows not compared (more than {_MAX_DIFF_ROWS:,}): the checksums differ"
    ours, theirs = Counter(map(tuple, a.rows)), Counter(map(tuple, b.rows))
    only_p, only_r = list((ours - theirs).elements()), list((theirs - ours).elements())
    if not only_p and not only_r:
        return ""
    columns = ", ".join(name for name, _ in a.columns)

    def shown(rows):
        return "\n".join(f"  ({', '.join('NULL' if v is None else repr(v) for v in row)})"
                         for row in sorted(rows, key=_row_order)[:_SHOWN_ROWS]) + (
            f"\n  ... {len(rows) - _SHOWN_ROWS} more" if len(rows) > _SHOWN_ROWS else "")
    return (f"rows ({columns}): {len(a.rows)} on the primary, {len(b.rows)} on the replica\n"
            f"only on the primary ({len(only_p)}):\n{shown(only_p)}\nonly on the replica ({len(only_r)}):\n"
            f"{shown(only_r)}")


def _row_order(row: tuple) -> tuple:
    """Rows in the order of their values: numbers as numbers, NULL last."""
    return tuple((2, "") if v is None else (0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in row)


def _touching(name: str, statements: List[dict]) -> str:
    """The run's last statements (but reads) that named the table, as the statement logs have them."""
    table = name.rsplit(".", 1)[-1].strip("`")
    word = re.compile(r"(?<![\w$])`?" + re.escape(table) + r"`?(?![\w$])", re.I)
    touching = [s["sql"] for s in statements if word.search(s["sql"])]
    if not touching:
        return "no logged statement but reads named it"
    shown = touching[-_SHOWN_STATEMENTS:]
    return (f"the last {len(shown)} of {len(touching)} statements that named it (seq order):\n"
            + "\n".join(f"  {sql[:500]};" for sql in shown))


def _crash_detail(crash: dict) -> str:
    lines = [f"the replica crashed ({crash.get('signal') or 'no signal'})"]
    if crash.get("assertion"):
        lines.append(crash["assertion"])
    lines += [str(f) for f in (crash.get("frames") or [])[:12]]
    return "\n".join(lines)
