"""Checks of the Python API's arguments whose type is wrong: an InvalidInput naming the parameter,
never a bare TypeError from deep inside (``expected str, bytes or os.PathLike object, not int``)."""

from __future__ import annotations

import os
import pathlib
import sys
from typing import Optional, Union

from . import _core


def path_argument(name: str, value, *, optional: bool = False) -> Optional[str]:
    """``value`` (a str or os.PathLike) as a str; None when ``optional`` and it is None."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    wanted = "a path (str or pathlib.Path)" + (" or None" if optional else "")
    raise _core.InvalidInput(f"{name}: {wanted}, not {type(value).__name__} {value!r}"[:300])


def writable_folder(name: str, path) -> pathlib.Path:
    """``path`` made (with its parents) and writable, or InvalidInput naming the setting and the
    system's reason (a read-only disk, a file in the way)."""
    folder = pathlib.Path(path_argument(name, path))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _core.InvalidInput(f"{name}: cannot make {folder}: {e.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise _core.InvalidInput(f"{name}: cannot write to {folder}")
    return folder


def flag_argument(name: str, value) -> bool:
    """``value`` when it is True or False."""
    if isinstance(value, bool):
        return value
    raise _core.InvalidInput(f"{name}: True or False, not {value!r}"[:300])


def number_argument(name: str, value, *, low: float = 0, whole: bool = False) -> Union[int, float]:
    """``value`` when it is a number (a whole one if ``whole``) of at least ``low``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and value >= low
    if ok and whole and isinstance(value, float) and not value.is_integer():
        ok = False
    if not ok:
        kind = "a whole number" if whole else "a number"
        raise _core.InvalidInput(f"{name}: {kind}, {low:g} or more, not {value!r}"[:300])
    return int(value) if whole else value


def shard_argument(value) -> Optional[tuple]:
    """A shard of the work: "I/N" (or (I, N)) as (I, N) with 1 <= I <= N; None for all of it. Shard I of N
    takes every Nth piece of work from the Ith on: rounds, and with them seeds and option rows."""
    if value is None:
        return None
    parts = value.split("/") if isinstance(value, str) else value
    try:
        index, count = (int(p) for p in parts)
    except (TypeError, ValueError):
        index = count = 0
    if not 1 <= index <= count:
        raise _core.InvalidInput(f"shard: I/N with 1 <= I <= N (the Ith of N CI jobs), not {value!r}"[:300])
    return index, count


MAX_DURATION_VARIABLE = "GAUNTLET_MAX_DURATION"
_capped_said = False


def capped_duration(name: str, seconds: float) -> float:
    """``seconds``, or at most $GAUNTLET_MAX_DURATION when that is set: a dry run of a script or a
    page's commands (tests/python/test_docs.py runs every documented command so) shortens every
    time budget at once, runs, rows, bench runs and hunts, without editing them. 0 (no time limit)
    stays 0. Said once on stderr, since the results then measure less than was asked."""
    global _capped_said
    text = os.environ.get(MAX_DURATION_VARIABLE)
    if not text or seconds <= 0:
        return seconds
    try:
        cap = float(text)
    except ValueError:
        raise _core.InvalidInput(f"{MAX_DURATION_VARIABLE}: seconds, not {text!r}") from None
    if cap <= 0 or seconds <= cap:
        return seconds
    if not _capped_said:
        _capped_said = True
        print(f"gauntlet: {name} {seconds:g} s capped at {cap:g} s by ${MAX_DURATION_VARIABLE}", file=sys.stderr)
    return cap
