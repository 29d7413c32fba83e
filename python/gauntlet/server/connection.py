"""A client session from Python: statements in, typed rows out."""

from __future__ import annotations

import datetime
import decimal
from typing import Any, Optional, Union

from .. import _core
from .dsn import parse_dsn


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
    timedelta (TIME), bytes (binary strings), str, and None for NULL. ``target``: a DSN, a
    ConnectionParams or a ManagedServer."""

    def __init__(self, target: Union[str, "_core.ConnectionParams", Any], *,
                 database: Optional[str] = None):
        if isinstance(target, str):
            params = parse_dsn(target)
        elif isinstance(target, _core.ConnectionParams):
            params = target
        elif isinstance(getattr(target, "connection", None), _core.ConnectionParams):  # a ManagedServer
            params = target.connection
        else:
            raise _core.InvalidInput(f"target: a DSN, ConnectionParams or ManagedServer, not {target!r}")
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


