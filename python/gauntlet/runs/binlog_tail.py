"""What a kill may have left in a primary's binary log that its tables lack.

Recovery commits the transactions InnoDB prepared that the binary log holds, so the two agree after a
kill for every transaction committed in two phases (its binary log entry ends in an Xid event). A
transaction that also wrote a table of an engine without two-phase commit (Aria, say) is committed in
one phase instead: the binary log first, then each engine in turn (its entry ends in a COMMIT query).
A kill between the two leaves it in the binary log, and so on the replicas, but not in InnoDB: by
design, not a replication bug. Only the transaction a session was committing at the kill can be so
(its statement in flight a COMMIT, or one outside an explicit transaction: committing_sessions), and
that is the session's last in the binary log the kill ended (one_phase_in_flight).
"""

from __future__ import annotations

import json
import mmap
import pathlib
import re
import struct
from typing import Dict, List, Optional, Set

from .. import _core
from ..server import Connection

_HEADER = struct.Struct("<IBIIIH")  # an event's: timestamp, type, server_id, length, next position, flags
_QUERY, _XID, _GTID = 2, 16, 162  # event types; MariaDB's Gtid_log_event starts each transaction
_STANDALONE = 1  # a Gtid event's flag: one statement without BEGIN ... COMMIT (DDL, which is crash-safe)
_MAPPED = re.compile(r"\(([^.()]+)\.([^()]+)\)$")  # a Table_map event's Info: "table_id: 33 (test.r_inno)"
_GROUP_EVENTS = 10_000  # events of one transaction read at most
_USE = re.compile(r"^use `[^`]*`; ")  # the database a Query event's Info starts with


def named_tables(sql: str, tables: Dict[str, str]) -> List[str]:
    """The tables of ``tables`` (`db`.`table`) whose names a statement mentions."""
    words = {w.lower() for w in re.findall(r"[\w$]+", sql)}
    return [name for name in tables if name.rsplit(".", 1)[-1].strip("`").lower() in words]


# A statement's first word that opens an explicit transaction, and those that end one (DDL commits it).
_OPENS = {"START", "BEGIN"}
_ENDS = {"COMMIT", "ROLLBACK", "CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"}
_STAYS_INSIDE = {"INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT", "WITH", "VALUES", "TABLE", "SAVEPOINT",
                 "RELEASE", "DO", "HANDLER", "LOAD", "SHOW", "EXPLAIN", "DESCRIBE", "DESC"}


def committing_sessions(folder: pathlib.Path) -> Optional[Dict[int, Set[str]]]:
    """The round's sessions (its statement logs in ``folder``) that may have been committing at the kill,
    by connection id: those whose statement in flight (the last, not ok) may commit (_may_commit), each
    with the statements the transaction it commits holds (autocommit: that one; else those since its
    START TRANSACTION). None when a log names no connection id (then every session may have been)."""
    sessions: Dict[int, Set[str]] = {}
    for log in sorted(folder.glob("statements-*.jsonl")):
        connection, inside, last, held = None, False, None, []
        with open(log) as f:
            for line in f:
                try:
                    s = json.loads(line)
                except ValueError:
                    continue  # a line torn at the kill
                connection = (s.get("key") or {}).get("connection_id", connection)
                if last is not None and last.get("outcome") == "ok":
                    held = held + [last["sql"]] if inside else []
                    inside = _inside_after(last["sql"], inside)
                last = s
        if last is None or last.get("outcome") == "ok":
            continue  # nothing in flight: its commits were all answered
        if connection is None:
            return None
        if _may_commit(last["sql"], inside):
            sessions[int(connection)] = {q.strip() for q in (held if inside else [last["sql"]])}
    return sessions


def _may_commit(sql: str, inside: bool) -> bool:
    """Whether a statement may commit a transaction: inside an explicit one, any but the DML that stays
    in it (COMMIT, DDL and a new START TRANSACTION commit it); outside, any but a transaction's start
    (autocommit). A ROLLBACK commits nothing (what it cannot undo is logged to roll back on replicas)."""
    word = _first_word(sql)
    if word == "ROLLBACK":
        return False
    return word not in _STAYS_INSIDE if inside else word not in _OPENS


