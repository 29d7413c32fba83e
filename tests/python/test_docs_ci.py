"""docs/guide/ci.md's commands and README.md's main job, as the pages show them (doc_blocks.py)."""

import json
import subprocess
import sys

import pytest

from conftest import OLD, REPO
from doc_blocks import Page, said

pytestmark = pytest.mark.slow
HUNT_CAP = 15  # a hunt's round takes 10 s at least, and a quarter is kept for reproducers


def test_the_main_job(tmp_path):
    page = Page("README.md", tmp_path)
    r = page.sh("make demo", cap=HUNT_CAP, cwd=REPO, env={"DEMO_OUT": str(tmp_path / "demo-hunt")})
    assert r.returncode == 0, said(r)
    record = json.loads((tmp_path / "demo-hunt" / "hunt.json").read_text())
    assert record["rounds"] and record["settings"]["seed"] == 4, said(r)
    # the stock rotation starts with the grammar written from the server's own lists, whatever the seed
    assert record["rounds"][0]["grammar"].endswith("surface.yy") and record["reach"]["statements"] > 0
    for name in ("report.html", "summary.md", "junit.xml", "root_causes.json"):
        assert (tmp_path / "demo-hunt" / name).is_file(), name


def _page(tmp_path, **kw) -> Page:
    return Page("docs/guide/ci.md", tmp_path, **kw)


def test_the_hunt_with_the_stock_grammars_and_with_yours(tmp_path):
    page = _page(tmp_path, links={"my_feature.yy": REPO / "grammars" / "hunt" / "dml.yy",
                                  "space.json": REPO / "examples" / "mariadb_options.json"})
    r = page.sh('gauntlet hunt --duration 30m --out "$CI_ARTIFACTS/hunt"', cap=HUNT_CAP)
    assert r.returncode in (0, 1), said(r)
    assert json.loads((tmp_path / "artifacts" / "hunt" / "hunt.json").read_text())["rounds"]
    r = page.sh("gauntlet hunt --duration 30m --grammar my_feature.yy", cap=HUNT_CAP)
    assert r.returncode in (0, 1), said(r)
    record = json.loads((tmp_path / "artifacts" / "feature-hunt" / "hunt.json").read_text())
    assert record["settings"]["grammars"][0].endswith("/my_feature.yy") and record["settings"]["options"], record["settings"]
    assert record["rounds"][0]["options"] is not None, record["rounds"][0]


def test_a_hunt_over_ci_jobs_and_its_triage(tmp_path):
    page = _page(tmp_path)
    r = page.sh('gauntlet hunt --duration 30m --shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"', cap=HUNT_CAP)
    assert r.returncode in (0, 1), said(r)
    assert json.loads((tmp_path / "hunt-1" / "hunt.json").read_text())["settings"]["shard"] == "1/2"
    r = page.sh("gauntlet triage hunt-*/")
    assert r.returncode in (0, 1) and "root causes" in r.stdout, said(r)


def test_reports_of_a_hunt(tmp_path):
    page = _page(tmp_path)
    r = page.sh("gauntlet hunt --duration 30m --out D --junit D/junit.xml", cap=HUNT_CAP)
    assert r.returncode in (0, 1), said(r)
    assert all((tmp_path / "D" / name).is_file() for name in ("junit.xml", "summary.md", "report.html"))
    r = page.sh("gauntlet report D --html report.html")
    assert r.returncode == 0 and "<html" in (tmp_path / "report.html").read_text()[:500].lower(), said(r)


def test_a_single_keep_going_run(tmp_path):
    r = _page(tmp_path).sh("gauntlet run --grammar grammars/hunt/optimizer.yy --data random --keep-going")
    assert r.returncode in (0, 1), said(r)
    summary = json.loads((tmp_path / "artifacts" / "hunt" / "summary.json").read_text())
    assert summary["settings"]["duration"] == 3 and summary["statements"] > 0
    assert set(summary["oracles"]) >= {"errorlog", "tlp", "norec"}


def test_the_pytest_plugin_page(tmp_path):
    page = _page(tmp_path, links={"joins.yy": REPO / "examples" / "pytest" / "joins.yy"})
    (tmp_path / "test_page.py").write_text(page.text("import pytest"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "gauntlet.pytest_plugin", "-p", "no:cacheprovider",
                        "-q", "test_page.py"], cwd=tmp_path, capture_output=True, text=True, env=page.env, timeout=600)
    assert r.returncode == 1 and "1 failed, 7 passed" in r.stdout, said(r)
    shown = page.output_after("import pytest").splitlines()
    for line in shown[1:4]:
        start = line.split(":")[0] + ":"
        assert line.startswith(start) and any(got.strip().startswith(line.strip().split(" .../")[0])
                                              for got in r.stdout.splitlines()), (line, said(r))


def test_the_last_release_against_the_new_build(release, tmp_path):
    page = _page(tmp_path, replace={"/opt/mariadb-10.11.18": str(release)})
    r = page.sh("examples/two-versions/fetch-mariadb.sh 10.11.18")
    assert r.returncode == 0 and "already unpacked" in r.stdout, said(r)

    r = page.sh("gauntlet run --grammar optimizer.yy --target old=")
    assert r.returncode == 0, said(r)
    assert f"server old: {OLD}-MariaDB" in r.stdout and f"({release}/usr/sbin/mariadbd)" in r.stdout
    assert "server new: 10.11.19-MariaDB" in r.stdout and "oracle differential:" in r.stdout
    variables = json.loads((tmp_path / "diff" / "server_variables-old.json").read_text())
    assert variables["version"].startswith(OLD) and variables["plugin_dir"].startswith(str(release))

    r = page.sh("gauntlet bench --workload oltp_read_write --target old=")
    assert r.returncode in (0, 1), said(r)
    verdict = json.loads((tmp_path / "bench" / "verdict.json").read_text())
    assert verdict["servers"]["old"]["version"].startswith(OLD)
    assert verdict["servers"]["new"]["version"].startswith("10.11.19") and verdict["settings"]["runs"] == 5
    assert f"server old: {OLD}-MariaDB" in r.stdout and "server new: 10.11.19-MariaDB" in r.stdout

    r = page.sh("gauntlet hunt --duration 30m --target new=default", cap=HUNT_CAP)
    assert r.returncode in (0, 1), said(r)
    record = json.loads((tmp_path / "hunt" / "hunt.json").read_text())
    assert [t["name"] for t in record["settings"]["targets"]] == ["new", "old"]
    assert record["servers"]["old"]["version"].startswith(OLD) and "differential" in record["settings"]["oracles"]
    first = json.loads((tmp_path / "hunt" / record["rounds"][0]["folder"] / "summary.json").read_text())
    assert first["oracles"]["differential"]["checked"] > 0
