"""A run's settings, each checked before anything starts, and the plan that carries them.

The CLI, config files and Python pass the same names; every value is checked
here, so they refuse the same mistakes with the same words.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import re
from typing import Callable, Optional, Union

from .. import _core
from ..grammar import Schema, load_data_spec
from ..oracles import Oracle
from ..results.known_bugs import markers
from ..server import DEFAULT_BINARY, ManagedServer, check_known_options, make_targets, parse_dsn

_EXECUTOR = _core.RunOptions()  # the executor's own defaults (cpp/exec/executor.h)

# Every run setting and its default: `gauntlet run`'s flags, config files (--config), run()'s
# keywords and campaigns use these names and values.
RUN_DEFAULTS = {
    "grammar": None, "redefine": [], "data": None, "threads": _EXECUTOR.threads, "duration": _EXECUTOR.duration,
    "queries": _EXECUTOR.queries, "seed": _EXECUTOR.seed, "rate": _EXECUTOR.rate, "server": "default",
    "mysqld": [], "out": "gauntlet-run", "statement_timeout": _EXECUTOR.statement_timeout,
    "hang_timeout": _EXECUTOR.hang_timeout, "generate_timeout": _EXECUTOR.generate_timeout,
    "statement_log": _EXECUTOR.statement_log, "max_depth": _EXECUTOR.max_depth, "trusted_perl": False,
    "keep_server": False, "data_template": False, "overwrite": False,
    "targets": None, "oracles": ["crash"], "known_bugs": None, "keep_going": False, "shard": None,
    "crash_every": 0.0, "kill_signal": "SIGKILL",
    "replicas": 0, "replica_server": None, "replica_mysqld": [], "checkpoint_every": 10.0, "replica_crash_every": 0.0,
}

LIMITS = {
    "threads": (int, 1, 4096), "duration": (float, 0, 366 * 86400), "queries": (int, 0, 2**63 - 1),
    "seed": (int, 0, 2**64 - 1), "rate": (float, 0, 1e9), "statement_timeout": (float, 0, 86400 * 7),
    "hang_timeout": (float, 0, 86400 * 7), "generate_timeout": (float, 0, 86400 * 7),
    "max_depth": (int, 1, 100000), "until_seq": (int, 0, 2**63 - 1),
    "attempts": (int, 1, 10000), "replicas": (int, 0, 16), "checkpoint_every": (float, 1, 86400),
    "replica_crash_every": (float, 0, 86400),
}


def check_setting(name: str, value):
    """``value`` as the setting's type, or InvalidInput naming the setting and the allowed range."""
    kind, low, high = LIMITS[name]
    what = "a whole number" if kind is int else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and isinstance(value, float) and not value.is_integer()):
        raise _core.InvalidInput(f"{name}: must be {what} from {low} to {high}, not {value!r}")
    if math.isnan(value) or not low <= value <= high:
        raise _core.InvalidInput(f"{name}: must be {what} from {low} to {high}, not {value!r}")
    return kind(value)


def check_threads_fit(threads: int) -> None:
    """Refuses a session count the machine cannot give threads for, before anything starts."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = soft if soft != resource.RLIM_INFINITY else None
    try:
        with open("/proc/sys/kernel/threads-max") as f:
            kernel = int(f.read()) // 2
        limit = kernel if limit is None else min(limit, kernel)
    except (OSError, ValueError):
        pass
    if limit is not None and threads > limit:
        raise _core.InvalidInput(f"threads: {threads} sessions need {threads} threads; this machine allows "
                                 f"about {limit} (ulimit -u, kernel.threads-max)")

def checked_targets(targets, server, mysqld) -> list:
    """The run's targets, each server checked before anything starts."""
    chosen = make_targets(targets, server)
    for t in chosen:
        server_params(t.server, mysqld if len(chosen) == 1 else None)
        if t.options and isinstance(t.server, ManagedServer):
            raise _core.InvalidInput(f"targets: {t.name}: options go to ManagedServer(..., mysqld=...) when the "
                                     "server is one")
        if not t.is_dsn and not isinstance(t.server, ManagedServer):
            check_known_options(t.binary, (mysqld or []) + t.mysqld(),
                                "mysqld" if len(chosen) == 1 else f"targets: {t.name}")
    return chosen


