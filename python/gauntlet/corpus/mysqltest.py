"""The SQL of a mysqltest file (a mysql-test-run ``.test`` or ``.inc``), as mysqltest reads it: the
statements end at the current delimiter (``delimiter |;`` changes it) outside quotes; a line that
starts with ``--`` outside a statement is one command, ``#`` a comment; a statement whose first
word is a mysqltest command (let, echo, source, connection, if, while, ...) is that command, not
SQL; ``--error``/``error`` makes the next statement one that may fail; the text of ``perl``,
``write_file`` and ``append_file`` blocks and between ``disable_parsing`` and ``enable_parsing``
is no SQL; ``eval``, ``send_eval`` and ``let`` statements need mysqltest's variables and are left
out. ``send X`` and ``query X`` are SQL X."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterator, List, Tuple

# mysqltest's commands (client/mysqltest.cc, command_names), lower-case.
COMMANDS = frozenset("""
connection query connect sleep real_sleep inc dec source disconnect let echo while end system result require
save_master_pos sync_with_master sync_slave_with_master error send reap dirty_close replace_result
replace_column ping eval enable_query_log disable_query_log enable_result_log disable_result_log
enable_connect_log disable_connect_log wait_for_slave_to_stop enable_warnings disable_warnings enable_info
disable_info enable_session_track_info disable_session_track_info enable_metadata disable_metadata
enable_column_names disable_column_names exec execw exec_in_background delimiter disable_abort_on_error
enable_abort_on_error vertical_results horizontal_results query_vertical query_horizontal sorted_result
lowercase_result start_timer end_timer character_set disable_ps_protocol enable_ps_protocol
disable_ps2_protocol enable_ps2_protocol disable_view_protocol enable_view_protocol disable_service_connection
enable_service_connection enable_non_blocking_api disable_non_blocking_api disable_reconnect enable_reconnect
if disable_parsing enable_parsing replace_regex remove_file file_exists write_file copy_file perl die exit skip
chmod append_file cat_file diff_files send_quit change_user mkdir rmdir force-rmdir force-cpdir list_files
list_files_write_file list_files_append_file send_shutdown shutdown_server result_format move_file
remove_files_wildcard copy_files_wildcard send_eval output reset_connection single_query begin_concurrent
end_concurrent enable_prepare_warnings disable_prepare_warnings enable_cursor_protocol disable_cursor_protocol
query_attributes
""".split())
_BLOCK_LINE = re.compile(r"^([{}]|\}?\s*else\s*\{?|(if|while)\s*\(.*\)\s*\{?)$", re.I)
_BLOCKS = {"perl", "write_file", "append_file"}  # their text follows, up to a line "EOF" (or their own end)
_SQL_AFTER = {"send", "query", "query_vertical", "query_horizontal", "single_query"}  # "send SELECT 1"


@dataclasses.dataclass
class TestStatement:
    """A statement of a test: its SQL, whether the test expects it may fail (--error), its line, and the
    errors its --error names (names such as ER_NO_SUCH_TABLE, numbers, SQLSTATEs as S42S02; 0: success)."""
    sql: str
    may_fail: bool
    line: int
    errors: Tuple[str, ...] = ()


def statements(text: str) -> List[TestStatement]:
    """The SQL statements of a mysqltest file's ``text``, in order."""
    return list(_Reader(text).statements())


