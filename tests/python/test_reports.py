"""Reports of hunt, run, campaign and bench folders: JUnit XML that fits the schema CI viewers read,
Markdown with the new causes first, one HTML file that headless chromium renders offline."""

import base64
import io
import json
import re
import shutil
import subprocess
import sys

import pytest
from lxml import etree

import gauntlet
from gauntlet import Grammar
from gauntlet.reports import junit_xml, load_report, markdown, report
from gauntlet.reports.junit import XSD

from conftest import REPO

# A known wrong result of MariaDB 10.11 on a table of its own (TLP finds it in every statement).
PLANTED = """query_init: CREATE TABLE IF NOT EXISTS tv (e ENUM('a','b'), b VARBINARY(0)) ; INSERT INTO tv VALUES ('a', ''), ('b', '') ;
query: SELECT e FROM tv WHERE CAST(IFNULL(' 1', e) AS DATE) = b | SELECT COUNT(*) FROM tv ;
"""
CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports") / "run"
    gauntlet.run(Grammar.from_string(PLANTED), threads=1, duration=3, out=out, oracles="tlp", statement_log=True)
    return out


def schema():
    return etree.XMLSchema(etree.parse(str(XSD)))


def test_a_runs_junit_has_a_case_per_check_and_fails_the_one_that_found_something(run_folder):
    data = junit_xml(load_report(run_folder))
    doc = etree.fromstring(data)
    assert schema().validate(doc), schema().error_log
    cases = {c.get("name"): c for c in doc.iter("testcase")}
    assert {"crash", "tlp"} <= set(cases)
    failure = cases["tlp"].find("failure")
    assert failure is not None and "tlp/norec: temporal" in failure.get("message")
    assert "minimal query: SELECT e FROM tv WHERE CAST(" in failure.text and "finding: findings/" in failure.text
    assert cases["crash"].find("failure") is None and cases["crash"].find("skipped") is None
    assert doc.get("failures") == "1" and doc.get("tests") == str(len(cases))


def test_the_junit_schema_refuses_what_a_viewer_would(run_folder):
    """The schema is a real check: a test case without its name, or two outcomes, do not pass it."""
    doc = etree.fromstring(junit_xml(load_report(run_folder)))
    case = next(doc.iter("testcase"))
    del case.attrib["name"]
    assert not schema().validate(doc)
    doc = etree.fromstring(junit_xml(load_report(run_folder)))
    failing = next(c for c in doc.iter("testcase") if c.find("failure") is not None)
    etree.SubElement(failing, "skipped")
    assert not schema().validate(doc)


def test_a_known_cause_is_a_skipped_case_named_by_its_bug(run_folder, tmp_path):
    known = tmp_path / "known"
    shutil.copytree(run_folder, known)
    causes = json.loads((known / "root_causes.json").read_text())
    triaged = gauntlet.triage(known, known_bugs=REPO / "known-bugs" / "mariadb-10.11.toml")
    (known / "root_causes.json").write_text(json.dumps(triaged.to_json()))
    assert causes["root_causes"]
    doc = etree.fromstring(junit_xml(load_report(known)))
    skipped = [c for c in doc.iter("testcase") if c.find("skipped") is not None]
    assert [c.get("name") for c in skipped] == ["known: temporal-conversion-is-null"]
    assert not [c for c in doc.iter("testcase") if c.find("failure") is not None]


def test_a_report_of_a_run_still_going_shows_what_it_found_so_far(run_folder, tmp_path):
    going = tmp_path / "going"
    shutil.copytree(run_folder, going)
    for name in ("summary.json", "root_causes.json"):
        (going / name).unlink()
    r = load_report(going)
    assert r.running and r.new_causes and r.new_causes[0].key == "tlp/norec: temporal"
    assert "_Still running: what it found so far._" in markdown(r)


def test_markdown_puts_the_new_causes_first_with_their_minimal_query(run_folder):
    text = markdown(load_report(run_folder))
    assert text.startswith(f"### gauntlet run: {run_folder.name}\n")
    assert "**1 new root cause**" in text
    assert "#### 1. tlp" in text and "`tlp/norec: temporal`" in text
    assert "```sql\nSELECT e FROM tv WHERE CAST(e AS DATE) = b\n```" in text


