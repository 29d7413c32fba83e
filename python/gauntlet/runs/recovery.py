"""The recovery oracle (``oracles=[..., "recovery"]``, ``crash_every``): the run goes in rounds on one
server and one datadir; each round the executor kills the server under load at a random moment of its
second half (RunOptions.kill_at: SIGKILL, or the signal asked for), then the server is started again on
the same datadir and checked:

- it comes back (else a ``recovery`` finding with its error log's lines, and the run ends);
- its InnoDB tables check clean (``CHECK TABLE ... EXTENDED``; InnoDB's [ERROR] lines of the restart):
  a ``corruption`` finding names the table (MyISAM and MEMORY lose data on a kill by design, unchecked);
- its MyISAM and Aria tables the kill tore are repaired (a table no REPAIR mends: ``corruption``);
- every commit of Gauntlet's ledger that the server acknowledged before the kill is there, whole
  (Ledger): a ``lost-commit`` finding lists what is missing or torn.

The next round goes on from the recovered state. OUT/rounds/NNN hold the rounds, as a keep-going run's;
each round's summary has ``recovery`` (its kill, how long recovery took, the commits checked), the
run's summary the sums.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import random
import shutil
import signal
import threading
import time
from typing import Dict, List, Optional

from .. import _core
from ..formats import stamped
from ..results import RunResult
from ..server import Connection, ManagedServer, Target
from .execute import run_workload
from .folder import claim_out
from .plan import RunPlan
from .preparation import remove_stopped_server
from .replication import PRIMARY_OPTIONS, ReplicaSet, Replicas, check_primary, clear_servers
from .signals import Interrupts

LEDGER = "gauntlet_ledger"  # IntrospectSchema (data/loader.cc) leaves it out of the workload's schema
_ITEMS = 3  # rows a ledger transaction writes besides its commit row: all or none may survive a kill
_RECOVERY_TIMEOUT = 300  # seconds a restart may take (InnoDB's crash recovery)
_CHECKED_ENGINES = ("InnoDB",)  # crash-safe: a kill must leave them whole
_KILL_GRACE = 5.0  # seconds a round's duration lies beyond its kill


class Ledger:
    """Gauntlet's own commits beside the workload: ``sessions`` connections each write transactions
    numbered in order (every other one three item rows and its commit row, the others a lone autocommit
    row) and note those the server acknowledged, until the connection is lost (the kill). After
    recovery, ``check`` compares: every acknowledged commit must be there, and every commit there (the
    one in flight at the kill included) must be whole."""

    def __init__(self, sessions: int = 2):
        self.sessions = sessions
        self.acked: Dict[int, List[int]] = {s: [] for s in range(1, sessions + 1)}
        self.attempted: Dict[int, int] = {s: 0 for s in range(1, sessions + 1)}
        self.reported: set = set()  # (session, seq) of earlier findings: each loss is one kill's
        self._threads: List[threading.Thread] = []
        self._stop = threading.Event()

    @staticmethod
    def create(server: ManagedServer) -> None:
        c = Connection(server)
        for sql in (f"CREATE DATABASE IF NOT EXISTS {LEDGER}",
                    f"CREATE TABLE IF NOT EXISTS {LEDGER}.commits (session INT, seq INT, items INT, "
                    "PRIMARY KEY (session, seq)) ENGINE=InnoDB",
                    f"CREATE TABLE IF NOT EXISTS {LEDGER}.items (session INT, seq INT, item INT, "
                    "PRIMARY KEY (session, seq, item)) ENGINE=InnoDB"):
            c.query(sql)

    def start(self, server: ManagedServer) -> None:
        """Writes until the server is gone or ``stop``."""
        self._stop.clear()
        self._threads = [threading.Thread(target=self._write, args=(server, s), daemon=True)
                         for s in range(1, self.sessions + 1)]
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()

    def _write(self, server: ManagedServer, session: int) -> None:
        try:
            c = Connection(server)
        except _core.GauntletError:
            return
        while not self._stop.is_set():
            seq = self.attempted[session] + 1
            self.attempted[session] = seq
            if seq % 2:
                values = ", ".join(f"({session}, {seq}, {i})" for i in range(1, _ITEMS + 1))
                steps = ["START TRANSACTION", f"INSERT INTO {LEDGER}.items VALUES {values}",
                         f"INSERT INTO {LEDGER}.commits VALUES ({session}, {seq}, {_ITEMS})", "COMMIT"]
            else:
                steps = [f"INSERT INTO {LEDGER}.commits VALUES ({session}, {seq}, 0)"]
            for sql in steps:
                if c.execute(sql, fetch=False).outcome["kind"] != "ok":
                    return  # the kill: this one's fate is for the check to see
            self.acked[session].append(seq)

    def check(self, server: ManagedServer) -> dict:
        """What survived: {"checked": acknowledged commits checked, "lost": [...], "torn": [...],
        "unexpected": [...]} (each a "session:seq")."""
        c = Connection(server)
        commits = {(s, q): n for s, q, n in c.query(f"SELECT session, seq, items FROM {LEDGER}.commits")}
        items = {(s, q): n for s, q, n in c.query(f"SELECT session, seq, COUNT(*) FROM {LEDGER}.items "
                                                  "GROUP BY session, seq")}
        acked = {(s, q) for s, seqs in self.acked.items() for q in seqs}
        in_flight = {(s, q) for s, q in self.attempted.items() if q and (s, q) not in acked}
        # Torn: a commit row without all its items, or items without their commit row.
        torn = sorted(k for k in set(commits) | set(items) if k not in commits or items.get(k, 0) != commits[k])
        seen = {"checked": len(acked), "lost": sorted(acked - set(commits) - self.reported),
                "torn": sorted(set(torn) - self.reported),
                "unexpected": sorted(set(commits) - acked - in_flight - self.reported)}
        self.reported.update(seen["lost"], seen["torn"], seen["unexpected"])
        for s, q in in_flight & set(commits):  # committed, its answer lost with the kill: durable from now on
            self.acked[s].append(q)
        return {k: v if k == "checked" else [f"{s}:{q}" for s, q in v] for k, v in seen.items()}


@dataclasses.dataclass
class _Kill:
    at: float
    signal: int


def recovery_run(workload, label: str, plan: RunPlan, crash_every: float, kill_signal: str,
                 replicas: Optional[Replicas] = None) -> RunResult:
    """run() with the recovery oracle: rounds of ``crash_every`` seconds, each ended by a kill and
    checked after recovery, until the duration is over. With ``replicas``, the server is their primary
    (a binary log synced at every commit) and they must agree with what it recovered."""
    from .rounds import round_seed, run_rounds  # the keep-going run's seeds and sum of rounds
    settings, out = plan.settings, plan.out
    target = plan.targets[0]
    if len(plan.targets) > 1 or target.is_dsn or isinstance(target.server, ManagedServer):
        raise _core.InvalidInput("oracles: recovery kills and restarts its server: one target, a server Gauntlet "
                                 "starts ('default', a binary or a folder)")
    number = getattr(signal, kill_signal, None) if isinstance(kill_signal, str) else None
    if number not in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT):
        raise _core.InvalidInput(f"kill_signal: SIGKILL, SIGSEGV or SIGABRT, not {kill_signal!r}")
    if replicas is not None:
        check_primary(plan)
    copies = ReplicaSet(out, replicas, target.binary, plan.mysqld, settings["seed"]) if replicas else None
    lock = claim_out(out, plan.overwrite)
    if replicas is not None:
        clear_servers(out)
    if (out / "rounds").exists():  # an earlier run's, which overwrite replaces
        shutil.rmtree(out / "rounds")
    if (out / "server").exists():  # its datadir too: this run's server starts fresh
        remove_stopped_server(out / "server")
    # A primary's binary log and InnoDB agree after a kill only when both are synced at commit (the user's
    # options, after these, may say otherwise: then replicas ahead of the recovered primary are expected).
    primary = [*PRIMARY_OPTIONS, "sync_binlog=1", "innodb_flush_log_at_trx_commit=1"] if replicas else []
    server = ManagedServer(out / "server", binary=target.binary, tcp=replicas is not None, die_with_parent=True,
                           mysqld=primary + list(plan.mysqld or []) + target.mysqld())
    ledger = Ledger()
    chance = random.Random(settings["seed"])
    try:
        from ..version import __version__
        record = {**plan.record, "keep_going": True, "gauntlet_version": __version__}
        (out / "run.json").write_text(json.dumps(stamped("run", record), indent=2, default=str) + "\n")

        def start_round(n, folder, left, tick):
            seconds = min(crash_every, left)
            kill = _Kill(seconds * chance.uniform(0.5, 0.9), number)
            # Each round its own statements (a keep-going run's seeds), on the data the last one left.
            seed = round_seed(settings["seed"], record, n)
            mine = dataclasses.replace(
                plan, spec=plan.spec if n == 1 else None, targets=[Target(target.name, server, engine=target.engine)],
                # The kill ends the round: its duration only stands behind it (a late watch tick must not
                # see the duration pass before the kill's moment).
                settings={**settings, "seed": seed, "duration": seconds + _KILL_GRACE, "kill_at": kill.at,
                          "kill_signal": kill.signal},
                statement_log=plan.statement_log or copies is not None,  # replicas: divergences name statements
                out=folder, progress=_starting_ledger(tick, server, ledger), keep_server=False, overwrite=False,
                record={**record, "seed": seed, "duration": seconds, "keep_going": False, "round": n,
                        "round_of": str(out)})
            if copies is not None:
                copies.round(seconds)
            try:
                result = run_workload(workload, {"grammar": label, "round": n}, mine)
            finally:
                kills = copies.end_round(folder) if copies is not None else []
            ledger.stop()
            stop = result.summary().get("stop_reason")
            if stop not in ("killed", "crash"):
                return result
            # A crash of the workload's own (a finding of the round) is recovered from and checked too.
            return _recovered(result, server, ledger, kill if stop == "killed" else None, plan, copies, kills)

        info = {"grammar": label, "settings": record, "seed": settings["seed"], "threads": settings["threads"]}
        server.start()  # here, not by the first round's run, which would stop it at its end
        if copies is not None:
            copies.start(server)  # before the ledger's tables: the replicas get them by replication
        Ledger.create(server)
        with Interrupts() as interrupts:
            return run_rounds(start_round, info, out, settings["duration"], plan.progress, interrupts)
    finally:
        ledger.stop()
        if copies is not None:
            copies.stop()
        server.stop()
        lock.close()


def _starting_ledger(tick, server: ManagedServer, ledger: Ledger):
    """The round's progress callback, which also starts the ledger with the workload's statements (not
    while the data loads: its commits would slow that down)."""
    started = []

    def call(second):
        if not started:
            started.append(True)
            ledger.start(server)
        return tick(second) if tick else False
    return call


def _recovered(result: RunResult, server: ManagedServer, ledger: Ledger, kill: Optional[_Kill], plan: RunPlan,
               copies: Optional[ReplicaSet], kills: List[dict]) -> RunResult:
    """After a round's kill (``kill``) or the workload's crash (None): the server restarted on its datadir
    and checked, then its replicas (``copies``, which were killed ``kills`` in the round) caught up and
    compared; the findings and the round's ``recovery`` (and ``replication``) record added to its summary."""
    from .rounds import amended_result
    deadline = time.monotonic() + 60
    while server.alive and time.monotonic() < deadline:  # a SIGSEGV's report takes a moment
        time.sleep(0.05)
    if server.alive:
        server.kill(signal.SIGKILL)
    log_from = _log_size(server)
    t0 = time.monotonic()
    if kill is not None:
        facts = {"kills": 1, "signal": signal.Signals(kill.signal).name, "killed_at": round(kill.at, 3)}
    else:
        facts = {"kills": 0, "crashes": 1, "signal": _crash_signal(server)}
    findings = []
    try:
        server.start()
    except (_core.ServerError, _core.InvalidInput) as e:
        findings.append(_finding("recovery", f"recovery: the server did not start after {facts['signal']}",
                                 f"the restart on the killed server's datadir failed: {e}"))
    else:
        facts.update({"recoveries": 1, "recovery_seconds": round(time.monotonic() - t0, 3)})
        _await_rollback(server, log_from)
        findings += _checked_ledger(server, ledger, facts)  # first: a CHECK TABLE that fails marks it corrupted
        findings += _checked_tables(server, facts)
        findings += _restart_log(server, log_from)
        findings += _table_files(server, facts)
        findings += repair_torn_tables(server, facts)
    for f in findings:
        f["targets"] = [plan.targets[0].name]
    extra = {"recovery": facts}
    if "recoveries" not in facts:
        extra["stop_reason"] = "recovery"
    elif copies is not None:  # the replicas must agree with what the primary recovered
        in_doubt = copies.follow(server)
        more, extra["replication"] = copies.check(server, kills)
        if in_doubt:
            extra["replication"]["one_phase_tables"] = in_doubt
        findings += more
    return amended_result(result, findings, extra, plan, copies.described() if copies is not None else {})


