"""The lab a reduction's attempts run in: one fresh server per target, reset between attempts,
each attempt a replay of a candidate case through the executor; what counts as the finding
coming back; and what a test case must know about the case (error codes, mariadb-test-run's
differing defaults)."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import shutil
import subprocess
import time
from typing import List, Optional, Sequence

from .. import _core
from ..formats import version
from ..server import ManagedServer, ServerError
from .testcase import Case, Step, same_crash, sql_text

_SYSTEM_DATABASES = {"mysql", "information_schema", "performance_schema", "sys"}
# Statements after which a server is restarted rather than reset by dropping databases.
_GLOBAL_STATE = re.compile(r"@@GLOBAL|\bGLOBAL\b|\b(CREATE|DROP|ALTER|RENAME)\s+(USER|ROLE|SERVER)\b|\bGRANT\b|"
                           r"\bREVOKE\b|\bINSTALL\b|\bUNINSTALL\b|\bSET\s+PASSWORD\b|\bFLUSH\b", re.I)
# Server variables that mariadb-test-run's default_mysqld.cnf sets differently from a plain server:
# a reproducer states the value the reduction ran with.
_MTR_OVERRIDES = ("default_storage_engine", "character_set_server", "collation_server", "use_stat_tables",
                  "histogram_type", "max_heap_table_size", "sort_buffer_size", "key_buffer_size",
                  "aria_pagecache_buffer_size", "innodb_buffer_pool_size")


def mtr_overrides(conn) -> List[str]:
    """The server's values of the variables mariadb-test-run sets otherwise, as ``.opt`` options
    (``NAME=VALUE``), so that a test case runs on the server the finding ran on."""
    _, _, rows = conn.execute("SELECT " + ", ".join(f"@@global.{v}" for v in _MTR_OVERRIDES))
    return [f"{v}={value}" for v, value in zip(_MTR_OVERRIDES, rows[0])]


def matches(wanted: dict, found: dict, target: Optional[Step], any_crash: bool) -> bool:
    if wanted["kind"] in ("crash", "shutdown"):
        return found["kind"] == "crash" and (any_crash or same_crash(found["signature"], wanted["signature"]))
    if wanted["kind"] == "hang":  # no statement finished for the reduction's hang timeout
        return found["kind"] == "hang"
    if found["kind"] != wanted["kind"] or found.get("oracle") != wanted.get("oracle"):
        return False
    if wanted["kind"] in ("corruption", "error-log"):
        return found["signature"] == wanted["signature"]
    # A value cut short is a bug of its own: a wrong value must not shrink into one.
    if _tags(found["signature"]).count("[truncated]") != _tags(wanted["signature"]).count("[truncated]"):
        return False
    # Only the finding's own statement is checked by the oracles.
    return target is None or found.get("statement") == sql_text(target.sql)


def _tags(signature: str) -> str:
    """The oracle's tags before the query's skeleton ("transform:view [truncated]: SELECT ...")."""
    return signature.split(": ", 1)[0]


class Lab:
    """The servers attempts run on (one per target), reset between attempts by dropping every
    database, or restarted when an attempt crashed them, changed global state or needs other options."""

    def __init__(self, work: pathlib.Path, targets: list, run: dict, finding: dict, oracles: list):
        self.work, self.targets, self.run, self.finding, self.oracles = work, targets, run, finding, oracles
        self.servers: dict = {}
        self.matched = finding  # the finding as the last attempt that found it saw it
        # A hang is no statement finishing for this long: the run's timeout, at most 10 s, since
        # every attempt that finds it lasts that long.
        self.hang_timeout = min(run.get("hang_timeout", 60) or 60, 10)
        self.dirty = True
        self.attempts = 0
        self.binary = {t.name: t.binary for t in targets}

    def close(self) -> None:
        for server, _ in self.servers.values():
            try:
                server.stop(timeout=30)
            except Exception:  # noqa: BLE001 - already dead
                pass
        self.servers.clear()

    def _fresh(self, name: str, options: list) -> Optional[ManagedServer]:
        old = self.servers.pop(name, None)
        if old is not None:
            try:
                old[0].stop(timeout=30)
            except Exception:  # noqa: BLE001
                old[0].kill()
        folder = self.work / f"server-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        server = ManagedServer(folder, binary=self.binary[name], mysqld=options, core_file=False,
                               die_with_parent=True)
        try:
            server.start()
        except (ServerError, _core.InvalidInput):
            return None  # these options do not start it
        self.servers[name] = (server, list(options))
        return server

    def ready(self, case: Case) -> Optional[list]:
        """Servers with the case's options and no databases of their own; None when one will not start."""
        out = []
        for t in self.targets:
            options = case.options.get(t.name, [])
            have = self.servers.get(t.name)
            server = have[0] if have else None
            if self.dirty or server is None or have[1] != options or not server.alive:
                server = self._fresh(t.name, options)
                if server is None:
                    return None
            out.append(server)
        self.dirty = False
        for server in out:
            conn = _core.Connection.open(server.connection)
            _, _, rows = conn.execute("SHOW DATABASES")
            for (db,) in rows:
                if db.lower() not in _SYSTEM_DATABASES:
                    conn.execute(f"DROP DATABASE `{db}`")
        return out

    def load(self, case: Case, execute=None) -> Optional[list]:
        """Ready servers holding the case's data; None when one will not start or the data alone
        crashed it (another finding). ``execute(conn, sql)`` runs each data statement."""
        servers = self.ready(case)
        if servers is None:
            return None
        for server in servers:
            conn = _core.Connection.open(server.connection)
            conn.execute("SET autocommit = 0", False)  # one commit, not one per row
            for sql in case.setup:
                if execute:
                    execute(conn, sql)
                else:
                    conn.execute(sql, False)
            conn.execute("COMMIT", False)
            # Sessions connect to it, whatever of the data is left.
            conn.execute(f"CREATE DATABASE IF NOT EXISTS `{self.run_database}`", False)
            if not server.alive:
                self.dirty = True
                return None
        return servers

    def execute(self, case: Case, statement_log: bool = False):
        """Runs the case once through the executor; its summary and output folder, or None when a
        server will not start or the data alone crashed it."""
        servers = self.load(case)
        if servers is None:
            return None
        steps = compressed(case.history + ([case.target] if case.target else []))
        statements = [{"seq": s.seq, "thread": s.thread, "sql": s.sql, "start": s.start, "end": s.end,
                       "check": case.check_all or case.target is None or s.seq == case.target.seq} for s in steps]
        self.dirty = any(_GLOBAL_STATE.search(sql_text(s.sql)) for s in steps)
        if not statements:
            return None
        script = _core.Script.from_statements(statements, case.sessions)
        script.ordered = case.sessions != 1
        options = _core.RunOptions()
        settings = {"threads": script.sessions, "duration": 0, "queries": 0, "seed": self.run.get("seed", 1),
                    "statement_timeout": self.run.get("statement_timeout", 0) or 0,
                    "hang_timeout": self.hang_timeout, "generate_timeout": 0,
                    "max_depth": self.run.get("max_depth", 64)}
        for key, value in settings.items():
            setattr(options, key, value)
        out = self.work / "attempt"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        options.out_dir, options.statement_log = str(out), statement_log
        targets = []
        for t, server in zip(self.targets, servers):
            params = server.connection
            params.database = self.run_database
            targets.append({"name": t.name, "connection": params, "server": server._s,
                            "setup": list(case.session_setup), "description": t.to_dict()})
        summary, _ = _core.execute_run(script, _core.Schema([], []), targets, options, self.oracles, {}, None)
        if any(not s.alive for s in servers):
            self.dirty = True
        return summary, out

    def attempt(self, case: Case, wanted: dict, any_crash: bool) -> bool:
        """Runs the case once; True when the finding came back."""
        self.attempts += 1
        t0 = time.monotonic()
        ran = self.execute(case)
        found = ran[0].get("findings", []) if ran else []
        hits = [f for f in found if matches(wanted, f, case.target, any_crash)]
        if hits:  # what the oracle saw this time: a shrunk statement has its own follow-ups
            self.matched = hits[0]
        with open(self.work.parent / "attempts.jsonl", "a") as log:
            log.write(json.dumps({"format": version("attempt"), "attempt": self.attempts, "statements": case.size, "setup": len(case.setup),
                                  "sessions": case.sessions, "options": case.options,
                                  "seconds": round(time.monotonic() - t0, 3), "found": bool(hits),
                                  "findings": [f"{f['kind']}: {f['signature'][:200]}" for f in found]}) + "\n")
        return bool(hits)

    run_database = "test"

    def observe(self, case: Case) -> dict:
        """What a test case must say about the case, on the first target: each statement's error
        codes (the data's and each session's first statements run one by one, the history through
        the executor as attempts run it, its statement log read back), the client's character set,
        and the values of the variables mariadb-test-run sets differently."""
        self.dirty = True
        codes: dict = {}

        def note(c, sql):
            outcome, _, _ = c.execute(sql, False)
            if outcome.get("error_code", 0):
                codes.setdefault(sql_text(sql), set()).add(outcome["error_code"])
        servers = self.load(case, note)
        if servers is None:
            return {}
        params = servers[0].connection
        params.database = self.run_database
        conn = _core.Connection.open(params)
        _, _, rows = conn.execute("SELECT @@character_set_client, @@collation_connection, VERSION()")
        charset, version = list(rows[0][:2]), rows[0][2]
        overrides = mtr_overrides(conn)
        for sql in case.session_setup:
            note(conn, sql)
        del conn
        self.dirty = True
        ran = self.execute(case, statement_log=True)
        for log in ran[1].glob("statements-*.jsonl") if ran else []:
            for j in _core.read_statement_log(str(log)):
                if j["error"] and j["outcome"] != "cancelled":
                    codes.setdefault(sql_text(j["sql"]), set()).add(j["error"])
        self.dirty = True
        return {"charset": charset, "mtr_options": overrides, "codes": codes, "version": version,
                "hang_timeout": self.hang_timeout}


