"""A catalogue of known bugs (``known-bugs/mariadb-10.11.toml``): each bug with the root causes it
shows as and a reproducer that ``gauntlet known-bugs check`` re-runs.

The format is in docs/reference/known-bugs.md. A run, a hunt or ``gauntlet triage`` given the
catalogue (``--known-bugs FILE``) marks the findings and root causes whose key (cpp/oracle/
root_cause_key.h) matches an entry's ``match`` patterns as known; only new causes fail a run.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import tempfile
from typing import List, Optional, Sequence

from .. import _core, stock
from ..arguments import path_argument

FORMAT = 1
KINDS = ("wrong result", "crash", "hang")
DEFAULT_CATALOGUE = stock.DEFAULT_KNOWN_BUGS

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_FIELDS = {"name": str, "kind": str, "note": str, "match": list, "reproducer": str, "shows": str, "expected": str,
           "actual": str, "options": list, "seen": list, "fixed": str, "links": list, "item": int}
_REQUIRED = ("name", "kind", "note", "match", "reproducer", "shows")


@dataclasses.dataclass(frozen=True)
class KnownBug:
    """One entry of a catalogue. ``match``: patterns over root-cause keys (``*`` stands for any run of
    characters); ``reproducer``: the mysql-test-run test case (its ``.result`` beside it says what a
    server without the bug prints); ``shows``: text mariadb-test-run's output holds while the bug is
    there; ``expected``/``actual``: a wrong result's rows; ``options``: server options the reproducer
    needs; ``fixed``: the version that fixed it (then ``check`` expects it fixed)."""
    name: str
    kind: str
    note: str
    match: tuple
    reproducer: pathlib.Path
    shows: str
    expected: str = ""
    actual: str = ""
    options: tuple = ()
    seen: tuple = ()
    fixed: str = ""
    links: tuple = ()
    item: Optional[int] = None

    @property
    def recorded(self) -> str:
        """What ``check`` expects of it: ``fixed`` when the catalogue says so, else ``reproduces``."""
        return "fixed" if self.fixed else "reproduces"

    def __repr__(self) -> str:
        return f"<KnownBug {self.name} ({self.kind}): {self.note[:80]}>"


@dataclasses.dataclass(frozen=True)
class Catalogue:
    """A known-bugs catalogue: ``server`` (what it is about) and its ``bugs``."""
    path: pathlib.Path
    server: str
    bugs: tuple

    def matching(self, key: str) -> Optional[KnownBug]:
        """The first entry one of whose patterns matches the root-cause key ``key``, else None."""
        hit = next((m for m in self.patterns() if m.matches(key, "")), None)
        return self[hit.note] if hit is not None else None

    def patterns(self) -> list:
        """The entries as the engine marks findings with them (``_core.KnownBug``: the note is the
        entry's name, the causes its patterns)."""
        return [_core.KnownBug("", bug.name, list(bug.match)) for bug in self.bugs if bug.match]

    def check(self, server: Optional[str] = None, names: Sequence[str] = (), parallel: int = 2) -> list:
        """Runs the reproducers with mariadb-test-run (see :func:`check`): a CheckResult per entry."""
        return check(self, server=server, names=names, parallel=parallel)

    def __getitem__(self, name: str) -> KnownBug:
        for bug in self.bugs:
            if bug.name == name:
                return bug
        raise KeyError(name)

    def __len__(self) -> int:
        return len(self.bugs)

    def __repr__(self) -> str:
        kinds = ", ".join(f"{sum(b.kind == k for b in self.bugs)} {k}" for k in KINDS if any(b.kind == k for b in self.bugs))
        return f"<Catalogue {self.path.name}: {len(self.bugs)} known bugs of {self.server} ({kinds})>"


def markers(path) -> list:
    """What marks findings and causes known (``_core.KnownBug``): a catalogue's entries (a .toml file,
    matched by root-cause key), or a patterns file's lines (matched in the signature)."""
    path = stock.resolve(path)
    if path.endswith(".toml"):
        return load_catalogue(path).patterns()
    return _core.load_known_bugs(os.fspath(path))


def _bad(where: str, message: str) -> "_core.InvalidInput":
    return _core.InvalidInput(f"{where}: {message}")


def load_catalogue(path=None) -> Catalogue:
    """Reads a catalogue (by default the one shipped for MariaDB 10.11). Raises InvalidInput naming the
    file, and the line of the entry, for anything that does not fit the format."""
    import tomllib
    path = pathlib.Path(stock.resolve(path_argument("known bugs: the catalogue", path, optional=True) or DEFAULT_CATALOGUE))
    try:
        text = path.read_text()
        data = tomllib.loads(text)
    except OSError as e:
        raise _bad(str(path), f"cannot read the known-bugs catalogue: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise _bad(str(path), f"not UTF-8 text: {e.reason}") from None
    except tomllib.TOMLDecodeError as e:  # says "(at line N, column M)"
        raise _bad(str(path), str(e)) from None
    if data.get("format") != FORMAT:
        raise _bad(f"{path}:1:1", f"'format = {FORMAT}' expected (the version of the catalogue format)")
    unknown = sorted(set(data) - {"format", "server", "bug"})
    if unknown:
        raise _bad(str(path), f"unknown key {unknown[0]!r} (a catalogue holds format, server and [[bug]] entries)")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[bug]]"]
    bugs, seen = [], set()
    for n, entry in enumerate(data.get("bug", [])):
        where = f"{path}:{lines[n] if n < len(lines) else 1}:1"
        bug = _entry(entry, where, path.parent)
        if bug.name in seen:
            raise _bad(where, f"a second entry named {bug.name!r}")
        seen.add(bug.name)
        bugs.append(bug)
    if not bugs:
        raise _bad(str(path), "no [[bug]] entry")
    return Catalogue(path, str(data.get("server", "")), tuple(bugs))


def _entry(entry: dict, where: str, folder: pathlib.Path) -> KnownBug:
    for key, value in entry.items():
        if key not in _FIELDS:
            raise _bad(where, f"unknown field {key!r} (known: {', '.join(_FIELDS)})")
        if not isinstance(value, _FIELDS[key]) or (_FIELDS[key] is list and not all(isinstance(v, str) for v in value)):
            wanted = "a list of strings" if _FIELDS[key] is list else _FIELDS[key].__name__
            raise _bad(where, f"{key}: {wanted}, not {value!r}"[:300])
    missing = [k for k in _REQUIRED if k not in entry]
    if entry.get("kind") == "wrong result":
        missing += [k for k in ("expected", "actual") if k not in entry]
    if missing:
        raise _bad(where, f"entry {entry.get('name', '?')!r} lacks {', '.join(missing)}")
    if not _NAME.match(entry["name"]):
        raise _bad(where, f"name {entry['name']!r}: lower-case letters, digits and '-'")
    if entry["kind"] not in KINDS:
        raise _bad(where, f"{entry['name']}: kind {entry['kind']!r} is none of {', '.join(KINDS)}")
    test = folder / entry["reproducer"]
    if test.suffix != ".test" or not test.is_file():
        raise _bad(where, f"{entry['name']}: reproducer {test}: no such .test file")
    if not test.with_suffix(".result").is_file():
        raise _bad(where, f"{entry['name']}: {test.with_suffix('.result')} is missing (what a server without "
                          "the bug prints)")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
    fields["reproducer"] = test
    return KnownBug(**fields)


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """What one reproducer did: ``status`` reproduces (it failed showing its text), fixed (it passed)
    or error (it failed otherwise, or did not run); ``as_recorded`` when that is what the catalogue
    says; ``output``: mariadb-test-run's words about it when it did not behave as recorded."""
    name: str
    kind: str
    status: str
    as_recorded: bool
    output: str = ""

    def to_json(self) -> dict:
        """{"name", "kind", "status", "as_recorded"} and, when not as recorded, "output"."""
        d = {"name": self.name, "kind": self.kind, "status": self.status, "as_recorded": self.as_recorded}
        if self.output:
            d["output"] = self.output
        return d


def check(catalogue: Catalogue, server: Optional[str] = None, names: Sequence[str] = (), parallel: int = 2,
          work=None) -> List[CheckResult]:
    """Runs the reproducers (all, or those named) with Debian's mariadb-test-run, on ``server``: a
    mariadbd binary (default: Debian's). Raises InvalidInput for an unknown name or binary."""
    from ..reduction.mtr import run_mtr
    unknown = [n for n in names if n not in {b.name for b in catalogue.bugs}]
    if unknown:
        raise _bad(str(catalogue.path), f"no entry named {unknown[0]!r}")
    bugs = [b for b in catalogue.bugs if not names or b.name in names]
    with tempfile.TemporaryDirectory(prefix="gauntlet-known-bugs-") as tmp:
        folder = pathlib.Path(work or tmp)
        files = _test_files(bugs, folder / "tests")
        run = run_mtr(files, folder / "var", timeout=1800, parallel=parallel, binary=server)
    return [_result(b, run.status.get(b.name), run.section(b.name)) for b in bugs]


def _test_files(bugs: Sequence[KnownBug], folder: pathlib.Path) -> List[pathlib.Path]:
    """Each reproducer under its entry's name, with an .opt of the options it needs."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for bug in bugs:
        for suffix in (".test", ".result"):
            target = folder / f"{bug.name}{suffix}"
            target.write_bytes(bug.reproducer.with_suffix(suffix).read_bytes())
            files.append(target)
        if bug.options:
            opt = folder / f"{bug.name}.opt"
            opt.write_text(" ".join(f"--{o}" for o in bug.options) + "\n")
            files.append(opt)
    return files


def _result(bug: KnownBug, status: Optional[str], section: str) -> CheckResult:
    if status == "pass":
        now = "fixed"
    elif status == "fail" and bug.shows in section:
        now = "reproduces"
    else:
        now = "error"
    same = now == bug.recorded
    why = "" if same else (section.strip() or f"mariadb-test-run did not run it ({status or 'no status'})")
    return CheckResult(bug.name, bug.kind, now, same, why[-4000:])


def summary_lines(catalogue: Catalogue, results: Sequence[CheckResult]) -> List[str]:
    """The text `gauntlet known-bugs check` prints: a line per entry, then the count."""
    lines = [f"{'known bug':<40} {'kind':<13} {'recorded':<11} now"]
    for r in results:
        lines.append(f"{r.name:<40} {r.kind:<13} {catalogue[r.name].recorded:<11} {r.status}"
                     f"{'' if r.as_recorded else '   <- differs'}")
    same = sum(r.as_recorded for r in results)
    lines.append(f"{same} of {len(results)} as recorded in {catalogue.path}")
    for r in results:
        if not r.as_recorded:
            lines.append(f"\n{r.name}: mariadb-test-run said\n{r.output}")
    return lines


def markdown(catalogue: Catalogue) -> str:
    """The catalogue as docs/findings.md's table (tools/gen_known_bugs_doc.py writes it there)."""
    rows = ["| item | known bug | kind | what | matches root causes | reproducer |",
            "| --- | --- | --- | --- | --- | --- |"]
    for bug in catalogue.bugs:
        matches = ", ".join(f"`{m}`" for m in bug.match) or "none (its key says too little)"
        rel = bug.reproducer.relative_to(catalogue.path.parent)
        rows.append(f"| {bug.item or ''} | `{bug.name}` | {bug.kind} | {bug.note} | {matches} "
                    f"| [`{rel.stem}`](../{catalogue.path.parent.name}/{rel}) |")
    return "\n".join(rows) + "\n"