def oracle_names(oracles, targets) -> list:
    """The oracles, checked: known names (differential and timing only with two or more targets) and
    :class:`gauntlet.Oracle` objects."""
    if oracles is None:
        oracles = ("crash",)
    elif not isinstance(oracles, (str, list, tuple)):
        raise _core.InvalidInput(f"oracles: names (\"tlp,norec\" or a list) or gauntlet.Oracle objects, "
                                 f"not {type(oracles).__name__}")
    names = [n.strip() for n in oracles.split(",")] if isinstance(oracles, str) else list(oracles)
    known = [name for name, _ in _core.known_oracles()]
    for n in names:
        if isinstance(n, Oracle):
            if not isinstance(getattr(n, "name", None), str) or not n.name:
                raise _core.InvalidInput(f"oracles: {n!r} needs a name (a non-empty str)")
            continue
        if not isinstance(n, str):
            raise _core.InvalidInput(f"oracles: an oracle is a name or a gauntlet.Oracle, not {n!r}")
        if n not in known:
            raise _core.InvalidInput(f"oracles: unknown oracle {n!r}; known: {', '.join(known)}")
    for n in ("differential", "timing"):
        if n in names and len(targets) < 2:
            raise _core.InvalidInput(f"oracles: {n} compares targets: give two or more (targets=, --target)")
    return list(dict.fromkeys(["crash", *names]))


def check_kept_oracles(grammar_core, oracles) -> None:
    """Every name in a rule's ``==NO_ORACLES:...==`` is an oracle: a built-in one, ``all``, or one of
    this run's own (gauntlet.Oracle) by its name; anything else is named with its rule's place."""
    known = [name for name, _ in _core.known_oracles()] + ["all"]
    known += [o.name for o in oracles if isinstance(o, Oracle)]
    for rule, names, where in grammar_core.no_oracles:
        for n in names:
            if n not in known:
                raise _core.InvalidInput(f"{where}: rule {rule!r}: ==NO_ORACLES== names an unknown oracle {n!r}; "
                                         f"known: {', '.join(known)}")


def oracle_label(oracle) -> str:
    """How run.json and the summary name an oracle; custom ones as custom:NAME (replay leaves them out)."""
    return oracle if isinstance(oracle, str) else f"custom:{oracle.name}"


def known_bugs(path) -> list:
    """What marks findings known: a catalogue's entries (a .toml file, matched by root-cause key), or a
    patterns file's lines (matched in the signature); none without a file."""
    return markers(path) if path else []


def data_spec(data, seed: int = 1, trusted_perl: bool = False) -> Optional[Schema]:
    """The data a run loads: a Schema, "random[:SEED]", run.json's record of one, a file, None for RQG's
    default tables, or "none" (what the server has). A .zz file's Perl is trusted as the grammar's is."""
    if isinstance(data, Schema):
        return data
    if isinstance(data, str) and re.fullmatch(r"random(:\d+)?", data):
        return Schema.random(int(data.split(":")[1]) if ":" in data else seed)
    if isinstance(data, dict) and "schema" in data:  # as run.json records a Schema object
        return Schema.from_json(json.dumps(data["schema"]))
    return None if data == "none" else Schema.rqg_default() if data is None else \
        load_data_spec(data, trusted_perl=trusted_perl)


def server_params(server, mysqld) -> Optional["_core.ConnectionParams"]:
    """The connection of an external server (a DSN), or None for one Gauntlet manages."""
    if isinstance(server, ManagedServer):
        if mysqld:
            raise _core.InvalidInput("mysqld: options go to ManagedServer(..., mysqld=...) when server= is one")
        return None
    if not isinstance(server, str):
        raise _core.InvalidInput(f"server: must be 'default', a binary path, a DSN or a ManagedServer, "
                                 f"not {server!r}")
    if "://" in server:
        if mysqld:
            raise _core.InvalidInput("mysqld: server options cannot apply to an external server (a DSN); "
                                     "set them on that server")
        return parse_dsn(server)
    _core.check_server_binary(DEFAULT_BINARY if server == "default" else server)
    return None



@dataclasses.dataclass
class RunPlan:
    """Everything a run needs besides its workload, each part already checked.

    ``settings`` are the numbers of :data:`LIMITS` (threads, duration, seed, ...) that go to the
    executor; ``record`` is what run.json keeps so that replay and reduce can set the run up again.
    """

    spec: Optional[Schema]  # the data to load; None: what the server has
    settings: dict
    targets: list  # gauntlet.Target, one or more
    out: pathlib.Path
    record: dict
    oracles: list = dataclasses.field(default_factory=lambda: ["crash"])  # names and gauntlet.Oracle objects
    known: list = dataclasses.field(default_factory=list)  # the known-bugs patterns
    mysqld: object = None  # server options for every managed target
    statement_log: bool = False
    progress: Union[bool, Callable, None] = False
    keep_server: bool = False
    data_template: bool = False
    overwrite: bool = False
    # Error-log lines that are no finding for this workload (a corpus's suite names those its statements make).
    error_log_ignore: list = dataclasses.field(default_factory=list)
