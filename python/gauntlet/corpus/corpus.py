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
from .draw import LOCK_WAITS, Draw
from .mysqltest import statements
from .suppressions import ADD_SUPPRESSION, global_suppressions, sql_string, usable_suppressions

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
    (r"\bSET\s+(SESSION\s+|LOCAL\s+|@@(SESSION\.|LOCAL\.)?)?max_statement_time\s*=",
     "changes the run's statement timeout"),
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
        draw = Draw(self.texts, [[t for t, _, _ in s.statements] for s in self.sequences],
                    [self.sequences[a].statements[b][0] for a, b in self.distinct], int(mutate * 1000),
                    int(windows * 1000), database)
        return Grammar.from_string(f"query_init: {LOCK_WAITS} ;\nquery: corpus_statement ;\n",
                                   rules={"corpus_statement": draw})

    def __repr__(self) -> str:
        left = sum(self.left_out.values())
        return (f"Corpus({self.suite} {self.version}: {len(self.distinct)} distinct statements, "
                f"{sum(len(s.statements) for s in self.sequences)} in {len(self.sequences)} sequences of "
                f"{self.tests} tests, {left} left out)")


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
    suppressions = global_suppressions(suite)
    expected = _ExpectedErrors()
    for f in sorted(_test_files(suite)):
        tests += f.suffix == ".test"
        name = str(f.relative_to(suite).with_suffix("")).replace("/t/", "/")
        seq = CorpusTest(name, [])
        for s in statements(f.read_text(errors="replace")):
            m = ADD_SUPPRESSION.match(s.sql)
            if m:  # mysql-test-run's, not the server's
                suppressions.append(sql_string(m.group(1)))
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


def default_path(version: str) -> pathlib.Path:
    """Where the cache keeps the corpus of a suite of ``version``."""
    safe = re.sub(r"[^\w.+-]", "_", version)
    name = f"mysql-test-{safe}.format{format_version('corpus')}.json"  # a newer Gauntlet's format builds anew
    return pathlib.Path(_core.template_cache_dir()) / "corpus" / name
