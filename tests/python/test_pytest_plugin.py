"""The pytest plugin (gauntlet/pytest_plugin.py) as a user's suite meets it: examples/pytest pass
against managed servers (shared per options, one test id per option row), a real wrong result fails
its test with the minimal reproducer and mariadb-test-run's test case in the message, and a wrong
marker is an error that says what it takes. The installed package's entry point: test_install.py."""

import os
import subprocess
import sys

from conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO / "python")}


def pytest_run(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "gauntlet.pytest_plugin", "-p", "no:cacheprovider",
                           "-rs", "--basetemp", str(tmp_path / "inner"), *args], cwd=REPO, env=ENV,
                          capture_output=True, text=True)


def test_the_example_suite_passes_with_readable_ids_and_one_server_per_options(tmp_path):
    r = pytest_run(tmp_path, "-v", "examples/pytest")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "9 passed, 1 xfailed" in r.stdout
    assert "test_joins_agree_with_their_partitions_under_every_option_pair[join_cache_level=0," \
           "optimizer_use_condition_selectivity=" in r.stdout
    servers = sorted(p.name for p in (tmp_path / "inner").glob("gauntlet-servers0/server-*"))
    # default (3 tests), div_precision_increment=8, and the covering array's 6 rows
    assert len(servers) == 8, servers


def test_a_real_wrong_result_fails_with_its_minimal_reproducer_in_the_message(tmp_path):
    r = pytest_run(tmp_path, "--runxfail", "-k", "enum", "examples/pytest")
    assert r.returncode == 1, r.stdout[-4000:]
    assert "tlp x1: tlp/norec: IN NOT subquery" in r.stdout
    assert "minimal reproducer: SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)" in r.stdout
    assert "verified by mariadb-test-run" in r.stdout and "--die relation unordered fails" in r.stdout
    assert "CREATE TABLE `t` (" in r.stdout  # the test case itself, with its data


def test_a_marker_with_a_wrong_key_is_an_error_naming_what_it_takes(tmp_path):
    (tmp_path / "test_bad.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.gauntlet_server(options={'x': 1})\n"
        "def test_x(gauntlet_server):\n    pass\n")
    r = pytest_run(tmp_path, str(tmp_path / "test_bad.py"))
    assert r.returncode == 1
    assert "@pytest.mark.gauntlet_server: takes mysqld= and server=, not options" in r.stdout
