"""README.md's commands as the page shows them, and the rule that every command of README.md and
docs/guide/ is run by a test or marked as needing what this machine lacks (tests/python/doc_blocks.py)."""

import importlib
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO
from doc_blocks import (PAGES, RUN_BY, Page, blocks, command_blocks, command_key, lines_shown,
                        looks_like_commands, said)


def test_every_command_block_is_run_or_marked():
    unaccounted, claimed = [], {}
    for page in PAGES:
        for block in blocks(page):
            assert not looks_like_commands(block), f"{block}: a block of commands says ```{block.lang}, not ```sh"
        for block in command_blocks(page):
            for start, why in block.not_run:
                assert start == "" or any(c.startswith(start) for c in block.commands), \
                    f"{block}: the mark names {start!r}, which no command of the block starts with"
            for command in block.commands:
                key = command_key(page, command)
                if key is not None:
                    claimed.setdefault(key, []).append(str(block))
                elif block.why_not_run(command) is None:
                    unaccounted.append(f"{block}: {command.splitlines()[0][:80]}")
    assert not unaccounted, "commands no test runs and no mark excuses:\n" + "\n".join(unaccounted)
    for key, test in RUN_BY.items():
        assert len(claimed.get(key, [])) == 1, f"RUN_BY {key}: {len(claimed.get(key, []))} commands match"
        module, name = test.split("::")
        assert callable(getattr(importlib.import_module(module[:-3]), name, None)), f"RUN_BY {key}: no test {test}"


def test_a_mark_and_a_continued_command_are_read_as_written(tmp_path, monkeypatch):
    import doc_blocks
    monkeypatch.setattr(doc_blocks, "REPO", tmp_path)
    (tmp_path / "p.md").write_text('text\n<!-- not run: "dask worker": needs other machines -->\n```sh\n'
                                   "dask scheduler &   # here\ndask worker tcp://S:8786 \\\n   --nthreads 1\n"
                                   "# a comment\n```\n\n```\ngauntlet run --out x\n```\n")
    sh, output = blocks("p.md")
    assert sh.commands == ["dask scheduler &   # here", "dask worker tcp://S:8786     --nthreads 1"]
    assert sh.why_not_run("dask worker tcp://S:8786") == "needs other machines"
    assert sh.why_not_run("dask scheduler &") is None
    assert looks_like_commands(output) and not looks_like_commands(sh)


def _timeless(line: str) -> str:
    return re.sub(r"after \d+(\.\d+)? s", "after N s", line.strip())


@pytest.mark.slow
def test_readme_tour(tmp_path):
    page = Page("README.md", tmp_path)
    r = page.sh("gauntlet run --grammar examples/tour.yy")
    assert r.returncode == 1, said(r)
    shown = lines_shown(page.output_after("gauntlet run --grammar examples/tour.yy"),
                        ("oracle ", "FINDING ", "root causes ", "stopped by "))
    assert len(shown) == 5 and [_timeless(line) for line in shown] == \
        [_timeless(line) for line in lines_shown(r.stdout, ("oracle ", "FINDING ", "root causes ", "stopped by "))]
    assert (tmp_path / "tour" / "statements-1.jsonl").is_file()

    r = page.sh("gauntlet reduce tour/findings/0001-tlp")
    assert r.returncode == 0 and "verified by mariadb-test-run" in r.stdout, said(r)
    r = page.sh("ls tour/findings/0001-tlp/repro/")
    assert {"README.md", "reduction.json"} <= set(r.stdout.split()), said(r)
    assert {name.rsplit(".", 1)[-1] for name in r.stdout.split() if name.startswith("gauntlet_")} == \
        {"test", "opt", "result", "sql"}, said(r)
    r = page.sh("cat tour/findings/0001-tlp/repro/*.sql")
    assert r.stdout.strip() == page.output_after("gauntlet reduce tour/findings/0001-tlp").strip(), said(r)

    r = page.python("import gauntlet", then="""
assert repr(result).startswith("RunResult(") and result.exit_code == 1, result
assert len(result.findings) == 2 and "p95_ms" in result.to_pandas().columns
assert reduction.verified and "NOT IN (SELECT 1" in reduction.test
""")
    assert r.returncode == 0, said(r)


@pytest.mark.slow
def test_readme_what_next(tmp_path):
    page = Page("README.md", tmp_path)
    r = page.sh("gauntlet hunt --duration 10m", cap=15)  # a round takes 10 s at least
    assert r.returncode in (0, 1) and "capped at 15 s by $GAUNTLET_MAX_DURATION" in r.stderr, said(r)
    assert json.loads((tmp_path / "hunt" / "hunt.json").read_text())["rounds"], said(r)
    r = page.sh("gauntlet run --grammar grammars/optimizer.yy --target a")
    assert r.returncode == 0 and "oracle differential:" in r.stdout, said(r)


def test_a_cap_that_is_no_number_is_refused_naming_the_variable(tmp_path):
    r = subprocess.run([sys.executable, "-m", "gauntlet", "run", "--grammar", "optimizer.yy", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env={**os.environ, "GAUNTLET_MAX_DURATION": "ten"})
    assert r.returncode == 2 and "GAUNTLET_MAX_DURATION: seconds, not 'ten'" in r.stderr, said(r)
    assert not (tmp_path / "o").exists()


def test_the_command_line_reference_names_every_flag_and_only_real_ones():
    """docs/reference/cli.md's synopsis against the parser: every flag of every command appears in its
    lines (a command's lines: from `gauntlet CMD` to the next), and none that the command lacks."""
    import argparse
    from gauntlet.cli.main import build_parser

    def flags(parser) -> set:
        found = set()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found = found.union(*(flags(p) for p in action.choices.values()))
            else:
                found.update(o for o in action.option_strings if o.startswith("--") and o != "--help")
        return found

    page = (REPO / "docs" / "reference" / "cli.md").read_text()
    documented, command = {}, None
    for line in page.split("```sh\n", 1)[1].split("```", 1)[0].splitlines():
        m = re.match(r"gauntlet ([a-z-]+)", line)
        command = m.group(1) if m else command
        documented.setdefault(command, set()).update(re.findall(r"--[a-z][a-z-]*", line.split("#")[0]))
    [commands] = [a.choices for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(documented) == set(commands), set(documented) ^ set(commands)
    for name, parser in commands.items():
        assert flags(parser) == documented[name], (name, "missing:", flags(parser) - documented[name],
                                                   "not a flag:", documented[name] - flags(parser))
