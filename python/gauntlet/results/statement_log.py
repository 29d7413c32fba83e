"""A run's statement log (``--statement-log``: OUT/statements-N.jsonl, one line a statement, each of
the same shape) read back in start order."""

from __future__ import annotations

import os
import pathlib
import re
from typing import Union

from .. import _core
from ..arguments import path_argument


def read_statement_log(source: Union[str, os.PathLike], *, frame: bool = False):
    """Every statement of a statement log, in start order (``seq``): dicts with seq, thread, query,
    piece, start and end (seconds on the run's clock), outcome, error, sql (str, or bytes where it is
    not UTF-8), target_ms and key. ``source``: a statements-N.jsonl file or a run folder (all its
    sessions' logs); ``frame=True`` gives a pandas DataFrame instead. Raises InvalidInput naming a
    file of a newer format or one that is no statement log."""
    path = pathlib.Path(path_argument("statement log (a statements-N.jsonl file or a run folder)", source))
    if path.is_dir():
        files = sorted(path.glob("statements-*.jsonl"), key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
        if not files:
            raise _core.InvalidInput(f"{path}: no statements-N.jsonl: the run had no statement log (--statement-log)")
    else:
        files = [path]
    rows = sorted((r for f in files for r in _core.read_statement_log(str(f))), key=lambda r: r["seq"])
    if not frame:
        return rows
    import pandas as pd
    return pd.DataFrame(rows)
