"""Random schemas (``--data random[:SEED]``) on a real MariaDB: every table is accepted, rows load,
edge values land, and a seed gives the same data every time."""

import gauntlet
from gauntlet import _core


def _load(server, seed):
    conn = _core.Connection.open(server.connection)
    return _core.load_schema(conn, gauntlet.Schema.random(seed)._s, seed, False)


def test_a_hundred_random_schemas_load_without_refusals(tmp_path):
    server = gauntlet.ManagedServer(tmp_path / "server", core_file=False).start()
    try:
        tables = rows = 0
        extremes = set()
        for seed in range(1, 101):
            info = _load(server, seed)
            assert info["warnings"] == [], (seed, info["warnings"][:2])
            assert info["tables"] == len(gauntlet.Schema.random(seed).tables)
            tables += info["tables"]
            rows += info["rows"]
            c = server.connect(database="test")
            for table in gauntlet.Schema.random(seed).tables:
                for col in table.columns:
                    if col.type.startswith(("tinyint NULL", "tinyint NOT NULL", "smallint NULL", "smallint NOT")):
                        extremes.update(v for (v,) in c.query(f"SELECT DISTINCT `{col.name}` FROM `{table.name}`"))
        assert tables > 200 and rows > 5000
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
