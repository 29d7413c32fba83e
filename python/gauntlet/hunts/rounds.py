"""A hunt's rounds: the grammars a hunt rotates, which one round N takes, and running a round, here or
on a Dask worker. A worker may be another machine: it gets the grammar's text and the stock files by
their names, runs the round in a folder of its own and sends the folder back packed (without the
servers' datadirs), to be unpacked into the hunt's folder."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pathlib
import re
import shutil
import tarfile
import tempfile
from typing import Callable, List, Optional, Sequence, Tuple

from .. import _core, stock
from ..arguments import path_argument
from ..combi import row_mysqld
from ..grammar import Grammar
from ..runs import run


@dataclasses.dataclass
class HuntGrammar:
    """A grammar of the hunt: its file, whether the user gave it, and its header's sessions and statement
    timeout; ``text``: the user's grammar itself, for a worker that does not have the file."""
    path: str
    name: str
    user: bool
    threads: int
    statement_timeout: float
    text: str = ""


def _header_setting(text: str, flag: str, default):
    m = re.search(rf"--{flag} (\d+)", text)
    return type(default)(m.group(1)) if m else default


def hunt_grammars(user: Sequence[str], threads: Optional[int], with_stock: bool) -> List[HuntGrammar]:
    """Every grammar of the hunt, loaded once here so that a bad one fails before any server starts."""
    if not user and not with_stock:
        raise _core.InvalidInput("grammars: none to hunt with (no stock grammars, and no grammar given)")
    found = []
    theirs = [(str(p), False) for p in stock.hunt_grammars()] if with_stock else []
    # Absolute: a Dask worker's round records the grammar as the hunt has it.
    for path, mine in [(os.path.abspath(stock.resolve(path_argument("grammars", p))), True) for p in user] + theirs:
        Grammar.from_file(path)  # InvalidInput naming the file, line and column
        text = pathlib.Path(path).read_text(errors="replace")
        found.append(HuntGrammar(path, pathlib.Path(path).stem, mine, threads or _header_setting(text, "threads", 2),
                                 _header_setting(text, "statement-timeout", 10), text if mine else ""))
    return found


