"""`pip install --no-build-isolation --no-index .` works offline and gives a complete `gauntlet`:
from a folder outside the checkout it finds its stock grammars, workloads, data spec and known-bugs
catalogue (package data, gauntlet/stock/) by the names the docs use."""

import json
import shutil
import subprocess

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A venv with Gauntlet installed from a copy of the checkout, which is then deleted (nothing
    may come from it), and an empty folder to run in. setup.py's CMake build compiles through
    ccache when it is installed: the objects are then those `make build` compiled."""
    tmp = tmp_path_factory.mktemp("install")
    venv = tmp / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    source = tmp / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns("build*", "_core*.so", ".git", "demo-run", "demo-hunt",
                                                                  "gauntlet-bench", "__pycache__"))
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "."],
                       cwd=source, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    shutil.rmtree(source)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return venv / "bin" / "gauntlet", elsewhere


def gauntlet(installed, *args):
    command, cwd = installed
    return subprocess.run([str(command), *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.slow
def test_offline_pip_install_gives_a_working_command(installed):
    out = gauntlet(installed, "gensql", "--grammar", str(REPO / "grammars" / "optimizer.yy"), "--queries", "3")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == 3
    assert all(line.startswith(("SELECT", "(")) for line in out.stdout.splitlines())


@pytest.mark.slow
def test_the_installed_package_finds_its_stock_grammars_by_the_docs_names(installed):
    stock = [gauntlet(installed, "gensql", "--grammar", name, "--queries", "5", "--seed", "7")
             for name in ("grammars/optimizer.yy", "optimizer.yy", "optimizer")]
    assert all(s.returncode == 0 for s in stock), [s.stderr for s in stock]
    assert stock[0].stdout == stock[1].stdout == stock[2].stdout  # one file, three spellings
    assert stock[0].stdout == subprocess.run(
        ["/usr/bin/python3", "-m", "gauntlet", "gensql", "--grammar", "grammars/optimizer.yy", "--queries", "5",
         "--seed", "7"], cwd=REPO, capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "python")}).stdout
    oltp = gauntlet(installed, "gensql", "--grammar", "grammars/oltp/oltp_common.yy", "--redefine",
                    "grammars/oltp/oltp_point_select.yy", "--queries", "2")
    assert oltp.returncode == 0 and oltp.stdout.startswith("SELECT `c` FROM `sbtest1` WHERE `id` = "), oltp.stderr
    hunt = gauntlet(installed, "gensql", "--grammar", "hunt/json", "--queries", "2")
    assert hunt.returncode == 0 and hunt.stdout.strip(), hunt.stderr
    catalogue = gauntlet(installed, "known-bugs", "list")
    assert catalogue.returncode == 0 and "known bugs of MariaDB 10.11" in catalogue.stdout, catalogue.stderr
    missing = gauntlet(installed, "gensql", "--grammar", "grammars/nosuch.yy", "--queries", "1")
    assert missing.returncode == 2 and "grammars/nosuch.yy" in missing.stderr


@pytest.mark.slow
def test_the_installed_package_runs_and_benches_the_stock_workloads(installed):
    _, cwd = installed
    # A count of queries, not seconds: under make test's load each DML commit's fsync waits behind the
    # other servers' (one CI run did 56 statements in 3 s, against about 1500 alone).
    run = gauntlet(installed, "run", "--grammar", "grammars/hunt/dml.yy", "--data", "random", "--duration", "0",
                   "--queries", "100", "--threads", "2", "--oracle", "errorlog", "--known-bugs",
                   "known-bugs/mariadb-10.11.toml", "--out", "run")
    assert run.returncode in (0, 1), run.stderr[-2000:]
    summary = json.loads((cwd / "run" / "summary.json").read_text())
    assert summary["stop_reason"] == "queries" and summary["statements"] >= 200, summary
    assert summary["outcomes"]["ok"] > summary["statements"] / 2, summary["outcomes"]
    bench = gauntlet(installed, "bench", "--workload", "oltp_point_select", "--duration", "3", "--warmup", "1",
                     "--runs", "2", "--out", "bench")
    assert bench.returncode == 0, bench.stderr[-2000:]
    verdict = json.loads((cwd / "bench" / "verdict.json").read_text())
    assert verdict["format"] >= 1
    runs = (cwd / "bench" / "runs.csv").read_text().splitlines()
    assert len(runs) == 3 and all(line.startswith("default,") for line in runs[1:]), runs


@pytest.mark.slow
def test_the_installed_package_hunts_and_reports_offline(installed):
    """Issue 41's CI front door from a venv outside the checkout: a hunt with its three reports, the
    JUnit valid, the HTML rendered by headless chromium without a request, `report` rebuilding them."""
    from lxml import etree
    from test_reports import _chromium
    _, cwd = installed
    r = gauntlet(installed, "hunt", "--duration", "45", "--out", "D", "--junit", "j.xml", "--markdown", "m.md",
                 "--html", "r.html")
    assert r.returncode in (0, 1), r.stderr[-3000:]
    record = json.loads((cwd / "D" / "hunt.json").read_text())
    assert len(record["rounds"]) >= 2 and record["settings"]["known_bugs"].endswith("mariadb-10.11.toml")
    xsd = subprocess.run([str(installed[0].parent / "python"), "-c", "import gauntlet.reports.junit as j; print(j.XSD)"],
                         capture_output=True, text=True).stdout.strip()
    schema = etree.XMLSchema(etree.parse(xsd))
    junit = etree.parse(str(cwd / "j.xml"))
    assert schema.validate(junit), schema.error_log
    failures = sum(c.find("failure") is not None for c in junit.iter("testcase"))
    assert (failures > 0) == (r.returncode == 1)
    dom, urls, _ = _chromium(cwd / "r.html", cwd, "hunt")
    assert urls == set() and 'data:image/png;base64,' in dom
    assert dom.count('class="cause') == len(record["causes"])
    again = gauntlet(installed, "report", "D", "--junit", "j2.xml", "--markdown", "m2.md")
    assert again.returncode == 0, again.stderr
    names = [[(c.get("classname"), c.get("name")) for c in etree.parse(str(cwd / f)).iter("testcase")]
             for f in ("j.xml", "j2.xml")]
    assert names[0] == names[1]
    assert (cwd / "m2.md").read_text() == (cwd / "m.md").read_text()


@pytest.mark.slow
def test_the_installed_package_brings_its_pytest_plugin_without_p(installed):
    """pytest finds gauntlet_server and gauntlet_run through the package's pytest11 entry point."""
    command, cwd = installed
    shutil.copytree(REPO / "examples" / "pytest", cwd / "suite")
    r = subprocess.run([str(command.parent / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "suite"],
                       cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "9 passed, 1 xfailed" in r.stdout
