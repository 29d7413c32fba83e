"""DSNs of servers Gauntlet is pointed at: parsed into connection parameters, printed without the secret."""

from __future__ import annotations

import configparser
import os
import re
import urllib.parse
from typing import Optional

from .. import _core


def redact(dsn: str) -> str:
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
        raise _core.InvalidInput(f"server: {redact(dsn)!r} is not a MySQL DSN: it starts with mysql:// or "
                                 "mariadb:// (other databases are not supported)")
    try:
        url = urllib.parse.urlparse(dsn)
        port = url.port
    except ValueError as e:
        raise _core.InvalidInput(f"server: {redact(dsn)!r}: {e} (a port is 1..65535)") from None
    p = _core.ConnectionParams()
    p.user = urllib.parse.unquote(url.username or "root")
    p.host = url.hostname or "localhost"
    p.port = port or 0
    p.database = url.path.lstrip("/")
    query = urllib.parse.parse_qs(url.query)
    unknown = set(query) - {"socket", "option_file"}
    if unknown:
        raise _core.InvalidInput(f"server: {redact(dsn)!r}: unknown DSN parameter(s) {', '.join(sorted(unknown))}")
    if "socket" in query:
        p.socket = query["socket"][0]
    password = urllib.parse.unquote(url.password) if url.password else None
    password = password or os.environ.get("GAUNTLET_PASSWORD") or os.environ.get("MYSQL_PWD")
    if password is None:
        path = (query.get("option_file") or [option_file or os.path.expanduser("~/.my.cnf")])[0]
        password = _option_file_password(path)
    p.password = password or ""
    return p