def schedule(grammars: List[HuntGrammar], n: int, seed: int) -> HuntGrammar:
    """Round n's grammar (n from 0): the user's take every other round when there are any."""
    mine = [g for g in grammars if g.user]
    theirs = [g for g in grammars if not g.user]
    if mine and (n % 2 == 0 or not theirs):
        return mine[((n // 2 if theirs else n) + seed - 1) % len(mine)]
    k = n // 2 if mine else n
    return theirs[(k + seed - 1) % len(theirs)]


@dataclasses.dataclass
class RoundSpec:
    """Everything round ``number`` (from 0, over all shards) runs with: its seed is seed + number."""
    number: int
    grammar: HuntGrammar
    seconds: float
    seed: int
    server: str
    targets: Optional[list]
    row: Optional[dict]
    row_number: Optional[int]
    known_bugs: Optional[str]
    oracles: str

    @property
    def folder(self) -> str:
        """Its folder below the hunt's."""
        return f"rounds/{self.number + 1:03d}-{self.grammar.name}"


def run_round(out: pathlib.Path, spec: RoundSpec, status: Callable[[str], None] = lambda text: None) -> dict:
    """Runs the round into ``out``/its folder (a keep-going run of its grammar on a random schema with
    the hunt's oracles, a statement log and a hang watchdog) and returns its entry of hunt.json.
    ``status``: told what the round is at, once a second."""
    g, n, s = spec.grammar, spec.number, spec.seed + spec.number
    folder = out / spec.folder
    status(f"round {n + 1}: {g.name}.yy")

    def tick(second) -> bool:
        status(f"round {n + 1}: {g.name}.yy" + (f", {second['statements']:,} statements/s" if second else ""))
        return False

    # A corpus brings its own tables, as its tests create them: an empty database.
    data = "none" if g.path.startswith("corpus:") else f"random:{s}"
    result = run(g.path, data=data, seed=s, threads=g.threads, statement_timeout=g.statement_timeout,
                 hang_timeout=30, duration=spec.seconds, out=folder, overwrite=True, keep_going=True,
                 statement_log=True, oracles=spec.oracles, known_bugs=spec.known_bugs, server=spec.server,
                 targets=spec.targets, mysqld=row_mysqld(spec.row) if spec.row else None, progress=tick)
    summary = result.summary()
    return {"round": n + 1, "grammar": g.path, "user_grammar": g.user, "seed": s, "options": spec.row,
            "folder": spec.folder, "seconds": summary["seconds"], "statements": summary["statements"],
            "findings": len(result.findings), "stop_reason": summary.get("stop_reason", "")}


def round_line(spec: RoundSpec, entry: dict) -> str:
    """The line a CI log gets when a round ends."""
    row = f", options row {spec.row_number + 1}" if spec.row_number is not None else ""
    return (f"round {entry['round']} {spec.grammar.name}.yy (seed {entry['seed']}{row}): "
            f"{entry['statements']:,} statements in {entry['seconds']:.0f} s, {entry['findings']} findings")


def portable(spec: RoundSpec) -> RoundSpec:
    """The spec as another machine can run it: stock files by their names below the package's folder."""
    def name(path: Optional[str]) -> Optional[str]:
        if path and pathlib.Path(path).resolve().is_relative_to(stock.ROOT.resolve()):
            return str(pathlib.Path(path).resolve().relative_to(stock.ROOT.resolve()))
        return path
    grammar = dataclasses.replace(spec.grammar, path=name(spec.grammar.path))
    return dataclasses.replace(spec, grammar=grammar, known_bugs=name(spec.known_bugs))


def run_round_packed(spec: RoundSpec) -> Tuple[dict, str, bytes]:
    """On a Dask worker: the round run in a folder of the worker's own, returned as its entry, that
    folder's path and the round's folder packed (tar.gz, the servers' datadirs and temporary files left
    out)."""
    with tempfile.TemporaryDirectory(prefix="gauntlet-round-") as work:
        work = pathlib.Path(work)
        g = spec.grammar
        path = stock.resolve(g.path)
        if not path.startswith("corpus:") and not os.path.isfile(path):  # the user's grammar, from its machine
            path = str(work / f"{g.name}.yy")
            pathlib.Path(path).write_text(g.text)
        known = stock.resolve(spec.known_bugs) if spec.known_bugs else None
        here = dataclasses.replace(spec, grammar=dataclasses.replace(g, path=path),
                                   known_bugs=known if known and os.path.isfile(known) else None)
        entry = run_round(work, here)
        import distributed
        entry["worker"] = distributed.get_worker().address
        packed = io.BytesIO()
        with tarfile.open(fileobj=packed, mode="w:gz") as tar:
            tar.add(work / spec.folder, arcname=spec.folder, filter=_kept)
        return entry, str(work), packed.getvalue()


def _kept(member: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
    """What of a round's folder travels back: not a server's datadir or temporary files, nor locks."""
    parts = pathlib.PurePosixPath(member.name).parts
    for i, part in enumerate(parts[:-1]):
        if part.startswith("server") and parts[i + 1] in ("data", "tmp"):
            return None
    if parts[-1] in (".gauntlet.lock", ".server.lock") or not (member.isfile() or member.isdir() or member.issym()):
        return None
    return member


def unpack_round(out: pathlib.Path, spec: RoundSpec, work: str, packed: bytes) -> None:
    """A worker's round folder into the hunt's folder, its records naming this machine's paths: the
    hunt's folder for the worker's, and the grammar as the hunt has it (what replay and reduce read)."""
    folder = out / spec.folder
    if folder.exists():
        shutil.rmtree(folder)
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
        tar.extractall(out)
    for path in folder.rglob("*.json*"):
        text = path.read_text()
        if work in text:
            path.write_text(text.replace(work, str(out)))
    for path in folder.rglob("run.json"):
        record = json.loads(path.read_text())
        if record.get("grammar"):
            record["grammar"] = spec.grammar.path
            path.write_text(json.dumps(record, indent=2) + "\n")
