"""docs/guide/recovery.md's and replication.md's commands, as the pages show them (doc_blocks.py)."""

import json

import pytest

from conftest import OLD
from doc_blocks import Page, printed_alike, said

pytestmark = pytest.mark.slow
KILLS_CAP = 14  # a kill in the first round of --crash-every 10, and its recovery checked


def _summary(folder):
    return json.loads((folder / "summary.json").read_text())


def test_kills_and_recoveries(tmp_path):
    page = Page("docs/guide/recovery.md", tmp_path)
    for start, out in (("gauntlet run --grammar grammars/hunt/transactions.yy", "xa"),
                       ("gauntlet run --grammar grammars/hunt/recovery.yy", "recovery")):
        r = page.sh(start, cap=KILLS_CAP)
        assert r.returncode in (0, 1), said(r)  # transactions.yy meets a known crash of 10.11 at times
        recovery = _summary(tmp_path / out)["recovery"]
        assert recovery["kills"] + recovery.get("crashes", 0) >= 1 and recovery["recoveries"] >= 1, recovery
    assert printed_alike(page.shown("recovery "), r.stdout.replace("SIGSEGV", "SIGKILL")), said(r)
    assert _summary(tmp_path / "recovery")["recovery"]["signal"] == "SIGSEGV"
    r = page.python("r = gauntlet.run(", cap=KILLS_CAP, then="""
assert r.summary()["recovery"]["kills"] >= 1 and r.exit_code == 0, r.summary()["recovery"]
""")
    assert r.returncode == 0, said(r)


def test_replicas_that_must_agree(release, tmp_path):
    page = Page("docs/guide/replication.md", tmp_path, links={"mariadb-10.11.18": release})
    r = page.sh("gauntlet run --grammar grammars/hunt/replication.yy --replicas 1 --duration 60")
    assert r.returncode == 0, said(r)
    assert _summary(tmp_path / "replica")["replication"]["checkpoints"] >= 1
    r = page.sh("gauntlet run --grammar grammars/hunt/replication.yy --replicas 2", cap=12)
    assert r.returncode == 0, said(r)
    replication = _summary(tmp_path / "replication")["replication"]
    assert replication["replicas"] == 2 and replication["replica_kills"] >= 1, replication
    for start, out in (("gauntlet run --grammar grammars/hunt/replication.yy --replicas 1 --replica-server", "old-replica"),
                       ("gauntlet run --grammar grammars/hunt/replication.yy --replica mariadb", "two-builds")):
        r = page.sh(start)
        assert r.returncode == 0 and "10.11.18-MariaDB" in r.stdout, said(r)
        assert out != "old-replica" or printed_alike(page.shown("replication "), r.stdout), said(r)
        assert _summary(tmp_path / out)["replication"]["tables_compared"] > 0
    # Each replica its own build and options, as summary, run.json and the replica's server.json say.
    assert f"replica-1: {OLD}-MariaDB" in r.stdout and f"({tmp_path}/mariadb-10.11.18/usr/sbin/mariadbd)" in r.stdout
    assert "replica-2: 10.11.19-MariaDB" in r.stdout and "(/usr/sbin/mariadbd)" in r.stdout, said(r)
    each = json.loads((tmp_path / "two-builds" / "run.json").read_text())["replica_each"]
    parallel = ["slave_parallel_threads=4", "slave_parallel_mode=aggressive"]
    assert each == [{"server": "mariadb-10.11.18", "mysqld": []}, {"server": None, "mysqld": parallel}], each
    assert set(parallel) <= set(json.loads((tmp_path / "two-builds" / "replica-2" / "server.json").read_text())["mysqld"])
    r = page.python("r = gauntlet.run(", then="""
assert r.summary()["replication"]["replicas"] == 1 and r.summary()["replication"]["checkpoints"] >= 1
""")
    assert r.returncode == 0, said(r)
    r = page.sh("gauntlet run --grammar grammars/hunt/transactions.yy --oracle recovery", cap=KILLS_CAP)
    assert r.returncode in (0, 1), said(r)
    summary = _summary(tmp_path / "recovery-replica")
    assert summary["recovery"]["recoveries"] >= 1 and summary["replication"]["checkpoints"] >= 1, summary
