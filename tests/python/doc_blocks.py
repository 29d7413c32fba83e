"""The command blocks of README.md and docs/guide/, and a scratch folder that runs them as the pages
show them (issue 45: docs whose commands run).

A command block is a fenced ```sh or ```python block. Each command of an sh block (a line, with its
``\\`` continuations) and each python block is run by the test that :data:`RUN_BY` names for it,
through :meth:`Page.sh` or :meth:`Page.python`, or is marked in the page itself, on a line of its
own before the block:

    <!-- not run: WHY -->                       the whole block
    <!-- not run: "COMMAND START": WHY -->      one command of it

WHY names what this machine lacks (other machines, a server build of yours). An untagged block
that starts with a command is refused: it must say it is ``sh``.

What a page's commands meet (the only differences from a user's shell, all here):
- the folder: a fresh one per test with the checkout's ``examples``, ``grammars``, ``known-bugs``
  and ``python`` linked in, so relative paths resolve as from the checkout and outputs land apart;
- ``gauntlet`` is README.md's alias, python blocks start after ``import gauntlet``;
- $GAUNTLET_MAX_DURATION caps every time budget (gauntlet/arguments.py): a 30-minute hunt as shown
  runs for the cap's seconds;
- $CI_ARTIFACTS, $CI_NODE_INDEX and $CI_NODE_TOTAL are set, as a CI job has them.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import subprocess
import sys
from typing import Dict, List, Optional, Sequence

from conftest import REPO

PAGES = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs" / "guide").glob("*.md"))]

# page -> {the start of a command, or of a python block's first line: the test that runs it}
_RUNS = {
    "README.md": {
        "make demo": "test_docs_ci.py::test_the_main_job",
        "alias gauntlet=": "test_docs.py::test_readme_tour",  # every sh command's first line
        "gauntlet run --grammar examples/tour.yy": "test_docs.py::test_readme_tour",
        "gauntlet reduce tour/findings/0001-tlp": "test_docs.py::test_readme_tour",
        "ls tour/findings/0001-tlp/repro/": "test_docs.py::test_readme_tour",
        "cat tour/findings/0001-tlp/repro/*.sql": "test_docs.py::test_readme_tour",
        "import gauntlet": "test_docs.py::test_readme_tour",
        "gauntlet hunt --duration 10m": "test_docs.py::test_readme_what_next",
        "gauntlet run --grammar grammars/optimizer.yy --target a": "test_docs.py::test_readme_what_next",
    },
    "docs/guide/ci.md": {
        'gauntlet hunt --duration 30m --out "$CI_ARTIFACTS/hunt"':
            "test_docs_ci.py::test_the_hunt_with_the_stock_grammars_and_with_yours",
        "gauntlet hunt --duration 30m --grammar my_feature.yy":
            "test_docs_ci.py::test_the_hunt_with_the_stock_grammars_and_with_yours",
        "gauntlet hunt --duration 30m --shard": "test_docs_ci.py::test_a_hunt_over_ci_jobs_and_its_triage",
        "gauntlet triage hunt-*/": "test_docs_ci.py::test_a_hunt_over_ci_jobs_and_its_triage",
        "gauntlet hunt --duration 30m --out D ": "test_docs_ci.py::test_reports_of_a_hunt",
        "gauntlet report D ": "test_docs_ci.py::test_reports_of_a_hunt",
        "gauntlet run --grammar grammars/hunt/optimizer.yy": "test_docs_ci.py::test_a_single_keep_going_run",
        "import pytest": "test_docs_ci.py::test_the_pytest_plugin_page",
        "examples/two-versions/fetch-mariadb.sh": "test_docs_ci.py::test_the_last_release_against_the_new_build",
        "gauntlet run --grammar optimizer.yy --target old=": "test_docs_ci.py::test_the_last_release_against_the_new_build",
        "gauntlet bench --workload oltp_read_write --target old=":
            "test_docs_ci.py::test_the_last_release_against_the_new_build",
        "gauntlet hunt --duration 30m --target new=default": "test_docs_ci.py::test_the_last_release_against_the_new_build",
    },
    "docs/guide/campaigns.md": {
        "space = gauntlet.OptionSpace.from_json": "test_docs_campaigns.py::test_the_option_space_and_its_covering_arrays",
        "plan = gauntlet.OptionSpace": "test_docs_campaigns.py::test_a_campaign_from_python_and_from_the_command_line",
        "gauntlet campaign examples/mariadb_options.json":
            "test_docs_campaigns.py::test_a_campaign_from_python_and_from_the_command_line",
    },
    "docs/guide/performance.md": {
        "gauntlet bench --workload oltp_read_write --target A,":
            "test_docs_campaigns.py::test_an_ab_comparison_from_the_command_line_and_from_python",
        "result = gauntlet.bench(": "test_docs_campaigns.py::test_an_ab_comparison_from_the_command_line_and_from_python",
    },
    "docs/guide/python.md": {"g = gauntlet.Grammar.from_file": "test_docs_run.py::test_generating_without_a_server"},
    "docs/guide/hunting.md": {
        "gauntlet.Schema.random(7)": "test_docs_run.py::test_random_schemas_and_builtin_rules",
        "gauntlet gensql --grammar builtin:statements": "test_docs_run.py::test_random_schemas_and_builtin_rules",
        "gauntlet run --grammar builtin:select": "test_docs_run.py::test_hunting_runs",
        "gauntlet run --grammar grammars/hunt/dml.yy": "test_docs_run.py::test_hunting_runs",
        "gauntlet run --grammar grammars/hunt/dml.yy --data random --duration 20 --out dml-reach":
            "test_docs_run.py::test_the_reach_of_a_run",
        "gauntlet coverage dml-reach": "test_docs_run.py::test_the_reach_of_a_run",
    },
    "docs/guide/oracles.md": {
        "gauntlet run --grammar grammars/optimizer.yy --oracle tlp": "test_docs_run.py::test_oracles_on_one_and_two_targets",
        "gauntlet run --grammar grammars/optimizer.yy --target a,div": "test_docs_run.py::test_oracles_on_one_and_two_targets",
        "gauntlet run --grammar grammars/optimizer.yy --target a,engine":
            "test_docs_run.py::test_oracles_on_one_and_two_targets",
        "gauntlet run --grammar grammars/hunt/optimizer.yy --data random":
            "test_docs_run.py::test_oracles_on_one_and_two_targets",
        "with gauntlet.ManagedServer": "test_docs_run.py::test_oracles_on_one_and_two_targets",
    },
    "docs/guide/running.md": {"import gauntlet, signal": "test_docs_run.py::test_runs_results_and_servers_from_python"},
    "docs/guide/reduction.md": {
        "gauntlet run --grammar examples/tour.yy --threads 4":
            "test_docs_run.py::test_a_crash_reduced_from_the_command_line_and_from_python",
        "gauntlet reduce run/findings/0001-crash": "test_docs_run.py::test_a_crash_reduced_from_the_command_line_and_from_python",
        'grammar = "examples/tour.yy"': "test_docs_run.py::test_a_crash_reduced_from_the_command_line_and_from_python",
    },
    "docs/guide/triage.md": {
        "gauntlet triage hunt/ ": "test_docs_run.py::test_triage_over_runs",
        "gauntlet triage run1 run2 --json": "test_docs_run.py::test_triage_over_runs",
        "gauntlet triage hunt/ --verify work/": "test_docs_run.py::test_triage_over_runs",
        "gauntlet triage hunt/ --known-bugs": "test_docs_run.py::test_triage_over_runs",
        "import gauntlet": "test_docs_run.py::test_triage_over_runs",
    },
    "docs/guide/recovery.md": {
        "gauntlet run --grammar grammars/hunt/transactions.yy": "test_docs_servers.py::test_kills_and_recoveries",
        "gauntlet run --grammar grammars/hunt/recovery.yy": "test_docs_servers.py::test_kills_and_recoveries",
        "r = gauntlet.run(": "test_docs_servers.py::test_kills_and_recoveries",
    },
    "docs/guide/replication.md": {
        "gauntlet run --grammar grammars/hunt/replication.yy --replicas 1 --duration 60":
            "test_docs_servers.py::test_replicas_that_must_agree",
        "gauntlet run --grammar grammars/hunt/replication.yy --replicas 2": "test_docs_servers.py::test_replicas_that_must_agree",
        "gauntlet run --grammar grammars/hunt/replication.yy --replicas 1 --replica-server":
            "test_docs_servers.py::test_replicas_that_must_agree",
        "gauntlet run --grammar grammars/hunt/replication.yy --replica mariadb":
            "test_docs_servers.py::test_replicas_that_must_agree",
        "r = gauntlet.run(": "test_docs_servers.py::test_replicas_that_must_agree",
        "gauntlet run --grammar grammars/hunt/transactions.yy --oracle recovery":
            "test_docs_servers.py::test_replicas_that_must_agree",
    },
}
RUN_BY: Dict[tuple, str] = {(page, start): test for page, runs in _RUNS.items() for start, test in runs.items()}

CAP_SECONDS = 3  # a run's time budget under the cap; its servers' start and data come on top
_FENCE = re.compile(r"^```(\S*)\s*$")
_MARK = re.compile(r'^<!-- not run(?:: "(?P<command>[^"]+)")?: (?P<why>\S.*?) -->\s*$')
_COMMAND_WORDS = ("gauntlet ", "make ", "dask ", "cat ", "ls ", "alias ")


@dataclasses.dataclass(frozen=True)
class Block:
    page: str
    line: int           # the opening fence's line, from 1
    lang: str           # "sh", "python", "" (output), "json", ...
    text: str
    not_run: tuple      # ((command start or "" for the whole block, why), ...)

    @property
    def commands(self) -> List[str]:
        """An sh block's commands: lines joined across backslash continuations, comments and blank
        lines left out; a python block is one command, its text."""
        if self.lang == "python":
            return [self.text]
        commands, current = [], ""
        for raw in self.text.splitlines():
            current += raw.rstrip()
            if current.endswith("\\"):
                current = current[:-1] + " "
                continue
            if current.strip() and not current.lstrip().startswith("#"):
                commands.append(current.strip())
            current = ""
        return commands

    def why_not_run(self, command: str) -> Optional[str]:
        for start, why in self.not_run:
            if start == "" or command.startswith(start):
                return why
        return None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> List[Block]:
    """Every fenced block of ``page`` (a path relative to the checkout)."""
    found, marks, lines = [], [], (REPO / page).read_text().splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        mark = _MARK.match(lines[i])
        if mark:
            marks.append((mark["command"] or "", mark["why"]))
        elif m:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append(Block(page, i + 1, m[1], "\n".join(lines[i + 1:end]), tuple(marks)))
            marks, i = [], end
        elif lines[i].strip():
            marks = []  # a mark stands right before its block
        i += 1
    return found


def command_blocks(page: str) -> List[Block]:
    return [b for b in blocks(page) if b.lang in ("sh", "python")]


def looks_like_commands(block: Block) -> bool:
    """An untagged block that is really commands (it should say ``sh``)."""
    first = block.text.lstrip().split("\n", 1)[0]
    return block.lang == "" and first.startswith(_COMMAND_WORDS)


def command_key(page: str, command: str) -> Optional[tuple]:
    """The :data:`RUN_BY` key of ``command`` of ``page``, or None."""
    keys = [k for k in RUN_BY if k[0] == page and command.lstrip().startswith(k[1])]
    return max(keys, key=lambda k: len(k[1])) if keys else None  # the most specific


def alias() -> str:
    """README.md's definition of ``gauntlet`` for a shell."""
    lines = [c for b in command_blocks("README.md") for c in b.commands if c.startswith("alias gauntlet=")]
    assert len(lines) == 1, lines
    return lines[0]


