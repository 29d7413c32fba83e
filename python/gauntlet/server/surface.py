"""A server's SQL surface: the names it says it has, from its own lists, by category, each with the
rule by which a statement uses one (``cpp/sql/reach.h``). A run counts which of them its statements
used (summary.json's ``reach``); ``gauntlet coverage`` shows what was reached against these totals.

The lists: ``information_schema.SQL_FUNCTIONS`` (functions), ``KEYWORDS``, ``mysql.help_topic`` by
``help_category`` (statements, clauses, operators and functions as the manual names them; the
pages whose name is prose are no SQL to reach and are left out), the data types of its "Data
Types" help pages, ``SYSTEM_VARIABLES`` that a session can set, ``ENGINES`` it supports. Column
attributes and table kinds have no list in the server; theirs are below, from its CREATE TABLE
manual page."""

from __future__ import annotations

import json
import pathlib
import re
from dataclasses import dataclass, field
from typing import Dict, List

from .. import _core
from ..formats import stamped

# What a column definition may say after its type (MariaDB's CREATE TABLE, column_definition).
COLUMN_ATTRIBUTES = ["NOT NULL", "NULL", "DEFAULT", "ON UPDATE", "AUTO_INCREMENT", "ZEROFILL", "UNSIGNED", "SIGNED",
                     "PRIMARY KEY", "UNIQUE", "COMMENT", "COLLATE", "CHARACTER SET", "INVISIBLE", "COMPRESSED",
                     "GENERATED ALWAYS", "VIRTUAL", "PERSISTENT", "STORED", "CHECK", "REFERENCES",
                     "WITH SYSTEM VERSIONING", "WITHOUT SYSTEM VERSIONING", "COLUMN_FORMAT"]
# The kinds of table a statement can make, besides its engine (ENGINES).
TABLE_KINDS = ["TEMPORARY TABLE", "CREATE TABLE ... SELECT", "CREATE TABLE ... LIKE", "CREATE VIEW", "CREATE SEQUENCE",
               "PARTITION BY RANGE", "PARTITION BY LIST", "PARTITION BY HASH", "PARTITION BY KEY",
               "PARTITION BY SYSTEM_TIME", "SUBPARTITION BY", "WITH SYSTEM VERSIONING", "PERIOD FOR SYSTEM_TIME",
               "ROW_FORMAT = COMPACT", "ROW_FORMAT = REDUNDANT", "ROW_FORMAT = DYNAMIC", "ROW_FORMAT = COMPRESSED",
               "ROW_FORMAT = FIXED", "ROW_FORMAT = PAGE", "PAGE_COMPRESSED", "ENCRYPTED"]
# Help pages of "Data Types" that name no column type: statements and attributes the category also holds,
# and the stored programs' type references.
_NOT_COLUMN_TYPES = re.compile(r"^(SET |AUTO_INCREMENT|ROW|TYPE OF)")
# A help topic's name that is SQL: upper-case words, numbers, operators, "..." where anything may stand.
_SQL_NAME = re.compile(r"[A-Z0-9_=!<>&|:.* ]+")


def topic_sql(name: str) -> str:
    """The SQL a help topic's name stands for ("" for a page whose name is prose): the manual's
    escapes and optional parts dropped, "X Data Type" as X."""
    name = re.sub(r"\s*\[[^]]*\]", "", name.replace("\\", "")).strip()
    name = re.sub(r"^([A-Z0-9_]+) Data Type$", r"\1", name)
    return name if _SQL_NAME.fullmatch(name) and re.search(r"[A-Z=!<>&|]", name) else ""


@dataclass
class Surface:
    """The server's lists: ``categories`` as the run counts them ({name, rule, names}), and the help
    topics that are SQL by help category (``help``). Read with ``details``, also what a grammar
    needs to use them (what a run's count does not): ``syntax``, each help topic's syntax lines as
    its manual page gives them, and ``variables``, each session variable's type, range, values
    and whether it is read-only."""
    server: str
    categories: List[dict]
    help: Dict[str, List[str]] = field(default_factory=dict)
    syntax: Dict[str, str] = field(default_factory=dict)
    variables: Dict[str, dict] = field(default_factory=dict)

    def names(self, category: str) -> List[str]:
        for c in self.categories:
            if c["name"] == category:
                return c["names"]
        raise KeyError(category)

    def index(self) -> "_core.ReachIndex":
        """The names indexed for counting (RunOptions.reach, _core.tally_reach)."""
        return _core.ReachIndex(self.categories)

    def to_json(self) -> dict:
        j = {"server": self.server, "categories": self.categories, "help": self.help}
        if self.syntax or self.variables:
            j.update(syntax=self.syntax, variables=self.variables)
        return j

    def dumps(self) -> str:
        """The text of a folder's surface.json."""
        return json.dumps(stamped("surface", self.to_json()), indent=1) + "\n"

    @classmethod
    def from_json(cls, j: dict) -> "Surface":
        return cls(j["server"], j["categories"], j.get("help", {}), j.get("syntax", {}), j.get("variables", {}))

    @classmethod
    def read(cls, path) -> "Surface":
        """A run folder's surface.json."""
        return cls.from_json(json.loads(pathlib.Path(path).read_text()))

    def __repr__(self) -> str:
        counts = ", ".join(f"{c['name']} {len(c['names'])}" for c in self.categories)
        return f"Surface({self.server}: {counts}; {len(self.help)} help categories)"


