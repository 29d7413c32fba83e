"""docs/findings.md's reproducers: each a complete mysql-test-run case, named in the page, and each
doing on the installed server what its header claims (tools/recheck_findings.py, run here whole)."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "findings"
TESTS = sorted(FOLDER.glob("*.test"))


def test_each_reproducer_claims_a_verdict_has_its_result_and_is_listed():
    page = (ROOT / "docs" / "findings.md").read_text()
    assert len(TESTS) >= 20
    for test in TESTS:
        text = test.read_text()
        assert re.search(r'^# claim: (reproduces "[^"]+"|fixed)$', text, re.M), test
        assert test.with_suffix(".result").read_text() == "# fixed\n", test
        assert text.rstrip().endswith("--echo # fixed"), test
        number = test.stem.split("-")[0].rstrip("abc")
        assert f"Item {int(number)} of docs/findings.md" in text or "Found by" in text.splitlines()[0], test
        assert f"`{test.stem}`" in page, f"{test.stem} is not in docs/findings.md's table"


def test_recheck_refuses_an_unknown_reproducer():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "recheck_findings.py"), "99-no-such"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "no such reproducer" in p.stderr and "99-no-such" in p.stderr


@pytest.mark.slow
def test_every_reproducer_does_what_it_claims_on_the_installed_server(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "recheck_findings.py"), "--vardir", str(tmp_path / "var")],
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
    rows = [line.split() for line in p.stdout.splitlines()[1:len(TESTS) + 1]]
    assert [r[0] for r in rows] == [t.stem for t in TESTS]
    assert all(r[1] == r[2] for r in rows), p.stdout
    assert f"{len(TESTS)} of {len(TESTS)} as claimed" in p.stdout
