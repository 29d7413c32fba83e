"""Data templates you can trust (issue 36): statistics settled after every load, so the same data gives
the same statistics (and plans); templates that record how they were made and are made anew when that
changed; a bounded cache, trimmed least recently used first, that follows XDG_CACHE_HOME."""

import json
import os
import time

import gauntlet
from gauntlet import _core
from gauntlet.cli.main import main as cli_main
from gauntlet.runs import templates

from conftest import REPO

SBTEST = json.loads((REPO / "grammars" / "oltp" / "sbtest.json").read_text())  # 10,000 rows


def _index_stats(server) -> list:
    server.start()
    try:
        return server.connect().query(
            "SELECT table_name, index_name, stat_name, stat_value, sample_size FROM mysql.innodb_index_stats "
            "WHERE database_name = 'sbtest' ORDER BY 1, 2, 3")
    finally:
        server.stop()


def _load(tmp_path, name: str):
    server = gauntlet.ManagedServer(tmp_path / name)
    spec = tmp_path / "sbtest.json"
    spec.write_text(json.dumps(SBTEST))
    r = gauntlet.run(gauntlet.Grammar.from_string("query: SELECT COUNT(*) FROM sbtest1 ;"), server=server,
                     data=str(spec), queries=1, duration=0, out=tmp_path / f"out-{name}", data_template=True)
    return r.summary(), _index_stats(server)


def test_the_same_data_loaded_twice_has_the_same_exact_statistics(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "cache1"))
    first, first_stats = _load(tmp_path, "a")
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "cache2"))  # made again, not copied
    second, second_stats = _load(tmp_path, "b")
    assert "from_template" not in first["load"] and "from_template" not in second["load"]
    # Every page read: the estimate is the row count (it was 48 or 94, from mid-load background stats).
    assert [t["rows_estimate"] for t in first["statistics"]["tables"]] == [10000], first["statistics"]
    assert first["statistics"]["tables"] == second["statistics"]["tables"]
    assert first_stats == second_stats and first_stats, (first_stats, second_stats)
    # From the filled cache: a copy, with the statistics the template recorded and the server has.
    copied, copied_stats = _load(tmp_path, "c")
    assert copied["load"]["from_template"] and copied["statistics"]["tables"] == second["statistics"]["tables"]
    assert copied_stats == second_stats


def test_a_template_made_another_way_is_made_anew(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "cache"))
    g = gauntlet.Grammar.from_string("query: SELECT COUNT(*) FROM t ;")
    spec = tmp_path / "t.json"
    spec.write_text(json.dumps({"tables": [{"name": "t", "rows": 50, "columns": [{"name": "a", "type": "int"}]}]}))
    gauntlet.run(g, data=str(spec), queries=1, duration=0, out=tmp_path / "one", data_template=True)
    [template] = [p for p in (tmp_path / "cache" / "data").iterdir() if p.is_dir()]
    made = json.loads((template / "made.json").read_text())
    assert made["format"] == templates.TEMPLATE_FORMAT and (template / "statistics.json").exists()
    again = gauntlet.run(g, data=str(spec), queries=1, duration=0, out=tmp_path / "two", overwrite=True,
                         data_template=True)
    assert again.summary()["load"]["from_template"] == str(template)
    # An older procedure's template (no settled statistics) at the same place: loaded anew, replaced.
    (template / "made.json").write_text(json.dumps({**made, "format": 1}))
    (template / "statistics.json").unlink()
    third = gauntlet.run(g, data=str(spec), queries=1, duration=0, out=tmp_path / "three", overwrite=True,
                         data_template=True)
    assert "from_template" not in third.summary()["load"] and third.summary()["statistics"]["tables"]
    assert json.loads((template / "made.json").read_text())["format"] == templates.TEMPLATE_FORMAT
    assert (template / "statistics.json").exists()


def _fake_template(root, kind: str, name: str, size: int, used: float):
    path = root / ("data" if kind == "data" else "templates") / name
    (path / "data").mkdir(parents=True)
    (path / "data" / "ibdata1").write_bytes(b"\0" * size)
    (path / "READY").write_text("{}")
    (path / "used").touch()
    os.utime(path / "used", (used, used))
    return path


def test_a_full_cache_drops_the_least_recently_used_and_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("GAUNTLET_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "xdg" / "gauntlet"
    assert _core.template_cache_dir() == str(root) and templates.cache_dir() == root
    now = time.time()
    oldest = _fake_template(root, "data", "a", 400_000, now - 7200)
    old = _fake_template(root, "templates", "b", 400_000, now - 3600)
    recent = _fake_template(root, "data", "c", 400_000, now - 60)  # in use a minute ago: never removed
    assert [e["path"] for e in templates.entries()] == [str(recent), str(old), str(oldest)]
    monkeypatch.setenv("GAUNTLET_CACHE_MAX", "900K")
    assert templates.trim() == [str(oldest)]
    assert not oldest.exists() and old.exists() and recent.exists()
    r = cli_main(["cache", "trim", "--max", "100K"])
    assert r == 0 and not old.exists() and recent.exists()
    assert cli_main(["cache", "list"]) == 0
    assert cli_main(["cache", "clear"]) == 0 and not recent.exists()
