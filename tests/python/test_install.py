"""`pip install --no-build-isolation --no-index .` works offline and gives a `gauntlet` command."""

import shutil
import subprocess

import pytest

from conftest import REPO


@pytest.mark.slow
def test_offline_pip_install_gives_a_working_command(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    source = tmp_path / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns("build*", "_core*.so", ".git"))
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "."],
                       cwd=source, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = subprocess.run([str(venv / "bin" / "gauntlet"), "gensql", "--grammar",
                          str(REPO / "grammars" / "optimizer.yy"), "--queries", "3"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == 3
    assert all(line.startswith(("SELECT", "(")) for line in out.stdout.splitlines())