def _crash_signal(server: ManagedServer) -> str:
    """The signal of the server's own crash (its process's end), or "crash" when it ended otherwise."""
    try:
        return signal.Signals(server.exit_signal).name
    except ValueError:
        return "crash"


def _log_size(server: ManagedServer) -> int:
    try:
        with open(server.error_log, "rb") as f:
            return f.seek(0, 2)
    except OSError:
        return 0


def _finding(kind: str, signature: str, detail: str) -> dict:
    return {"kind": kind, "oracle": "recovery", "signature": signature, "detail": detail, "statement": "",
            "thread": 0, "at": 0}


def _checked_tables(server: ManagedServer, facts: dict) -> list:
    c = Connection(server)
    tables = c.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
                     f"AND ENGINE IN ({', '.join(repr(e) for e in _CHECKED_ENGINES)}) AND TABLE_SCHEMA NOT IN "
                     "('mysql', 'information_schema', 'performance_schema', 'sys')")
    findings = []
    for db, table in tables:
        name = f"`{db}`.`{table}`"
        why = _failure(c.execute(f"CHECK TABLE {name} EXTENDED"))
        if why:
            findings.append(_finding("corruption", f"corruption: CHECK TABLE after a kill: {why[:120]}",
                                     f"CHECK TABLE {name} EXTENDED after recovery: {why}"))
    facts["tables_checked"] = len(tables)
    return findings


