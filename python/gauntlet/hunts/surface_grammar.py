"""The surface grammar: a hunting grammar written from what the server says it has, not by hand.

Every function of its SQL_FUNCTIONS is called as its manual page's syntax writes it (optional parts
taken or not, placeholders given columns, literals of every type, NULL and other calls) in every
clause a function may stand in; every settable session variable is set for one statement (SET
STATEMENT ... FOR, so no setting outlives its statement and misleads the oracles) to its minimum,
maximum, default or each of its values; tables are made of every data type its manual lists, at
the sizes its syntax takes, with every column attribute, key, engine and table kind, then written,
read and altered; and the statements of its help pages that a single server runs safely are run as
their syntax writes them. A new server's new names come in without a change here.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

from ..server.surface import COLUMN_ATTRIBUTES, TABLE_KINDS, Surface

# Functions that wait for what a single server never brings (a replication position, a cluster):
# without a timeout they wait until the statement timeout kills them.
_WAITING = {"MASTER_GTID_WAIT", "MASTER_POS_WAIT", "WSREP_SYNC_WAIT_UPTO_GTID", "WSREP_LAST_SEEN_GTID",
            "WSREP_LAST_WRITTEN_GTID"}
# Statements a hunt must not run on its own server: they stop it, end its sessions, write files
# outside its datadir, change the accounts or replication it runs with, or load code into it.
_UNSAFE_STATEMENT = re.compile(
    r"^(SHUTDOWN|KILL|INSTALL|UNINSTALL|BINLOG|CHANGE MASTER|START (SLAVE|REPLICA)|STOP (SLAVE|REPLICA)|"
    r"RESET|PURGE|SET (PASSWORD|GLOBAL|PATH|SQL_LOG_BIN|ROLE|DEFAULT ROLE)|SET$|SET STATEMENT|"
    r"(CREATE|ALTER|DROP|RENAME) (USER|ROLE|SERVER|DATABASE|SCHEMA|TABLESPACE|LOGFILE|EVENT)|GRANT|REVOKE|"
    r"FLUSH|BACKUP|LOAD |SELECT INTO (DUMPFILE|OUTFILE)|CACHE INDEX|HELP|USE|LOCK TABLES|"
    r"UNLOCK TABLES|XA|HANDLER|CREATE (FUNCTION|PROCEDURE|PACKAGE|TRIGGER)|ALTER FUNCTION|DROP (FUNCTION|"
    r"PROCEDURE|PACKAGE|TRIGGER)|CREATE$)")
# Session variables a statement must not set even for itself: it would stop the harness's own
# checks (a kill, a hang) from working, or is not a statement's to set.
_UNSETTABLE = re.compile(r"^(wsrep_|debug|pseudo_|gtid_|sql_log_bin|in_transaction|last_gtid|session_track|"
                         r"proxy_protocol|rand_seed|skip_replication|slave_|replicate_)")
# Where a value of a type's syntax comes from, by the placeholder's words.
_TYPE_PLACEHOLDERS = [(r"microsecond|precision|fsp", "fsp"), (r"^M$|^N$|length", "size"), (r"^D$", "scale"),
                      (r"charset", "_charset_name"), (r"collation", "_collation_name")]
_FUNCTION_PLACEHOLDERS = [(r"\btype\b", "cast_type"), (r"\bunit\b", "interval_unit"),
                          (r"precision|fsp|decimals", "fsp"), (r"charset", "_charset_name"),
                          (r"collation", "_collation_name"), (r"timeout|duration|count|seconds", "pause")]
_STATEMENT_PLACEHOLDERS = [(r"tbl_name|table_name|tbl|\btable\b", "surface_table"), (r"col_name|column", "C1"),
                           (r"view_name", "surface_view"), (r"db_name|schema_name", "_database"),
                           (r"seq|sequence", "surface_sequence"), (r"index_name", "K1"), (r"pattern|wild", "'%'"),
                           (r"expr|condition", "predicate"), (r"count|\bn\b|\bnum", "tiny"),
                           (r"value|str|string|name", "value")]
_INTERVAL_UNITS = ["MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR",
                   "SECOND_MICROSECOND", "MINUTE_SECOND", "HOUR_MINUTE", "DAY_HOUR", "YEAR_MONTH", "DAY_SECOND"]
# How each column attribute (server/surface.py names them) is written in a column definition.
_ATTRIBUTE_SQL = {
    "NOT NULL": "NOT NULL", "NULL": "NULL", "DEFAULT": "DEFAULT value", "ON UPDATE": "ON UPDATE CURRENT_TIMESTAMP",
    "AUTO_INCREMENT": "AUTO_INCREMENT UNIQUE", "ZEROFILL": "ZEROFILL", "UNSIGNED": "UNSIGNED", "SIGNED": "SIGNED",
    "PRIMARY KEY": "PRIMARY KEY", "UNIQUE": "UNIQUE", "COMMENT": "COMMENT 'surface'",
    "COLLATE": "COLLATE _collation_name", "CHARACTER SET": "CHARACTER SET _charset_name", "INVISIBLE": "INVISIBLE",
    "COMPRESSED": "COMPRESSED", "GENERATED ALWAYS": "GENERATED ALWAYS AS ( call ) VIRTUAL",
    "VIRTUAL": "AS ( PK + 1 ) VIRTUAL", "PERSISTENT": "AS ( call ) PERSISTENT", "STORED": "AS ( PK * 2 ) STORED",
    "CHECK": "CHECK ( predicate )", "REFERENCES": "REFERENCES surface_table ( PK )",
    "WITH SYSTEM VERSIONING": "WITH SYSTEM VERSIONING", "WITHOUT SYSTEM VERSIONING": "WITHOUT SYSTEM VERSIONING",
    "COLUMN_FORMAT": "COLUMN_FORMAT DYNAMIC",
}
# How each table kind (server/surface.py names them) is made.
_KIND_SQL = {
    "TEMPORARY TABLE": "CREATE OR REPLACE TEMPORARY TABLE surface_table ( columns ) table_options",
    "CREATE TABLE ... SELECT": "CREATE OR REPLACE TABLE surface_table table_options AS SELECT * FROM _basetable",
    "CREATE TABLE ... LIKE": "CREATE OR REPLACE TABLE surface_table LIKE _basetable",
    "CREATE VIEW": "CREATE OR REPLACE VIEW surface_view AS SELECT * FROM surface_table WHERE predicate",
    "CREATE SEQUENCE": "CREATE OR REPLACE SEQUENCE surface_sequence START WITH tiny INCREMENT BY tiny",
    "PARTITION BY RANGE": "table_head PARTITION BY RANGE ( PK ) ( PARTITION P0 VALUES LESS THAN ( 5 ) , "
                          "PARTITION P1 VALUES LESS THAN MAXVALUE )",
    "PARTITION BY LIST": "table_head PARTITION BY LIST ( PK ) ( PARTITION P0 VALUES IN ( 1 , 2 , 3 ) , "
                         "PARTITION P1 DEFAULT )",
    "PARTITION BY HASH": "table_head PARTITION BY HASH ( PK ) PARTITIONS 3",
    "PARTITION BY KEY": "table_head PARTITION BY KEY ( PK ) PARTITIONS 2",
    "PARTITION BY SYSTEM_TIME": "table_head WITH SYSTEM VERSIONING PARTITION BY SYSTEM_TIME ( PARTITION P0 HISTORY , "
                                "PARTITION PN CURRENT )",
    "SUBPARTITION BY": "table_head PARTITION BY RANGE ( PK ) SUBPARTITION BY HASH ( PK ) SUBPARTITIONS 2 "
                       "( PARTITION P0 VALUES LESS THAN ( 5 ) , PARTITION P1 VALUES LESS THAN MAXVALUE )",
    "WITH SYSTEM VERSIONING": "table_head WITH SYSTEM VERSIONING",
    "PERIOD FOR SYSTEM_TIME": "CREATE OR REPLACE TABLE surface_table ( PK INT NOT NULL PRIMARY KEY , C1 INT , "
                              "RS TIMESTAMP(6) AS ROW START , RE TIMESTAMP(6) AS ROW END , "
                              "PERIOD FOR SYSTEM_TIME ( RS , RE ) ) WITH SYSTEM VERSIONING",
    "ROW_FORMAT = COMPACT": "table_head ROW_FORMAT = COMPACT",
    "ROW_FORMAT = REDUNDANT": "table_head ROW_FORMAT = REDUNDANT",
    "ROW_FORMAT = DYNAMIC": "table_head ROW_FORMAT = DYNAMIC",
    "ROW_FORMAT = COMPRESSED": "table_head ROW_FORMAT = COMPRESSED",
    "ROW_FORMAT = FIXED": "table_head ROW_FORMAT = FIXED", "ROW_FORMAT = PAGE": "table_head ROW_FORMAT = PAGE",
    "PAGE_COMPRESSED": "table_head PAGE_COMPRESSED = 1", "ENCRYPTED": "table_head ENCRYPTED = YES",
}
assert set(_ATTRIBUTE_SQL) == set(COLUMN_ATTRIBUTES) and set(_KIND_SQL) == set(TABLE_KINDS)


class _Syntax:
    """A manual page's syntax as grammar alternatives: [optional], {a | b}, <placeholder>, "..."
    (the repeat: dropped), upper-case words and punctuation as written, other words placeholders,
    each given the rule ``placeholder(words)`` names."""

    _TOKEN = re.compile(r"\.\.\.|'[^']*'|\"[^\"]*\"|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|<=>|!=|<=|>=|<>|\|\||&&|\S")

    def __init__(self, text: str, placeholder):
        self.tokens = self._TOKEN.findall(re.sub(r"/\*.*?\*/", " ", text, flags=re.S))  # the manual's comments
        self.placeholder = placeholder
        self.i = 0

    def alternatives(self, cap: int = 6) -> List[str]:
        forms = self._seq(cap, stop=())
        return [re.sub(r"\s+", " ", f).strip() for f in forms]

    def _seq(self, cap: int, stop: Sequence[str]) -> List[str]:
        forms = [""]
        words: List[str] = []  # a placeholder's words so far

        def flush() -> None:
            # Each word its rule, a run of the same once: "expr unit" is a value and a unit,
            # "microsecond precision" one precision.
            nonlocal forms
            rules = [self.placeholder(w) for w in words]
            rules = [r for k, r in enumerate(rules) if k == 0 or r != rules[k - 1]]
            forms = [f + " " + " ".join(rules) for f in forms] if rules else forms
            words.clear()

        while self.i < len(self.tokens) and self.tokens[self.i] not in stop:
            t = self.tokens[self.i]
            self.i += 1
            if t in ("[", "{"):
                flush()
                closing = "]" if t == "[" else "}"
                choices = [] if t == "{" else [""]
                while True:
                    choices += self._seq(cap, stop=("|", closing))
                    if self.i >= len(self.tokens) or self.tokens[self.i] == closing:
                        self.i += 1
                        break
                    self.i += 1  # past "|"
                forms = _product(forms, choices, cap)
            elif t in ("]", "}", "|"):  # unbalanced in the manual: ignored
                continue
            elif t == "<":  # <placeholder words>, its ">" sometimes left out
                flush()
                while self.i < len(self.tokens) and re.match(r"[A-Za-z_]", self.tokens[self.i]):
                    words.append(self.tokens[self.i])
                    self.i += 1
                if self.i < len(self.tokens) and self.tokens[self.i] == ">":
                    self.i += 1
                flush()
            elif t == "...":
                flush()
                forms = [re.sub(r"\s*,\s*$", "", f) for f in forms]
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t) and not re.fullmatch(r"[A-Z][A-Z0-9_]+", t):
                # a placeholder: lower-case, or one capital (X, N, M)
                words.append(t)
            else:
                flush()
                forms = [f + " " + t for f in forms]
        flush()
        return forms


def _product(forms: List[str], choices: List[str], cap: int) -> List[str]:
    """Each form with each choice, at most ``cap`` of them spread over the whole product."""
    every = [f + " " + c for f in forms for c in choices]
    if len(every) <= cap:
        return every
    step = (len(every) - 1) / (cap - 1)
    return [every[round(k * step)] for k in range(cap)]


def _placeholder(table: list, default: str):
    def rule(words: str) -> str:
        for pattern, name in table:
            if re.search(pattern, words):
                return name
        return default
    return rule


def _forms(name: str, syntax: str) -> List[str]:
    """The forms of ``syntax`` that start with ``name``: a form starts a line (an indented line goes
    on the one before) or follows a comma at the top level ("LOCATE(substr,str), LOCATE(...)")."""
    starts = re.compile(rf"(?:\n(?=\S)|,\s*(?={re.escape(name)}\b))", re.I)
    pieces, depth, start = [], 0, 0
    for k, ch in enumerate(syntax):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth <= 0 and starts.match(syntax, k):
            pieces.append(syntax[start:k])
            start = k + 1
    pieces.append(syntax[start:])
    # a leading optional word before the name ("[NATIONAL] VARCHAR(M)") is left out
    pieces = [re.sub(r"^\s*\[[^]]*\]\s*(?=\w)", "", p) for p in pieces]
    return [p.strip() for p in pieces if re.match(rf"\s*{re.escape(name)}\b", p, re.I)]


def _rule(name: str, alternatives: Sequence[str]) -> str:
    return f"{name}:\n    " + "\n  | ".join(alternatives) + " ;\n"


def _function_rule(name: str, syntax: Optional[str]) -> str:
    """f_NAME: its calls, from its syntax, or with none to four arguments without."""
    placeholder = _placeholder(_FUNCTION_PLACEHOLDERS, "pause" if name in ("SLEEP", "BENCHMARK") else "arg")
    calls: List[str] = []
    for form in _forms(name, syntax or ""):
        for alt in _Syntax(form, placeholder).alternatives():
            alt = re.sub(r"\bOVER\s*\(.*$", "OVER ( window )", alt)  # its window spelled by the builder's rules
            # no space before its parenthesis: the parser's own functions (SQL_FUNCTIONS) want none
            alt = re.sub(rf"^{re.escape(name)}\s+\(", f"{name}(", alt, flags=re.I)
            if "(" in alt and ";" not in alt and alt not in calls:
                calls.append(alt)
    if not calls:
        calls = [f"{name}( " + " , ".join(["arg"] * n) + " )" for n in range(5)]
    return _rule(f"f_{name.lower()}", calls)


def _type_rule(name: str, syntax: Optional[str]) -> List[str]:
    """A data type's forms at the sizes its syntax takes."""
    forms: List[str] = []
    for form in _forms(name, syntax or ""):
        for alt in _Syntax(form, _placeholder(_TYPE_PLACEHOLDERS, "value")).alternatives(cap=4):
            if alt not in forms:
                forms.append(alt)
    return forms or [name, f"{name} ( size )"]  # no syntax: bare, and sized as most types may be


