"""SQL read as plain text where no parse is needed: its tokens, the top-level items of a comma list,
a clause's place."""

from __future__ import annotations

import re
from typing import Optional, Tuple

# Tokens: quoted strings and identifiers whole, brackets, commas, words, spaces, the rest one by one.
TOKEN = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|[(),]|\w+|\s+|.", re.S)
# What ends a WHERE clause at its level.
_AFTER_WHERE = {"GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "INTO", "FOR",
                "RETURNING"}


def split_values(text: str) -> list:
    """The top-level comma-separated items of ``text`` (a VALUES list, a SET's assignments): commas
    inside quotes and parentheses do not split."""
    items, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return items


def where_clause(sql: str) -> Optional[Tuple[int, int]]:
    """Where the statement's own WHERE clause is (outside parentheses: not a subquery's), from its
    WHERE up to what ends it; None when it has none."""
    depth, start = 0, None
    for m in TOKEN.finditer(sql):
        w = m.group().upper()
        if w == "(":
            depth += 1
        elif w == ")":
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and w == "WHERE" and start is None:
            start = m.start()
        elif depth == 0 and start is not None and w in _AFTER_WHERE:
            return start, m.start()
    return (start, len(sql)) if start is not None else None
