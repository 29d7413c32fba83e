"""Random schemas (``--data random[:SEED]``) on a real MariaDB: every table is accepted, rows load,
edge values land, and a seed gives the same data every time."""

import gauntlet
import pytest
from gauntlet import _core


def _load(server, seed):
    conn = _core.Connection.open(server.connection)
    return _core.load_schema(conn, gauntlet.Schema.random(seed)._s, seed, False)


@pytest.mark.slow
def test_a_hundred_random_schemas_load_without_refusals(tmp_path):
    server = gauntlet.ManagedServer(tmp_path / "server", core_file=False).start()
    try:
        tables = rows = views = 0
        extremes = set()
        for seed in range(1, 101):
            info = _load(server, seed)
            # As the query builder sees the schema: a view is bounded by its database's largest table.
            seen = _core.introspect_schema(_core.Connection.open(server.connection), ["test"]).tables
            for v in (t for t in seen if t.view):
                assert v.rows == max(t.rows for t in seen if not t.view), (seed, v.name, v.rows)
                views += v.rows > 0
            assert info["warnings"] == [], (seed, info["warnings"][:2])
            assert info["tables"] == len(gauntlet.Schema.random(seed).tables)
            tables += info["tables"]
            rows += info["rows"]
            c = server.connect(database="test")
            for table in gauntlet.Schema.random(seed).tables:
                for col in table.columns:
                    if col.type.startswith(("tinyint NULL", "tinyint NOT NULL", "smallint NULL", "smallint NOT")):
                        extremes.update(v for (v,) in c.query(f"SELECT DISTINCT `{col.name}` FROM `{table.name}`"))
        assert tables > 200 and rows > 5000 and views > 20
        # The pools' edges: minimum and maximum (and values beyond them, clipped to them), -0 as 0.
        assert {-128, 127, -32768, 32767, 0, 1, -1} <= extremes, sorted(extremes)[:20]
    finally:
        server.stop()


def test_same_seed_same_data_and_a_run_on_it(tmp_path):
    server = gauntlet.ManagedServer(tmp_path / "server", core_file=False).start()
    try:
        sums = []
        for _ in range(2):
            _load(server, 7)
            c = server.connect(database="test")
            names = ", ".join(t.name for t in gauntlet.Schema.random(7).tables)
            sums.append(c.query(f"CHECKSUM TABLE {names}"))
        assert sums[0] == sums[1]
    finally:
        server.stop()
    # _field names a column of the table _table drew last: the table comes first.
    g = gauntlet.Grammar.from_string("query: SELECT COUNT(*) FROM _table WHERE _field IS NOT NULL | "
                                     "SELECT COUNT(*) FROM _table ;")
    r = gauntlet.run(g, data="random:7", threads=2, queries=100, duration=0, out=tmp_path / "run",
                     oracles="tlp,norec")
    s = r.summary()
    assert s["settings"]["data"] == "random:7" and s["load"]["warnings"] == []
    assert s["outcomes"]["ok"] == s["statements"] and not r.findings, r.table()
    assert s["oracles"]["norec"]["passed"] > 20


def test_temporary_twins_hide_their_base_tables_from_every_session(tmp_path):
    spec = gauntlet.Schema.random(3)
    twins = [t.name for t in spec.tables if t.temporary]
    assert twins == ["t1", "t3"]
    server = gauntlet.ManagedServer(tmp_path / "server", core_file=False).start()
    try:
        g = gauntlet.Grammar.from_string("query: DELETE FROM t1 | DELETE FROM t3 | SELECT COUNT(*) FROM t1 ;")
        r = gauntlet.run(g, data=spec, server=server, threads=3, queries=20, duration=0, out=tmp_path / "run")
        assert r.summary()["outcomes"]["ok"] == r.summary()["statements"] == 60, r.table()
        # Each session deleted from its own TEMPORARY copies; the base tables keep their rows.
        c = server.connect(database="test")
        for name in twins:
            rows = next(t.rows for t in spec.tables if t.name == name)
            assert c.query(f"SELECT COUNT(*) FROM `{name}`") == [(rows,)], name
    finally:
        server.stop()