class Page:
    """A page's commands run as shown, in ``folder``, by the test that :data:`RUN_BY` names."""

    def __init__(self, page: str, folder: pathlib.Path, *, links: Optional[Dict[str, pathlib.Path]] = None,
                 replace: Optional[Dict[str, str]] = None):
        """``links``: more names in the folder (a release's folder the page names, say); ``replace``:
        text of the page that stands for something of this machine (an absolute path), as the test
        declares it."""
        self.page, self.folder, self.replace = page, folder, replace or {}
        for name in ("examples", "grammars", "known-bugs", "python"):
            (folder / name).symlink_to(REPO / name)
        for name, target in (links or {}).items():
            (folder / name).symlink_to(target)
        self.env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "GAUNTLET_MAX_DURATION": str(CAP_SECONDS),
                    "CI_ARTIFACTS": str(folder / "artifacts"), "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}

    def _find(self, start: str, lang: str) -> tuple:
        hits = [(b, c) for b in command_blocks(self.page) if b.lang == lang for c in b.commands
                if c.lstrip().startswith(start)]
        if len(hits) > 1:  # "gauntlet triage hunt/ " begins three: the one whose RUN_BY entry it is
            hits = [(b, c) for b, c in hits if command_key(self.page, c) == (self.page, start)]
        assert len(hits) == 1, f"{self.page}: {len(hits)} {lang} commands start with {start!r}"
        block, command = hits[0]
        key = command_key(self.page, command)
        assert key is not None, f"{block}: {command[:60]!r} is not in doc_blocks.RUN_BY"
        current = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        assert current.split("/")[-1].split("[")[0] == RUN_BY[key], \
            f"{block}: RUN_BY says {RUN_BY[key]} runs {key[1]!r}, not {current}"
        for text, here in self.replace.items():
            command = command.replace(text, here)
        return block, command

    def sh(self, start: str, *, cap: float = CAP_SECONDS, cwd: Optional[pathlib.Path] = None,
           env: Optional[dict] = None, timeout: float = 600) -> subprocess.CompletedProcess:
        """Runs the page's one sh command that starts with ``start`` in bash, with README.md's alias."""
        _, command = self._find(start, "sh")
        script = f"shopt -s expand_aliases\n{alias()}\n{command}\n"
        return subprocess.run(["bash", "-c", script], cwd=cwd or self.folder, capture_output=True, text=True,
                              env={**self.env, "GAUNTLET_MAX_DURATION": str(cap), **(env or {})}, timeout=timeout)

    def text(self, start: str, lang: str = "python") -> str:
        """The text of the page's block whose first command starts with ``start``, for a test that
        runs it otherwise (a pytest file)."""
        return self._find(start, lang)[1]

    def python(self, start: str, *, then: str = "", cap: float = CAP_SECONDS,
               timeout: float = 600) -> subprocess.CompletedProcess:
        """Runs the page's python block whose first line starts with ``start``, after ``import
        gauntlet``; ``then`` is the test's own code after it (assertions on the block's names)."""
        _, text = self._find(start, "python")
        script = f"import gauntlet\n{text}\n{then}\n"
        return subprocess.run([sys.executable, "-c", script], cwd=self.folder, capture_output=True, text=True,
                              env={**self.env, "GAUNTLET_MAX_DURATION": str(cap)}, timeout=timeout)

    def output_after(self, start: str) -> str:
        """The text of the block right after the command block whose command starts with ``start``:
        the output the page shows for it."""
        found = command_blocks(self.page)
        every = blocks(self.page)
        for b in found:
            if any(c.lstrip().startswith(start) for c in b.commands):
                return every[every.index(b) + 1].text
        raise AssertionError(f"{self.page}: no command starts with {start!r}")


    def shown(self, start: str) -> str:
        """The one line of the page's output blocks that starts with ``start``."""
        lines = [line for b in blocks(self.page) if b.lang in ("", "text") for line in b.text.splitlines()
                 if line.startswith(start)]
        assert len(lines) == 1, f"{self.page}: {len(lines)} lines of output start with {start!r}"
        return lines[0]


def printed_alike(shown: str, output: str) -> bool:
    """Whether ``output`` has a line like ``shown``, numbers aside (1,234 or 0.7 stand for any)."""
    parts = re.split(r"\d[\d,]*(?:\.\d+)?", shown.strip())
    pattern = re.compile(r"[\d,]+(?:\.\d+)?".join(re.escape(p) for p in parts))
    return any(pattern.fullmatch(line.strip()) for line in output.splitlines())


def said(r: subprocess.CompletedProcess) -> str:
    """A finished command's output for an assertion's message."""
    return f"exit {r.returncode}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"


def lines_shown(text: str, prefixes: Sequence[str]) -> List[str]:
    """The lines of ``text`` that start with one of ``prefixes``."""
    return [line for line in text.splitlines() if line.lstrip().startswith(tuple(prefixes))]
