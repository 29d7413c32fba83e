"""Servers Gauntlet starts, stops and keeps in a folder of their own (ManagedServer)."""

from __future__ import annotations

import difflib
import functools
import os
import re
import signal
import subprocess
from typing import Mapping, Optional, Sequence, Union

from .. import _core
from ..arguments import path_argument, writable_folder
from .connection import Connection

DEFAULT_BINARY = "/usr/sbin/mariadbd"
ServerError = _core.ServerError


def server_binary(server: str) -> str:
    """The binary of ``server``: "default" (Debian's), a server binary, or a folder holding an unpacked
    server (``dpkg -x`` of Debian's packages, a release tarball, a build tree; see ServerTree)."""
    if server in ("", "default"):
        return DEFAULT_BINARY
    return _core.find_server_tree(str(server)).binary if os.path.isdir(server) else str(server)


@functools.lru_cache(maxsize=None)
def _known_options(binary: str) -> tuple:
    """The option names `binary --verbose --help` lists, with '_' for '-'."""
    try:
        tree = [f"--{o}" for o in _core.find_server_tree(binary).options()]
        out = subprocess.run([binary, "--no-defaults", *tree, "--verbose", "--help"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired, _core.InvalidInput):
        return ()
    return tuple(sorted({m.group(1).replace("-", "_") for m in re.finditer(r"^  (?:-\S, )?--([a-z0-9_-]+)", out, re.M)}))


_UNKNOWN_OPTION = re.compile(r"unknown (?:variable|option) '(?:--)?([^'=]+)")


def _unknown_option(binary: str, name: str, setting: str = "mysqld") -> "_core.InvalidInput":
    """The usage error for an option ``binary`` does not know, with the nearest one it does."""
    near = difflib.get_close_matches(name.replace("-", "_"), _known_options(binary), n=1, cutoff=0.8)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return _core.InvalidInput(f"{setting}: {binary} does not know the option {name!r}{hint}")


def _unknown_option_error(binary: str, log_errors: Sequence[str]) -> Optional["_core.InvalidInput"]:
    """A usage error naming the option, when the server refused to start over an option it does
    not know (with the nearest option it does know); None for any other failure."""
    for line in log_errors:
        m = _UNKNOWN_OPTION.search(line)
        if m:
            return _unknown_option(binary, m.group(1))
    return None


_FLAG_PREFIXES = ("skip_", "enable_", "disable_", "maximum_")


def check_known_options(binary: str, options: Sequence[str], setting: str = "mysqld") -> None:
    """Refuses, before any server starts, an option that ``binary --verbose --help`` does not list,
    naming ``setting`` and the nearest option it does know. ``loose-`` options, and every option
    when one loads a plugin (whose options the list lacks), are left to the server."""
    names = [o.split("=", 1)[0].strip().lstrip("-").replace("-", "_") for o in options]
    if not names or any(n.startswith("plugin_load") for n in names):
        return
    known = set(_known_options(binary))
    if not known:  # a binary that cannot list them: its start says what is wrong
        return
    for name in names:
        base = name
        for prefix in _FLAG_PREFIXES:
            if base.startswith(prefix) and base[len(prefix):] in known:
                base = base[len(prefix):]
        if not name.startswith("loose_") and base not in known:
            raise _unknown_option(binary, name, setting)


def option_list(mysqld: Union[None, Mapping[str, object], Sequence[str]], setting: str = "mysqld") -> list:
    """Server options as OPTION=VALUE strings: {"innodb_page_size": "8k", "skip-log-bin": None} or
    ["innodb_page_size=8k", "--skip-log-bin"] (True and None: a flag; False: OFF). Anything else is
    refused naming ``setting``: a string would be read as its characters, a set has no order."""
    if mysqld is None:
        return []
    if isinstance(mysqld, Mapping):
        items = []
        for k, v in mysqld.items():
            if not isinstance(k, str) or not _OPTION_NAME.fullmatch(k):
                raise _core.InvalidInput(f"{setting}: {k!r} is no option name")
            if not (v is None or isinstance(v, (str, int, float, bool))):
                raise _core.InvalidInput(f"{setting}: option {k}: a value is text, a number or a flag, not {v!r}")
            items.append(k if v is None or v is True else f"{k}=OFF" if v is False else f"{k}={v}")
    elif isinstance(mysqld, (list, tuple)):
        items = list(mysqld)
        for item in items:
            if not isinstance(item, str) or not _OPTION_NAME.fullmatch(item.split("=", 1)[0].strip()):
                raise _core.InvalidInput(f"{setting}: each option is a string OPTION=VALUE, not {item!r}")
    else:
        hint = f" (did you mean [{mysqld!r}]?)" if isinstance(mysqld, str) else ""
        raise _core.InvalidInput(f"{setting}: a list of OPTION=VALUE strings or a dict of options, "
                                 f"not {type(mysqld).__name__}{hint}")
    return [_unquoted(item[2:] if item.startswith("--") else item) for item in items]


_OPTION_NAME = re.compile(r"(--)?[A-Za-z0-9][A-Za-z0-9_.-]*")


def _unquoted(option: str) -> str:
    """OPTION='VALUE' as a my.cnf file means it: the quotes are no part of the value (on the server's
    command line they would be)."""
    name, eq, value = option.partition("=")
    if eq and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return name + eq + value


class ServerRefused(_core.InvalidInput):
    """The server exited during startup without crashing: it refused an option's value or its setup
    (a usage error, exit 2, not a finding). ``log_errors``: the error log's [ERROR] lines, which say why."""

    def __init__(self, message: str, log_errors: Sequence[str] = ()):
        super().__init__(message)
        self.log_errors = list(log_errors)


class ManagedServer:
    """A mariadbd/mysqld started by Gauntlet in a private run directory.

    >>> with ManagedServer("/tmp/s1", mysqld={"innodb_page_size": "8k"}) as s:  # doctest: +SKIP
    ...     Connection(s).query("SELECT @@innodb_page_size")

    ``binary``: a server binary or a folder holding an unpacked server (``dpkg -x`` of Debian's packages,
    a release tarball, a build tree), whose binary, messages, character sets and plugins are used.
    ``die_with_parent``: the server is killed when the thread that started it ends, this process
    killed outright included, so that nothing is left running (runs, benches and reductions start
    theirs so; a server meant to outlive its process, `gauntlet server start`, does not).
    """

    def __init__(self, dir: str, *, binary: str = DEFAULT_BINARY, mysqld=None,
                 wrapper: Sequence[str] = (), tcp: bool = False, start_timeout: float = 60,
                 core_file: bool = True, die_with_parent: bool = False, _core_server=None):
        if _core_server is not None:
            self._s = _core_server
            return
        o = _core.ServerOptions()
        o.dir = path_argument("dir", dir)
        o.binary = str(binary)
        o.mysqld = option_list(mysqld)
        o.wrapper = list(wrapper)
        o.tcp = tcp
        o.start_timeout = start_timeout
        o.core_file = core_file
        o.die_with_parent = die_with_parent
        self._s = _core.ManagedServer(o)

    @classmethod
    def attach(cls, dir: str) -> "ManagedServer":
        """The server a `gauntlet server start --dir DIR` left running."""
        return cls(dir, _core_server=_core.ManagedServer.attach(os.fspath(dir)))

    def start(self) -> "ManagedServer":
        """Starts the server (from a copy of the cached datadir template) and waits until it
        answers. Raises InvalidInput when it refuses an option it does not know (the option
        named, with a near miss), ServerRefused (an InvalidInput) when it exits during startup
        without crashing (a value or setup it refuses), ServerError when it crashes or is not
        ready in time (with the error log's [ERROR] lines in ``log_errors``)."""
        writable_folder("server's folder", self.dir)  # a file there, a read-only or missing parent: said
        try:
            self._s.start()
        except ServerError as e:
            lines = list(getattr(e, "log_errors", []))
            usage = _unknown_option_error(self.binary, lines)
            if usage is not None:
                raise usage from None
            if self.exit_signal == 0 and not self.alive:  # exited on its own: killed (9) when not ready in time
                said = "; ".join(re.sub(r"^[\d\- :]+(\d+ )?", "", line) for line in lines[:5]) \
                    or f"no [ERROR] line; see {self.error_log}"
                raise ServerRefused(f"mysqld: {self.binary} refused to start with options "
                                    f"{' '.join(self.mysqld) or '(none)'}: {said}", lines) from None
            raise
        return self

    def stop(self, timeout: float = 60) -> None:
        """SHUTDOWN, then SIGKILL when it takes longer than `timeout` seconds."""
        self._s.stop(timeout)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Sends `sig` to the server process (SIGKILL by default; SIGSEGV or SIGABRT to make a crash, SIGSTOP to make a hang)."""
        self._s.kill(int(sig))

    def restart(self) -> None:
        """Stops and starts the server, keeping its datadir."""
        self._s.restart()

    def detach(self) -> None:
        """Leave the server running after this object is gone."""
        self._s.detach()

    @property
    def alive(self) -> bool:
        """True while the server process exists."""
        return self._s.alive()

    def crash(self) -> dict:
        """The crash report (signal, assertion, frames, signature, log excerpt, gdb)."""
        return self._s.crash()

    def connect(self, database: Optional[str] = None) -> Connection:
        """A new Connection to this server (as root, over its Unix socket), in ``database``
        when given."""
        return Connection(self._s.connection, database=database)

    connection = property(lambda self: self._s.connection, doc='The ConnectionParams of this server (its Unix socket, root).')
    dsn = property(lambda self: self._s.dsn, doc='A mysql:// DSN other tools can use.')
    socket = property(lambda self: self._s.socket, doc='The Unix socket path.')
    port = property(lambda self: self._s.port, doc='The TCP port on 127.0.0.1 (0 unless started with tcp=True).')
    pid = property(lambda self: self._s.pid, doc='The server process id (-1 before start).')
    exit_signal = property(lambda self: self._s.exit_signal, doc='The signal that ended the server process, or 0.')
    error_log = property(lambda self: self._s.error_log, doc="The server's error log path.")
    datadir = property(lambda self: self._s.datadir, doc='The data directory (a copy of the cached template).')
    ready_seconds = property(lambda self: self._s.ready_seconds, doc='Seconds from launch to the first answered query, of the last start.')
    dir = property(lambda self: self._s.options.dir, doc='The run directory that holds datadir, logs, socket and server.json.')
    binary = property(lambda self: self._s.options.binary, doc='The server binary.')
    mysqld = property(lambda self: list(self._s.options.mysqld), doc='The server options it starts with.')
    command_line = property(lambda self: list(self._s.command_line),
                            doc="The server's command line as last started, Gauntlet's own options included.")

    def __enter__(self) -> "ManagedServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"pid={self.pid}, running" if self.alive else "stopped"
        return f"ManagedServer({self.dir!r}, {state})"
