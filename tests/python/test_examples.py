"""The examples run as shipped."""

import os
import subprocess
import sys

import nbclient
import nbformat
import pytest

from conftest import REPO


def test_quickstart_script(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), str(tmp_path / "run")],
                       env={**os.environ, "PYTHONPATH": str(REPO / "python")}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "RunResult(" in r.stdout and "stopped by duration" in r.stdout


@pytest.mark.slow
def test_quickstart_notebook_runs_from_a_copy_anywhere(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTHONPATH", str(REPO / "python"))
    copy = tmp_path / "quickstart.ipynb"
    copy.write_text((REPO / "examples" / "quickstart.ipynb").read_text())
    nb = nbformat.read(str(copy), as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "Grammar('quickstart.yy'" in text and "RunResult(" in text and "p95_ms" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the timeline plot


@pytest.mark.slow
def test_custom_oracle_example(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "examples" / "custom_oracle.py"), str(tmp_path / "run")],
                       env={**os.environ, "PYTHONPATH": str(REPO / "python")}, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "oracle count-within-table:" in r.stdout and "0 fired" in r.stdout


@pytest.mark.slow
def test_campaign_example(tmp_path):
    """The README's campaign over the MariaDB option model, 1 s a row: every row run, the
    negative row refused by the server, nothing left to run."""
    r = subprocess.run([sys.executable, str(REPO / "examples" / "campaign.py"), str(tmp_path / "out"), "1"],
                       env={**os.environ, "PYTHONPATH": str(REPO / "python")}, capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stdout + r.stderr  # 1: a row found something (a finding, not a failure)
    assert "covering 939 of 939 feasible pairs" in r.stdout
    assert "13/13 rows" in r.stdout and "1 invalid" in r.stdout, r.stdout
    assert "the server refused" in r.stdout and "bogus_method" in r.stdout


@pytest.mark.timing
def test_ab_comparison_notebook(monkeypatch, tmp_path):
    """Two configurations with a known effect: timelines, boxplots, and the verdict improved."""
    monkeypatch.setenv("PYTHONPATH", str(REPO / "python"))
    nb = nbformat.read(str(REPO / "examples" / "ab_comparison.ipynb"), as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", "")) for o in outputs)
    assert "<BenchResult oltp_write_only" in text and "<Verdict throughput: improved" in text, text
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2  # timelines and boxes