def _value_of(kind: str, value) -> Optional[str]:
    if value is None or value == "":
        return None
    if kind in ("ENUM", "SET", "FLAGSET", "VARCHAR"):
        return "'" + str(value).replace("\\", "\\\\").replace("'", "''") + "'"
    return str(value)


def _variable_rule(name: str, spec: dict) -> Optional[str]:
    """v_NAME: the variable set to its range's ends, its default, or each of its values."""
    kind, values = spec["type"], []
    if kind == "BOOLEAN":
        values = ["0", "1"]
    elif kind in ("ENUM", "SET"):
        values = [_value_of(kind, v) for v in spec["values"]] + ([_value_of(kind, ",".join(spec["values"][:2]))]
                                                                  if kind == "SET" else [])
    elif kind == "FLAGSET":
        values = [_value_of(kind, f"{flag}={state}") for flag in spec["values"] if flag != "default"
                  for state in ("on", "off")]
    else:
        for bound in (spec["min"], spec["max"]):
            if bound is not None and re.fullmatch(r"-?\d+(\.\d+)?", str(bound)):
                values.append(str(bound))
        values += ["tiny"] if kind != "VARCHAR" else []
    default = _value_of(kind, spec.get("default"))
    values = [v for v in dict.fromkeys(values + [default]) if v]
    if not values:
        return None
    return _rule(f"v_{name}", [f"{name.upper()} = {v}" for v in values])