def _first_word(sql: str) -> str:
    words = re.findall(r"[A-Za-z]+", sql[:40])
    return words[0].upper() if words else ""


def _inside_after(sql: str, inside: bool) -> bool:
    """Whether a session is inside an explicit transaction after a statement that succeeded."""
    word = _first_word(sql)
    if word in _OPENS:
        return True
    if word in _ENDS and not re.match(r"\s*ROLLBACK\s+(WORK\s+)?TO\b", sql, re.I):
        return False
    return inside


def one_phase_in_flight(c: Connection, tables: Dict[str, str],
                        sessions: Optional[Dict[int, Set[str]]] = None) -> List[str]:
    """The tables of ``tables`` written by a transaction committed in one phase that was its session's
    last in the binary log the kill ended (the last but one of the restarted server ``c`` is on) and
    that the session may have been committing then: one holding a statement of those ``sessions`` gives
    for it (committing_sessions; None: any such transaction)."""
    logs = c.query("SHOW BINARY LOGS")
    if len(logs) < 2:
        return []
    name = str(logs[-2][0])
    path = pathlib.Path(str(c.query("SELECT @@log_bin_basename")[0][0])).parent / name
    named: set = set()
    for thread, start in _last_one_phase(path).items():
        if sessions is not None and thread not in sessions:
            continue
        written, statements = _group(c, name, start, tables)
        if sessions is None or statements & sessions[thread]:
            named.update(written)
    return sorted(named)


def _last_one_phase(path: pathlib.Path) -> Dict[int, int]:
    """By session (the thread id of its Query events), the position of the Gtid event that starts its
    last transaction, where that one was committed in one phase. Only event headers are read (the
    server reads the rest: _group)."""
    last: Dict[int, list] = {}  # thread id -> [start, ends in an Xid]
    with open(path, "rb") as f:
        if path.stat().st_size <= 4:
            return {}
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            pos, group, thread = 4, None, None  # past the magic number
            while pos + _HEADER.size <= len(m):
                _, kind, _, length, _, _ = _HEADER.unpack_from(m, pos)
                if length < _HEADER.size:
                    break  # torn by the kill: the server drops it too
                if kind == _GTID:
                    standalone = m[pos + _HEADER.size + 12] & _STANDALONE  # after seq_no (8), domain_id (4)
                    group, thread = (None if standalone else [pos, False]), None
                elif group is not None and kind == _XID:
                    group[1] = True
                elif group is not None and kind == _QUERY and thread is None:
                    thread = struct.unpack_from("<I", m, pos + _HEADER.size)[0]
                    last[thread] = group
                pos += length
    return {thread: group[0] for thread, group in last.items() if not group[1]}


_WRONG_OFFSET = 1220  # ER_ERROR_WHEN_EXECUTING_COMMAND: "Wrong offset or I/O error"


def _group(c: Connection, log: str, start: int, tables: Dict[str, str]) -> tuple:
    """The tables the transaction at ``start`` of binary log ``log`` wrote (its row events' tables and
    those its statements name) and its statements, as the session sent them."""
    named, statements = [], set()
    sql = f"SHOW BINLOG EVENTS IN '{log}' FROM {start} LIMIT {_GROUP_EVENTS}"
    r = c.execute(sql)
    if r.outcome["error_code"] == _WRONG_OFFSET:
        # The kill tore the group after its header (_last_one_phase reads headers only): the server
        # does not read it, and the restart did not apply it.
        return named, statements
    if r.outcome["kind"] != "ok":
        raise _core.GauntletError(f"{sql}: error {r.outcome['error_code']}: {r.outcome['message']}")
    for row in r.rows[1:]:
        kind, info = str(row[2]), str(row[5])
        if kind == "Gtid":
            break
        m = _MAPPED.search(info) if kind == "Table_map" else None
        if m:
            named.append(f"`{m.group(1)}`.`{m.group(2)}`")
        elif kind in ("Query", "Annotate_rows"):
            named += named_tables(info, tables)
            statements.add(_USE.sub("", info).strip())
    return named, statements
