"""The run folder (``--out``): claimed by one run at a time, an earlier run's files replaced only when asked."""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import shutil

from .. import _core


RUN_FILES = ("summary.json", "events.jsonl", "run.json", "findings.jsonl")
# Folders a run writes into --out, removed with an earlier run's files and never without them.
RUN_FOLDERS = ("findings", "rounds")


def _never_started(out: pathlib.Path) -> bool:
    """Whether the run in ``out`` stopped at its input (a misspelt option, a server that refused to
    start, a disk too full) before a statement ran: nothing in it is worth keeping from the
    corrected command."""
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(summary, dict) and summary.get("stop_reason") == "error" and not summary.get("statements")
            and not summary.get("findings") and (summary.get("error") or {}).get("kind") in ("input", "output"))


def write_atomically(path: pathlib.Path, text: str) -> None:
    """Writes ``path`` whole or not at all (a full disk leaves the file as it was, never torn or
    empty); raises OSError when it could not."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def claim_out(out: pathlib.Path, overwrite: bool):
    """Makes ``out`` this run's folder: a writable directory that no other run uses.

    Returns the open lock file (held for the whole run). A folder holding an
    earlier run is refused unless ``overwrite``, which removes that run's
    files first: two runs' events never mix.
    """
    if out.exists() and not out.is_dir():
        raise _core.InvalidInput(f"out: {out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = open(out / ".gauntlet.lock", "a+")
    except OSError as e:
        raise _core.InvalidInput(f"out: cannot write results to {out}: {e.strerror}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        raise _core.InvalidInput(f"out: {out} is in use by another run (pid {holder})") from None
    try:  # unbuffered: a full disk fails here, not in a later close()
        os.ftruncate(lock.fileno(), 0)
        os.pwrite(lock.fileno(), str(os.getpid()).encode(), 0)
    except OSError as e:
        lock.close()
        raise _core.OutputError(f"cannot write {out / '.gauntlet.lock'}: {e.strerror}; the run did not start") \
            from None
    earlier = sorted(p.name for p in out.iterdir()
                     if p.name in RUN_FILES or (p.name.startswith("statements-") and p.suffix == ".jsonl"))
    if earlier and not overwrite and not _never_started(out):
        lock.close()
        raise _core.InvalidInput(f"out: {out} holds an earlier run ({', '.join(earlier)}); choose another "
                                 "folder, or pass overwrite=True (--overwrite) to replace it")
    foreign = [f"{name}/" for name in RUN_FOLDERS if (out / name).exists()]
    if foreign and not earlier:  # copied in by hand, say: not a run's of ours
        lock.close()
        raise _core.InvalidInput(f"out: {out} has {' and '.join(foreign)} but no run's files ({', '.join(RUN_FILES)}): "
                                 "Gauntlet replaces only what a run of its own left; choose another folder")
    for name in earlier:
        (out / name).unlink()
    if earlier:
        shutil.rmtree(out / "findings", ignore_errors=True)
    return lock

