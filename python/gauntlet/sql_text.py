"""SQL read as plain text where no parse is needed: the top-level items of a comma list."""

from __future__ import annotations


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
