"""Data specs: what tables a run creates and what rows it loads."""

from __future__ import annotations

import os

from . import _core
from .grammar import Schema


def load_data_spec(path: str) -> Schema:
    """A Schema from a JSON data spec (see grammars/oltp/sbtest.json)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise _core.InvalidInput(f"{path}: data spec not found")
    if path.endswith(".json"):
        return Schema.from_json(path)
    raise _core.InvalidInput(f"{path}: unknown data spec format (expected .json)")
