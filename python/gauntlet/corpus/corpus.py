"""A corpus: the SQL statements of a server's own test suite (mysql-test: Debian's mariadb-test package
installs MariaDB's), one of each shape (literals and names aside), without those a hunt must not run
on its own server, kept in one JSON file (data/formats/corpus.schema.json) cached by the suite's
version. A run sends its statements at random in many sessions, as pquery does (``grammar()``)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import subprocess
import tempfile
from typing import Dict, List, Optional, Tuple, Union

from .. import _core
from ..formats import read_json, stamped, version as format_version
from ..grammar import Grammar
from ..sql_text import split_values, where_clause
from .mysqltest import statements

# Debian's mariadb-test: the server's own test suite (mysql-test-run's folder).
SUITE = pathlib.Path("/usr/share/mysql/mysql-test")

# What a corpus leaves out, and why: what would stop the hunt's own server, end or block its
# sessions for good, load code, write files outside the datadir, or change the accounts,
# replication, global settings or system tables the harness runs with. Looked for anywhere in a
# statement (a procedure's body too): a name or string that only looks so costs a statement.
UNSAFE = [
    (r"\b(SHUTDOWN|KILL)\b|^RESTART\b", "stops the server or ends sessions"),
    (r"\b(INSTALL|UNINSTALL)\s+(PLUGIN|SONAME)\b|\bSONAME\b", "loads code"),
    (r"\bINTO\s+(OUTFILE|DUMPFILE)\b|\bLOAD\s+(DATA|XML)\b|\b(DATA|INDEX)\s+DIRECTORY\b|\bIMPORT\s+TABLESPACE\b",
     "reads or writes files (or needs those its test copied in)"),
    (r"\b(GRANT|REVOKE)\b|\b(CREATE|DROP|ALTER|RENAME)\s+(USER|ROLE)\b|\bSET\s+(PASSWORD|ROLE|DEFAULT\s+ROLE)\b",
     "changes accounts"),
    (r"\b(CHANGE\s+(MASTER|REPLICATION)|(START|STOP)\s+(SLAVE|REPLICA|ALL\s+SLAVES)|RESET|PURGE|BINLOG)\b",
     "changes replication or logs"),
    (r"\bSET\b[^;]*(\bGLOBAL\b|@@GLOBAL\.)", "changes a global setting"),
    (r"\b(LOCK\s+TABLES?|LOCK\s+INSTANCE|BACKUP\s+(STAGE|LOCK)|FLUSH)\b|\bWITH\s+READ\s+LOCK\b",
     "blocks other sessions until its own session says so"),
    (r"\blc_messages\b", "changes the language of the server's messages (the error-log oracle reads English)"),
    (r"\bSET\s+(SESSION\s+|LOCAL\s+|@@(SESSION\.|LOCAL\.)?)?max_statement_time\s*=", "changes the run's statement timeout"),
    (r"\b(mysql|performance_schema|sys)\s*\.|\bUSE\s+`?(mysql|performance_schema|sys)\b|"
     r"\b(DROP|ALTER|CREATE)\s+(DATABASE|SCHEMA)\s+(IF\s+(NOT\s+)?EXISTS\s+)?`?(mysql|test|sys)`?(\s|;|$)",
     "touches the system schemas or the run's database"),
]
_UNSAFE = [(re.compile(p, re.I), why) for p, why in UNSAFE]


@dataclasses.dataclass
class CorpusStatement:
    sql: str
    may_fail: bool  # the test expected an error (--error)
    test: str       # suite/name of the test it comes from
    line: int


@dataclasses.dataclass
class CorpusTest:
    """One test file's statements in its order (those a hunt may run): (text, line, may_fail) each, text an
    index into the corpus's texts."""
    name: str
    statements: List[Tuple[int, int, bool]]