def _column(conn, sql: str, optional: bool = False) -> list:
    """The rows of ``sql``; with ``optional``, none when the server lacks the table (a list that
    MySQL, say, does not keep)."""
    outcome, _, rows = conn.execute(sql)
    if outcome["kind"] != "ok":
        if optional and outcome["error_code"] in (1109, 1146):  # unknown table (information_schema's, or mysql's)
            return []
        raise _core.GauntletError(f"{sql}: error {outcome['error_code']}: {outcome['message']}")
    return rows


def _unique(names) -> list:
    return list(dict.fromkeys(n for n in names if n))


def read_surface(conn, details: bool = False) -> Surface:
    """The surface of the server behind ``conn`` (a _core.Connection); ``details``: with the topics'
    syntax and the variables' ranges."""
    version = _column(conn, "SELECT VERSION()")[0][0]
    functions = [r[0] for r in _column(conn, "SELECT FUNCTION FROM information_schema.SQL_FUNCTIONS", True)]
    keywords = [r[0] for r in _column(conn, "SELECT WORD FROM information_schema.KEYWORDS", True)]
    variables = [r[0].lower() for r in _column(
        conn, "SELECT VARIABLE_NAME FROM information_schema.SYSTEM_VARIABLES "
              "WHERE VARIABLE_SCOPE IN ('SESSION', 'SESSION ONLY') ORDER BY VARIABLE_NAME")]
    engines = [r[0] for r in _column(conn, "SELECT ENGINE FROM information_schema.ENGINES "
                                           "WHERE SUPPORT IN ('YES', 'DEFAULT') ORDER BY ENGINE")]
    help: Dict[str, List[str]] = {}
    for category, topic in _column(conn, "SELECT c.name, t.name FROM mysql.help_topic t JOIN mysql.help_category c "
                                         "USING (help_category_id) ORDER BY c.name, t.name", True):
        help.setdefault(category, [])
        sql = topic_sql(topic)
        if sql and sql not in help[category]:
            help[category].append(sql)
    types = _unique(t for t in help.get("Data Types", []) if not _NOT_COLUMN_TYPES.match(t))
    topics = _unique(t for names in help.values() for t in names)
    surface = Surface(version, [], help)
    if details:
        surface.syntax, surface.variables = _syntax(conn), _variables(conn)
    categories = [
        {"name": "functions", "rule": "call", "names": _unique(functions)},
        {"name": "help topics", "rule": "phrase", "names": topics},
        {"name": "data types", "rule": "column_type", "names": types},
        {"name": "column attributes", "rule": "column_attribute", "names": COLUMN_ATTRIBUTES},
        {"name": "table kinds", "rule": "phrase", "names": TABLE_KINDS},
        {"name": "engines", "rule": "engine", "names": engines},
        {"name": "session variables", "rule": "set_variable", "names": _unique(variables)},
        {"name": "keywords", "rule": "word", "names": _unique(keywords)},
    ]
    surface.categories = [c for c in categories if c["names"]]
    return surface


def _syntax(conn) -> Dict[str, str]:
    """Each help topic's syntax (the lines under its page's "Syntax" heading), by topic as topic_sql
    names it."""
    found: Dict[str, str] = {}
    for name, description in _column(conn, "SELECT name, description FROM mysql.help_topic "
                                           "WHERE description LIKE 'Syntax%' ORDER BY name", True):
        m = re.match(r"Syntax\s*\n-+\s*\n(.*?)(\n\s*\n|$)", description, re.S)
        sql = topic_sql(name)
        if m and sql:
            found.setdefault(sql, m.group(1).strip())
    return found


def _variables(conn) -> Dict[str, dict]:
    """The session variables a session can set: type, min, max, values (ENUM, SET, BOOLEAN, FLAGSET),
    default."""
    rows = _column(conn, "SELECT VARIABLE_NAME, VARIABLE_TYPE, NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, "
                         "ENUM_VALUE_LIST, DEFAULT_VALUE FROM information_schema.SYSTEM_VARIABLES "
                         "WHERE VARIABLE_SCOPE IN ('SESSION', 'SESSION ONLY') AND READ_ONLY = 'NO' "
                         "ORDER BY VARIABLE_NAME", True)
    return {name.lower(): {"type": kind, "min": low, "max": high,
                           "values": values.split(",") if values else [], "default": default}
            for name, kind, low, high, values, default in rows}


def table_definitions(conn, databases) -> List[str]:
    """SHOW CREATE TABLE of every base table of ``databases``: the tables a run starts with, whose
    types, attributes, engines and kinds count in its reach like its statements do."""
    if not databases:
        return []
    listed = ", ".join("'" + d.replace("\\", "\\\\").replace("'", "''") + "'" for d in databases)
    tables = _column(conn, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA IN "
                           f"({listed}) AND TABLE_TYPE IN ('BASE TABLE', 'SEQUENCE') ORDER BY 1, 2")
    quote = lambda name: "`" + name.replace("`", "``") + "`"  # noqa: E731
    return [_column(conn, f"SHOW CREATE TABLE {quote(db)}.{quote(table)}")[0][1] for db, table in tables]
