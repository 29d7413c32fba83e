"""Reach: which of a server's own names runs used (summary.json's and hunt.json's ``reach``), against
the server's lists (the run folder's surface.json), merged over any number of run and hunt folders:
what ``gauntlet coverage`` prints and the HTML report shows."""

from __future__ import annotations

import json
import pathlib
from typing import Dict, List, Optional

from .. import _core
from ..server.surface import Surface

# The category whose names are the help topics; the report shows it by help category instead.
HELP_TOPICS = "help topics"


class Reach:
    """Statements counted, and per category of the surface how many of them used each name."""

    def __init__(self, surface: Surface, counts: Optional[Dict[str, Dict[str, int]]] = None, statements: int = 0,
                 runs: int = 0, tables: int = 0):
        self.surface = surface
        self.counts = counts or {}
        self.statements = statements
        self.runs = runs
        self.tables = tables

    @classmethod
    def from_summary(cls, reach: dict, surface: Surface) -> "Reach":
        """A summary's (or hunt.json's) ``reach`` against its folder's surface."""
        counts = {name: dict(c.get("reached", {})) for name, c in reach.get("categories", {}).items()}
        return cls(surface, counts, reach.get("statements", 0), reach.get("runs", 1), reach.get("tables", 0))

    def merge(self, other: "Reach") -> "Reach":
        """Both together: counts added, the surfaces' names united (runs of two server versions)."""
        categories = [dict(c, names=list(c["names"])) for c in self.surface.categories]
        by_name = {c["name"]: c for c in categories}
        for c in other.surface.categories:
            if c["name"] not in by_name:
                by_name[c["name"]] = dict(c, names=list(c["names"]))
                categories.append(by_name[c["name"]])
            else:
                known = set(by_name[c["name"]]["names"])
                by_name[c["name"]]["names"] += [n for n in c["names"] if n not in known]
        help = {k: list(v) for k, v in self.surface.help.items()}
        for k, topics in other.surface.help.items():
            help[k] = help.get(k, []) + [t for t in topics if t not in help.get(k, [])]
        servers = self.surface.server if other.surface.server in (self.surface.server, "") \
            else f"{self.surface.server}, {other.surface.server}" if self.surface.server else other.surface.server
        counts = {k: dict(v) for k, v in self.counts.items()}
        for category, names in other.counts.items():
            mine = counts.setdefault(category, {})
            for name, n in names.items():
                mine[name] = mine.get(name, 0) + n
        return Reach(Surface(servers, categories, help), counts, self.statements + other.statements,
                     self.runs + other.runs, self.tables + other.tables)

    def to_json(self) -> dict:
        """The summary's shape: statements, tables, runs, and per category its rule, total and reached names."""
        return {"statements": self.statements, "tables": self.tables, "runs": self.runs,
                "categories": {c["name"]: {"rule": c["rule"], "total": len(c["names"]),
                                           "reached": self.counts.get(c["name"], {})}
                               for c in self.surface.categories}}

    def categories(self) -> List[dict]:
        """One row per category as a report shows it: the surface's categories, the help topics by
        help category ("help: Data Definition", ...), each with reached, total, share and the
        unreached names. A help category with no topic that is SQL is left out."""
        rows = []
        for c in self.surface.categories:
            if c["name"] == HELP_TOPICS:
                topics = self.counts.get(HELP_TOPICS, {})
                for help_category, names in sorted(self.surface.help.items()):
                    if names:
                        rows.append(_row(f"help: {help_category}", names, topics))
            else:
                rows.append(_row(c["name"], c["names"], self.counts.get(c["name"], {})))
        return rows

    def reached(self, category: str) -> Dict[str, int]:
        """The names of ``category`` that statements used, with how many statements used each."""
        return dict(self.counts.get(category, {}))

    def to_pandas(self):
        """One row per name of the surface: category, name, statements (0: unreached)."""
        import pandas as pd
        rows = [{"category": c["name"], "name": n, "statements": self.counts.get(c["name"], {}).get(n, 0)}
                for c in self.surface.categories for n in c["names"]]
        return pd.DataFrame(rows, columns=["category", "name", "statements"])

    def table(self, unreached: int = 0) -> str:
        """The categories as text: reached/total and share; with ``unreached`` > 0, up to that many
        unreached names of each."""
        rows = self.categories()
        width = max([len(r["category"]) for r in rows] + [8])
        lines = [f"reach of {self.runs} run(s), {self.statements} statements, against {self.surface.server or '?'}",
                 f"{'category':<{width}}  reached  total   share"]
        for r in rows:
            lines.append(f"{r['category']:<{width}}  {r['reached']:>7}  {r['total']:>5}  {r['share']:>5.0%}")
            if unreached and r["unreached"]:
                more = len(r["unreached"]) - unreached
                lines.append(" " * 4 + "unreached: " + ", ".join(r["unreached"][:unreached]) +
                             (f", ... {more} more" if more > 0 else ""))
        return "\n".join(lines)

    def __repr__(self) -> str:
        shown = ", ".join(f"{r['category']} {r['reached']}/{r['total']}" for r in self.categories()
                          if not r["category"].startswith("help: "))
        return f"Reach({self.runs} runs, {self.statements} statements: {shown})"


def _row(category: str, names: List[str], reached: Dict[str, int]) -> dict:
    hit = [n for n in names if reached.get(n)]
    return {"category": category, "reached": len(hit), "total": len(names),
            "share": len(hit) / len(names) if names else 0.0,
            "unreached": [n for n in names if not reached.get(n)]}


def read_reach(folder) -> Optional[Reach]:
    """The reach a run or hunt folder recorded (its summary.json or hunt.json with its surface.json),
    or None when it has none."""
    folder = pathlib.Path(folder)
    surface = folder / "surface.json"
    for name in ("hunt.json", "summary.json"):
        path = folder / name
        if path.exists() and surface.exists():
            reach = json.loads(path.read_text()).get("reach")
            if reach:
                return Reach.from_summary(reach, Surface.read(surface))
    return None


def add_reach(total: Optional[Reach], folder) -> Optional[Reach]:
    """``total`` with the reach ``folder`` recorded (read_reach), if any."""
    reach = read_reach(folder)
    if reach is None:
        return total
    return reach if total is None else total.merge(reach)


def reach_of(*folders) -> Reach:
    """The reach of every run and hunt in ``folders``, merged (what ``gauntlet coverage`` prints): a
    hunt folder counts as its hunt.json says (its rounds are in it), a run folder as its summary.json,
    any other folder as the runs and hunts below it. ``to_pandas()`` gives a row per name. Raises
    InvalidInput for a missing folder, or when none of them recorded a reach."""
    total: Optional[Reach] = None
    for folder in folders:
        if not pathlib.Path(folder).is_dir():
            raise _core.InvalidInput(f"coverage: {folder}: no such folder")
        for reach in _reaches_under(pathlib.Path(folder)):
            total = reach if total is None else total.merge(reach)
    if total is None:
        raise _core.InvalidInput(f"coverage: no run or hunt in {', '.join(map(str, folders))} recorded its reach "
                                 "(summary.json's or hunt.json's reach, with surface.json beside it)")
    return total


def _reaches_under(folder: pathlib.Path):
    own = read_reach(folder)
    if own is not None:
        yield own
        return
    if folder.is_dir():
        for child in sorted(p for p in folder.iterdir() if p.is_dir()):
            yield from _reaches_under(child)
