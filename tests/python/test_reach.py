"""Reach: which of the server's own names a run's statements used, against the lists the server
keeps (information_schema, mysql.help_topic), counted in C++ as the statements run; merged over
folders by `gauntlet coverage` and shown in the HTML report."""

import json
import subprocess
import sys

import gauntlet
import pytest
from gauntlet import _core
from gauntlet.server.surface import Surface, read_surface, topic_sql

from conftest import REPO

TWO_FUNCTIONS = """
query: SELECT ABS(1) | SELECT LEAST(2, 3) | SELECT 'CONCAT(1)' AS `UPPER` | SELEC REVERSE('x') ;
"""

SETTINGS_AND_TABLES = """
query_init: CREATE TABLE reach_t1 (a INT UNSIGNED NOT NULL, b DOUBLE PRECISION DEFAULT 1) ENGINE=Aria ;
query: SET SESSION sort_buffer_size = 262144 | SET @@session.optimizer_search_depth = 3 | SET @user_variable = 1
     | SHOW TABLE STATUS | SELECT COUNT(DISTINCT a) FROM reach_t1 | UPDATE reach_t1 SET a = 1 ;
"""


def _run(tmp_path, name, text, **kw):
    grammar = tmp_path / f"{name}.yy"
    grammar.write_text(text)
    return gauntlet.run(str(grammar), threads=1, queries=40, duration=0, data="none", out=tmp_path / name, **kw)


