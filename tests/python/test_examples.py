"""The examples run as shipped."""

import os
import subprocess
import sys

import nbclient
import nbformat

from conftest import REPO


def test_quickstart_script(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), str(tmp_path / "run")],
                       env={**os.environ, "PYTHONPATH": str(REPO / "python")}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "RunResult(" in r.stdout and "stopped by duration" in r.stdout


def test_quickstart_notebook(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(REPO / "python"))
    nb = nbformat.read(REPO / "examples" / "quickstart.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(REPO / "examples")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "Grammar('optimizer.yy'" in text and "RunResult(" in text and "p95_ms" in text
