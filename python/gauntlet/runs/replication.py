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
(MyISAM, Aria, MEMORY, ...) are left out of a killed replica's comparisons from then on, and said so.

OUT/server is the primary, OUT/replica-K the replicas, OUT/rounds/NNN the rounds (as a keep-going
run's); each round's summary has ``replication`` (what its checkpoint checked), the run's the sums.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import random
import re
import shutil
import signal
import threading
import time
from typing import Dict, List, Optional

from .. import _core
from ..formats import stamped
from ..results import RunResult
from ..server import Connection, ManagedServer, Target, option_list, server_binary
from ..server.managed import check_known_options
from .execute import run_workload
from .folder import claim_out, write_atomically
from .plan import RunPlan
from .preparation import remove_stopped_server
from .signals import Interrupts

CATCH_UP_TIMEOUT = 120  # seconds a replica may take to apply what the primary logged by a checkpoint
_USER, _PASSWORD = "gauntlet_repl", "gauntlet_repl"
_SYSTEM = ("mysql", "information_schema", "performance_schema", "sys")
_CRASH_SAFE = ("InnoDB",)  # engines whose tables a killed replica still keeps in step
_MAX_DIFF_ROWS = 200_000  # rows per side a mismatching table is compared by
_SHOWN_ROWS = 10
_SHOWN_STATEMENTS = 20
_READS = re.compile(r"\s*\(?\s*(SELECT|SHOW|EXPLAIN|DESCRIBE|DESC|HELP)\b", re.I)  # statements that change nothing


@dataclasses.dataclass
class Replicas:
    """What ``run(replicas=N, ...)`` asked for: N replicas of ``server`` (default: the primary's build)
    with ``mysqld`` options, checked every ``checkpoint_every`` seconds, each killed and restarted about
    every ``crash_every`` seconds (0: never)."""
    count: int
    server: Optional[str] = None
    mysqld: List[str] = dataclasses.field(default_factory=list)
    checkpoint_every: float = 10.0
    crash_every: float = 0.0


class _Replica:
    """One replica: its server, name, and what the run has learnt of it."""

    def __init__(self, number: int, server: ManagedServer):
        self.name = f"replica-{number}"
        self.server = server
        self.killed = False  # since then its tables of engines that are not crash-safe are left out
        self.stopped: Optional[str] = None  # why it is no longer compared (its threads stopped, it crashed)
        self.reported: set = set()  # tables already found diverging on it
        self.version = ""

    def __repr__(self) -> str:
        return f"_Replica({self.name}, {self.server!r})"


def replication_run(workload, label: str, plan: RunPlan, replicas: Replicas) -> RunResult:
    """run() with replicas: the primary and replicas started and connected, rounds of
    ``checkpoint_every`` seconds on the primary, a checkpoint after each."""
    from .rounds import run_rounds
    settings, out = plan.settings, plan.out
    target = plan.targets[0]
    if len(plan.targets) > 1 or target.is_dsn or isinstance(target.server, ManagedServer):
        raise _core.InvalidInput("replicas: Gauntlet starts the primary with a binary log and the replicas beside it: "
                                 "one target, a server Gauntlet starts ('default', a binary or a folder)")
    if plan.data_template:
        raise _core.InvalidInput("data_template: a replica gets its data through replication, not from a copy; "
                                 "leave it off with replicas")
    replica_binary = server_binary(replicas.server) if replicas.server else target.binary
    replica_options = list(plan.mysqld or []) + replicas.mysqld
    check_known_options(replica_binary, replica_options, "replica_mysqld")
    lock = claim_out(out, plan.overwrite)
    for old in [out / "rounds", out / "server", *sorted(out.glob("replica-*"))]:
        if old.is_dir() and old.name != "rounds":
            remove_stopped_server(old)
        if old.exists():
            shutil.rmtree(old)
    # The primary: ours first, so that the user's options (binlog_format, ...) win.
    primary = ManagedServer(out / "server", binary=target.binary, tcp=True, die_with_parent=True,
                            mysqld=["server_id=1", "log_bin=primary-bin", "binlog_format=MIXED",
                                    *(plan.mysqld or []), *target.mysqld()])
    copies = [_Replica(k, ManagedServer(out / f"replica-{k}", binary=replica_binary, die_with_parent=True,
                                        mysqld=[f"server_id={k + 1}", f"relay_log=replica-{k}-relay",
                                                "relay_log_recovery=ON", *replica_options]))
              for k in range(1, replicas.count + 1)]
    killer = _ReplicaKiller(replicas.crash_every, random.Random(settings["seed"]))
    statements: List[dict] = []  # the rounds' logged statements, for divergences
    try:
        from ..version import __version__
        record = {**plan.record, "keep_going": True, "gauntlet_version": __version__}
        (out / "run.json").write_text(json.dumps(stamped("run", record), indent=2, default=str) + "\n")
        primary.start()  # here, not by the first round's run, which would stop it at its end
        for replica in copies:
            replica.server.start()
        _connect(primary, copies)

        def start_round(n, folder, left, tick):
            seconds = min(replicas.checkpoint_every, left)
            mine = dataclasses.replace(
                plan, spec=plan.spec if n == 1 else None, targets=[Target(target.name, primary, engine=target.engine)],
                settings={**settings, "duration": seconds}, statement_log=True, out=folder, progress=tick,
                keep_server=False, overwrite=False,
                record={**record, "duration": seconds, "keep_going": False, "round": n, "round_of": str(out)})
            killer.round(copies, seconds)
            try:
                result = run_workload(workload, {"grammar": label, "round": n}, mine)
            finally:
                kills = killer.end_round()
            statements.extend(_logged(folder))
            if result.summary().get("stop_reason") != "duration":
                return result  # the primary crashed or hung, or the run was stopped: no checkpoint
            return _checkpoint(result, primary, copies, kills, statements, plan)

        info = {"grammar": label, "settings": record, "seed": settings["seed"], "threads": settings["threads"]}
        with Interrupts() as interrupts:
            return run_rounds(start_round, info, out, settings["duration"], plan.progress, interrupts,
                              go_on=("duration",))
    finally:
        for replica in copies:
            replica.server.stop()
        killer.close()
        primary.stop()
        lock.close()


def replica_options(mysqld) -> list:
    """``replica_mysqld`` as option strings (see option_list)."""
    return option_list(mysqld, "replica_mysqld")


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


def _checkpoint(result: RunResult, primary: ManagedServer, copies: List[_Replica], kills: List[dict],
                statements: List[dict], plan: RunPlan) -> RunResult:
    """Each replica caught up and compared with the primary; the findings and the round's
    ``replication`` record added to its summary."""
    facts = {"checkpoints": 1, "replicas": len(copies), "replica_kills": len(kills), "catch_up_seconds": 0.0,
             "tables_compared": 0, "rows_compared": 0, "tables_skipped": 0, "diverged_tables": 0}
    if kills:
        facts["kills"] = kills
    facts["servers"] = [{"name": r.name, "version": r.version, "binary": r.server.binary} for r in copies]
    findings = []
    p = Connection(primary)
    position = p.query("SELECT @@gtid_binlog_pos")[0][0] or ""
    tables = _tables(p)
    for replica in copies:
        if replica.stopped is not None:
            continue
        findings += _checked_replica(replica, p, position, tables, statements, facts)
    summary = dict(result.summary())
    if findings:
        described = {t.name: t.to_dict() for t in plan.targets}
        described.update({r.name: {"name": r.name, "server": r.server.binary, "mysqld": r.server.mysqld}
                          for r in copies})
        recorded = _core.record_findings(str(result.out), findings, plan.known, described)
        summary["findings"] = list(summary.get("findings", [])) + recorded
        summary["finding_counts"] = _core.finding_counts(summary["findings"])
    summary["replication"] = facts
    write_atomically(result.out / "summary.json", json.dumps(stamped("summary", summary), indent=1) + "\n")
    return RunResult(result.out, summary, result.timeline())


def _tables(c: Connection) -> Dict[str, str]:
    """The workload's base tables, as `db`.`table`, with their engines."""
    rows = c.query("SELECT TABLE_SCHEMA, TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_TYPE = "
                   f"'BASE TABLE' AND TABLE_SCHEMA NOT IN ({', '.join(repr(s) for s in _SYSTEM)})")
    return {f"`{db}`.`{t}`": engine or "" for db, t, engine in rows}


def _finding(kind: str, replica: _Replica, signature: str, detail: str) -> dict:
    return {"kind": kind, "oracle": "replication", "signature": signature, "detail": detail, "statement": "",
            "thread": 0, "at": 0, "targets": [replica.name]}


def _checked_replica(replica: _Replica, p: Connection, position: str, tables: Dict[str, str],
                     statements: List[dict], facts: dict) -> List[dict]:
    if not replica.server.alive:
        replica.stopped = "crashed"
        crash = replica.server.crash()
        return [{**_finding("crash", replica, crash.get("signature") or "crash: replica", _crash_detail(crash)),
                 "oracle": "crash"}]
    r = Connection(replica.server)
    t0 = time.monotonic()
    # In short waits, so that replication threads that stop meanwhile are seen at once.
    while True:
        stopped = _stopped_threads(r)
        if stopped is not None:
            replica.stopped = "replication stopped"
            return [_finding("replication-error", replica, stopped[0], stopped[1])]
        if str(r.query(f"SELECT MASTER_GTID_WAIT('{position}', 0.5)")[0][0]) == "0":
            break
        if time.monotonic() - t0 > CATCH_UP_TIMEOUT:
            break
    facts["catch_up_seconds"] = round(max(facts["catch_up_seconds"], time.monotonic() - t0), 3)
    if time.monotonic() - t0 > CATCH_UP_TIMEOUT:
        replica.stopped = "did not catch up"
        return [_finding("replication-error", replica,
                         f"replication-error: the replica did not catch up within {CATCH_UP_TIMEOUT} s",
                         f"{replica.name} did not reach the primary's GTID position {position} within "
                         f"{CATCH_UP_TIMEOUT} s with its replication threads running")]
    return _compared(replica, p, r, tables, statements, facts)


def _stopped_threads(r: Connection) -> Optional[tuple]:
    """(signature, detail) when a replication thread of the replica stopped, else None."""
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
                f"Last_{thread}_Error: {message}\nGtid_IO_Pos: {status.get('Gtid_IO_Pos', '')}")
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
        if engine.upper() == "MEMORY" or (replica.killed and engine not in _CRASH_SAFE):
            facts["tables_skipped"] += 1  # MEMORY: empty after any restart; others: a kill may tear them
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
