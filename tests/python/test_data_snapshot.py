"""A finding's data snapshot (oracle/data_snapshot.h): the tables and views a minimal query reads,
recreated in an empty database, give back the same stored values (every kind of column whose text
form does not round-trip on its own included), and a query over too much data gets none, saying why."""

import pytest

import gauntlet
from gauntlet import _core

TYPES = """CREATE TABLE every (
  id INT PRIMARY KEY AUTO_INCREMENT, bits BIT(5), f FLOAT, d DOUBLE, m DECIMAL(30, 10), b VARBINARY(8),
  bl BLOB, g GEOMETRY, ts TIMESTAMP(6) NULL, tz TIMESTAMP NULL, e ENUM('a', 'b'), s SET('x', 'y'), j JSON,
  i6 INET6, t TEXT, l1 VARCHAR(10) CHARACTER SET latin1, dt DATETIME(3), tm TIME, y YEAR,
  gen INT AS (id * 2) VIRTUAL, hidden INT INVISIBLE, u BIGINT UNSIGNED, a7 VARCHAR(5) CHARACTER SET ascii)"""
ROWS = [
    "INSERT INTO every (id, bits, f, d, m, b, bl, g, ts, tz, e, s, j, i6, t, l1, dt, tm, y, hidden, u, a7) VALUES "
    "(0, b'10101', 3.4028234e38, 0.1, -12345678901234567890.0123456789, X'00FF27', X'5C00', ST_GeomFromText('POINT(1 2)'),"
    " '2024-03-10 02:30:00.123456', '0000-00-00 00:00:00', '', 'x,y', '{\"k\": [1, \"\\\\u00e9\"]}', '::1',"
    " 'it''s \\\\ a \\0 test; ok', 'caf\u00e9', '2024-02-29 23:59:59.999', '-838:59:59', 2155, 7, 18446744073709551615, 'a''b')",
    "INSERT INTO every (f, d) VALUES (1.17549435e-38, -1.7976931348623157e308), (NULL, NULL)",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with gauntlet.ManagedServer(tmp_path_factory.mktemp("snapshot") / "server") as s:
        c = s.connect()
        c.query("SET SESSION sql_mode = ''")
        c.query("CREATE DATABASE src")
        yield s


def _values(server, db, sql):
    return server.connect(database=db).query(sql)


def test_every_kind_of_column_comes_back_as_it_was_stored(server):
    c = _core.Connection.open(_params(server, "src"))
    for sql in ["SET SESSION sql_mode = ''", TYPES, *ROWS,
                "CREATE TABLE other (k INT, v VARCHAR(3))", "INSERT INTO other VALUES (1, 'a'), (2, NULL)",
                "CREATE VIEW vo AS SELECT k, v FROM other WHERE k > 0",
                "CREATE TEMPORARY TABLE tmp (z INT)", "INSERT INTO tmp VALUES (5)"]:
        assert not c.execute(sql, False)[0].get("error_code"), sql
    query = "SELECT every.id, vo.v, `tmp`.z FROM every JOIN vo ON every.id < vo.k, src.tmp WHERE every.f > 0"
    # A session's sql_mode does not change how the definitions read, and is its own again after.
    c.execute("SET SESSION sql_mode = 'ANSI_QUOTES'", False)
    snap = _core.snapshot_data(c, query)
    assert c.execute("SELECT @@sql_mode")[2] == [("ANSI_QUOTES",)]
    assert snap["tables"] == 3 and snap["views"] == 1 and snap["rows"] == 3 + 2 + 1, snap
    text = ";\n".join(snap["statements"])
    assert "CREATE TEMPORARY TABLE `tmp`" in text and '"' not in text.split("VALUES")[0] and "DEFINER" not in text and "`src`." not in text, text
    assert text.index("CREATE TABLE `other`") < text.index("VIEW `vo`")  # what a view reads comes first
    assert "ANALYZE TABLE `every`, `other` PERSISTENT FOR ALL" in text  # the base tables, as a load settles them
    # The same data in another database, through the statements alone, on a connection of its own.
    server.connect().query("CREATE DATABASE copy")
    d = _core.Connection.open(_params(server, "copy"))
    for sql in snap["statements"]:
        outcome, _, _ = d.execute(sql, False)
        assert not outcome.get("error_code"), (sql, outcome)
    # Every stored value, as exact as the server can show it: FLOAT through DOUBLE, the rest as bytes.
    exact = ("SELECT id, HEX(bits), CAST(f AS DOUBLE), d, m, HEX(b), HEX(bl), ST_AsText(g), ts, tz, e, s, j, i6,"
             " HEX(t), HEX(l1), dt, tm, y, gen, hidden, u, a7 FROM {} ORDER BY id")
    stored = c.execute(exact.format("every"))[2]
    assert len(stored) == 3 and stored == d.execute(exact.format("every"))[2]
    assert c.execute("SELECT * FROM vo ORDER BY k")[2] == d.execute("SELECT * FROM vo ORDER BY k")[2]
    assert d.execute("SELECT z FROM tmp")[2] == [("5",)]
    # The loading session's settings are back to the server's.
    assert d.execute("SELECT @@sql_mode = @@global.sql_mode, @@foreign_key_checks")[2] == [("1", "1")]


def test_too_much_data_or_a_sequence_gives_no_snapshot_and_says_why(server):
    c = _core.Connection.open(_params(server, "src"))
    c.execute("CREATE TABLE big AS SELECT seq FROM seq_1_to_50", False)
    c.execute("CREATE SEQUENCE sq", False)
    assert _core.snapshot_data(c, "SELECT seq FROM big", max_rows=49) == {
        "missing": "the query reads more than 49 rows"}
    assert _core.snapshot_data(c, "SELECT seq FROM big", max_rows=50)["rows"] == 50
    assert _core.snapshot_data(c, "SELECT * FROM sq") == {"missing": "the query reads sequence `sq`"}
    # A query of no table needs no data, only the session's character set for its literals.
    c.execute("SET NAMES utf8mb4", False)
    c.execute("SET collation_connection = latin1_german2_ci, character_set_results = NULL", False)
    assert _core.snapshot_data(c, "SELECT 'a' = 'A' AS same") == {
        "statements": ["SET SESSION character_set_client = 'utf8mb4', collation_connection = 'latin1_german2_ci', "
                       "character_set_results = NULL"], "tables": 0, "views": 0, "rows": 0}
    assert c.execute("SELECT @@character_set_results IS NULL, @@collation_connection")[2] == [("1", "latin1_german2_ci")]


def _params(server, db):
    p = server.connection
    p.database = db
    return p