@dataclasses.dataclass
class Corpus:
    """A corpus as its file holds it: where it came from, each distinct statement text once, every test's
    statements in order (``sequences``: what a window replays), and one statement of each shape
    (``distinct``: (test, position) of its first occurrence; what a single draw picks from)."""
    suite: str
    version: str
    tests: int
    left_out: Dict[str, int]
    texts: List[str]
    sequences: List[CorpusTest]
    distinct: List[Tuple[int, int]]
    suppressions: List[str] = dataclasses.field(default_factory=list)
    path: Optional[pathlib.Path] = None

    @property
    def statements(self) -> List[CorpusStatement]:
        """One statement of each shape, where it first occurs."""
        out = []
        for test, position in self.distinct:
            seq = self.sequences[test]
            text, line, may_fail = seq.statements[position]
            out.append(CorpusStatement(self.texts[text], bool(may_fail), seq.name, line))
        return out

    def to_json(self) -> dict:
        return stamped("corpus", {
            "suite": self.suite, "version": self.version, "tests": self.tests, "left_out": self.left_out,
            "texts": self.texts,
            "sequences": [{"test": s.name, "statements": [[t, line, int(f)] for t, line, f in s.statements]}
                          for s in self.sequences],
            "distinct": [list(d) for d in self.distinct], "suppressions": self.suppressions})

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Corpus":
        """A corpus file (``gauntlet corpus build`` writes them)."""
        path = pathlib.Path(path)
        if not path.is_file():
            raise _core.InvalidInput(f"corpus: {path}: no such file (gauntlet corpus build makes one)")
        j = read_json(path, "corpus")
        sequences = [CorpusTest(s["test"], [(t, line, bool(f)) for t, line, f in s["statements"]])
                     for s in j["sequences"]]
        return cls(j["suite"], j["version"], j["tests"], j["left_out"], j["texts"], sequences,
                   [(a, b) for a, b in j["distinct"]], j["suppressions"], path)

    def grammar(self, mutate: float = 0.25, windows: float = 0.5, database: str = "test"):
        """A grammar whose queries come from the corpus by recorded draws (the same seed gives the same
        statements, and a run's statement log replays them): a ``windows`` share of them a window of one
        test (up to WINDOW of its statements in its order, so that its tables exist for its queries), the
        rest one statement of any shape, as pquery draws (a ``mutate`` share of those with one literal
        swapped for an edge value, mutated(); a window's statements a quarter as often, and as often with
        their WHERE clause swapped for another of their test's statements of their kind, spliced()). What a
        query left behind that would stall or fail its session's next ones is undone after it (closing():
        ``database``, the run's, is where it goes back to)."""
        if not self.distinct:
            raise _core.InvalidInput(f"corpus: {self.path or self.suite}: no statements")
        draw = _Draw(self, int(mutate * 1000), int(windows * 1000), database)
        return Grammar.from_string(f"query_init: {LOCK_WAITS} ;\nquery: corpus_statement ;\n",
                                   rules={"corpus_statement": draw})

    def __repr__(self) -> str:
        left = sum(self.left_out.values())
        return (f"Corpus({self.suite} {self.version}: {len(self.distinct)} distinct statements, "
                f"{sum(len(s.statements) for s in self.sequences)} in {len(self.sequences)} sequences of "
                f"{self.tests} tests, {left} left out)")


# Another session's lock ends a statement in a second: a suite's statement that waits a lock out for the
# server's default (a day, or 50 s for a row) would stall the sessions behind it. Set at the start and
# again before each window (a test's own SET, or a new connection, undoes it).
LOCK_WAITS = "SET SESSION LOCK_WAIT_TIMEOUT = 1, INNODB_LOCK_WAIT_TIMEOUT = 1"

# The longest window: long enough for a test's CREATE, INSERTs and first queries, short enough that the
# sessions' windows interleave.
WINDOW = 30


class _Draw:
    """The corpus rule: a query drawn from a corpus, by ``ctx.below``."""

    def __init__(self, corpus: Corpus, mutate_per_mille: int, windows_per_mille: int, database: str):
        self.texts = corpus.texts
        self.sequences = [[t for t, _, _ in s.statements] for s in corpus.sequences if s.statements]
        self.distinct = [corpus.sequences[a].statements[b][0] for a, b in corpus.distinct]
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


def unsafe(sql: str) -> str:
    """Why a hunt may not run ``sql`` on its own server ("" when it may)."""
    head = re.sub(r"^(\s|/\*.*?\*/)+", "", sql, flags=re.S)
    for pattern, why in _UNSAFE:
        if pattern.search(head):
            return why
    return ""


def suite_version(suite: pathlib.Path) -> str:
    """The suite's version: its Debian package's when it is Debian's, else its files' digest."""
    if suite.resolve() == SUITE.resolve():
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "mariadb-test"], capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.strip()
    digest = hashlib.sha256()
    for f in sorted(_test_files(suite)):
        st = f.stat()
        digest.update(f"{f.relative_to(suite)} {st.st_size} {int(st.st_mtime)}\n".encode())
    return "files-" + digest.hexdigest()[:16]


def _test_files(suite: pathlib.Path) -> List[pathlib.Path]:
    return [p for p in suite.rglob("*") if p.suffix in (".test", ".inc") and p.is_file()]


