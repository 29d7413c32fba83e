"""The error-log lines a server's test suite expects of its own statements: a corpus run's error-log
oracle takes them for no finding."""

from __future__ import annotations

import pathlib
import re
from typing import List

from .. import _core

# The error-log lines the suite's tests expect of their own statements: each test names its own with
# `CALL mtr.add_suppression("regex")`, and mysql-test-run suppresses some for every test
# (include/mtr_warnings.sql). A corpus run makes the same lines, so its error-log oracle ignores them.
ADD_SUPPRESSION = re.compile(r"^\s*CALL\s+mtr\.add_suppression\s*\(\s*"
                             r"('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")\s*\)",
                             re.I | re.S)
_GLOBAL_SUPPRESSION = re.compile(r"\(\s*(\"(?:[^\"\\]|\\.)*\")\s*\)")
# Lines no suppression may hide: what the error-log oracle is there for (a pattern of the suite that
# matches one, such as ".*", is dropped).
MUST_SHOW = ["[ERROR] InnoDB: Assertion failure in file row0mysql.cc line 1",
             "mariadbd: /build/sql/item.cc:10: virtual bool Item::fix(): Assertion `0' failed.",
             "[ERROR] InnoDB: Database page corruption on disk or a failed read of file './test/t1.ibd' page "
             "[page id: space=5, page number=3]",
             "[ERROR] mariadbd got signal 11 ;"]


_ANY_NAME = re.compile(r"`[\w$]+`")


def global_suppressions(suite: pathlib.Path) -> List[str]:
    path = suite / "include" / "mtr_warnings.sql"
    if not path.is_file():
        return []
    text = path.read_text(errors="replace")
    start = text.find("INSERT INTO global_suppressions")
    return [sql_string(m.group(1)) for m in _GLOBAL_SUPPRESSION.finditer(text, max(start, 0))] if start >= 0 else []


def sql_string(literal: str) -> str:
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
