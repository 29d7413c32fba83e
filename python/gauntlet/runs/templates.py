"""The data template cache: datadirs with a run's data loaded and its statistics settled, kept so that
the next run with the same data starts from a copy (seconds) instead of a load (minutes).

The folder is ``$GAUNTLET_CACHE``, else ``$XDG_CACHE_HOME/gauntlet``, else ``~/.cache/gauntlet``
(``_core.template_cache_dir()``, which the server bootstrap templates share). A data template lives in
``data/KEY``: ``data/`` (the datadir), ``made.json`` (how it was made: the key's inputs and
TEMPLATE_FORMAT), ``statistics.json`` (the settled statistics) and ``READY`` (written last). Its key
covers everything that shapes its content; one whose ``made.json`` does not match is made anew. The
cache is bounded (``$GAUNTLET_CACHE_MAX``, default 4G): after a template is added, the least
recently used ones (by ``used`` stamps) are removed until it fits, but never one used in the last
ten minutes (another run may be copying it)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pathlib
import re
import shutil
import threading
import time
from typing import List, Optional

from .. import _core

# How a template is made. 2: statistics settled after the load (data/statistics.h).
TEMPLATE_FORMAT = 2
DEFAULT_MAX = "4G"
_IN_USE_SECONDS = 600


def cache_dir() -> pathlib.Path:
    return pathlib.Path(_core.template_cache_dir())


def made_record(binary: str, data_options: list, spec_json: str, seed: int) -> dict:
    """The inputs that shape a template's content, with the format of the procedure."""
    real = os.path.realpath(binary)
    st = os.stat(real)
    return {"format": TEMPLATE_FORMAT, "binary": real, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "data_options": data_options, "spec_sha256": hashlib.sha256(spec_json.encode()).hexdigest(),
            "seed": seed}


def template_path(made: dict) -> pathlib.Path:
    key = json.dumps(made, sort_keys=True)
    return cache_dir() / "data" / hashlib.sha256(key.encode()).hexdigest()[:16]


def usable(template: pathlib.Path, made: dict) -> bool:
    """A whole template made as ``made`` says; stamps its use. Another one (an older format, a
    torn write) is removed, to be made anew."""
    if not (template / "READY").exists():
        return False
    try:
        recorded = json.loads((template / "made.json").read_text())
    except (OSError, ValueError):
        recorded = None
    if recorded != made:
        with _locked(template):
            shutil.rmtree(template, ignore_errors=True)
        return False
    (template / "used").touch()
    return True


def publish(datadir: str, template: pathlib.Path, made: dict, spec_json: str, statistics: dict) -> None:
    """Copies a loaded datadir into the cache as ``template``, whole or not at all: runs started at once
    (a campaign's parallel rows) may load the same data, and others may be copying the template
    already, so a ready template is never replaced, and one appears (READY inside) by a rename under a
    lock. Then the cache is trimmed to its bound."""
    tmp = template.with_name(f"{template.name}.tmp{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    _core.copy_datadir(datadir, str(tmp / "data"))
    (tmp / "made.json").write_text(json.dumps(made, indent=1, sort_keys=True) + "\n")
    (tmp / "statistics.json").write_text(json.dumps(statistics, indent=1) + "\n")
    (tmp / "used").touch()
    (tmp / "READY").write_text(spec_json)
    with _locked(template):
        if (template / "READY").exists():
            shutil.rmtree(tmp, ignore_errors=True)
            return
        shutil.rmtree(template, ignore_errors=True)  # left half-written by a writer that died
        tmp.rename(template)
    trim()


def parse_size(text: str) -> int:
    """``"8G"``, ``"500M"``, ``"1048576"`` -> bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
    if not m:
        raise _core.InvalidInput(f"GAUNTLET_CACHE_MAX: a size such as 8G or 500M, not {text!r}")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))


def max_bytes() -> int:
    return parse_size(os.environ.get("GAUNTLET_CACHE_MAX") or DEFAULT_MAX)


def entries() -> List[dict]:
    """Every template in the cache (data templates and server bootstraps): path, kind, bytes, last
    used (seconds since the epoch), and for data templates how they were made; most recent first."""
    out = []
    root = cache_dir()
    for kind, parent in (("data", root / "data"), ("bootstrap", root / "templates")):
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            if not path.is_dir() or ".tmp" in path.name:
                continue
            made = None
            if (path / "made.json").exists():
                try:
                    made = json.loads((path / "made.json").read_text())
                except ValueError:
                    pass
            out.append({"path": str(path), "kind": kind, "bytes": _size(path), "used": _last_used(path),
                        "made": made})
    return sorted(out, key=lambda e: -e["used"])


def trim(limit: Optional[int] = None) -> List[str]:
    """Removes the least recently used templates until the cache fits ``limit`` (default
    max_bytes()); never one used in the last ten minutes. Returns the removed paths."""
    limit = max_bytes() if limit is None else limit
    all_ = entries()
    total = sum(e["bytes"] for e in all_)
    removed = []
    for e in reversed(all_):  # the oldest first
        if total <= limit:
            break
        if time.time() - e["used"] < _IN_USE_SECONDS:
            continue
        with _locked(pathlib.Path(e["path"])):
            shutil.rmtree(e["path"], ignore_errors=True)
        total -= e["bytes"]
        removed.append(e["path"])
    return removed


def clear() -> int:
    """Removes every template; returns the bytes freed."""
    freed = 0
    for e in entries():
        with _locked(pathlib.Path(e["path"])):
            shutil.rmtree(e["path"], ignore_errors=True)
        freed += e["bytes"]
    return freed


def _size(path: pathlib.Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def _last_used(path: pathlib.Path) -> float:
    for stamp in ("used", "READY"):
        try:
            return (path / stamp).stat().st_mtime
        except OSError:
            pass
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class _locked:
    """The template's lock file, held exclusively (publishing, removing)."""

    def __init__(self, template: pathlib.Path):
        self.path = template.with_name(template.name + ".lock")

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "w")
        fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.file.close()