def compressed(steps: List[Step]) -> List[Step]:
    """The steps with the run's times shortened where statements left out of it leave a long pause:
    an ordered replay waits as long between two statements as the run did, and what decides the
    interleaving (which started or ended before which, and by how little) stays as it was."""
    events = sorted((t, i, which) for i, s in enumerate(steps) for which, t in enumerate((s.start, s.end)))
    times = [[s.start, s.end] for s in steps]
    now, before = 0.0, None
    for t, i, which in events:
        if before is not None:
            now += min(t - before, 0.01)
        times[i][which], before = now, t
    return [dataclasses.replace(s, start=a, end=max(a, b)) for s, (a, b) in zip(steps, times)]


def dump_data(server: ManagedServer, databases: Sequence[str]) -> List[str]:
    """The databases' tables, views and rows as statements: SHOW CREATE for the definitions (base
    tables and sequences before views), mariadb-dump for the rows, one INSERT IGNORE per row."""
    conn = _core.Connection.open(server.connection)
    out = []
    for db in databases:
        _, _, rows = conn.execute(f"SHOW CREATE DATABASE `{db}`")
        out += [rows[0][1].replace("CREATE DATABASE", "CREATE DATABASE IF NOT EXISTS", 1), f"USE `{db}`"]
        _, _, tables = conn.execute(f"SHOW FULL TABLES FROM `{db}`")
        views = []
        for name, kind in tables:
            if kind == "VIEW":
                views.append(name)
                continue
            _, _, r = conn.execute(f"SHOW CREATE {'SEQUENCE' if kind == 'SEQUENCE' else 'TABLE'} `{db}`.`{name}`")
            out.append(r[0][1])
        for name in views:
            _, _, r = conn.execute(f"SHOW CREATE VIEW `{db}`.`{name}`")
            out.append(re.sub(r" DEFINER=`[^`]*`@`[^`]*` SQL SECURITY DEFINER", "", r[0][1]))
        dump = subprocess.run(["mariadb-dump", "--no-defaults", "-uroot", f"--socket={server.socket}",
                               "--no-create-info", "--skip-extended-insert", "--complete-insert", "--compact",
                               "--insert-ignore",
                               "--hex-blob", "--skip-triggers", "--tz-utc", db],
                              capture_output=True, text=True, errors="surrogateescape", timeout=600)
        if dump.returncode != 0:
            raise _core.GauntletError(f"mariadb-dump of {db}: {dump.stderr.strip()}")
        inserts = [line.rstrip(";") for line in dump.stdout.splitlines() if line.startswith("INSERT IGNORE INTO")]
        if inserts:
            # As mariadb-dump's own header has it: values as stored (the loader's INSERT IGNORE kept
            # invalid ones adjusted), a stored 0 stays 0 in an AUTO_INCREMENT column, times in UTC.
            out += ["SET time_zone = '+00:00'", "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO'"] + inserts + [
                "SET sql_mode = DEFAULT", "SET time_zone = DEFAULT"]
    return out
