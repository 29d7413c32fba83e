"""The surface grammar: a hunting grammar written from what the server says it has (its functions with
their manual's syntax, its settable session variables with their ranges, its data types, engines,
and statements), so that a hunt's reach follows the server, not a hand-kept list."""

import gauntlet
from gauntlet import _core
from gauntlet.hunts.surface_grammar import surface_grammar
from gauntlet.server.surface import COLUMN_ATTRIBUTES, TABLE_KINDS, Surface, read_surface


def _surface(**extra) -> Surface:
    """A surface as a server would give it, small: what the grammar is written from."""
    s = Surface("test", [
        {"name": "functions", "rule": "call", "names": ["CAST", "DATE_ADD", "NEW_FUNC", "LAG", "MASTER_GTID_WAIT"]},
        {"name": "data types", "rule": "column_type", "names": ["INT", "VARCHAR", "DOUBLE PRECISION"]},
        {"name": "engines", "rule": "engine", "names": ["InnoDB", "PERFORMANCE_SCHEMA"]},
    ], {"Data Definition": ["CREATE INDEX", "DROP DATABASE"]},
        {"CAST": "CAST(expr AS type)", "DATE_ADD": "DATE_ADD(date,INTERVAL expr unit)",
         "NEW_FUNC": "NEW_FUNC(str[, pos [, {BOTH | LEADING}]])",
         "LAG": "LAG (expr[, offset]) OVER ( \n  [ PARTITION BY partition_expression ] \n  < ORDER BY order_list >\n)",
         "VARCHAR": "[NATIONAL] VARCHAR(M) [CHARACTER SET charset_name]", "INT": "INT[(M)] [SIGNED | UNSIGNED]",
         "CREATE INDEX": "CREATE [OR REPLACE] [UNIQUE] INDEX index_name\n    ON tbl_name (index_col_name,...)",
         "DROP DATABASE": "DROP {DATABASE | SCHEMA} [IF EXISTS] db_name"},
        {"new_var": {"type": "BOOLEAN", "min": None, "max": None, "values": ["OFF", "ON"], "default": "OFF"},
         "sort_buffer_size": {"type": "BIGINT UNSIGNED", "min": "1024", "max": "4294967295", "values": [],
                              "default": "2097152"},
         "optimizer_switch": {"type": "FLAGSET", "min": None, "max": None, "values": ["mrr", "default"],
                              "default": "mrr=off"},
         "debug_sync": {"type": "VARCHAR", "min": None, "max": None, "values": [], "default": ""}})
    for k, v in extra.items():
        setattr(s, k, v)
    return s


def test_a_servers_names_come_in_as_its_manual_writes_them():
    text = surface_grammar(_surface())
    g = gauntlet.Grammar.from_string(text)
    assert g.warnings == [], g.warnings
    # a function as its syntax says, its optional parts taken or not, the parser's functions with no space
    assert "CAST( arg AS cast_type )" in text and "DATE_ADD( arg , INTERVAL arg interval_unit )" in text
    assert "NEW_FUNC( arg )" in text and "NEW_FUNC( arg , arg , BOTH )" in text
    assert "LAG( arg , arg ) OVER ( window )" in text
    # a function waiting for a replica a single server never has is left out
    assert "MASTER_GTID_WAIT" not in text
    # variables at their range's ends, default and values; none that the harness needs left alone
    assert "SORT_BUFFER_SIZE = 1024" in text and "SORT_BUFFER_SIZE = 4294967295" in text
    assert "NEW_VAR = 0" in text and "OPTIMIZER_SWITCH = 'mrr=on'" in text and "DEBUG_SYNC" not in text
    # types at their syntax's sizes, with every column attribute and table kind; engines the server can use
    assert "VARCHAR ( size )" in text and "INT ( size ) UNSIGNED" in text and "DOUBLE PRECISION" in text
    assert len(COLUMN_ATTRIBUTES) == 24 and all(k.split()[0] in text for k in TABLE_KINDS)
    assert "ENGINE = engine" in text and "INNODB" in text and "PERFORMANCE_SCHEMA" not in text
    # a statement a hunt may run on its own server, not one that drops a database
    assert "CREATE OR REPLACE UNIQUE INDEX K1 ON surface_table ( C1 )" in text and "DROP DATABASE" not in text
    # the same lists give the same grammar, and so the same statements for a seed
    assert surface_grammar(_surface()) == text
    assert g.generate(20, seed=3) == gauntlet.Grammar.from_string(text).generate(20, seed=3)


def test_the_surface_grammar_reaches_most_of_what_the_server_lists(tmp_path):
    with gauntlet.ManagedServer(tmp_path / "s") as s:
        surface = read_surface(_core.Connection.open(s.connection), details=True)
    grammar = tmp_path / "surface.yy"
    grammar.write_text(surface_grammar(surface))
    assert gauntlet.Grammar.from_file(str(grammar)).warnings == []
    r = gauntlet.run(str(grammar), threads=2, queries=1500, duration=0, data="random:1", oracles=["errorlog"],
                     out=tmp_path / "run")
    summary = r.summary()
    assert summary["stop_reason"] == "queries" and summary["statements"] == 3000, summary["stop_reason"]
    assert summary["outcomes"]["syntax"] < 0.3 * summary["statements"], summary["outcomes"]
    share = {row["category"]: row["share"] for row in r.reach.categories()}
    assert share["functions"] >= 0.9 and share["column attributes"] >= 0.9 and share["table kinds"] >= 0.85, share
    assert share["session variables"] >= 0.75 and share["data types"] >= 0.7, share