class _Reader:
    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.delimiter = ";"
        self.expected: Tuple[str, ...] = ()

    def statements(self) -> Iterator[TestStatement]:
        buffer: List[str] = []
        start = 0
        skip_until = None  # a block's end line, or "enable_parsing"
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if skip_until is not None:
                if stripped.lstrip("-").rstrip(";").strip().lower() == skip_until.lower():
                    skip_until = None
                continue
            if not buffer:
                if not stripped or stripped.startswith("#"):
                    continue
                if stripped.startswith("--"):
                    word, _, rest = stripped[2:].strip().partition(" ")
                    if word.lower() in _SQL_AFTER and rest.strip():  # --send SELECT 1
                        yield self._statement(rest.strip().rstrip(";").strip(), number)
                        continue
                    skip_until = self._command(stripped[2:].strip(), dashed=True)
                    continue
                if _BLOCK_LINE.match(stripped):  # "}", "{", "} else {", "if (...) {", "while (...)"
                    continue
                start = number
            buffer.append(line)
            text = "\n".join(buffer)
            while True:
                end = _find_delimiter(text, self.delimiter)
                if end < 0:
                    break
                piece, text = text[:end], text[end + len(self.delimiter):]
                result = self._piece(piece.strip(), start)
                if isinstance(result, TestStatement):
                    yield result
                elif result is not None:  # a block starts: the rest of this line is its text
                    skip_until, text = result, ""
                    break
            # what follows a statement on its line: a comment, or the next statement's start
            buffer = [text] if text.strip() and not re.match(r"\s*(#|--)", text) else []

    def _piece(self, piece: str, line: int):
        """A statement ended by the delimiter: SQL (a TestStatement), a command (None), or a block's end
        line to skip to (str)."""
        piece = re.sub(r"^[{}\s]+", "", piece)  # the braces of if/while blocks
        m = re.match(r"(if|while)\s*\(", piece, re.I)
        if m:  # the condition, then perhaps the block's brace and its first statement
            depth, k = 0, m.end() - 1
            for k in range(m.end() - 1, len(piece)):
                depth += {"(": 1, ")": -1}.get(piece[k], 0)
                if depth == 0:
                    break
            piece = re.sub(r"^[{}\s]+", "", piece[k + 1:])
        if not piece:
            return None
        word = re.match(r"[\w-]+", piece)
        first = word.group(0).lower() if word else ""
        if first in _SQL_AFTER and len(piece) > len(first) and piece[len(first)].isspace():
            piece, first = piece[len(first):].strip(), ""
        elif first in COMMANDS:
            return self._command(piece, dashed=False)
        if not piece:
            return None
        return self._statement(piece, line)

    def _statement(self, sql: str, line: int) -> TestStatement:
        """The statement, with the errors the --error before it expects (which hold for it alone)."""
        errors, self.expected = self.expected, ()
        return TestStatement(sql, any(e != "0" for e in errors), line, errors)

    def _command(self, command: str, dashed: bool):
        """A mysqltest command; returns the line to skip to when it starts a block."""
        word, _, rest = command.partition(" ")
        word = word.rstrip(";").lower()
        rest = rest.strip()
        if dashed:
            rest = rest.rstrip(";").strip() if self.delimiter == ";" else rest
        if word == "error":
            self.expected = tuple(e.strip() for e in rest.split(",") if e.strip())
        elif word == "delimiter" and rest:
            self.delimiter = rest.split()[0]
        elif word in _BLOCKS:
            parts = rest.split()
            return parts[1] if word != "perl" and len(parts) > 1 else parts[0] if word == "perl" and parts else "EOF"
        elif word == "disable_parsing":
            return "enable_parsing"
        return None


def _find_delimiter(text: str, delimiter: str) -> int:
    """Where ``delimiter`` ends a statement in ``text`` (outside quotes and comments), or -1."""
    special = _SPECIAL.get(delimiter) or _SPECIAL.setdefault(
        delimiter, re.compile(r"['\"`]|/\*|" + re.escape(delimiter)))
    k = 0
    while True:
        m = special.search(text, k)
        if m is None:
            return -1
        found = m.group(0)
        if found == delimiter:
            return m.start()
        if found == "/*":
            end = text.find("*/", m.end())
        else:  # past the quoted text: a backslash escapes in strings, a doubled quote stands for itself
            end = m.end()
            while True:
                end = text.find(found, end)
                if end < 0 or found == "`" or not _escaped(text, end, m.end()):
                    break
                end += 1
        if end < 0:
            return -1
        k = end + len(found) if found != "/*" else end + 2


def _escaped(text: str, at: int, start: int) -> bool:
    """The quote at ``at`` follows an odd run of backslashes (after ``start``)."""
    n = 0
    while at - n - 1 >= start and text[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1


_SPECIAL: dict = {}