def surface_grammar(surface: Surface) -> str:
    """The grammar's text for ``surface`` (read with details: ``read_surface(conn, details=True)``)."""
    # SQL_FUNCTIONS, and the functions the manual's pages call NAME(...) besides (ST_ and other
    # functions the server resolves by name rather than in its parser)
    named = [t for c in surface.help.values() for t in c
             if re.fullmatch(r"[A-Z][A-Z0-9_]*", t) and re.match(rf"{t}\s*\(", surface.syntax.get(t, ""))]
    functions = [f for f in dict.fromkeys(surface.names("functions") + named) if f not in _WAITING]
    types = surface.names("data types")
    engines = [e for e in surface.names("engines") if e != "PERFORMANCE_SCHEMA"]
    variables = {n: s for n, s in sorted(surface.variables.items()) if not _UNSETTABLE.match(n)}
    statements = [t for c in ("Data Definition", "Data Manipulation", "Administration", "Transactions", "Contents",
                              "Plugins")
                  for t in surface.help.get(c, []) if t in surface.syntax and not _UNSAFE_STATEMENT.match(t)]
    setting_rules = [r for r in (_variable_rule(n, s) for n, s in variables.items()) if r]
    statement_placeholder = _placeholder(_STATEMENT_PLACEHOLDERS, "value")
    statement_forms: Dict[str, List[str]] = {}
    for topic in statements:
        forms = [alt for form in _forms(topic.split()[0], surface.syntax[topic])
                 for alt in _Syntax(form, statement_placeholder).alternatives(cap=3) if ";" not in alt]
        if forms:
            statement_forms[topic] = forms
    parts = [
        f"# The surface grammar of {surface.server}: written by gauntlet from the server's own lists\n"
        "# (gauntlet/hunts/surface_grammar.py); a new server gives a new one.\n"
        "# --threads 2 --statement-timeout 10\n",
        _rule("query", ["call_query ==FACTOR:8==", "setting ==FACTOR:3==", "table_work ==FACTOR:4==",
                        "statement ==FACTOR:2=="]),
        _rule("call_query", [
            "/* _table[invariant] */ SELECT call AS F1 , call AS F2 FROM _table[invariant] LIMIT 5",
            "/* _table[invariant] */ SELECT _field FROM _table[invariant] WHERE call IS NOT NULL LIMIT 5",
            "/* _table[invariant] */ SELECT _field FROM _table[invariant] WHERE _field = call LIMIT 5",
            "/* _table[invariant] */ SELECT call , COUNT(*) FROM _table[invariant] GROUP BY 1 LIMIT 5",
            "/* _table[invariant] */ SELECT _field FROM _table[invariant] ORDER BY call , 1 LIMIT 5",
            "/* _table[invariant] */ SELECT COUNT(*) FROM _table[invariant] HAVING call IS NOT NULL",
            "/* _table[invariant] */ SELECT T1 . _field FROM _table[invariant] AS T1 JOIN _table AS T2 "
            "ON call = T2 . _field LIMIT 5",
            "/* _table[invariant] */ SELECT ( SELECT call FROM _table[invariant] LIMIT 1 ) AS S1",
            "SELECT call", "SELECT call FROM surface_table WHERE predicate",
            "INSERT INTO surface_table ( PK , C1 ) VALUES ( tiny , call ) ON DUPLICATE KEY UPDATE C1 = call",
            "UPDATE surface_table SET C1 = call WHERE PK = tiny",
        ]),
        _rule("call", ["f_" + f.lower() for f in functions]),
        "".join(_function_rule(f, surface.syntax.get(f)) for f in functions),
        _rule("arg", ["_field ==FACTOR:4==", "value ==FACTOR:3==", "NULL", "call", "_expr"]),
        _rule("value", ["_digit", "-1", "0", "_tinyint", "_int", "_bigint", "_bigint_unsigned", "_double",
                        "_decimal(10,2)", "_string(8)", "''", "_english", "_date", "_time", "_datetime",
                        "_timestamp", "_year", "_json(2)", "_jsonpath", "X'00FF'", "-9223372036854775808"]),
        _rule("tiny", ["0", "1", "2", "3"]),
        _rule("pause", ["0", "0.001"]),
        _rule("fsp", ["0", "3", "6"]),
        _rule("size", ["1", "64", "255", "65532"]),
        _rule("scale", ["0", "4", "30"]),
        _rule("cast_type", [t for t in types if re.fullmatch(r"[A-Z0-9_ ]+", t)] + ["SIGNED", "UNSIGNED"]),
        _rule("interval_unit", _INTERVAL_UNITS),
        _rule("window", ["ORDER BY _field", "PARTITION BY _field ORDER BY _field",
                         "ORDER BY _field ROWS BETWEEN 1 PRECEDING AND CURRENT ROW"]),
        _rule("predicate", ["PK > tiny", "C1 IS NOT NULL", "C2 < value", "call IS NULL"]),
        _rule("setting", ["SET STATEMENT setting_list FOR call_query ==FACTOR:3==",
                          "SET STATEMENT setting_list FOR table_work"]),
        _rule("setting_list", ["one_setting", "one_setting , one_setting"]),
        _rule("one_setting", [rule.split(":")[0] for rule in setting_rules]),
        "".join(setting_rules),
        _rule("surface_table", ["SURFACE_T1", "SURFACE_T2", "SURFACE_T3"]),
        _rule("surface_view", ["SURFACE_V1", "SURFACE_V2"]),
        _rule("surface_sequence", ["SURFACE_S1", "SURFACE_S2"]),
        _rule("table_work", ["table_head ==FACTOR:2==", "table_kind",
                             "INSERT IGNORE INTO surface_table ( PK , C1 , C2 ) "
                             "VALUES ( tiny , value , value ) , ( _digit , value , value )",
                             "REPLACE INTO surface_table ( PK , C1 ) SELECT PK + 1 , C2 FROM surface_table",
                             "SELECT * FROM surface_table WHERE predicate ORDER BY C1 , C2",
                             "SELECT C1 , COUNT(*) FROM surface_table GROUP BY C1 WITH ROLLUP",
                             "ALTER TABLE surface_table MODIFY C2 column", "ALTER TABLE surface_table ADD KEY ( C1 )",
                             "ALTER TABLE surface_table ENGINE = engine", "DELETE FROM surface_table WHERE predicate",
                             "DROP TABLE IF EXISTS surface_table"]),
        _rule("table_head", ["CREATE OR REPLACE TABLE surface_table ( columns ) table_options"]),
        _rule("columns", ["PK INT NOT NULL PRIMARY KEY , C1 column , C2 column",
                          "PK INT NOT NULL PRIMARY KEY , C1 column , C2 column , KEY ( C1 ) , KEY ( C2 , C1 )",
                          "PK INT NOT NULL PRIMARY KEY , C1 column , C2 column , UNIQUE ( C2 )"]),
        _rule("column", ["data_type", "data_type attribute", "data_type attribute attribute"]),
        _rule("attribute", list(_ATTRIBUTE_SQL.values())),
        _rule("data_type", [form for t in types for form in _type_rule(t, surface.syntax.get(t))]),
        _rule("engine", [e.upper() for e in engines]),
        _rule("table_options", ["", "ENGINE = engine"]),
        _rule("table_kind", list(_KIND_SQL.values())),
        _rule("statement", [f"st_{k}" for k in range(len(statement_forms))] or ["SELECT 1"]),
        "".join(_rule(f"st_{k}", forms) for k, forms in enumerate(statement_forms.values())),
    ]
    return "\n".join(p if p.endswith("\n") else p + "\n" for p in parts)
