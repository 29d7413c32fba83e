"""Minimisation on the live server (issue 37, part 1): when a relation oracle fires, the query is shrunk
on the same session and data while the relation still fails the same way, and the finding keeps the
smallest form with both sides of the relation, which still show the wrong result when run by hand."""

import collections
import json
import subprocess

import gauntlet
from conftest import two_targets
from planted import HEALTHY, PADDED, steps_grammar as _grammar


def _rows(connection, sql):
    return collections.Counter(tuple(row) for row in connection.query(sql))


def test_a_wrong_result_is_minimised_on_the_live_server_and_still_fails_by_hand(tmp_path):
    with gauntlet.ManagedServer(tmp_path / "server") as server:
        server.connect().query("CREATE DATABASE IF NOT EXISTS test")
        # Each query twice: the second of a signature is not minimised again.
        r = gauntlet.run(_grammar("SET SESSION sort_buffer_size = 262144", PADDED, HEALTHY, PADDED), server=server.dsn,
                         threads=1, queries=1, duration=0, data="none", oracles="tlp", out=tmp_path / "run")
        tlp = [f for f in r.findings if f["kind"] == "tlp"]
        assert len(tlp) == 1 and tlp[0]["statement"] == PADDED and tlp[0]["occurrences"] == 2, r.table()
        m = tlp[0]["minimal"]
        assert m["repeated"] and m["steps"] >= 3 and m["checks"] >= m["steps"] and not m["exhausted"], m
        assert len(m["sql"]) < len(PADDED) * 0.7, m["sql"]
        assert "ALL (SELECT b FROM n)" in m["sql"] and "ORDER BY" not in m["sql"] and "COALESCE" not in m["sql"]
        assert m["rows"]["left"] != m["rows"]["right"] and m["diff"]
        # The folder has it as statements to run by hand; run on the same data they still disagree.
        folder = tmp_path / "run" / "findings" / tlp[0]["id"]
        text = (folder / "minimal.sql").read_text()
        assert m["left"] in text and m["right"] in text
        assert text.index("SET SESSION sort_buffer_size = 262144;") < text.index(m["left"])  # the session's settings
        assert m["sql"] in (folder / "README.txt").read_text()
        c = server.connect(database="test")
        assert _rows(c, m["left"]) != _rows(c, m["right"])
        # It runs alone too: the data it read came with it, and in an empty database the sides still disagree.
        assert m["data"]["tables"] == 2 and m["data"]["rows"] >= 2, m["data"]
        assert "runs alone in an empty database" in (folder / "README.txt").read_text()
        server.connect().query("CREATE DATABASE alone")
        subprocess.run(["mariadb", "--no-defaults", "-uroot", f"--socket={server.socket}", "alone"],
                       input=(folder / "minimal.sql").read_text(), text=True, check=True, capture_output=True)
        alone = server.connect(database="alone")
        assert _rows(alone, m["left"]) != _rows(alone, m["right"])
        # The summary counts the work: one finding minimised, its checks and time.
        counted = r.summary()["oracles"]["tlp"]["minimised"]
        assert counted["findings"] == 1 and counted["checks"] == m["checks"] and counted["exhausted"] == 0
        assert 0 < counted["seconds"] < 60
        # The original stays as it was found.
        assert tlp[0]["evidence"]["left"] != m["left"]
        assert json.loads((folder / "finding.json").read_text())["minimal"] == m


def test_a_healthy_query_is_neither_a_finding_nor_minimised(tmp_path):
    with gauntlet.ManagedServer(tmp_path / "server") as server:
        server.connect().query("CREATE DATABASE IF NOT EXISTS test")
        r = gauntlet.run(_grammar(HEALTHY, "SELECT t2.c FROM t2 WHERE 1 IN (SELECT b FROM n)", HEALTHY), server=server.dsn, threads=1,
                         queries=3, duration=0, data="none", oracles=["tlp", "norec", "transforms"],
                         out=tmp_path / "run")
        assert not r.findings, r.table()
        oracles = r.summary()["oracles"]
        # The relation oracles take turns on the statements: together they passed every checkable one.
        assert sum(o["passed"] for o in oracles.values()) >= 6, oracles
        assert not any("minimised" in o for o in oracles.values()), oracles


def test_a_divergence_between_servers_is_minimised_on_both(tmp_path):
    query = "SELECT t2.a / 3 AS q, t2.c, UPPER(t2.c) AS u FROM t2 WHERE t2.a > 0 AND t2.c IS NOT NULL ORDER BY t2.a"
    r = gauntlet.run(_grammar(query), threads=1, queries=1, duration=0, data="none", oracles="differential",
                     out=tmp_path / "run", targets=two_targets({"div_precision_increment": 4},
                                                               {"div_precision_increment": 12}))
    [f] = [f for f in r.findings if f["kind"] == "divergence"]
    m = f["minimal"]
    assert m["repeated"] and len(m["sql"]) < len(query) / 2, m
    assert "/ 3" in m["sql"] and "UPPER" not in m["sql"] and "ORDER BY" not in m["sql"], m
    assert set(m["only_in_counts"]) == {"a", "b"} and m["diff"], m
    assert r.summary()["oracles"]["differential"]["minimised"]["findings"] == 1
