"""The one definition of every file Gauntlet writes, as Python reads it.

Each output file's shape is a JSON Schema in ``data/formats/NAME.schema.json``, compiled into
``_core`` (C++ writes summaries, findings, events and statement logs from the same documents).
Every record carries ``"format": N``, the schema's version: :func:`stamped` adds it to what
Python writes, :func:`read_json` refuses a file newer than this Gauntlet reads, :func:`check`
validates a record against its schema (what the tests do to every file a run leaves), and
:func:`markdown` renders the reference in docs/reference/output-files.md.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
from typing import Dict, Optional, Sequence, Union

from . import _core


@functools.lru_cache(maxsize=None)
def _schemas() -> Dict[str, dict]:
    return _core.output_formats()


def names() -> list:
    """Every output format's name: summary, finding, event, statement, run, campaign, ..."""
    return sorted(_schemas())


def schema(name: str) -> dict:
    """The JSON Schema of output format ``name`` (outcome kinds filled in from C++'s table)."""
    try:
        return _schemas()[name]
    except KeyError:
        raise _core.InvalidInput(f"no output format named {name!r}; there are {', '.join(names())}") from None


def version(name: str) -> int:
    """The ``format`` number records of ``name`` carry."""
    return schema(name)["properties"]["format"]["const"]


def stamped(name: str, record: dict) -> dict:
    """``record`` with ``"format"`` first, as every record of ``name`` is written."""
    return {"format": version(name), **{k: v for k, v in record.items() if k != "format"}}


def check(name: str, record: dict, where: str = "", required: Optional[Sequence[str]] = None) -> None:
    """Validates ``record`` against format ``name``; raises InvalidInput naming ``where`` and the
    field when it does not fit. ``required``: the fields that must be there, instead of the
    format's (a record made by hand may leave out what its reader does not need). Needs
    jsonschema (Debian's python3-jsonschema)."""
    import jsonschema
    store = {s["$id"]: s for s in _schemas().values()}
    wanted = schema(name) if required is None else {**schema(name), "required": list(required)}
    validator = jsonschema.Draft202012Validator(wanted, resolver=jsonschema.RefResolver("", schema(name), store))
    error = jsonschema.exceptions.best_match(validator.iter_errors(record))
    if error is not None:
        field = "/".join(map(str, error.absolute_path)) or "(top level)"
        message = error.message if len(error.message) <= 300 else error.message[:300] + " ..."
        raise _core.InvalidInput(f"{where or name}: {field}: {message}")


def read_json(path: Union[str, os.PathLike], name: str) -> dict:
    """A JSON file of format ``name``; InvalidInput naming the file when it is not JSON or was
    written by a newer Gauntlet. Files from before formats were versioned read as format 0."""
    path = pathlib.Path(path)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise _core.InvalidInput(f"{path}: cannot read it as {name} ({e})") from None
    newer_than(record, name, path)
    return record


def newer_than(record: dict, name: str, where) -> None:
    """Raises InvalidInput when ``record`` has a format newer than this Gauntlet reads."""
    found = record.get("format", 0) if isinstance(record, dict) else 0
    if not isinstance(found, int) or found > version(name):
        raise _core.InvalidInput(f"{where}: {name} of format {found}, newer than this Gauntlet reads "
                                 f"({version(name)}); read it with the Gauntlet that wrote it")


def markdown() -> str:
    """The reference of every output format, as docs/reference/output-files.md embeds it."""
    parts = []
    for name in names():
        s = schema(name)
        parts.append(f"### {s['title']} (format {version(name)})\n\n`{s['x-file']}`, written by {s['x-written-by']}."
                     + (f" {s['description']}" if s.get("description") else "") + "\n\n| field | meaning |\n| --- | --- |")
        required = set(s.get("required", []))
        for field, p in s["properties"].items():
            meaning = p.get("description", "")
            if "enum" in p:
                meaning += (": " if meaning else "") + ", ".join(map(str, p["enum"]))
            elif p.get("x-enum") == "outcome_kind" and p.get("type") == "object":
                meaning += ": " + ", ".join(p["properties"])
            parts.append(f"| `{field}`{' (always)' if field in required else ''} | {meaning} |")
        parts.append("")
    return "\n".join(parts)
