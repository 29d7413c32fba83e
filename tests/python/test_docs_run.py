"""The commands of docs/guide/ running.md, hunting.md, oracles.md, python.md, reduction.md and
triage.md, as the pages show them (doc_blocks.py)."""

import json
import subprocess
import sys

import pytest

from conftest import REPO
from doc_blocks import Page, printed_alike, said


def test_generating_without_a_server(tmp_path):
    r = Page("docs/guide/python.md", tmp_path).python("g = gauntlet.Grammar.from_file", then="""
assert fresh.replay(st).text == st.text and len(st.choice_names) > 1
assert g.generator(seed=1).generate(5)[0] in ("SELECT red", "SELECT blue")
""")
    assert r.returncode == 0, said(r)


def test_random_schemas_and_builtin_rules(tmp_path):
    page = Page("docs/guide/hunting.md", tmp_path)
    r = page.python("gauntlet.Schema.random(7)")
    assert r.returncode == 0, said(r)
    r = page.sh("gauntlet gensql --grammar builtin:statements")
    assert r.returncode == 0 and len(r.stdout.strip().splitlines()) == 5, said(r)


def test_the_reach_of_a_run(tmp_path):
    page = Page("docs/guide/hunting.md", tmp_path)
    r = page.sh("gauntlet run --grammar grammars/hunt/dml.yy --data random --duration 20 --out dml-reach")
    assert r.returncode in (0, 1), said(r)
    r = page.sh("gauntlet coverage dml-reach")
    assert r.returncode == 0, said(r)
    rows = {line.split("  ")[0].strip(): line.split()[-3:] for line in r.stdout.splitlines()[2:]
            if not line.startswith(" ")}
    reached, total, _ = rows["functions"]
    assert 0 < int(reached) < int(total) and int(rows["engines"][1]) >= 5, r.stdout
    assert r.stdout.count("unreached:") >= 5, r.stdout


@pytest.mark.slow
def test_hunting_runs(tmp_path):
    page = Page("docs/guide/hunting.md", tmp_path)
    for start, out, oracles in (("gauntlet run --grammar builtin:select", "select", {"tlp", "norec", "transform"}),
                                ("gauntlet run --grammar grammars/hunt/dml.yy", "dml", {"tlp", "norec"})):
        r = page.sh(start)
        assert r.returncode in (0, 1), said(r)
        summary = json.loads((tmp_path / out / "summary.json").read_text())
        assert {name.split(":")[0] for name in summary["oracles"]} >= oracles, summary["oracles"]


@pytest.mark.slow
def test_oracles_on_one_and_two_targets(tmp_path):
    page = Page("docs/guide/oracles.md", tmp_path)
    for start, out, oracle in (("gauntlet run --grammar grammars/optimizer.yy --oracle tlp", "one", "tlp"),
                               ("gauntlet run --grammar grammars/optimizer.yy --target a,div", "two", "differential"),
                               ("gauntlet run --grammar grammars/optimizer.yy --target a,engine", "engines", "timing"),
                               ("gauntlet run --grammar grammars/hunt/optimizer.yy --data random", "known", "norec")):
        r = page.sh(start)
        assert r.returncode in (0, 1), said(r)
        summary = json.loads((tmp_path / out / "summary.json").read_text())
        assert summary["oracles"][oracle]["checked"] + summary["oracles"][oracle]["skipped"] > 0, said(r)
    assert json.loads((tmp_path / "known" / "run.json").read_text())["known_bugs"].endswith("mariadb-10.11.toml")
    r = page.python("with gauntlet.ManagedServer", then="""
assert r.summary()["oracles"]["differential"]["checked"] > 0
assert [t["name"] for t in r.summary()["settings"]["targets"]] == ["a", "b"]
""")
    assert r.returncode == 0, said(r)


@pytest.mark.slow
def test_runs_results_and_servers_from_python(tmp_path):
    r = Page("docs/guide/running.md", tmp_path).python("import gauntlet, signal", then="""
assert r.exit_code in (0, 1) and r.summary()["settings"]["threads"] == 4
assert list(gauntlet.compare(["runs/opt", "runs/bg"]).index) == ["opt", "bg"]
assert s.crash()["signal"] == signal.SIGSEGV, s.crash()
""")
    assert r.returncode == 0, said(r)


@pytest.mark.slow
def test_a_crash_reduced_from_the_command_line_and_from_python(tmp_path):
    page = Page("docs/guide/reduction.md", tmp_path)
    r = page.sh("gauntlet run --grammar examples/tour.yy --threads 4")
    assert r.returncode == 1 and (tmp_path / "run" / "findings" / "0001-crash").is_dir(), said(r)
    r = page.sh("gauntlet reduce run/findings/0001-crash")
    assert r.returncode == 0 and "verified by mariadb-test-run" in r.stdout, said(r)
    r = page.python('grammar = "examples/tour.yy"', then="""
assert reduction.verified and "JSON_EXTRACT" in reduction.test
assert gauntlet.Reduction.load("run/findings/0001-crash").verified
""")
    assert r.returncode == 0, said(r)


def _runs_to_triage(folder):
    """What triage.md's commands read: hunt/ (a folder of run folders) and run1, run2 (README.md's tour)."""
    for out, threads in (("hunt/tour-1", 1), ("hunt/tour-2", 2), ("run1", 1), ("run2", 2)):
        r = subprocess.run([sys.executable, "-m", "gauntlet", "run", "--grammar", str(REPO / "examples" / "tour.yy"),
                            "--threads", str(threads), "--oracle", "tlp", "--out", str(folder / out)],
                           capture_output=True, text=True)
        assert r.returncode == 1, said(r)


@pytest.mark.slow
def test_triage_over_runs(tmp_path):
    page = Page("docs/guide/triage.md", tmp_path)
    _runs_to_triage(tmp_path)
    r = page.sh("gauntlet triage hunt/ ")
    assert r.returncode == 0 and printed_alike(page.shown("35 root causes of"), r.stdout), said(r)
    assert r.stdout.startswith("2 root causes of ") and " findings in 2 run folders" in r.stdout, said(r)
    r = page.sh("gauntlet triage run1 run2 --json")
    assert r.returncode == 0 and json.loads(r.stdout)["root_causes"], said(r)
    r = page.sh("gauntlet triage hunt/ --verify work/")
    assert r.returncode == 0 and "REPRODUCED" in r.stdout, said(r)
    r = page.sh("gauntlet triage hunt/ --known-bugs")  # both causes of the tour are in the catalogue
    assert r.returncode == 0 and "2 known, 0 new" in r.stdout, said(r)
    r = page.python("import gauntlet", then="""
assert repr(t).startswith("<Triage: ") and "NOT IN (SELECT 1" in t.root_causes[0]["minimal"]["sql"]
assert t.new_causes == [] and len(t.to_pandas()) == len(t.root_causes) == 2
""")
    assert r.returncode == 0, said(r)
