"""Root causes across run folders: what ``gauntlet triage DIR [DIR ...]`` prints and ``gauntlet.triage()``
returns.

A run groups its findings by likely cause as they come (OUT/root_causes.json); triage does the same over
any number of run folders (a hunt's, keep-going rounds, runs from before root causes existed), with the
one key the runs use (``_core.root_cause_key``, cpp/oracle/root_cause_key.h), so that the causes of
many runs add up. A run's findings come from its summary.json (every occurrence counted) or, for a run
that was killed before writing it, from findings.jsonl.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Iterable, Iterator, Optional, Union

from .. import _core
from ..arguments import path_argument
from ..formats import read_json
from .known_bugs import markers

PathLike = Union[str, pathlib.Path]


def _is_run(folder: pathlib.Path) -> bool:
    return (folder / "summary.json").is_file() or (folder / "findings.jsonl").is_file()


def run_folders(folder: pathlib.Path) -> Iterator[pathlib.Path]:
    """``folder`` when it is a run's, else the run folders below it (a hunt's: one per grammar). A
    keep-going run's rounds are its own: the run folder holds them all."""
    if _is_run(folder):
        yield folder
        return
    for child in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
        yield from run_folders(child)


def _findings(run: pathlib.Path) -> list:
    summary = run / "summary.json"
    if summary.is_file():
        return read_json(summary, "summary").get("findings", [])
    by_signature = {}
    for line in (run / "findings.jsonl").read_text(errors="replace").splitlines():
        try:
            f = json.loads(line)
        except ValueError:
            continue  # the torn last line of a killed run
        by_signature.setdefault(f.get("signature"), f)
    return list(by_signature.values())


