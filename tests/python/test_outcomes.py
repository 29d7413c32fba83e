"""Outcomes and findings as they happen in the field: a damaged table, deadlocks between sessions,
and the differential oracle's status and affected-rows comparisons, each with its quiet twin."""

import gauntlet

from conftest import two_targets


def test_a_corrupt_myisam_index_is_a_corruption_finding(tmp_path):
    # Recovery off, so the server reports the damage instead of repairing it on open.
    server = gauntlet.ManagedServer(tmp_path / "server", mysqld=["myisam_recover_options=OFF"]).start()
    try:
        server.connect().query("CREATE DATABASE IF NOT EXISTS test")
        c = server.connect(database="test")
        c.query("CREATE TABLE m (a INT, KEY (a)) ENGINE=MyISAM")
        c.query("INSERT INTO m SELECT seq FROM seq_1_to_2000")
        c.query("FLUSH TABLES")
        grammar = gauntlet.Grammar.from_string("query: SELECT COUNT(*) FROM m WHERE a > _digit ;")
        healthy = gauntlet.run(grammar, threads=2, queries=20, duration=0, data="none", server=server,
                               out=tmp_path / "healthy")
        assert not healthy.findings and healthy.summary()["outcomes"]["ok"] == 40
        c.query("FLUSH TABLES")  # closes the table and empties its key cache before the damage
        index = next((tmp_path / "server").rglob("m.MYI"))
        damaged = bytearray(index.read_bytes())
        for offset in range(1024, len(damaged), 1024):  # every key block's first bytes
            damaged[offset:offset + 8] = b"\xff" * 8
        index.write_bytes(bytes(damaged))
        r = gauntlet.run(grammar, threads=2, queries=20, duration=0, data="none", server=server,
                         out=tmp_path / "damaged")
    finally:
        server.stop()
    s = r.summary()
    assert s["outcomes"]["corruption"] == 40, s["outcomes"]
    assert [(e["code"], e["name"], e["kind"]) for e in s["errors"]] == [(126, "HA_ERR_CRASHED", "corruption")]
    assert [(f["kind"], f["signature"]) for f in r.findings] == [("corruption", "error 126 HA_ERR_CRASHED")]
    assert "Index for table './test/m.MYI' is corrupt" in r.findings[0]["detail"]
    assert r.findings[0]["occurrences"] == 40 and r.exit_code == 1


DEADLOCKS = gauntlet.Grammar.from_string(
    "query_init: CREATE TABLE IF NOT EXISTS d (id INT PRIMARY KEY, v INT) ENGINE=InnoDB ;"
    " INSERT IGNORE INTO d VALUES (1, 0), (2, 0) ;\n"
    "query: START TRANSACTION ; UPDATE d SET v = v + 1 WHERE id = 1 ; DO SLEEP(0.01) ;"
    " UPDATE d SET v = v + 1 WHERE id = 2 ; COMMIT |"
    " START TRANSACTION ; UPDATE d SET v = v + 1 WHERE id = 2 ; DO SLEEP(0.01) ;"
    " UPDATE d SET v = v + 1 WHERE id = 1 ; COMMIT ;\n")


def test_deadlocks_between_sessions_are_outcomes_not_findings(tmp_path):
    r = gauntlet.run(DEADLOCKS, threads=4, queries=40, duration=0, data="none", out=tmp_path / "run",
                     oracles=["crash", "errorlog"])
    s = r.summary()
    assert s["outcomes"]["deadlock"] > 0, s["outcomes"]
    assert {e["code"]: e["kind"] for e in s["errors"]}.get(1213) == "deadlock", s["errors"]
    assert not r.findings and r.exit_code == 0
    # One session alone never deadlocks.
    alone = gauntlet.run(DEADLOCKS, threads=1, queries=40, duration=0, data="none", out=tmp_path / "alone")
    assert alone.summary()["outcomes"]["deadlock"] == 0 and not alone.findings


def _differential(tmp_path, name, grammar, a_mode, b_mode):
    g = gauntlet.Grammar.from_string(grammar)
    return gauntlet.run(g, threads=1, queries=4, duration=0, data="none", out=tmp_path / name,
                        oracles="differential", targets=two_targets({"sql_mode": a_mode}, {"sql_mode": b_mode}))


def test_differential_error_mismatch_when_one_target_refuses(tmp_path):
    grammar = "query_init: CREATE TABLE IF NOT EXISTS s (a INT) ;\nquery: INSERT INTO s VALUES ('x') ;"
    r = _differential(tmp_path, "strict", grammar, "", "STRICT_ALL_TABLES")
    assert [f["kind"] for f in r.findings] == ["error-mismatch"], r.table()
    f = r.findings[0]
    assert f["signature"].startswith("differential: error-mismatch: INSERT INTO")
    assert "a: ok" in f["detail"] and "b: error 1366" in f["detail"], f["detail"]
    # The four statements: the CREATE (passed), the first INSERT (fired), then two INSERTs that are
    # not compared, since the targets' data differ after a diverging write.
    d = r.summary()["oracles"]["differential"]
    assert (d["checked"], d["passed"], d["fired"]) == (4, 1, 1), d
    assert d["skipped_by_reason"] == {"the targets' data differ since an earlier write diverged": 2}, d
    quiet = _differential(tmp_path, "same", grammar, "STRICT_ALL_TABLES", "STRICT_ALL_TABLES")
    assert not quiet.findings and quiet.summary()["oracles"]["differential"]["passed"] == 4


def test_differential_divergence_when_affected_rows_differ(tmp_path):
    # NO_AUTO_VALUE_ON_ZERO on b: the second 0 is a duplicate there (ignored, 0 rows), a new row on a.
    grammar = ("query_init: CREATE TABLE IF NOT EXISTS ai (id INT AUTO_INCREMENT PRIMARY KEY) ;\n"
               "query: INSERT IGNORE INTO ai VALUES (0) ;")
    r = _differential(tmp_path, "zero", grammar, "", "NO_AUTO_VALUE_ON_ZERO")
    assert [f["kind"] for f in r.findings] == ["divergence"], r.table()
    f = r.findings[0]
    assert f["signature"] == "differential: affected rows: INSERT IGNORE INTO _ VALUES (?)", f["signature"]
    assert f["evidence"]["affected_rows"] == {"a": 1, "b": 0}
    quiet = _differential(tmp_path, "same", grammar, "NO_AUTO_VALUE_ON_ZERO", "NO_AUTO_VALUE_ON_ZERO")
    assert not quiet.findings and quiet.summary()["oracles"]["differential"]["passed"] == 4
