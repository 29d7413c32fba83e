"""Gauntlet's pytest plugin: fixtures for a server developer's or QA engineer's own pytest suite.

Installed with the package (entry point ``pytest11``: ``gauntlet``), so pytest loads it without ``-p``;
from a source tree, ``-p gauntlet.pytest_plugin``.

``gauntlet_server``
    A ManagedServer, started once per server and options and shared by every test that asks for the
    same (stopped at the end of the session). Options and server come from the marker
    ``@pytest.mark.gauntlet_server(mysqld={...}, server="default"|BINARY|FOLDER)``, or from indirect
    parametrization over an option plan: ``@pytest.mark.parametrize("gauntlet_server",
    option_params({"join_cache_level": [0, 8]}), indirect=True)``, one readable test id a row.
``gauntlet_run``
    ``gauntlet_run(grammar_or_statements, oracles="tlp,norec", ...)`` runs a grammar file, a Grammar or a
    list of statements (in order, in one session) against ``gauntlet_server`` on an empty ``test``
    database and returns the RunResult. A finding that is not a known bug fails the test; the message
    has each root cause's minimal query (checked by mariadb-test-run when the server is Debian's) or
    statement, and the finding's folder.
"""

from __future__ import annotations

import itertools
import os
import pathlib
from typing import Mapping, Optional, Sequence, Union

import pytest

from . import _core
from .combi import OptionSpace
from .grammar import Grammar
from .results import triage
from .runs import run
from .server import DEFAULT_BINARY, Connection, ManagedServer, option_list

_MARKER = "gauntlet_server"
_TEST_LINES = 60  # of a verified test case, in a failure's message


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", f"{_MARKER}(mysqld=None, server='default'): the options and server of the "
                                       "test's gauntlet_server (a binary or a folder holding an unpacked server)")


def option_params(space: Union[Mapping, str, os.PathLike, OptionSpace], strength: Optional[int] = None,
                  seed: int = 1) -> list:
    """The rows of ``space``'s covering array (an OptionSpace, its dict of parameters, or a JSON/TOML file)
    as pytest parameters with readable ids (``join_cache_level=0,optimizer_search_depth=62``), for
    ``parametrize("gauntlet_server", ..., indirect=True)``."""
    if not isinstance(space, OptionSpace):
        space = OptionSpace.from_dict(space if "parameters" in space else {"parameters": space}) \
            if isinstance(space, Mapping) else OptionSpace.from_file(space)
    return [pytest.param(dict(row), id=",".join(f"{k}={v}" for k, v in row.items()))
            for row in space.covering(strength, seed=seed)]


class _Servers:
    """The session's servers, one per server and options."""

    def __init__(self, folder: pathlib.Path):
        self.folder, self.started = folder, {}
        self._numbers = itertools.count(1)

    def get(self, server: str, mysqld: Sequence[str]) -> ManagedServer:
        key = (server, tuple(sorted(mysqld)))
        s = self.started.get(key)
        if s is None or not s.alive:  # a server a test crashed is started again, fresh
            s = ManagedServer(self.folder / f"server-{next(self._numbers)}",
                              binary=DEFAULT_BINARY if server == "default" else server,
                              mysqld=list(mysqld), die_with_parent=True)
            s.start()
            self.started[key] = s
        return s

    def stop(self) -> None:
        for s in self.started.values():
            s.stop()


@pytest.fixture(scope="session")
def gauntlet_servers(tmp_path_factory):
    """The servers of the session (``gauntlet_server`` takes its own from here)."""
    servers = _Servers(tmp_path_factory.mktemp("gauntlet-servers"))
    yield servers
    servers.stop()