class Triage:
    """Findings of one or more runs grouped by root cause, most frequent first.

    ``root_causes``: dicts with key, kind, count (occurrences), findings (folders), signature, first,
    last, statement (the shortest) and minimal (the shortest minimal query with both sides of its
    relation; None for crashes). ``to_json()`` is the shape of OUT/root_causes.json."""

    def __init__(self, folders: list, record: dict, findings: int):
        self.folders = folders
        self._record = record
        self.findings = findings
        self.known_marked = False  # whether mark_known ran

    def mark_known(self, known: list) -> None:
        """Marks each cause that one of ``known`` (``_core.KnownBug``: a catalogue's entries or a patterns
        file's lines) matches: its ``known`` is the entry's name (or the line's note)."""
        for cause in self.root_causes:
            cause.pop("known", None)
            hit = next((k for k in known if k.matches(cause["key"], cause["signature"])), None)
            if hit is not None:
                cause["known"] = hit.note
        self.known_marked = True

    @property
    def new_causes(self) -> list:
        """The causes no known bug matched (all of them before ``mark_known``)."""
        return [c for c in self.root_causes if not c.get("known")]

    @property
    def root_causes(self) -> list:
        """The causes, most frequent first (dicts, as root_causes.json has them)."""
        return self._record["root_causes"]

    def verify(self, work: PathLike, keys: Optional[Iterable[str]] = None) -> dict:
        """Runs each relation cause's minimal query, with the data it read, through Debian's
        mariadb-test-run on the run's server binary (test cases kept in ``work``), and adds to each
        cause ``verified``: {"verified": bool, "why": str, "test": the .test file}. Crash causes are
        left to ``gauntlet reduce``; ``keys``: only the causes of these keys. Returns the counts:
        {"verified": n, "checked": n}."""
        from ..reduction.minimal_check import verify_minimal
        wanted = None if keys is None else set(keys)
        causes = [c for c in self.root_causes if c["minimal"] and (wanted is None or c["key"] in wanted)]
        findings = [read_json(pathlib.Path(c["minimal"]["finding"]) / "finding.json", "finding") for c in causes]
        for cause, verdict in zip(causes, verify_minimal(findings, pathlib.Path(work))):
            cause["verified"] = verdict
        counts = {"verified": sum(c["verified"]["verified"] for c in causes), "checked": len(causes)}
        self._record["verified"] = counts
        return counts

    def to_json(self) -> dict:
        """The shape of OUT/root_causes.json: {"format": 1, "root_causes": [...]}."""
        return self._record

    def to_pandas(self):
        """One row per root cause: key, kind, count, findings (how many), known (the known bug, or None),
        minimal (its SQL), statement, signature, example (a finding's folder)."""
        import pandas as pd
        return pd.DataFrame([{"key": c["key"], "kind": c["kind"], "count": c["count"], "findings": len(c["findings"]),
                              "known": c.get("known"),
                              "minimal": (c["minimal"] or {}).get("sql"), "statement": c["statement"],
                              "signature": c["signature"], "example": c["findings"][0]}
                             for c in self.root_causes])

    def table(self, statement_chars: int = 400) -> str:
        """The causes as text, each with its smallest reproducer (what `gauntlet triage` prints)."""
        lines = [f"{len(self.root_causes)} root causes of {self.findings} findings in "
                 f"{len(self.folders)} run folder{'s' if len(self.folders) != 1 else ''}"]
        if self.known_marked:
            new = self.new_causes
            lines.append(f"{len(self.root_causes) - len(new)} known, {len(new)} new"
                         + (": " + "; ".join(c["key"] for c in new) if new else ""))
        if "verified" in self._record:
            v = self._record["verified"]
            lines.append(f"mariadb-test-run showed the wrong result of {v['verified']} of {v['checked']} minimal "
                         "queries, each run alone with the data it read")
        for n, c in enumerate(self.root_causes, 1):
            lines.append("")
            lines.append(f"{n}. {c['kind']} x{c['count']} ({len(c['findings'])} finding"
                         f"{'s' if len(c['findings']) != 1 else ''}): {c['key']}"
                         + (f"  [known: {c['known']}]" if c.get("known") else ""))
            if c["minimal"]:
                m = c["minimal"]
                lines.append(f"   minimal: {_short(m['sql'], statement_chars)}")
                if m.get("right"):
                    lines.append(f"   against: {_short(m['right'], statement_chars)}")
                lines.append(f"   in {m['finding']}")
                if "verified" in c:
                    v = c["verified"]
                    lines.append(f"   {'REPRODUCED' if v['verified'] else 'not reproduced'}: {v['why']}")
            else:
                lines.append(f"   statement: {_short(c['statement'], statement_chars)}")
                lines.append(f"   in {c['findings'][0]}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        known = (f", {len(self.root_causes) - len(self.new_causes)} known" if self.known_marked else "")
        return (f"<Triage: {len(self.root_causes)} root causes{known} of {self.findings} findings in "
                f"{len(self.folders)} run folders>")

    def _repr_html_(self) -> str:
        from html import escape
        rows = "".join(
            f"<tr><td>{c['count']}</td><td>{escape(c['kind'])}</td><td>{escape(c['key'])}</td>"
            f"<td><code>{escape((c['minimal'] or {}).get('sql') or c['statement'])}</code></td></tr>"
            for c in self.root_causes)
        return (f"<p>{escape(repr(self))}</p><table><tr><th>count</th><th>kind</th><th>key</th>"
                f"<th>smallest reproducer</th></tr>{rows}</table>")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def triage(*folders: Union[PathLike, Iterable[PathLike]], known_bugs: Optional[PathLike] = None) -> Triage:
    """The root causes of the findings in run folders (or folders holding run folders, such as a hunt's
    output); with ``known_bugs`` (a catalogue, or a patterns file), the causes it matches are marked
    known. Raises InvalidInput naming a folder that does not exist or holds no run."""
    paths = []
    for f in folders:
        many = not isinstance(f, (str, os.PathLike)) and hasattr(f, "__iter__")
        paths.extend(path_argument("triage: a folder", p) for p in (f if many else [f]))
    if not paths:
        raise _core.InvalidInput("triage: no run folder given")
    causes = _core.RootCauses()
    runs, count = [], 0
    for given in map(pathlib.Path, paths):
        if not given.is_dir():
            raise _core.InvalidInput(f"{given}: no such folder")
        found = list(run_folders(given))
        if not found:
            raise _core.InvalidInput(f"{given}: no run folder (summary.json or findings.jsonl) in it or below it")
        for run in found:
            runs.append(run)
            for finding in _findings(run):
                causes.add(finding, str(run / "findings" / finding.get("id", "")))
                count += 1
    result = Triage(runs, causes.to_json(), count)
    if known_bugs is not None:
        result.mark_known(markers(path_argument("known_bugs", known_bugs)))
    return result
