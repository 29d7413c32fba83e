"""How a corpus run draws its queries (Corpus.grammar): windows of a test's statements in its order and
single statements, their literals swapped for edge values and their WHERE clauses spliced, and what
undoes the session state a query left behind."""

from __future__ import annotations

import re
from typing import Dict, List

from .. import _core
from ..sql_text import split_values, where_clause

# Another session's lock ends a statement in a second: a suite's statement that waits a lock out for the
# server's default (a day, or 50 s for a row) would stall the sessions behind it. Set at the start and
# again before each window (a test's own SET, or a new connection, undoes it).
LOCK_WAITS = "SET SESSION LOCK_WAIT_TIMEOUT = 1, INNODB_LOCK_WAIT_TIMEOUT = 1"

# The longest window: long enough for a test's CREATE, INSERTs and first queries, short enough that the
# sessions' windows interleave.
WINDOW = 30


class Draw:
    """The corpus rule: a query drawn by ``ctx.below`` from ``texts`` (each distinct statement text),
    ``sequences`` (each test's statements in order, as indexes into texts) and ``distinct`` (one text of
    each shape): a window or a single statement (Corpus.grammar)."""

    def __init__(self, texts: List[str], sequences: List[List[int]], distinct: List[int], mutate_per_mille: int,
                 windows_per_mille: int, database: str):
        self.texts = texts
        self.sequences = [s for s in sequences if s]
        self.distinct = distinct
        # A statement the executor would not split from the next one as it is (a compound one, which makes
        # it send the whole query as one statement, or one it splits at a `;`) is a window of its own.
        self.alone = {i for i, text in enumerate(self.texts)
                      if len(_core.split_statements(text + " ;\nSELECT 1")) != 2}
        self.mutate = mutate_per_mille
        self.windows = windows_per_mille
        self.database = database
        self.wheres: Dict[int, Dict[str, List[str]]] = {}  # a sequence's WHERE clauses by verb, once asked for

    def __call__(self, ctx) -> str:
        if ctx.below(1000) >= self.windows:
            t = self.distinct[ctx.below(len(self.distinct))]
            sql = self.texts[t]
            if t in self.alone:
                return sql
            window = [mutated(sql, ctx.below) if ctx.below(1000) < self.mutate else sql]
            return " ;\n".join(window + closing(window, self.database))
        number = ctx.below(len(self.sequences))
        seq = self.sequences[number]
        start = 0 if ctx.below(2) == 0 else ctx.below(len(seq))
        length = 1 + ctx.below(min(WINDOW, len(seq) - start))
        window = []
        for t in seq[start:start + length]:
            if t in self.alone:
                if not window:
                    return self.texts[t]
                break
            sql = self.texts[t]
            draw = ctx.below(4000)
            if draw < self.mutate:
                sql = mutated(sql, ctx.below)
            elif draw < 2 * self.mutate:
                sql = spliced(sql, self._wheres(number).get(verb(sql), []), ctx.below)
            window.append(sql)
        return " ;\n".join([LOCK_WAITS] + window + closing(window, self.database))

    def _wheres(self, number: int) -> Dict[str, List[str]]:
        """The WHERE clauses of sequence ``number``'s statements, by the statements' verbs."""
        if number not in self.wheres:
            found: Dict[str, List[str]] = {}
            for t in dict.fromkeys(self.sequences[number]):
                span = where_clause(self.texts[t])
                if span:
                    found.setdefault(verb(self.texts[t]), []).append(self.texts[t][span[0]:span[1]].strip())
            self.wheres[number] = found
        return self.wheres[number]


def spliced(sql: str, wheres: List[str], below) -> str:
    """``sql`` with its WHERE clause swapped for one of ``wheres`` (those of its test's other statements
    of its verb, whose tables it shares), drawn by ``below``; unchanged when it has no WHERE clause or
    there is no other one."""
    span = where_clause(sql)
    others = [w for w in wheres if span is None or w != sql[span[0]:span[1]].strip()]
    if span is None or not others:
        return sql
    return sql[:span[0]] + others[below(len(others))] + " " + sql[span[1]:].lstrip()


def verb(sql: str) -> str:
    """A statement's first word, upper-cased."""
    m = re.match(r"\s*(\w+)", sql)
    return m.group(1).upper() if m else ""


_XA_START = re.compile(r"^\s*XA\s+(?:START|BEGIN)\s+(.+?)(?:\s+(?:JOIN|RESUME))?\s*$", re.I | re.S)
_OPENS = re.compile(r"^\s*(START\s+TRANSACTION|BEGIN(?!\s+NOT\s+ATOMIC)(\s+WORK)?\s*$)", re.I)
_ENDS = re.compile(r"^\s*(COMMIT|ROLLBACK)\b(?!\s+TO\b)", re.I)
_AUTOCOMMIT = re.compile(r"\bAUTOCOMMIT\s*=\s*(0|OFF|FALSE)\b", re.I)
_AUTOCOMMIT_ON = re.compile(r"\bAUTOCOMMIT\s*=\s*(1|ON|TRUE)\b", re.I)