@pytest.fixture
def gauntlet_server(request, gauntlet_servers) -> ManagedServer:
    """A running ManagedServer with the marker's (or the parameter's) options, shared with every other
    test that asks for the same."""
    marker = request.node.get_closest_marker(_MARKER)
    settings = dict(marker.kwargs) if marker else {}
    unknown = sorted(set(settings) - {"mysqld", "server"})
    if unknown or (marker and marker.args):
        given = ", ".join(unknown) if unknown else f"positional arguments {marker.args!r}"
        pytest.fail(f"@pytest.mark.{_MARKER}: takes mysqld= and server=, not {given}", pytrace=False)
    mysqld = option_list(settings.get("mysqld"), f"@pytest.mark.{_MARKER}(mysqld=...)")
    if getattr(request, "param", None) is not None:  # parametrize("gauntlet_server", option_params(...), indirect=True)
        mysqld += option_list(request.param, "gauntlet_server parameter")
    return gauntlet_servers.get(str(settings.get("server", "default")), mysqld)


@pytest.fixture
def gauntlet_run(gauntlet_server, tmp_path):
    """Runs a grammar or statements against ``gauntlet_server``; a new finding fails the test."""
    numbers = itertools.count(1)

    def run_(what: Union[str, os.PathLike, Grammar, Sequence[str]], *, oracles: str = "tlp,norec",
             known_bugs: Union[None, str, os.PathLike] = None, **settings):
        """``what``: a grammar file (stock names too), a Grammar, or a list of statements run once, in
        order, in one session (``data`` then defaults to "none"). ``settings``: as for gauntlet.run
        (duration, queries, threads, data, seed ...). Returns the RunResult."""
        if isinstance(what, (list, tuple)):
            what = _statements_grammar(what)
            settings = {"threads": 1, "queries": 1, "data": "none", **settings}
        _empty_test_database(gauntlet_server)
        out = tmp_path / f"gauntlet-run-{next(numbers)}"
        result = run(what, server=gauntlet_server, oracles=oracles, known_bugs=known_bugs, out=out,
                     statement_log=True, **settings)
        new = [f for f in result.findings if not f.get("known")]
        if new:
            pytest.fail(_failure(out, new), pytrace=False)
        return result
    return run_


def _statements_grammar(statements: Sequence[str]) -> Grammar:
    """One query that is the statements in order; each a Python rule, so its text is never read as
    grammar (a '|' or ';' in a literal stays in it)."""
    for s in statements:
        if not isinstance(s, str) or not s.strip():
            raise _core.InvalidInput(f"gauntlet_run: statements are non-empty strings, not {s!r}")
    names = [f"statement{i}" for i in range(len(statements))]
    rules = {n: (lambda sql: lambda ctx: sql)(s) for n, s in zip(names, statements)}
    return Grammar.from_string(f"query: {' ; '.join(names)} ;\n", rules=rules, name="gauntlet_run statements")


def _empty_test_database(server: ManagedServer) -> None:
    """Every run starts on an empty ``test`` database: the server is shared with other tests."""
    c = Connection(server)
    for sql in ("DROP DATABASE IF EXISTS test", "CREATE DATABASE test"):
        c.query(sql)


def _failure(out: pathlib.Path, findings: list) -> str:
    """The test's failure message: each new root cause with its minimal reproducer."""
    causes = triage(out)
    try:
        causes.verify(out / "verify")
    except (FileNotFoundError, _core.GauntletError, _core.InvalidInput):
        pass  # the minimal queries are shown unchecked
    lines = [f"gauntlet: {len(findings)} finding{'s' if len(findings) != 1 else ''} in {out}"]
    for c in causes.root_causes:
        if c.get("known"):
            continue
        lines.append(f"{c['kind']} x{c['count']}: {c['key']}")
        if c.get("minimal"):
            lines.append(f"  minimal reproducer: {c['minimal']['sql']}")
            v = c.get("verified") or {}
            if v:
                lines.append(f"  {'verified by mariadb-test-run' if v.get('verified') else 'not verified'}: "
                             f"{v.get('test') or ''} {v.get('why', '')}".rstrip())
            if v.get("verified"):  # the test case itself: a CI log may be all that is kept
                text = pathlib.Path(v["test"]).read_text().splitlines()
                lines += ["    " + line for line in text[:_TEST_LINES]]
                lines += [f"    ... ({len(text) - _TEST_LINES} more lines)"] if len(text) > _TEST_LINES else []
        else:
            lines.append(f"  statement: {c['statement']}")
        lines.append(f"  finding: {c['findings'][0]}")
    return "\n".join(lines)