def _failure(r) -> str:
    """What a CHECK or REPAIR TABLE result says is wrong (its error rows and a status other than OK,
    or the statement's own error), or "" when the table is fine. A table found corrupt has error rows
    ("Corrupt") and no status row."""
    bad = [row for row in r.rows if str(row[2]).lower() == "error" or
           (str(row[2]).lower() == "status" and str(row[3]).upper() != "OK")]
    if r.outcome["kind"] != "ok" or bad:
        return "; ".join(str(row[3]) for row in bad) or r.outcome.get("message", "") or "failed"
    return ""


def repair_torn_tables(server: ManagedServer, facts: dict) -> list:
    """Tables of engines that are not crash-safe (MyISAM, Aria) that the kill left torn are repaired
    before the next round (a kill may tear them by design: the workload's next statement on one would
    be a corruption error, and no finding), counted in ``tables_repaired``; the repair is left out of
    the binary log. The workload's own statement repairs a torn table on open (myisam_recover_options),
    but not one whose repair a kill cut short, nor an Aria table killed in TRUNCATE (its index file
    empty): each fails every statement until REPAIR TABLE, the latter until REPAIR ... USE_FRM. A table
    that still does not check clean after REPAIR, EXTENDED and USE_FRM is a ``corruption`` finding."""
    c = Connection(server)
    tables = c.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
                     "AND ENGINE IN ('MyISAM', 'Aria') AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', "
                     "'performance_schema', 'sys')")
    repaired, findings = 0, []
    for db, table in tables:
        name = f"`{db}`.`{table}`"
        why = _failure(c.execute(f"CHECK TABLE {name}"))
        if not why:
            continue
        repaired += 1
        for how in ("", " EXTENDED", " USE_FRM"):
            c.execute(f"REPAIR NO_WRITE_TO_BINLOG TABLE {name}{how}")  # judged by the CHECK after it
            why = _failure(c.execute(f"CHECK TABLE {name}"))
            if not why:
                break
        else:
            findings.append(_finding("corruption", f"corruption: REPAIR TABLE failed after a kill: {why[:120]}",
                                     f"{name} after recovery and REPAIR TABLE (EXTENDED, USE_FRM): CHECK TABLE says {why}"))
    facts["tables_repaired"] = repaired
    return findings


