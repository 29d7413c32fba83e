"""What ships inside the package: the stock grammars (``grammars/``: optimizer.yy, the hunting
grammars of ``hunt/``, the sysbench-equivalent workloads of ``oltp/`` with their data spec) and
the known-bugs catalogues (``known-bugs/``).

They live in this folder of the package (the checkout's top-level ``grammars`` and ``known-bugs``
point here), so an installed Gauntlet finds them wherever it runs. A path that does not exist
but names a stock file (``optimizer.yy``, ``grammars/hunt/dml.yy``, ``hunt/dml``,
``known-bugs/mariadb-10.11.toml``) stands for that file: the commands of the docs work from any
folder.
"""

from __future__ import annotations

import importlib.resources
import os
import pathlib
from typing import Union

__all__ = ["ROOT", "GRAMMARS", "HUNT", "OLTP", "KNOWN_BUGS", "DEFAULT_KNOWN_BUGS", "hunt_grammars", "resolve"]

# The files are plain files of an installed package (the C++ core reads them by path), so the
# package's folder is their root; a zipped install is not supported.
ROOT = pathlib.Path(os.fspath(importlib.resources.files(__name__)))
GRAMMARS = ROOT / "grammars"
HUNT = GRAMMARS / "hunt"
OLTP = GRAMMARS / "oltp"
KNOWN_BUGS = ROOT / "known-bugs"
DEFAULT_KNOWN_BUGS = KNOWN_BUGS / "mariadb-10.11.toml"

# The order a hunt rotates them in (the broadest first).
_HUNT_ORDER = ("optimizer", "dml", "ddl", "transactions", "json", "window", "temporal", "partitions")


def hunt_grammars() -> list:
    """The stock hunting grammars (grammars/hunt/*.yy), broadest first."""
    found = {p.stem: p for p in HUNT.glob("*.yy")}
    return [found[n] for n in _HUNT_ORDER if n in found] + sorted(p for n, p in found.items() if n not in _HUNT_ORDER)


def resolve(path: Union[str, os.PathLike]) -> str:
    """``path`` when it exists; else the stock file it names (see the module's doc); else ``path``
    unchanged, for the caller's own "not found" error."""
    text = os.fspath(path)
    if not text or os.path.exists(text) or os.path.isabs(text):
        return text
    for candidate in _stock_candidates(pathlib.PurePosixPath(text.replace(os.sep, "/"))):
        if candidate.is_file():
            return str(candidate)
    return text


def _stock_candidates(p: pathlib.PurePosixPath) -> list:
    if p.parts[0] in ("grammars", "known-bugs"):
        return [ROOT.joinpath(*p.parts)]
    names = [p] if p.suffix else [p.with_suffix(".yy"), p.with_suffix(".toml")]
    return [base.joinpath(*n.parts) for base in (GRAMMARS, KNOWN_BUGS) for n in names]