def closing(window: List[str], database: str) -> List[str]:
    """What undoes the session state a query of a corpus run left behind, which would stall or fail its
    session's next queries, other tests' statements, for the rest of the run: each XA transaction it
    started ended and rolled back (whatever its own XA statements did: they may have failed, as a second
    XA START does), an open transaction rolled back, autocommit turned back on, a read-only session made
    read-write, the session variables it set back to their defaults (max_session_mem_used = 50000 failed
    all that came after) and the lock waits to a second, the run's database used again after a USE or a
    DROP DATABASE."""
    xids: List[str] = []
    names: List[str] = []
    open_tx = autocommit_off = read_only = use = False
    for sql in window:
        m = _XA_START.match(sql)
        if m and m.group(1) not in xids:
            xids.append(m.group(1))
        elif _OPENS.match(sql):
            open_tx = True
        elif _ENDS.match(sql):
            open_tx = False
        if _AUTOCOMMIT.search(sql):
            autocommit_off = True
        elif _AUTOCOMMIT_ON.search(sql):
            autocommit_off = False
        read_only = read_only or bool(_READ_ONLY.match(sql))
        use = use or bool(_USE.match(sql))
        names += [n for n in set_variables(sql) if n not in names]
    out = [f"XA {verb} {xid}" for xid in xids for verb in ("END", "ROLLBACK")]
    if open_tx or autocommit_off:
        out.append("ROLLBACK")
    if read_only:
        out.append("SET SESSION TRANSACTION READ WRITE")
    waits = {"lock_wait_timeout", "innodb_lock_wait_timeout"}
    out += [f"SET SESSION {n} = DEFAULT" for n in names if n not in waits]
    if waits & set(names):
        out.append(LOCK_WAITS)
    if use:
        out.append(f"USE {database}")
    return out


_READ_ONLY = re.compile(r"^\s*SET\s+SESSION\s+TRANSACTION\b.*\bREAD\s+ONLY\b", re.I | re.S)
_USE = re.compile(r"^\s*(USE\b|DROP\s+(DATABASE|SCHEMA)\b)", re.I)
_SET = re.compile(r"^\s*SET\s+(?!(GLOBAL|STATEMENT|NAMES|CHARACTER|CHARSET|TRANSACTION|PASSWORD|ROLE|DEFAULT)\b)", re.I)
_ASSIGNED = re.compile(r"^\s*(?:(?:SESSION|LOCAL)\s+|@@(?:SESSION\.|LOCAL\.)?)?`?([A-Za-z_][A-Za-z0-9_]*)`?\s*(?::?=)",
                       re.I)


def set_variables(sql: str) -> List[str]:
    """The session variables a SET statement assigns, lower-cased (user variables and GLOBAL ones aside)."""
    if not _SET.match(sql):
        return []
    body = sql[_SET.match(sql).end():]
    names = []
    for part in split_values(body):
        m = _ASSIGNED.match(part)
        if m and not part.lstrip().startswith("@@global.") and not re.match(r"\s*@(?!@)", part):
            names.append(m.group(1).lower())
    return names


# Edge values a literal is swapped for: integer and floating-point limits, empty and odd strings, temporal
# and JSON edges, NULL.
EDGE_VALUES = ["0", "-1", "1", "255", "65536", "2147483647", "-2147483648", "4294967295", "9223372036854775807",
               "-9223372036854775808", "18446744073709551615", "1e308", "-1e-308", "0.000001",
               "99999999999999999999.9999",
               "NULL", "''", "' '", "'0'", "'\\0'", "'a%_'", "'\u00e4\u00f6\u00fc\u20ac'", "'0000-00-00 00:00:00'",
               "'9999-12-31 23:59:59.999999'", "'2038-01-19 03:14:07'", "'-838:59:59'", "'[1, {\"a\": null}]'",
               "'$.a[*]'", "X''", "X'FF00'"]
_LITERAL = re.compile(r"'(?:[^'\\]|\\.|'')*'|(?<![\w.$@])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def mutated(sql: str, below) -> str:
    """``sql`` with one of its literals (a number or a string) swapped for an edge value; ``below(n)``
    draws the choices (0 <= draw < n). Unchanged when it has none."""
    found = list(_LITERAL.finditer(sql))
    if not found:
        return sql
    m = found[below(len(found))]
    return sql[:m.start()] + EDGE_VALUES[below(len(EDGE_VALUES))] + sql[m.end():]
