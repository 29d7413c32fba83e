"""A server from a folder (ServerTree): an unpacked server's binary, messages, character sets and plugins
found in it, the server told where they are, and every target's version in the summary.

The fast tests build a `dpkg -x` layout of links to the installed 10.11.19's files (so the bootstrapped
template is shared); tests/python/test_docs_ci.py runs Debian's real 10.11.18, fetched by the example
script, against it as docs/guide/ci.md shows."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO, check_output_files
from gauntlet import ManagedServer
from gauntlet.server import Connection, server_binary

ENV = {**os.environ, "PYTHONPATH": str(REPO / "python")}


def gauntlet(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gauntlet", *args], capture_output=True, text=True, env=ENV, cwd=cwd)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> pathlib.Path:
    """Debian's packages as dpkg -x unpacks them (usr/sbin, usr/bin, usr/share/mysql, usr/lib/mysql/plugin)."""
    root = tmp_path_factory.mktemp("unpacked")
    for rel, target in (("usr/sbin/mariadbd", "/usr/sbin/mariadbd"),
                        ("usr/bin/mariadb-install-db", "/usr/bin/mariadb-install-db"),
                        ("usr/bin/my_print_defaults", "/usr/bin/my_print_defaults"),
                        ("usr/share/mysql", "/usr/share/mysql"),
                        ("usr/lib/mysql/plugin", "/usr/lib/mysql/plugin")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).symlink_to(target)
    return root


def test_a_folder_is_found_and_its_server_is_pointed_at_its_files(tree, tmp_path):
    assert server_binary(str(tree)) == str(tree / "usr/sbin/mariadbd")
    assert server_binary("default") == "/usr/sbin/mariadbd"
    with ManagedServer(tmp_path / "s", binary=str(tree)) as s:
        assert s.binary == str(tree / "usr/sbin/mariadbd")
        row = Connection(s).query("SELECT @@basedir, @@lc_messages_dir, @@character_sets_dir, @@plugin_dir")[0]
    usr = tree / "usr"
    assert [x.rstrip("/") for x in row] == [str(usr), str(usr / "share/mysql"), str(usr / "share/mysql/charsets"),
                                          str(usr / "lib/mysql/plugin")]


def test_a_folder_without_a_server_is_a_usage_error_naming_where_it_looked(tmp_path):
    (tmp_path / "empty" / "bin").mkdir(parents=True)
    r = gauntlet("run", "--grammar", "optimizer.yy", "--duration", "1", "--server", str(tmp_path / "empty"),
                 "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{tmp_path / 'empty'} holds no server binary (looked for usr/sbin/mariadbd" in r.stderr


def test_two_targets_one_from_a_folder_each_named_with_its_version_and_binary(tree, tmp_path):
    r = gauntlet("run", "--grammar", "optimizer.yy", "--duration", "3", "--target", "new=default",
                 "--target", f"old={tree}", "--oracle", "differential", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    lines = [line for line in r.stdout.splitlines() if line.startswith("server ")]
    assert len(lines) == 2 and lines[0].startswith("server new: 10.11.") and lines[0].endswith("(/usr/sbin/mariadbd)")
    assert lines[1].startswith("server old: 10.11.") and lines[1].endswith(f"({tree}/usr/sbin/mariadbd)")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["target_info"]["old"]["server_info"]["binary"] == f"{tree}/usr/sbin/mariadbd"
    variables = json.loads((tmp_path / "out" / "server_variables-old.json").read_text())
    assert variables["lc_messages_dir"].rstrip("/") == str(tree / "usr/share/mysql")
    check_output_files(tmp_path / "out")
