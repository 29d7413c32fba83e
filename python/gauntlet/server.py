"""Servers: ones Gauntlet starts (ManagedServer) and ones it is pointed at (DSN)."""

from __future__ import annotations

import configparser
import datetime
import decimal
import difflib
import functools
import os
import re
import signal
import subprocess
import urllib.parse
from typing import Iterable, Mapping, Optional, Sequence, Union

from . import _core

DEFAULT_BINARY = "/usr/sbin/mariadbd"
ServerError = _core.ServerError


@functools.lru_cache(maxsize=None)
def _known_options(binary: str) -> tuple:
    """The option names `binary --verbose --help` lists, with '_' for '-'."""
    try:
        out = subprocess.run([binary, "--no-defaults", "--verbose", "--help"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(sorted({m.group(1).replace("-", "_") for m in re.finditer(r"^  --([a-z0-9_-]+)", out, re.M)}))


_UNKNOWN_OPTION = re.compile(r"unknown (?:variable|option) '(?:--)?([^'=]+)")


def _unknown_option_error(binary: str, log_errors: Sequence[str]) -> Optional["_core.InvalidInput"]:
    """A usage error naming the option, when the server refused to start over an option it does
    not know (with the nearest option it does know); None for any other failure."""
    for line in log_errors:
        m = _UNKNOWN_OPTION.search(line)
        if m:
            name = m.group(1)
            near = difflib.get_close_matches(name.replace("-", "_"), _known_options(binary), n=1, cutoff=0.8)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            return _core.InvalidInput(f"mysqld: {binary} does not know the option {name!r}{hint}")
    return None


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


def _time(text: str) -> datetime.timedelta:
    sign = -1 if text.startswith("-") else 1
    hours, minutes, seconds = text.lstrip("-").split(":")
    return sign * datetime.timedelta(hours=int(hours), minutes=int(minutes), seconds=float(seconds))


_CONVERT = {
    **dict.fromkeys(("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR"), int),
    "DECIMAL": decimal.Decimal, "FLOAT": float, "DOUBLE": float,
    "DATE": datetime.date.fromisoformat, "DATETIME": datetime.datetime.fromisoformat,
    "TIMESTAMP": datetime.datetime.fromisoformat, "TIME": _time,
}


def _typed(value, column_type: str):
    """A value as the Python type of its column; text Python has no type for (the zero date
    '0000-00-00', say) stays text."""
    convert = _CONVERT.get(column_type)
    if value is None or convert is None or isinstance(value, bytes):
        return value
    try:
        return convert(value)
    except (ValueError, ArithmeticError):
        return value


class Connection:
    """A client session: ``execute(sql)`` returns a Result; ``query(sql)`` the rows of a
    statement that must succeed. Values come typed: int, Decimal, float, date, datetime,
    timedelta (TIME), bytes (binary strings), str, and None for NULL."""

    def __init__(self, target: Union[str, "_core.ConnectionParams", "ManagedServer"], *,
                 database: Optional[str] = None):
        if isinstance(target, ManagedServer):
            params = target.connection
        elif isinstance(target, str):
            params = parse_dsn(target)
        else:
            params = target
        if database is not None:
            params.database = database
        self.params = params
        self._c = _core.Connection.open(params)

    def execute(self, sql: str, fetch: bool = True) -> "Result":
        """Runs one statement; returns its Result (outcome, columns, typed rows). Errors are
        outcomes, not exceptions."""
        outcome, columns, rows = self._c.execute(sql, fetch)
        types = [t for _, t in columns]
        return Result(outcome, columns, [tuple(_typed(v, t) for v, t in zip(row, types)) for row in rows])

    def query(self, sql: str) -> list:
        """Rows of a statement that must succeed."""
        r = self.execute(sql)
        if r.outcome["kind"] != "ok":
            raise _core.GauntletError(f"{sql}: error {r.outcome['error_code']}: {r.outcome['message']}")
        return r.rows

    @property
    def id(self) -> int:
        """The server-side connection id (what KILL takes)."""
        return self._c.id

    def __repr__(self) -> str:
        return f"Connection({self.params}, id={self.id})"


class Result:
    """What one statement did: ``outcome`` (kind, error_code, message, rows, seconds),
    ``columns`` as (name, type) pairs and ``rows`` as tuples of typed values."""

    def __init__(self, outcome: dict, columns: list, rows: list):
        self.outcome = outcome
        self.columns = columns  # (name, type) pairs
        self.rows = rows

    @property
    def ok(self) -> bool:
        """True when the statement succeeded."""
        return self.outcome["kind"] == "ok"

    def __repr__(self) -> str:
        o = self.outcome
        if self.ok:
            return f"Result(ok, {len(self.rows)} rows, {o['seconds'] * 1000:.2f} ms)"
        return f"Result({o['kind']}, error {o['error_code']}: {o['message']})"

    def to_pandas(self):
        """The rows as a DataFrame with the column names."""
        import pandas as pd
        return pd.DataFrame(self.rows, columns=[name for name, _ in self.columns])

    def _repr_html_(self) -> str:
        import html
        head = "".join(f"<th>{html.escape(name)}</th>" for name, _ in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(repr(v) if v is None else str(v))}</td>" for v in row)
                       + "</tr>" for row in self.rows[:50])
        more = f"<p>... {len(self.rows) - 50:,} more rows</p>" if len(self.rows) > 50 else ""
        return f"<b>{html.escape(repr(self))}</b><table><tr>{head}</tr>{body}</table>{more}"


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
        """Starts the server (from a copy of the cached datadir template) and waits until it
        answers. Raises InvalidInput when it refuses an option it does not know (the option
        named, with a near miss), ServerError when it fails to start otherwise (with the error
        log's [ERROR] lines in ``log_errors``)."""
        try:
            self._s.start()
        except ServerError as e:
            usage = _unknown_option_error(self.binary, getattr(e, "log_errors", []))
            if usage is not None:
                raise usage from None
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
