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
from typing import Dict, List, Optional, Union

from .. import _core
from ..formats import read_json, stamped
from ..grammar import Grammar
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
    (r"\bINTO\s+(OUTFILE|DUMPFILE)\b|\bLOAD\s+(DATA|XML)\b|\b(DATA|INDEX)\s+DIRECTORY\b",
     "reads or writes files"),
    (r"\b(GRANT|REVOKE)\b|\b(CREATE|DROP|ALTER|RENAME)\s+(USER|ROLE)\b|\bSET\s+(PASSWORD|ROLE|DEFAULT\s+ROLE)\b",
     "changes accounts"),
    (r"\b(CHANGE\s+(MASTER|REPLICATION)|(START|STOP)\s+(SLAVE|REPLICA|ALL\s+SLAVES)|RESET|PURGE|BINLOG)\b",
     "changes replication or logs"),
    (r"\bSET\b[^;]*(\bGLOBAL\b|@@GLOBAL\.)", "changes a global setting"),
    (r"\b(LOCK\s+TABLES?|LOCK\s+INSTANCE|BACKUP\s+(STAGE|LOCK)|FLUSH)\b|\bWITH\s+READ\s+LOCK\b",
     "blocks other sessions until its own session says so"),
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
class Corpus:
    """A corpus as its file holds it: where it came from, and its statements."""
    suite: str
    version: str
    tests: int
    left_out: Dict[str, int]
    statements: List[CorpusStatement]
    path: Optional[pathlib.Path] = None

    def to_json(self) -> dict:
        return stamped("corpus", {"suite": self.suite, "version": self.version, "tests": self.tests,
                                  "left_out": self.left_out,
                                  "statements": [dataclasses.asdict(s) for s in self.statements]})

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Corpus":
        """A corpus file (``gauntlet corpus build`` writes them)."""
        path = pathlib.Path(path)
        if not path.is_file():
            raise _core.InvalidInput(f"corpus: {path}: no such file (gauntlet corpus build makes one)")
        j = read_json(path, "corpus")
        return cls(j["suite"], j["version"], j["tests"], j["left_out"],
                   [CorpusStatement(**s) for s in j["statements"]], path)

    def grammar(self, mutate: float = 0.25):
        """A grammar whose every query is one of the corpus's statements, drawn at random (a recorded
        draw: the same seed gives the same statements, and a run's statement log replays them); a
        ``mutate`` share of them with one literal swapped for an edge value (mutated())."""
        texts = [s.sql for s in self.statements]
        if not texts:
            raise _core.InvalidInput(f"corpus: {self.path or self.suite}: no statements")
        per_mille = int(mutate * 1000)

        def statement(ctx) -> str:
            sql = texts[ctx.below(len(texts))]
            return mutated(sql, ctx.below) if ctx.below(1000) < per_mille else sql

        # Another session's lock ends a statement in a second: a suite's statement that waits a lock out
        # for the server's default (a day, or 50 s for a row) would stall the sessions behind it.
        return Grammar.from_string("query_init: SET SESSION LOCK_WAIT_TIMEOUT = 1 ; "
                                   "SET SESSION INNODB_LOCK_WAIT_TIMEOUT = 1 ;\n"
                                   "query: corpus_statement ;\n",
                                   rules={"corpus_statement": statement})

    def __repr__(self) -> str:
        left = sum(self.left_out.values())
        return (f"Corpus({self.suite} {self.version}: {len(self.statements)} statements of {self.tests} tests, "
                f"{left} left out)")


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
    seen, kept, tests = set(), [], 0
    left_out: Dict[str, int] = {}
    for f in sorted(_test_files(suite)):
        tests += f.suffix == ".test"
        name = str(f.relative_to(suite).with_suffix("")).replace("/t/", "/")
        for s in statements(f.read_text(errors="replace")):
            why = unsafe(s.sql)
            if why:
                left_out[why] = left_out.get(why, 0) + 1
                continue
            shape = _core.sql_skeleton(s.sql)
            if shape in seen:
                continue
            seen.add(shape)
            kept.append(CorpusStatement(s.sql, s.may_fail, name, s.line))
    corpus = Corpus(str(suite), version, tests, left_out, kept, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Another process may build the same corpus meanwhile: each writes its own file, then renames it.
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as tmp:
        tmp.write(json.dumps(corpus.to_json()) + "\n")
    os.replace(tmp.name, path)
    return corpus


def corpus_grammar(name: str):
    """The grammar of corpus ``name``: a corpus file, or "default" (the installed suite's, built once)."""
    return (build() if name == "default" else Corpus.load(name)).grammar()


def default_path(version: str) -> pathlib.Path:
    """Where the cache keeps the corpus of a suite of ``version``."""
    safe = re.sub(r"[^\w.+-]", "_", version)
    return pathlib.Path(_core.template_cache_dir()) / "corpus" / f"mysql-test-{safe}.json"