def test_reports_from_the_command_line_and_bad_folders_exit_2(run_folder, tmp_path):
    env = {"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "gauntlet", "report", str(run_folder), "--junit", "j.xml", "--markdown",
                        "m.md", "--html", "r.html"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["report: j.xml", "report: m.md", "report: r.html"]
    assert schema().validate(etree.parse(str(tmp_path / "j.xml")))
    printed = subprocess.run([sys.executable, "-m", "gauntlet", "report", str(run_folder)], capture_output=True,
                             text=True, env=env)
    assert printed.stdout == (tmp_path / "m.md").read_text()
    bad = subprocess.run([sys.executable, "-m", "gauntlet", "report", str(tmp_path)], capture_output=True, text=True,
                         env=env)
    assert bad.returncode == 2 and "not a hunt, run, campaign or bench folder" in bad.stderr


def _chromium(page, tmp_path, name):
    """The DOM headless chromium made of ``page`` (offline: file://), the URLs its network log saw and a
    screenshot."""
    net, shot = tmp_path / f"{name}.net.json", tmp_path / f"{name}.png"
    base = [CHROMIUM, "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--log-net-log={net}"]
    dom = subprocess.run(base + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    subprocess.run(base[:-1] + [f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120)
    urls = set()
    for event in json.loads(net.read_text())["events"]:
        params = event.get("params") or {}
        urls.update(params[k] for k in ("url", "original_url") if k in params)
    return dom, urls, shot


def test_the_html_renders_offline_in_chromium_showing_the_causes_and_a_plot(run_folder, tmp_path):
    import matplotlib.image
    assert CHROMIUM, "needs Debian's chromium-headless-shell (make deps installs it)"
    page = tmp_path / "r.html"
    report(run_folder, html_file=page)
    dom, urls, shot = _chromium(page, tmp_path, "report")
    assert 'id="verdict">1 new root cause<' in dom
    assert 'id="cause-1"' in dom and "tlp/norec: temporal" in dom and "CAST(e AS DATE) = b" in dom
    png = re.search(r'src="data:image/png;base64,([^"]+)"', dom)
    assert png, "no plot"
    pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(png.group(1))), format="png")
    assert pixels.std() > 0.01  # lines on it, not a blank
    assert urls == set(), urls  # nothing requested, not even blocked requests
    shown = matplotlib.image.imread(str(shot))
    assert len({tuple(p) for p in shown.reshape(-1, shown.shape[-1])[::97]}) > 20  # the page painted
    # The check above can see a request: the same page with an outside stylesheet and its policy gone.
    leaky = tmp_path / "leaky.html"
    leaky.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text()).replace(
        "</head>", '<link rel="stylesheet" href="http://127.0.0.1:9/cdn.css"></head>'))
    _, leaked, _ = _chromium(leaky, tmp_path, "leaky")
    assert "http://127.0.0.1:9/cdn.css" in leaked


def test_campaign_and_bench_folders_report_their_rows_and_verdicts(tmp_path):
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    rows = [{"format": 1, "row": 1, "values": {"join_cache_level": 2}, "status": "passed", "seconds": 1.0,
             "started": 0.0},
            {"format": 1, "row": 2, "values": {"join_cache_level": 8}, "status": "invalid", "seconds": 0.5,
             "started": 0.0, "error_lines": "unknown variable"}]
    (campaign / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = etree.fromstring(junit_xml(load_report(campaign)))
    assert [(c.get("name"), c.find("failure") is not None) for c in doc.iter("testcase")] == [
        ("row 1: join_cache_level=2", False), ("row 2: join_cache_level=8", True)]
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "verdict.json").write_text(json.dumps({"format": 1, "baseline": "A", "regressed": True, "verdicts": {
        "B": {"throughput": {"verdict": "regressed", "ratio": 0.8}, "p95_ms": {"verdict": "same", "ratio": 1.0}}}}))
    doc = etree.fromstring(junit_xml(load_report(bench)))
    assert [(c.get("name"), c.find("failure") is not None) for c in doc.iter("testcase")] == [
        ("B throughput", True), ("B p95_ms", False)]
