"""Targets: the servers a run sends every statement to, each with its own options.

One target is an ordinary run. With two or more, each session executes each
statement on all of them in turn (lockstep), so that their data stay equal and
the differential oracle can compare what they returned.
"""

from __future__ import annotations

import json
import re
from typing import Mapping, Optional, Sequence, Union

from .. import _core
from .dsn import password_source, redact, without_password
from .managed import ManagedServer, server_binary

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
_OPTION = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_KEYS = ("name", "server", "options", "engine")


class Target:
    """A server (``"default"``, a binary path, a folder holding an unpacked server, a DSN or a
    ManagedServer) with options.

    ``options`` are server options for a server Gauntlet starts (``--name=value``) and
    session variables for a DSN (``SET SESSION name = value`` in every session).
    ``engine``: the storage engine the run's data is created with on this target.
    """

    def __init__(self, name: str, server="default", options: Optional[Mapping[str, object]] = None,
                 engine: Optional[str] = None):
        if not isinstance(name, str) or not _NAME.match(name):
            raise _core.InvalidInput(f"targets: a target name is letters, digits, '_', '-' and '.', not {name!r}")
        if options is not None and not isinstance(options, Mapping):
            raise _core.InvalidInput(f"targets: {name}: options are a dict of option names and values, not "
                                     f"{type(options).__name__}")
        options = dict(options or {})
        for key, value in options.items():
            if not isinstance(key, str) or not _OPTION.match(key):
                raise _core.InvalidInput(f"targets: {name}: {key!r} is no option name")
            if not isinstance(value, (str, int, float, bool)):
                raise _core.InvalidInput(f"targets: {name}: option {key} must be text, a number or a flag, "
                                         f"not {value!r}")
        if engine is not None and not (isinstance(engine, str) and re.match(r"^[A-Za-z][A-Za-z0-9_]*$", engine)):
            raise _core.InvalidInput(f"targets: {name}: engine must be an engine name, not {engine!r}")
        self.name, self.server, self.options, self.engine = name, server, options, engine

    @property
    def is_dsn(self) -> bool:
        """True for a server Gauntlet does not manage (a DSN)."""
        return isinstance(self.server, str) and "://" in self.server

    @property
    def binary(self) -> str:
        """The server binary Gauntlet starts for this target (Debian's for ``"default"``, the one in
        the folder when the server is an unpacked server's folder)."""
        return self.server.binary if isinstance(self.server, ManagedServer) else server_binary(self.server)

    def mysqld(self) -> list:
        """The options as server command-line options."""
        return [f"{k}={'ON' if v is True else 'OFF' if v is False else v}" for k, v in self.options.items()]

    def session_setup(self) -> list:
        """The options as statements each session of a DSN target runs first."""
        def literal(v):
            if isinstance(v, bool):
                return "ON" if v else "OFF"
            if isinstance(v, (int, float)) or re.match(r"^-?\d+(\.\d+)?$", v):
                return str(v)
            return "'" + v.replace("\\", "\\\\").replace("'", "''") + "'"
        return [f"SET SESSION {k} = {literal(v)}" for k, v in self.options.items()]

    def to_dict(self) -> dict:
        """As run.json and findings record it: a DSN without its password, and where the password
        comes from (password_from: "dsn", an environment variable or an option file; what replay
        needs to log in again). A ManagedServer is recorded as its binary and options: what a replay or
        mariadb-test-run starts again."""
        if isinstance(self.server, ManagedServer):
            server, options = self.server.binary, _as_dict(self.server.mysqld)
        else:
            server, options = without_password(self.server) if isinstance(self.server, str) else repr(self.server), \
                self.options
        record = {"name": self.name, "server": server, "options": options, "engine": self.engine}
        if self.is_dsn:
            record["password_from"] = password_source(self.server)
        return record

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in (("options", self.options), ("engine", self.engine)) if v)
        server = redact(self.server) if isinstance(self.server, str) else repr(self.server)
        return f"Target({self.name!r}, server={server!r}{extra})"


def _as_dict(mysqld: Sequence[str]) -> dict:
    """NAME=VALUE options as {NAME: VALUE}; a flag without a value as True."""
    return {name: value if sep else True for name, sep, value in (o.partition("=") for o in mysqld)}


def parse_target_flag(text: str) -> dict:
    """``--target NAME[=SERVER][,OPTION=VALUE...][,engine=ENGINE]``, or a JSON object."""
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise _core.InvalidInput(f"--target: {e.msg} at column {e.colno} of {text!r}") from None
        return value
    head, *pairs = text.split(",")
    name, _, server = head.partition("=")
    target = {"name": name.strip(), "server": server.strip() or "default", "options": {}}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise _core.InvalidInput(f"--target: {pair!r} in {text!r} is not OPTION=VALUE")
        key = key.strip()
        if key == "engine":
            target["engine"] = value.strip()
        else:
            target["options"][key] = value.strip()
    return target


def parse_replica_flag(text: str) -> dict:
    """``--replica [SERVER][,OPTION=VALUE...]``: one replica's server (None: the primary's) and options."""
    head, *options = text.split(",")
    return {"server": head.strip() or None, "mysqld": [o.strip() for o in options if o.strip()]}


def make_targets(targets: Optional[Sequence[Union[dict, Target]]], server) -> list:
    """The run's targets: ``targets`` checked, or one named "default" on ``server``."""
    if targets is None:
        return [Target("default", server)]
    if isinstance(targets, (str, bytes, Mapping)) or not isinstance(targets, Sequence) or not targets:
        raise _core.InvalidInput("targets: a list of targets (dicts with name, server, options, engine)")
    out = []
    for t in targets:
        if isinstance(t, Target):
            out.append(t)
            continue
        if not isinstance(t, Mapping):
            raise _core.InvalidInput(f"targets: each target is a dict or a Target, not {t!r}")
        unknown = sorted(set(t) - set(_KEYS))
        if unknown:
            raise _core.InvalidInput(f"targets: {t.get('name', '?')}: unknown key(s) {', '.join(unknown)}; "
                                     f"known: {', '.join(_KEYS)}")
        if "name" not in t:
            raise _core.InvalidInput(f"targets: every target needs a name: {t!r}")
        out.append(Target(t["name"], t.get("server", server), t.get("options"), t.get("engine")))
    names = [t.name for t in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _core.InvalidInput(f"targets: names must differ; {', '.join(dupes)} appears more than once")
    return out
