"""Servers: ones Gauntlet starts (ManagedServer) and ones it is pointed at (DSN)."""

from __future__ import annotations

import configparser
import os
import re
import signal
import urllib.parse
from typing import Iterable, Mapping, Optional, Sequence, Union

from . import _core

DEFAULT_BINARY = "/usr/sbin/mariadbd"
ServerError = _core.ServerError


def _option_list(mysqld: Union[None, Mapping[str, object], Iterable[str]]) -> list:
    """{"innodb_page_size": "8k"} or ["innodb_page_size=8k", "--skip-log-bin"] -> option=value list."""
    if mysqld is None:
        return []
    if isinstance(mysqld, Mapping):
        items = [k if v is None or v is True else f"{k}={v}" for k, v in mysqld.items()]
    else:
        items = list(mysqld)
    return [item[2:] if item.startswith("--") else item for item in items]


def _redact(dsn: str) -> str:
    """The DSN with any password replaced by ***."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", dsn)


def _option_file_password(path: str) -> Optional[str]:
    """The [client] password of a MySQL option file, read literally (no %-interpolation).

    Errors name the file and never quote its content: it holds a secret.
    """
    if not os.path.exists(path):
        return None
    cnf = configparser.RawConfigParser(allow_no_value=True, strict=False)
    try:
        cnf.read(path)
    except (configparser.Error, UnicodeDecodeError, OSError) as e:
        raise _core.InvalidInput(f"{path}: cannot read the option file ({type(e).__name__})") from None
    if cnf.has_option("client", "password"):
        value = cnf.get("client", "password")
        return value.strip("'\"") if value else ""
    return None


def parse_dsn(dsn: str, option_file: Optional[str] = None) -> "_core.ConnectionParams":
    """``mysql://USER[:PASSWORD]@HOST[:PORT]/DB`` or ``mysql://USER@localhost/DB?socket=PATH``.

    The password comes, in this order, from the DSN, $GAUNTLET_PASSWORD,
    $MYSQL_PWD, or the [client] section of ``option_file`` (default
    ~/.my.cnf). It is never printed: ``str(params)`` leaves it out.
    """
    scheme = dsn.split("://", 1)[0] if "://" in dsn else ""
    if scheme not in ("mysql", "mariadb"):
        raise _core.InvalidInput(f"server: {_redact(dsn)!r} is not a MySQL DSN: it starts with mysql:// or "
                                 "mariadb:// (other databases are not supported)")
    try:
        url = urllib.parse.urlparse(dsn)
        port = url.port
    except ValueError as e:
        raise _core.InvalidInput(f"server: {_redact(dsn)!r}: {e} (a port is 1..65535)") from None
    p = _core.ConnectionParams()
    p.user = urllib.parse.unquote(url.username or "root")
    p.host = url.hostname or "localhost"
    p.port = port or 0
    p.database = url.path.lstrip("/")
    query = urllib.parse.parse_qs(url.query)
    unknown = set(query) - {"socket", "option_file"}
    if unknown:
        raise _core.InvalidInput(f"server: {_redact(dsn)!r}: unknown DSN parameter(s) {', '.join(sorted(unknown))}")
    if "socket" in query:
        p.socket = query["socket"][0]
    password = urllib.parse.unquote(url.password) if url.password else None
    password = password or os.environ.get("GAUNTLET_PASSWORD") or os.environ.get("MYSQL_PWD")
    if password is None:
        path = (query.get("option_file") or [option_file or os.path.expanduser("~/.my.cnf")])[0]
        password = _option_file_password(path)
    p.password = password or ""
    return p


class Connection:
    """A client session: ``execute(sql)`` returns an Outcome dict, columns and rows."""

    def __init__(self, target: Union[str, "_core.ConnectionParams", "ManagedServer"]):
        if isinstance(target, ManagedServer):
            params = target.connection
        elif isinstance(target, str):
            params = parse_dsn(target)
        else:
            params = target
        self.params = params
        self._c = _core.Connection.open(params)

    def execute(self, sql: str, fetch: bool = True) -> "Result":
        outcome, columns, rows = self._c.execute(sql, fetch)
        return Result(outcome, columns, rows)

    def query(self, sql: str) -> list:
        """Rows of a statement that must succeed."""
        r = self.execute(sql)
        if r.outcome["kind"] != "ok":
            raise _core.GauntletError(f"{sql}: error {r.outcome['error_code']}: {r.outcome['message']}")
        return r.rows

    @property
    def id(self) -> int:
        return self._c.id

    def __repr__(self) -> str:
        return f"Connection({self.params}, id={self.id})"


class Result:
    def __init__(self, outcome: dict, columns: list, rows: list):
        self.outcome = outcome
        self.columns = columns  # (name, type) pairs
        self.rows = rows

    @property
    def ok(self) -> bool:
        return self.outcome["kind"] == "ok"

    def __repr__(self) -> str:
        o = self.outcome
        if self.ok:
            return f"Result(ok, {len(self.rows)} rows, {o['seconds'] * 1000:.2f} ms)"
        return f"Result({o['kind']}, error {o['error_code']}: {o['message']})"


class ManagedServer:
    """A mariadbd/mysqld started by Gauntlet in a private run directory.

    >>> with ManagedServer("/tmp/s1", mysqld={"innodb_page_size": "8k"}) as s:  # doctest: +SKIP
    ...     Connection(s).query("SELECT @@innodb_page_size")
    """

    def __init__(self, dir: str, *, binary: str = DEFAULT_BINARY, mysqld=None,
                 wrapper: Sequence[str] = (), tcp: bool = False, start_timeout: float = 60,
                 core_file: bool = True, _die_with_parent: bool = False, _core_server=None):
        if _core_server is not None:
            self._s = _core_server
            return
        o = _core.ServerOptions()
        o.dir = os.fspath(dir)
        o.binary = binary
        o.mysqld = _option_list(mysqld)
        o.wrapper = list(wrapper)
        o.tcp = tcp
        o.start_timeout = start_timeout
        o.core_file = core_file
        o.die_with_parent = _die_with_parent
        self._s = _core.ManagedServer(o)

    @classmethod
    def attach(cls, dir: str) -> "ManagedServer":
        """The server a `gauntlet server start --dir DIR` left running."""
        return cls(dir, _core_server=_core.ManagedServer.attach(os.fspath(dir)))

    def start(self) -> "ManagedServer":
        self._s.start()
        return self

    def stop(self, timeout: float = 60) -> None:
        self._s.stop(timeout)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        self._s.kill(int(sig))

    def restart(self) -> None:
        self._s.restart()

    def detach(self) -> None:
        """Leave the server running after this object is gone."""
        self._s.detach()

    @property
    def alive(self) -> bool:
        return self._s.alive()

    def crash(self) -> dict:
        """The crash report (signal, assertion, frames, signature, log excerpt, gdb)."""
        return self._s.crash()

    def connect(self) -> Connection:
        return Connection(self._s.connection)

    connection = property(lambda self: self._s.connection)
    dsn = property(lambda self: self._s.dsn)
    socket = property(lambda self: self._s.socket)
    port = property(lambda self: self._s.port)
    pid = property(lambda self: self._s.pid)
    exit_signal = property(lambda self: self._s.exit_signal)
    error_log = property(lambda self: self._s.error_log)
    datadir = property(lambda self: self._s.datadir)
    ready_seconds = property(lambda self: self._s.ready_seconds)
    dir = property(lambda self: self._s.options.dir)
    binary = property(lambda self: self._s.options.binary)
    command_line = property(lambda self: list(self._s.command_line),
                            doc="The server's command line as last started, Gauntlet's own options included.")

    def __enter__(self) -> "ManagedServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"pid={self.pid}, running" if self.alive else "stopped"
        return f"ManagedServer({self.dir!r}, {state})"