def build(suite: Union[str, os.PathLike] = SUITE, out: Union[None, str, os.PathLike] = None) -> Corpus:
    """The corpus of ``suite`` (a mysql-test folder), written to ``out`` (default: the cache, by the
    suite's version, where a corpus already built is read instead)."""
    suite = pathlib.Path(suite)
    if not suite.is_dir():
        raise _core.InvalidInput(f"suite: {suite}: no such folder (Debian's mariadb-test installs {SUITE})")
    version = suite_version(suite)
    cached = out is None
    path = pathlib.Path(out) if out is not None else default_path(version)
    if cached and path.is_file():
        return Corpus.load(path)
    seen, texts, index, sequences, distinct, tests = set(), [], {}, [], [], 0
    left_out: Dict[str, int] = {}
    suppressions = _global_suppressions(suite)
    expected = _ExpectedErrors()
    for f in sorted(_test_files(suite)):
        tests += f.suffix == ".test"
        name = str(f.relative_to(suite).with_suffix("")).replace("/t/", "/")
        seq = CorpusTest(name, [])
        for s in statements(f.read_text(errors="replace")):
            m = _ADD_SUPPRESSION.match(s.sql)
            if m:  # mysql-test-run's, not the server's
                suppressions.append(_sql_string(m.group(1)))
                continue
            why = unsafe(s.sql) or (EXPECTS_CORRUPTION if expected.corruption(s.errors) else "")
            if why:
                left_out[why] = left_out.get(why, 0) + 1
                continue
            if s.sql not in index:
                index[s.sql] = len(texts)
                texts.append(s.sql)
                shape = _core.sql_skeleton(s.sql)
                if shape not in seen:
                    seen.add(shape)
                    distinct.append((len(sequences), len(seq.statements)))
            seq.statements.append((index[s.sql], s.line, s.may_fail))
        if seq.statements:
            sequences.append(seq)
    corpus = Corpus(str(suite), version, tests, left_out, texts, sequences, distinct, usable_suppressions(suppressions),
                    path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Another process may build the same corpus meanwhile: each writes its own file, then renames it.
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as tmp:
        tmp.write(json.dumps(corpus.to_json()) + "\n")
    os.replace(tmp.name, path)
    return corpus


EXPECTS_CORRUPTION = "expects an error the crash oracle takes for corruption (an internal error the test provokes)"


class _ExpectedErrors:
    """What mysqltest's --error names mean to Gauntlet's error table."""

    def __init__(self):
        self.codes = {name: c for c in range(1000, 5000) if (name := _core.error_name(c))}

    def corruption(self, errors) -> bool:
        """Whether an error ``errors`` (an --error list) expects is one the crash oracle reports as
        corruption: in the test's own setting the test provokes it, in a corpus run's it says nothing."""
        for e in errors:
            code = int(e) if e.isdigit() else self.codes.get(e)
            if code and _core.error_kind(code) == "corruption":
                return True
        return False


def corpus_named(name: str) -> Corpus:
    """Corpus ``name``: a corpus file, or "default" (the installed suite's, built once)."""
    return build() if name == "default" else Corpus.load(name)


# The error-log lines the suite's tests expect of their own statements: each test names its own with
# `CALL mtr.add_suppression("regex")`, and mysql-test-run suppresses some for every test
# (include/mtr_warnings.sql). A corpus run makes the same lines, so its error-log oracle ignores them.
_ADD_SUPPRESSION = re.compile(r"^\s*CALL\s+mtr\.add_suppression\s*\(\s*('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")\s*\)",
                              re.I | re.S)
_GLOBAL_SUPPRESSION = re.compile(r"\(\s*(\"(?:[^\"\\]|\\.)*\")\s*\)")
# Lines no suppression may hide: what the error-log oracle is there for (a pattern of the suite that
# matches one, such as ".*", is dropped).
MUST_SHOW = ["[ERROR] InnoDB: Assertion failure in file row0mysql.cc line 1",
             "mariadbd: /build/sql/item.cc:10: virtual bool Item::fix(): Assertion `0' failed.",
             "[ERROR] InnoDB: Database page corruption on disk or a failed read of file './test/t1.ibd' page [page id: space=5, page number=3]",
             "[ERROR] mariadbd got signal 11 ;"]


_ANY_NAME = re.compile(r"`[\w$]+`")


def _global_suppressions(suite: pathlib.Path) -> List[str]:
    path = suite / "include" / "mtr_warnings.sql"
    if not path.is_file():
        return []
    text = path.read_text(errors="replace")
    start = text.find("INSERT INTO global_suppressions")
    return [_sql_string(m.group(1)) for m in _GLOBAL_SUPPRESSION.finditer(text, max(start, 0))] if start >= 0 else []


def _sql_string(literal: str) -> str:
    """The value of a quoted SQL string literal (backslash escapes and doubled quotes undone)."""
    quote, body = literal[0], literal[1:-1]
    body = body.replace(quote + quote, quote)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0"}.get(m.group(1), m.group(1)), body)


def usable_suppressions(patterns: List[str]) -> List[str]:
    """``patterns`` once each, in order, with any quoted name (`t4`) standing for every name (a test names
    its own tables; a corpus run's statements meet other tests' tables), without those the error-log
    oracle cannot read (its regular expressions are ECMAScript's, the suite's PCRE's) or that would hide
    a line it is there for (MUST_SHOW, tried with Python's re, which reads what both read alike)."""
    out, seen = [], set()
    for p in (_ANY_NAME.sub("`[^`]*`", p) for p in patterns):
        if p in seen or not p.strip() or _core.error_log_pattern_error(p):
            continue
        seen.add(p)
        try:
            compiled = re.compile(p)
        except re.error:
            continue
        if not any(compiled.search(line) for line in MUST_SHOW):
            out.append(p)
    return out


def default_path(version: str) -> pathlib.Path:
    """Where the cache keeps the corpus of a suite of ``version``."""
    safe = re.sub(r"[^\w.+-]", "_", version)
    name = f"mysql-test-{safe}.format{format_version('corpus')}.json"  # a newer Gauntlet's format builds anew
    return pathlib.Path(_core.template_cache_dir()) / "corpus" / name