def _log_since(server: ManagedServer, offset: int) -> List[str]:
    try:
        with open(server.error_log, "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace").splitlines()
    except OSError:
        return []


def _await_rollback(server: ManagedServer, offset: int, seconds: float = 60) -> None:
    """Until InnoDB has rolled back the transactions the kill left open, which it does in the background
    once the server accepts connections: CHECK TABLE EXTENDED beside that rollback once reported
    duplicate keys in the ledger's PRIMARY and marked it corrupted (not reproduced since), and what
    the oracle checks is the recovered state, not the way there."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        log = "\n".join(_log_since(server, offset))
        if "rollback of recovered transactions" not in log or "Rollback of non-prepared transactions completed" in log:
            return
        time.sleep(0.05)


def _restart_log(server: ManagedServer, offset: int) -> list:
    """InnoDB's [ERROR] lines of the restart (its crash recovery): a clean recovery logs none."""
    bad = [line for line in _log_since(server, offset) if "[ERROR]" in line and "InnoDB" in line]
    if not bad:
        return []
    return [_finding("corruption", "corruption: InnoDB [ERROR] in crash recovery", "\n".join(bad[:40]))]


def _file_name(name: str) -> str:
    """A table's name as the server names its files (@XXXX for what is not a letter, digit or _)."""
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"@{ord(ch):04x}" for ch in name)