def test_a_grammar_calling_two_functions_reaches_exactly_those_two(tmp_path):
    r = _run(tmp_path, "two", TWO_FUNCTIONS)
    reach = r.reach
    # the names in strings and quoted names are no calls, and a statement the parser refused used nothing
    assert set(reach.reached("functions")) == {"ABS", "LEAST"}, reach.reached("functions")
    syntax = r.summary()["outcomes"]["syntax"]
    assert syntax > 0 and reach.statements == r.summary()["statements"] - syntax
    assert sum(reach.reached("functions").values()) == reach.statements - reach.reached("keywords").get("AS", 0)
    # totals are the server's own lists
    surface = Surface.read(tmp_path / "two" / "surface.json")
    row = {x["category"]: x for x in reach.categories()}["functions"]
    assert row["total"] == len(surface.names("functions")) >= 250 and row["reached"] == 2
    assert "ABS" not in row["unreached"] and "REVERSE" in row["unreached"]
    assert r.summary()["reach"]["categories"]["functions"]["total"] == row["total"]
    # the HTML report shows the map: a row per category, the unreached names behind it
    gauntlet.report(tmp_path / "two", html_file=str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text()
    assert f"<tr><td>functions</td><td>2</td><td>{row['total']}</td>" in page
    assert "REVERSE" in page.split('id="reach"')[1]


def test_settings_types_engines_and_statements_count_by_their_own_rules(tmp_path):
    reach = _run(tmp_path, "settings", SETTINGS_AND_TABLES).reach
    assert set(reach.reached("session variables")) == {"sort_buffer_size", "optimizer_search_depth"}
    assert set(reach.reached("data types")) == {"INT", "DOUBLE PRECISION"}
    assert {"NOT NULL", "UNSIGNED", "DEFAULT"} <= set(reach.reached("column attributes"))
    assert set(reach.reached("engines")) == {"Aria"}
    topics = reach.reached("help topics")
    assert {"CREATE TABLE", "SET", "SHOW TABLE STATUS", "SELECT", "COUNT DISTINCT", "UPDATE"} <= set(topics)
    assert "SHOW STATUS" not in topics  # SHOW ... STATUS passes no other keyword
    rows = {x["category"]: x for x in reach.categories()}
    assert rows["help: Administration"]["reached"] >= 2 and "help topics" not in rows


def test_a_runs_starting_tables_count_and_coverage_merges_folders(tmp_path):
    spec = tmp_path / "data.json"
    spec.write_text(json.dumps({"tables": [
        {"name": "t1", "rows": 5, "engine": "MyISAM",
         "columns": [{"name": "pk", "type": "INT", "primary": True}, {"name": "d", "type": "DATE"}]}]}))
    grammar = tmp_path / "one.yy"
    grammar.write_text("query: SELECT ABS(pk) FROM t1 ;\n")
    gauntlet.run(str(grammar), threads=1, queries=10, duration=0, data=str(spec), out=tmp_path / "a")
    grammar.write_text("query: SELECT LEAST(pk, 1) FROM t1 ;\n")
    gauntlet.run(str(grammar), threads=1, queries=10, duration=0, data=str(spec), out=tmp_path / "b")
    a = gauntlet.RunResult.load(tmp_path / "a").reach
    assert a.tables == 1 and {"INT", "DATE"} <= set(a.reached("data types")) and "MyISAM" in a.reached("engines")
    both = gauntlet.reach_of(tmp_path / "a", tmp_path / "b")
    assert both.runs == 2 and both.statements == a.statements * 2
    assert {"ABS", "LEAST"} <= set(both.reached("functions"))
    frame = both.to_pandas()
    assert set(frame.columns) == {"category", "name", "statements"}
    assert frame[(frame.category == "functions") & (frame.name == "ABS")].statements.item() == a.statements
    assert len(frame[frame.category == "functions"]) == len(both.surface.names("functions"))
    # the command: the parent folder holds both runs
    p = subprocess.run([sys.executable, "-m", "gauntlet", "coverage", str(tmp_path), "--unreached", "3"],
                       capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert "reach of 2 run(s)" in p.stdout and "unreached:" in p.stdout
    line = next(x for x in p.stdout.splitlines() if x.startswith("functions "))
    assert line.split()[1:3] == [str(len(both.reached("functions"))), str(len(both.surface.names("functions")))]
    j = json.loads(subprocess.run([sys.executable, "-m", "gauntlet", "coverage", str(tmp_path / "a"), "--json"],
                                  capture_output=True, text=True, cwd=REPO).stdout)
    assert j["reach"]["categories"]["functions"]["reached"] == a.reached("functions")


def test_coverage_of_a_folder_without_a_reach_exits_2_naming_it(tmp_path):
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing"):
        p = subprocess.run([sys.executable, "-m", "gauntlet", "coverage", str(folder)], capture_output=True,
                           text=True, cwd=REPO)
        assert p.returncode == 2 and str(folder) in p.stderr, p.stderr


def test_help_topic_names_are_read_as_the_sql_they_name():
    assert topic_sql("AES\\_ENCRYPT") == "AES_ENCRYPT"
    assert topic_sql("USE \\[DATABASE]") == "USE"
    assert topic_sql("INSERT...RETURNING") == "INSERT...RETURNING"
    assert topic_sql("JSON Data Type") == "JSON"
    assert topic_sql("<=>") == "<=>"
    for prose in ("About SHOW", "Joins, Subqueries, and Set", "Addition Operator (+)", "SHOW INNODB STATUS (removed)"):
        assert topic_sql(prose) == "", prose


def test_the_surface_is_the_servers_own_lists(tmp_path):
    with gauntlet.ManagedServer(tmp_path / "s") as s:
        conn = _core.Connection.open(s.connection)
        surface = read_surface(conn)
        count = lambda sql: int(conn.execute(sql)[2][0][0])  # noqa: E731
        assert len(surface.names("functions")) == count("SELECT COUNT(*) FROM information_schema.SQL_FUNCTIONS")
        assert len(surface.names("keywords")) == count("SELECT COUNT(*) FROM information_schema.KEYWORDS")
        assert len(surface.names("session variables")) == count(
            "SELECT COUNT(*) FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_SCOPE LIKE 'SESSION%'")
        assert "InnoDB" in surface.names("engines") and "CREATE TABLE" in surface.help["Data Definition"]
        assert "VARCHAR" in surface.names("data types") and "SET NAMES" not in surface.names("data types")
    assert Surface.from_json(json.loads(surface.dumps())).categories == surface.categories
    assert "functions" in repr(surface)
