"""Custom oracles: checks written in Python that judge every statement of a run.

Subclass :class:`Oracle`, override :meth:`Oracle.check`, and pass an instance
in ``oracles=[...]`` next to the built-in names::

    class NoEmptyJoins(gauntlet.Oracle):
        name = "no-empty-joins"

        def wants_rows(self, sql):
            return " JOIN " in sql.upper()

        def check(self, obs):
            if not obs.outcomes[0]["kind"] == "ok":
                return gauntlet.Oracle.NOT_APPLICABLE
            if not obs.rows[0]:
                return f"a join returned no rows: {obs.sql}"   # fires, with this detail

Checks run in the session's own thread (with the GIL, so they cost more than
the C++ oracles) right after the statement ran on every target.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Union


class Skip(Exception):
    """Raised by :meth:`Oracle.check` to skip a statement it cannot judge; the reason is counted."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Observation:
    """What one statement did on every target, for :meth:`Oracle.check`.

    ``thread`` (the session), ``sql``, ``targets`` (names, in order), ``outcomes``
    (one dict per target: kind, error_code, sqlstate, message, rows, affected_rows,
    seconds), ``columns`` and ``rows`` (per target, when :meth:`Oracle.wants_rows`
    said so; else None), and :meth:`execute` for follow-up statements in the same
    session (valid only during the check).
    """

    def __init__(self, thread: int, sql: str, targets: List[str], outcomes: List[dict],
                 columns: Optional[list], rows: Optional[list], execute: Callable):
        self.thread, self.sql, self.targets, self.outcomes = thread, sql, targets, outcomes
        self.columns, self.rows = columns, rows
        self._execute = execute

    def execute(self, sql: str, target: int = 0) -> tuple:
        """Runs ``sql`` in this session on target number ``target``: (outcome dict, columns, rows)."""
        return self._execute(sql, target)

    def __repr__(self) -> str:
        return f"Observation(thread {self.thread}, {self.sql[:60]!r}, {[o['kind'] for o in self.outcomes]})"


class Oracle:
    """Base class of custom checks. Override :meth:`check`; set ``name``.

    :meth:`check` returns None or True when the statement passed; a string (the
    detail), a dict (``kind``, ``signature``, ``detail``, ``evidence``, all optional)
    or False when it fired; :attr:`NOT_APPLICABLE` when it does not apply; or raises
    :class:`Skip` with a reason. A finding's signature defaults to the oracle's name
    and the statement's skeleton (literals and names taken out), so one bug found by
    many statements of one pattern is one finding. Anything else raised ends the run
    with an error naming the oracle.
    """

    name = "custom"
    NOT_APPLICABLE = object()

    def wants_rows(self, sql: str) -> bool:
        """True when :meth:`check` needs the rows of ``sql`` (fetched then on every target)."""
        return False

    def check(self, obs: Observation) -> Union[None, bool, str, dict, object]:
        """Judges one statement; see the class docstring for what to return."""
        raise NotImplementedError(f"{type(self).__name__}.check")

    def _verdict(self, thread, sql, targets, outcomes, columns, rows, execute) -> tuple:
        """Called by the engine: runs check() and turns its answer into (verdict, payload)."""
        try:
            answer = self.check(Observation(thread, sql, targets, outcomes, columns, rows, execute))
        except Skip as s:
            return "skipped", str(s.reason)
        if answer is self.NOT_APPLICABLE:
            return "not-applicable", None
        if answer is None or answer is True:
            return "passed", None
        if answer is False:
            return "fired", {"detail": f"{self.name} fired"}
        if isinstance(answer, str):
            return "fired", {"detail": answer}
        if isinstance(answer, dict):
            return "fired", answer
        raise TypeError(f"oracle {self.name}: check() returned {answer!r}; return None/True (passed), a str, "
                        "dict or False (fired), Oracle.NOT_APPLICABLE, or raise Skip(reason)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
