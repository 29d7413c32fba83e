"""DSNs of servers Gauntlet is pointed at: parsed into connection parameters, printed without the secret."""

from __future__ import annotations

import configparser
import dataclasses
import os
import urllib.parse
from typing import Optional

from .. import _core


@dataclasses.dataclass(frozen=True)
class _Parts:
    """A DSN cut at its first '://', its last '@' and the first '/' and '?' after that: a password
    may hold any character ('/', '#', ':', '?', '@'; '%XX' is read percent-encoded), since no part
    of it ever reaches a parser that would quote it back in a message."""
    scheme: str
    user: Optional[str]
    password: Optional[str]
    host: str  # HOST[:PORT]
    path: str
    query: str

    def shown(self, password: str) -> str:
        """The DSN with ``password`` in place of its password (when it has one)."""
        who = "" if self.user is None else self.user + ("" if self.password is None else ":" + password) + "@"
        return f"{self.scheme}://{who}{self.host}{self.path}{'?' + self.query if self.query else ''}"


def _parts(dsn: str) -> Optional[_Parts]:
    if "://" not in dsn:
        return None
    scheme, rest = dsn.split("://", 1)
    user = password = None
    if "@" in rest:
        who, rest = rest.rsplit("@", 1)
        user, colon, secret = who.partition(":")
        password = secret if colon else None
    rest, _, query = rest.partition("?")
    host, slash, path = rest.partition("/")
    return _Parts(scheme, user, password, host, slash + path, query)


def redact(dsn: str) -> str:
    """The DSN with any password replaced by ***: what messages show."""
    parts = _parts(dsn)
    return parts.shown("***") if parts else dsn


def without_password(dsn: str) -> str:
    """The DSN without its password: what run.json and findings record (replay takes the password
    from where the run took it, password_source())."""
    parts = _parts(dsn)
    return dataclasses.replace(parts, password=None).shown("") if parts else dsn


def recorded_login(dsn: str, password_from: Optional[str]) -> str:
    """The DSN that logs in as a run did, from run.json's (without its password) and where the run's
    password came from (password_source()): with none, an explicit empty password, so that no
    environment variable gives one now; else parse_dsn() looks where the run's came from."""
    parts = _parts(dsn)
    if parts is None or password_from is not None:
        return without_password(dsn)
    return dataclasses.replace(parts, user=parts.user or "root", password="").shown("")


def password_source(dsn: str) -> Optional[str]:
    """Where parse_dsn() takes the password of ``dsn`` from: "dsn", "GAUNTLET_PASSWORD", "MYSQL_PWD", an
    option file's path, or None (no password)."""
    parts = _parts(dsn)
    if parts and parts.password:
        return "dsn"
    for name in ("GAUNTLET_PASSWORD", "MYSQL_PWD"):
        if os.environ.get(name):
            return name
    query = urllib.parse.parse_qs(parts.query) if parts else {}
    path = (query.get("option_file") or [os.path.expanduser("~/.my.cnf")])[0]
    return path if _option_file_password(path) is not None else None


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

    The password comes, in this order, from the DSN (any character but a '%' that starts a %XX
    escape may stand as it is; `USER:@HOST` is an empty password), $GAUNTLET_PASSWORD,
    $MYSQL_PWD, or the [client] section of ``option_file`` (default ~/.my.cnf). No part of it is
    ever printed: ``str(params)`` and every message leave it out.
    """
    parts = _parts(dsn)
    if parts is None or parts.scheme not in ("mysql", "mariadb"):
        raise _core.InvalidInput(f"server: {redact(dsn)!r} is not a MySQL DSN: it starts with mysql:// or "
                                 "mariadb:// (other databases are not supported)")
    if parts.host.startswith("["):  # [IPv6]:PORT
        host, _, port = parts.host[1:].partition("]")
        port = port[1:]
    else:
        host, _, port = parts.host.partition(":")
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise _core.InvalidInput(f"server: {redact(dsn)!r}: the port {port!r} is not a number 1..65535")
    p = _core.ConnectionParams()
    p.user = urllib.parse.unquote(parts.user or "root")
    p.host = urllib.parse.unquote(host) or "localhost"
    p.port = int(port) if port else 0
    p.database = urllib.parse.unquote(parts.path.lstrip("/"))
    query = urllib.parse.parse_qs(parts.query)
    unknown = set(query) - {"socket", "option_file"}
    if unknown:
        raise _core.InvalidInput(f"server: {redact(dsn)!r}: unknown DSN parameter(s) {', '.join(sorted(unknown))}")
    if "socket" in query:
        p.socket = query["socket"][0]
    # USER:@HOST says "no password" (as replay logs in when the run had none); USER@HOST looks for one.
    password = urllib.parse.unquote(parts.password) if parts.password is not None else None
    if password is None:
        password = os.environ.get("GAUNTLET_PASSWORD") or os.environ.get("MYSQL_PWD")
    if password is None:
        path = (query.get("option_file") or [option_file or os.path.expanduser("~/.my.cnf")])[0]
        password = _option_file_password(path)
    p.password = password or ""
    return p