def _table_files(server: ManagedServer, facts: dict) -> list:
    """MariaDB's DDL is atomic: after a kill mid-DDL, recovery leaves each table (and view) as before or
    as after, never a file without its table (a #sql-... one, a half-renamed one) or a table without
    its .frm. The datadir's folders and information_schema must agree."""
    c = Connection(server)
    known = {}
    for db, table in c.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA "
                             "NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')"):
        known.setdefault(_file_name(db), set()).add(_file_name(table))
    # InnoDB's own tables by file name: those of information_schema, their partitions (t#P#p0) and the
    # full-text indexes' auxiliary tables (FTS_...).
    innodb = {name for (name,) in c.query("SELECT NAME FROM information_schema.INNODB_SYS_TABLES")}
    problems = []
    datadir = pathlib.Path(server.datadir)
    for folder in sorted(p for p in datadir.iterdir() if p.is_dir() and p.name not in
                         ("mysql", "performance_schema", "sys", "#innodb_temp", "#innodb_redo")):
        tables = known.get(folder.name, set())
        frm = set()
        for f in folder.iterdir():
            if f.name.startswith("#sql"):
                problems.append(f"{folder.name}/{f.name}: a temporary table file left by DDL")
            elif f.suffix == ".frm":
                frm.add(f.stem)
            elif f.suffix == ".ibd" and f"{folder.name}/{f.stem}" not in innodb:
                problems.append(f"{folder.name}/{f.name}: a file of no InnoDB table")
        problems += [f"{folder.name}/{n}.frm: no such table in information_schema" for n in sorted(frm - tables)]
        problems += [f"{folder.name}.{n}: a table without its .frm" for n in sorted(tables - frm)]
    facts["table_files_checked"] = sum(len(t) for t in known.values())
    if not problems:
        return []
    return [_finding("recovery", f"recovery: table files and information_schema disagree after {facts['signal']}",
                     "\n".join(problems[:60]))]


def _checked_ledger(server: ManagedServer, ledger: Ledger, facts: dict) -> list:
    try:
        seen = ledger.check(server)
    except _core.GauntletError as e:  # the recovered server cannot read its own tables: a finding, not our end
        return [_finding("corruption", f"corruption: the ledger unreadable after {facts['signal']}",
                         f"reading {LEDGER}'s tables after recovery: {e}")]
    facts["commits_checked"] = seen["checked"]
    if not (seen["lost"] or seen["torn"] or seen["unexpected"]):
        return []
    what = [f"{len(seen[k])} {k}" for k in ("lost", "torn", "unexpected") if seen[k]]
    detail = "\n".join(f"{k}: {', '.join(seen[k][:50])}" + (" ..." if len(seen[k]) > 50 else "")
                       for k in ("lost", "torn", "unexpected") if seen[k])
    return [_finding("lost-commit", f"lost-commit: acknowledged commits not all there, whole, after {facts['signal']}",
                     f"{', '.join(what)} of {seen['checked']} acknowledged ledger commits (session:seq)\n{detail}")]
