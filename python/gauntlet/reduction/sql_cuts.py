"""Shorter forms of one SQL statement, cut as text: list items, clauses, columns of INSERTs."""

from __future__ import annotations

import re

from ..sql_text import TOKEN, split_values


def without_column(sql: str, table: str, column: str) -> str:
    """``sql`` without the values of ``column`` (quoted) when it is an INSERT into ``table`` that
    names its columns."""
    m = re.match(rf"(INSERT IGNORE INTO `{re.escape(table)}`) \(([^)]*)\) VALUES \((.*)\)$", sql, re.S)
    if not m:
        return sql
    names = [n.strip() for n in m.group(2).split(",")]
    values = split_values(m.group(3))
    if column not in names or len(values) != len(names):
        return sql
    keep = [i for i, n in enumerate(names) if n != column]
    return f"{m.group(1)} ({', '.join(names[i] for i in keep)}) VALUES ({','.join(values[i] for i in keep)})"


_CLAUSES = {"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW"}
_ENDS = _CLAUSES | {"UNION", "EXCEPT", "INTERSECT", "INTO", "FOR"}
_BOUNDS = _ENDS | {"SELECT", "FROM", "ON", "JOIN", "SET", "VALUES", "USING", "BY"}


def sql_cuts(sql: str) -> list:
    """Shorter versions of a statement, shortest first: an item of a comma-separated list (the
    select list, a function's arguments, an IN list, VALUES) left out, or a clause (WHERE, GROUP
    BY, HAVING, ORDER BY, LIMIT, WINDOW) up to the next one at its level. Quotes are respected."""
    tokens = list(TOKEN.finditer(sql))
    words = [m.group().upper() for m in tokens]
    depth, level = 0, []
    for w in words:
        depth -= w == ")"
        level.append(depth)
        depth += w == "("

    def scan(i: int, step: int, stop: set) -> int:
        """The first token from i on (by step) that ends what starts at i's level."""
        d = level[i]
        j = i + step
        while 0 <= j < len(tokens) and not (level[j] < d or level[j] == d and (words[j] == "," or words[j] in stop)):
            j += step
        return j
    cuts = []
    for i, w in enumerate(words):
        if w == ",":  # the item before the comma (with it), and the item after it (with the comma)
            j, k = scan(i, -1, _BOUNDS), scan(i, 1, _BOUNDS)
            cuts.append((tokens[j].end() if j >= 0 else 0, tokens[i].end()))
            cuts.append((tokens[i].start(), tokens[k].start() if k < len(tokens) else len(sql)))
        elif w in _CLAUSES:
            k = scan(i, 1, _ENDS)
            while k < len(tokens) and words[k] == ",":  # a comma inside the clause (ORDER BY a, b)
                k = scan(k, 1, _ENDS)
            cuts.append((tokens[i].start(), tokens[k].start() if k < len(tokens) else len(sql)))
    out = set()
    for a, b in cuts:
        left, right = sql[:a].rstrip(), sql[b:].lstrip()
        glue = "" if not left or not right or left[-1] in "(," or right[0] in ")," else " "
        out.add(left + glue + right)
    out.discard(sql)
    return sorted(out, key=len)
