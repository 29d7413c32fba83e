"""Reduction: a finding becomes a short mysql-test-run test case, verified there.

``reduce(OUT/findings/ID)`` works on the run folder the finding belongs to
(statement logs, data spec, seed, targets and their options) and on real
servers; every attempt replays a candidate against freshly reset servers and
keeps it only when the same finding comes back (for a hang: no statement
finishing for ``hang_timeout`` seconds; for a timing finding: the timing oracle's
repeated, rank-tested slowdown of the same statement):

1. reproduce: the history up to the finding, serialized into one session; when
   that loses it, in the run's sessions and order. The recurrence rate over
   three tries sets how often later attempts repeat before giving up.
2. statements: the needed statements before the finding, one at a time (the
   shortest tail that still finds it starts with one; see shrink), then each
   tried without, so the result is 1-minimal as ddmin's is, in fewer attempts
   when few are needed; the finding's own statement stays.
3. statement: each statement left (the finding's own first), generated again by
   the run's grammar from fewer and simpler choices (Hypothesis-style), then cut
   by SQL text (list items, clauses); measured in characters.
4. data: the loaded data as CREATE/INSERT statements (read back from the
   server), shrunk the same way as the statements, then columns and indexes
   dropped one by one.
5. options: each target's server options shrunk the same way (against the defaults).

The result goes to ``FINDING/repro/``: ``NAME.test``, ``.opt`` and ``.result``
for mariadb-test-run, ``NAME.sql`` for ``mariadb < file``, ``README.md`` and
``reduction.json`` (stages, sizes, attempts, seconds), rewritten after every
step that shrinks the case, so an interrupted reduction keeps its best.
The test case is then run by Debian's mariadb-test-run on the same server
binary; only a failure there the same way makes it ``verified``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import pathlib
import re
import shutil
import sys
import time
from typing import Callable, List, Optional, Union

from .. import _core
from ..arguments import path_argument
from ..formats import check as check_format, read_json, stamped
from ..grammar import Grammar
from ..runs.plan import checked_targets, data_spec
from ..runs.preparation import with_engine
from .lab import Lab, dump_data
from .shrink import shrink
from .sql_cuts import sql_cuts, without_column
from .testcase import GAPS, RELATION_KINDS, Case, Step, mtr_test_files, readme, sql_text, verify_with_mtr

REDUCIBLE = ("crash", "shutdown", "hang", "corruption", "divergence", "error-mismatch", "error-log", "timing"
             ) + RELATION_KINDS


class Reduction:
    """What ``reduce`` did: the reproducer's folder, whether mariadb-test-run confirmed it, and the
    stages (statements before and after, attempts, seconds)."""

    def __init__(self, record: dict):
        self.record = record

    @classmethod
    def load(cls, folder: Union[str, os.PathLike]) -> "Reduction":
        """The reduction written earlier in ``folder``: a finding's folder or its ``repro`` folder."""
        folder = pathlib.Path(folder)
        repro = folder if (folder / "reduction.json").exists() else folder / "repro"
        return cls(read_json(repro / "reduction.json", "reduction"))

    @property
    def verified(self) -> bool:
        """True only when mariadb-test-run failed the test case the way the finding did."""
        return bool(self.record.get("verification", {}).get("verified"))

    @property
    def folder(self) -> pathlib.Path:
        """``FINDING/repro``."""
        return pathlib.Path(self.record["folder"])

    @property
    def test(self) -> Optional[str]:
        """The .test file's text (None when the finding did not reproduce)."""
        p = self.folder / f"{self.record['name']}.test"
        return p.read_text() if p.exists() else None

    def __repr__(self) -> str:
        r = self.record
        if not r.get("reproduced"):
            return f"<Reduction {r['finding']}: did not reproduce>"
        return (f"<Reduction {r['finding']}: {r['statements_before']} -> {r['statements_after']} statements, "
                f"{r['setup_after']} data statements, options {r['options_after']}, "
                f"{'verified' if self.verified else 'NOT verified'} by mariadb-test-run, {r['seconds']:.0f} s>")


class _Budget:
    def __init__(self, seconds: float):
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic()


class _OutOfTime(Exception):
    pass


# The tails of a long history tried first (reproduce()), shortest first.
TAILS = (100, 1000)
_DEFINES = re.compile(r"^\s*(CREATE|ALTER|DROP|RENAME)\b.{0,80}?"
                      r"\b(?:TABLE|VIEW|PROCEDURE|FUNCTION|TRIGGER|SEQUENCE|EVENT|PACKAGE|INDEX\s+\S+\s+ON)\s+"
                      r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:`?\w+`?\.)?`?(\w+)", re.I | re.S)


def definitions(earlier: List[Step], tail: List[Step]) -> List[Step]:
    """The statements of ``earlier`` that made the tables, views, routines, triggers, sequences and
    events ``tail`` names as they were when it began: for each, its last CREATE that succeeded and the
    ALTERs, RENAMEs and DROPs that succeeded after it. What a tail replayed alone would miss."""
    names = {w.lower() for s in tail for w in re.findall(r"\w+", sql_text(s.sql))}
    since: dict = {}  # name -> the statements since its last CREATE
    for s in earlier:
        m = _DEFINES.match(sql_text(s.sql)) if not s.error else None
        if m and m.group(2).lower() in names:
            name = m.group(2).lower()
            if m.group(1).upper() == "CREATE":
                since[name] = []
            if name in since:
                since[name].append(s)
    return sorted((s for kept in since.values() for s in kept), key=lambda s: s.seq)


def _read_history(run_dir: pathlib.Path) -> List[Step]:
    steps = []
    for log in run_dir.glob("statements-*.jsonl"):
        for j in _core.read_statement_log(str(log)):
            steps.append(Step(j["seq"], j["thread"], j["sql"], j["start"], j["end"], j["key"], j["error"]))
    steps.sort(key=lambda s: s.seq)
    return steps


def _in_flight(steps: List[Step], i: int, at: float) -> List[Step]:
    """The other sessions' statements that may have been running when the server went: those started
    after the finding's statement by then, and each session's last one (the server went during it). As
    they ran at once, their order on the server is unknown (a later INSERT may have committed before an
    earlier SELECT read its row): the fallback runs them after the history again, as new steps."""
    others = {s.thread for s in steps} - {steps[i].thread}
    last = {thread: max(j for j, s in enumerate(steps) if s.thread == thread) for thread in others}
    picked = sorted({j for j in range(i + 1, len(steps)) if steps[j].start <= at and steps[j].thread in others}
                    | set(last.values()))
    after = max(s.seq for s in steps) + 1
    return [dataclasses.replace(steps[j], seq=after + n) for n, j in enumerate(picked)]


def _locate(steps: List[Step], finding: dict, any_text: bool = False) -> Optional[int]:
    """The index of the statement that found it: the last one its session started by then
    (``any_text``: whatever its text, the session's query an oracle's follow-up came from)."""
    at = finding.get("at", 0) + 0.001
    best = None
    for i, s in enumerate(steps):
        if s.thread == finding.get("thread") and s.start <= at and (
                any_text or sql_text(s.sql) == finding.get("statement")):
            best = i
    return best


class _Reducer:
    def __init__(self, finding_dir: pathlib.Path, budget: float, any_crash: bool, progress,
                 hang_timeout: Optional[float] = None):
        self.finding_dir = finding_dir.resolve()
        if not (finding_dir / "finding.json").exists():
            raise _core.InvalidInput(f"{finding_dir}: no finding.json: not a finding folder (OUT/findings/ID)")
        self.finding = read_json(finding_dir / "finding.json", "finding")
        # One edited or made by hand: what does not fit, said plainly.
        check_format("finding", self.finding, str(finding_dir / "finding.json"), required=("id", "kind", "signature"))
        self.run_dir = self.finding_dir.parent.parent
        if not (self.run_dir / "run.json").exists():
            raise _core.InvalidInput(f"{self.run_dir}: no run.json: the finding is not inside a run folder")
        self.run = read_json(self.run_dir / "run.json", "run")
        kind = self.finding["kind"]
        if kind not in REDUCIBLE:
            raise _core.InvalidInput(f"{finding_dir}: a {kind} finding cannot be reduced yet "
                                     f"(reducible: {', '.join(REDUCIBLE)})")
        self.budget = _Budget(budget)
        self.any_crash = any_crash
        self.hang_timeout = hang_timeout
        self.progress = progress
        self.repro = self.finding_dir / "repro"
        self.name = "gauntlet_" + re.sub(r"\W", "_", self.finding["id"]).lower()
        self.stages: list = []
        self.started = time.monotonic()
        self.rate = 1.0
        self.origin: Optional[Step] = None  # the session's query whose oracle follow-up found it
        # Other sessions' statements started before a crash after the finding's own: the crash may be
        # one of theirs (the finding is the session that noticed the server gone first).
        self.in_flight: List[Step] = []
        self.current = ("prepare", lambda: 0)  # the stage running, and how it measures the case

    def say(self, text: str, live: bool = False) -> None:
        """Progress on stderr: a line per stage, and (``live``) the size after each step that
        shrank it, rewritten in place on a terminal."""
        if not self.progress:
            return
        if sys.stderr.isatty():
            print(f"\rgauntlet reduce: {text}\033[K", end="" if live else "\n", file=sys.stderr, flush=True)
        else:
            print(f"gauntlet reduce: {text}", file=sys.stderr, flush=True)

    # -- attempts --------------------------------------------------------------------------------
    def test(self, case: Case) -> bool:
        if self.budget.left() <= 0:
            raise _OutOfTime()
        tries = 1 if self.rate >= 1 else min(6, math.ceil(math.log(0.1) / math.log(1 - self.rate)))
        return any(self.lab.attempt(case, self.finding, self.any_crash) for _ in range(tries))

    def stage(self, name: str, before: int, shrink: Callable[[], None], size: Callable[[], int]) -> None:
        t0, a0 = time.monotonic(), self.lab.attempts
        self.current = (name, size)
        out_of_time = False
        try:
            shrink()
        except _OutOfTime:
            out_of_time = True
        self.stages.append({"stage": name, "before": before, "after": size(), "attempts": self.lab.attempts - a0,
                            "seconds": round(time.monotonic() - t0, 1), **({"out_of_time": True} if out_of_time else {})})
        self.say(f"{name}: {before} -> {size()} ({self.lab.attempts - a0} attempts, {time.monotonic() - t0:.0f} s)")
        self.save()

    def attempt(self, candidate: Case) -> bool:
        """Whether ``candidate`` still finds it; if so it is the new best, on disk at once."""
        if not self.test(candidate):
            return False
        self.best, self.seen_finding = candidate, self.lab.matched
        self.save()
        name, size = self.current
        self.say(f"{name}: {size()} (attempt {self.lab.attempts}, {time.monotonic() - self.started:.0f} s)",
                 live=True)
        return True

    # -- the run ---------------------------------------------------------------------------------
    def prepare(self) -> None:
        run = self.run
        if run.get("keep_going"):
            raise _core.InvalidInput(f"{self.run_dir}: a keep-going run's summary; reduce the finding in its "
                                     f"round: {self.run_dir / 'rounds' / '%03d' % self.finding.get('round', 1)}")
        server = run.get("server") or "default"
        if "://" in server:
            raise _core.InvalidInput(f"{self.run_dir}: the run used an external server; reduction needs servers "
                                     "Gauntlet starts")
        self.targets = checked_targets(run.get("targets"), server, run.get("mysqld"))
        run_options = [o[2:] if o.startswith("--") else o for o in run.get("mysqld") or []]
        options = {t.name: run_options + t.mysqld() for t in self.targets}
        kind = self.finding["kind"]
        known = [n for n, _ in _core.known_oracles()]
        oracle = self.finding.get("oracle", "crash")
        runs = [n for n in run.get("oracles", ["crash"]) if n in known and
                (n not in ("differential", "timing") or len(self.targets) > 1)]
        if kind in ("crash", "shutdown", "corruption", "hang"):
            # An oracle's follow-up of the statement may be what crashed the server (or hung).
            oracles = ["crash"] + [n for n in runs if n not in ("crash", "timing")]
        elif oracle in known:
            oracles = ["crash", oracle]
        else:  # one of a family ("transform:view" of "transforms")
            family = oracle.split(":")[0] + "s"
            oracles = ["crash"] + ([family] if family in known else [n for n in runs if n != "crash"])
        self.lab = Lab(self.repro / "work", self.targets, run, self.finding, oracles)
        if self.hang_timeout is not None:
            self.lab.hang_timeout = self.hang_timeout
        # The data as statements: loaded as the run loaded it, then read back.
        spec = data_spec(run.get("data"), run.get("seed", 1), run.get("trusted_perl", False))
        first = self.targets[0]
        setup, twins, databases = [], [], ["test"]
        probe = Case([], [], [], None, 1, options)
        servers = self.lab.ready(probe)
        if servers is None:
            raise _core.InvalidInput(f"{self.run_dir}: the run's server does not start with its options here")
        if spec is not None:
            spec = with_engine(spec, first.engine)
            conn = _core.Connection.open(servers[0].connection)
            _core.load_schema(conn, spec._s, run.get("seed", 1), not getattr(spec, "_lenient", False))
            databases = list(spec.databases) or ["test"]
            setup = dump_data(servers[0], databases)
            twins = list(_core.temporary_twin_sql(spec._s))
        else:
            setup = ["CREATE DATABASE IF NOT EXISTS test", "USE test"]
        # The schema the run's generators saw, to generate its statements again.
        self.schema = _core.introspect_schema(_core.Connection.open(servers[0].connection),
                                              databases if spec is not None else [])
        self.lab.run_database = databases[0]
        self.lab.dirty = True
        steps = _read_history(self.run_dir)
        target = None
        if steps and self.finding.get("statement"):
            i = _locate(steps, self.finding)
            if i is None and kind in ("crash", "shutdown", "corruption", "hang"):
                # An oracle's follow-up query (TLP's union, a transform's view) did it: it goes in
                # the place of the session's query it came from, which the oracles may need again.
                i = _locate(steps, self.finding, any_text=True)
                if i is not None:
                    self.origin = steps[i]
                    self.say(f"its statement is an oracle's follow-up of session {steps[i].thread}'s query "
                             f"{sql_text(steps[i].sql)[:80]!r}...: reduced in its place")
                    steps[i] = dataclasses.replace(steps[i], sql=self.finding["statement"], key=None)
            if i is None:
                raise _core.InvalidInput(f"{self.finding_dir}: its statement is not in the run's statement logs")
            if kind in ("crash", "shutdown"):
                self.in_flight = _in_flight(steps, i, self.finding.get("at", 0) + 0.001)
            target, steps = steps[i], steps[:i]
        elif not steps:
            # No statement log: the session's settings and last statements that the finding kept.
            texts = list(self.finding.get("settings", [])) + list(self.finding.get("preceding", []))
            steps = [Step(i, 1, sql) for i, sql in enumerate(texts)]
            target = Step(len(steps), 1, self.finding["statement"]) if self.finding.get("statement") else None
        self.case = Case(setup, twins, steps, target, 1, options)
        self.best = self.case

    def reproduce(self) -> bool:
        """The first of these that finds it at least once in three tries (two for the later ones):
        after a long history (a corpus run's hundred thousand statements) its tail first; then one
        session or the run's, the oracles checking only the finding's statement or, as in the
        run, every statement (their follow-up queries change what the server holds: statistics,
        caches); for an oracle's follow-up that did it, then the session's query it came from."""
        if len(self.case.history) > max(TAILS) and self._reproduce_from_tail():
            return True
        several = len({s.thread for s in self.case.history}) > 1
        # A hang of several sessions has no statement of its own: its target is None.
        targets = [self.case.target] + ([self.origin] if self.origin is not None else [])
        modes = [(sessions, check_all, target) for target in targets for check_all in (False, True)
                 for sessions in (1, 0) if sessions == 1 or several]
        for n, (sessions, check_all, target) in enumerate(modes):
            case = self.case.replace(sessions=sessions, check_all=check_all, target=target)
            if target is not self.case.target and n and modes[n - 1][2] is self.case.target:
                self.say("the follow-up alone did not find it: the session's query again, with the oracles")
            if self._found_again(case, 3 if n == 0 else 2,
                                 f"oracles on {'every statement' if check_all else 'its statement'}"):
                return True
        return self._reproduce_with_in_flight()

    def _reproduce_from_tail(self) -> bool:
        """The finding again from the last statements of its session alone, then of all sessions in the
        run's order, in one session and in the run's, each after the earlier statements that made what
        they name (definitions()): what a crash needs is mostly what came just before it and the objects
        it uses, and a replay of the whole history takes minutes an attempt."""
        target = self.case.target
        history = self.case.history
        own = [s for s in history if target is not None and s.thread == target.thread]
        several = len({s.thread for s in history}) > 1
        last = {s.thread: s for s in history}  # each session's last statement
        for n in TAILS:
            tries = [("its session's", own, 1), ("all sessions'", history, 1)]
            if several:
                tries.append(("all sessions'", history, 0))
            for name, steps, sessions in tries:
                if len(steps) <= n:
                    continue
                tail = steps[-n:]
                # A statement still running from before the tail (a procedure the watchdog kills) goes with it.
                running = [s for s in last.values() if s.seq < tail[0].seq and target and s.end >= target.start]
                made = definitions(history[:history.index(tail[0])], running + tail + ([target] if target else []))
                if self._found_again(self.case.replace(history=sorted(made + running, key=lambda s: s.seq) + tail,
                                                       sessions=sessions), 2,
                                     f"the last {n} of {name} statements, after {len(made)} that made what they "
                                     f"name and {len(running)} still running"):
                    return True
        return False

    def _reproduce_with_in_flight(self) -> bool:
        """The crash again with the statements other sessions had in flight when it came, any statement
        crashing it: it was one of theirs, not the finding's own (several sessions saw the server go)."""
        if not self.in_flight:
            return False
        self.say(f"{len(self.in_flight)} statements of other sessions were in flight at the crash: with them, "
                 "the crash from any statement")
        history = self.case.history + [self.case.target] + self.in_flight
        return any(self._found_again(self.case.replace(history=history, target=None, sessions=sessions,
                                                       check_all=False), 2, "with the statements in flight")
                   for sessions in (1, 0))

    def _found_again(self, case: Case, tries: int, how: str) -> bool:
        """Whether ``case`` finds it in ``tries``; if so it is the best case, its rate the hits'."""
        hits = sum(self.lab.attempt(case, self.finding, self.any_crash) for _ in range(tries))
        self.say(f"reproduce ({'one session' if case.sessions == 1 else 'the run' + chr(39) + 's sessions'}, "
                 f"{how}): {hits} of {tries}")
        if hits:
            self.rate = hits / tries
            self.best, self.seen_finding = case, self.lab.matched
        return bool(hits)

    def reduce_statements(self) -> None:
        shrink(list(self.best.history), lambda kept: self.attempt(self.best.replace(history=kept)))
        if self.best.sessions != 1:
            self.attempt(self.best.replace(sessions=1))

    def generator(self) -> Optional["_core.Generator"]:
        """A generator of the run's grammar (as it was: same sources) over the run's schema, or
        None when the grammar cannot be had again (Python rules, a file gone or changed)."""
        run = self.run
        if run.get("python_rules") or not run.get("grammar"):
            return None
        try:
            grammar = Grammar(run["grammar"], *(run.get("redefine") or []),
                              trusted_perl=run.get("trusted_perl", False))
        except (_core.InvalidInput, _core.GauntletError, OSError):
            return None
        for source in run.get("grammar_sources", []):
            try:
                text = grammar._g.source_text(source["source"])
            except (_core.InvalidInput, _core.GauntletError, IndexError, KeyError):
                return None
            if hashlib.sha256(text).hexdigest() != source["sha256"]:
                return None
        return _core.Generator(grammar._g, self.schema, run.get("seed", 1), 1, 1, run.get("max_depth", 64))

    def text_of(self, index: Optional[int]) -> str:
        """The text of the finding's statement (None) or of the history's statement ``index``."""
        return sql_text((self.best.target if index is None else self.best.history[index]).sql)

    def texts_size(self) -> int:
        return sum(len(sql_text(s.sql)) for s in self.best.history + ([self.best.target] if self.best.target else []))

    def shorter(self, index: Optional[int], text: str, seen: set) -> bool:
        """Whether the case with statement ``index`` as ``text`` (shorter, not tried yet) still finds it."""
        if text in seen or len(text) >= len(self.text_of(index)):
            return False
        seen.add(text)
        if index is None:
            return self.attempt(self.best.replace(target=dataclasses.replace(self.best.target, sql=text)))
        history = list(self.best.history)
        history[index] = dataclasses.replace(history[index], sql=text)
        return self.attempt(self.best.replace(history=history))

    def reduce_statement(self) -> None:
        """Each statement made shorter, the finding's own first, then the others from the last.
        When the run's grammar gives one again: from fewer or simpler grammar choices, as
        Hypothesis shrinks (spans of choices deleted, the rest padded with each rule's first
        alternative; single choices set to 0; numbers halved), the passes repeated until none
        helps. Then (and only so for a log from elsewhere or Python rules) by SQL text: list items
        and clauses left out (sql_cuts)."""
        gen = None
        indexes = ([None] if self.best.target is not None else []) + list(reversed(range(len(self.best.history))))
        for index in indexes:
            step = self.best.target if index is None else self.best.history[index]
            seen = {sql_text(step.sql)}
            original = None
            if step.key:
                gen = gen or self.generator()
                try:
                    original = gen.replay(step.key, None, True, "") if gen else None
                except (_core.InvalidInput, _core.GauntletError):
                    pass
            if original is not None and original.text == sql_text(step.sql):  # the grammar gives it again
                self.shrink_choices(gen, index, step.key, [c[0] for c in original.choices], seen)
            progress = True
            while progress:  # then (or only) by text
                progress = any(self.shorter(index, cut, seen) for cut in sql_cuts(self.text_of(index)))

    def shrink_choices(self, gen, index: Optional[int], key: dict, choices: list, seen: set) -> None:
        """The choice passes of reduce_statement."""
        def shorter(candidate: list) -> bool:
            try:
                text = gen.replay(key, candidate, False, "").text
            except (_core.InvalidInput, _core.GauntletError):
                return False
            return self.shorter(index, text, seen)
        improved = True
        while improved:
            improved = False
            for span in (16, 8, 4, 2, 1):
                i = len(choices) - span
                while i >= 0:
                    candidate = choices[:i] + choices[i + span:]
                    if shorter(candidate):
                        choices, improved = candidate, True
                    i -= 1
            for i in range(len(choices)):
                for value in ({0, choices[i] // 2} - {choices[i]}):
                    candidate = choices[:i] + [value] + choices[i + 1:]
                    if shorter(candidate):
                        choices, improved = candidate, True
                        break

    def reduce_data(self) -> None:
        shrink(list(self.best.setup), lambda kept: self.attempt(self.best.replace(setup=kept)))
        self.drop_columns_and_keys()
        # Temporary twins of tables last: one whose columns went is now an error it may not need.
        shrink(list(self.best.session_setup), lambda kept: self.attempt(self.best.replace(session_setup=kept)))

    def drop_columns_and_keys(self) -> None:
        """Each index, then each column the finding does not need, gone from the CREATE TABLE (and a
        column's values from the INSERTs): indexes first, since a column in one cannot go."""
        body_of = re.compile(r"CREATE TABLE `([^`]+)` \(\n(.*?)\n\) ENGINE=", re.S)
        for i, sql in enumerate(list(self.best.setup)):
            m = body_of.match(sql)
            if not m:
                continue
            table = m.group(1)
            for line in reversed(m.group(2).split(",\n")):
                current = self.best.setup[i]
                body = body_of.match(current).group(2).split(",\n")
                rest = [x for x in body if x != line]
                if len(rest) == len(body) or not rest:
                    continue
                column = re.match(r"\s*`([^`]+)`", line)
                setup = list(self.best.setup)
                if column:
                    name = f"`{column.group(1)}`"
                    if any(name in x for x in rest):
                        continue  # an index or a generated column still uses it
                    setup = [without_column(x, table, name) for x in setup]
                setup[i] = current.replace(",\n".join(body), ",\n".join(rest), 1)
                self.attempt(self.best.replace(setup=setup))

    def reduce_options(self) -> None:
        for t in self.targets:
            shrink(list(self.best.options.get(t.name, [])),
                    lambda kept, name=t.name: self.attempt(self.best.replace(options={**self.best.options, name: kept})))

    def reduce(self) -> Reduction:
        self.repro.mkdir(parents=True, exist_ok=True)
        self.say(f"{self.finding['id']}: {self.finding['kind']} {self.finding['signature'][:120]}")
        try:
            self.prepare()
            before = self.case.size
            self.reproduced = self.reproduce()
            if self.reproduced:
                self.stage("statements", before, self.reduce_statements, lambda: self.best.size)
                self.stage("statement", self.texts_size(), self.reduce_statement, self.texts_size)
                self.stage("data", len(self.case.setup), self.reduce_data, lambda: len(self.best.setup))
                options = sum(len(v) for v in self.case.options.values())
                if options:
                    self.stage("options", options, self.reduce_options,
                               lambda: sum(len(v) for v in self.best.options.values()))
            if self.reproduced:
                race = self.race(self.best)
                self.seen = self.lab.observe(self.best)
                self.seen.update(race)
            self.save()
            self.verification = self.verify() if self.reproduced else {"verified": False,
                                                                          "why": "the finding did not reproduce"}
            self.save()
        finally:
            if hasattr(self, "lab"):
                self.lab.close()
                shutil.rmtree(self.lab.work, ignore_errors=True)
        # What was written, not a second reading of the clock: the object and reduction.json agree.
        return Reduction(getattr(self, "saved", None) or self.record())

    def race(self, case: Case) -> dict:
        """How often a reduced crash or hang of several sessions comes back (up to 20 replays, 3
        hits or 60 s), and so how many rounds of its statements its test case needs to hit it once
        with 99% odds, and three sweeps of its gaps at least; at most 500 and about two minutes of
        quiet rounds."""
        steps = case.history + ([case.target] if case.target else [])
        if self.finding["kind"] not in ("crash", "shutdown", "hang") or (
                self.finding["kind"] != "hang" and (case.sessions == 1 or len({s.thread for s in steps}) < 2)):
            return {}
        hits, quiet, started = 0, [], time.monotonic()
        while len(quiet) + hits < 20 and hits < 3 and time.monotonic() - started < 60:
            t0 = time.monotonic()
            if self.lab.attempt(case, self.finding, self.any_crash):
                hits += 1
            else:
                quiet.append(time.monotonic() - t0)
        tries = hits + len(quiet)
        rate = max(hits, 1) / tries
        rounds = 1 if rate >= 1 else max(math.ceil(math.log(0.01) / math.log(1 - rate)), 3 * GAPS)
        if quiet:  # a replay also reloads the data: a round of the test case costs less
            rounds = min(rounds, max(1, int(120 / max(sorted(quiet)[len(quiet) // 2], 1e-3))))
        self.say(f"reduced case: {hits} of {tries} replays; the test case repeats it {min(rounds, 500)} times")
        return {"replays": {"tries": tries, "hits": hits}, "rounds": min(rounds, 500)}

    # -- output ----------------------------------------------------------------------------------
    def record(self) -> dict:
        best = self.best if hasattr(self, "best") else None
        return {"finding": self.finding["id"], "kind": self.finding["kind"], "signature": self.finding["signature"],
                "folder": str(self.repro), "name": self.name, "reproduced": getattr(self, "reproduced", False),
                "recurrence": self.rate, "statements_before": self.case.size if hasattr(self, "case") else 0,
                "statements_after": best.size if best else 0,
                "setup_before": len(self.case.setup) if hasattr(self, "case") else 0,
                "setup_after": len(best.setup) if best else 0,
                "options_after": best.options if best else {}, "sessions": best.sessions if best else 1,
                "stages": self.stages, "attempts": self.lab.attempts if hasattr(self, "lab") else 0,
                **({"hang_timeout": self.lab.hang_timeout} if self.finding["kind"] == "hang" and hasattr(self, "lab")
                   else {}),
                **{k: self.seen[k] for k in ("replays", "rounds") if k in getattr(self, "seen", {})},
                "seconds": round(time.monotonic() - self.started, 1),
                "verification": getattr(self, "verification", {"verified": False, "why": "not run yet"})}

    def save(self) -> None:
        if not hasattr(self, "best"):
            return
        files = mtr_test_files(self.best, self.checked(), self.name, getattr(self, "seen", {}), self.targets[0].name)
        for suffix, text in files.items():
            (self.repro / f"{self.name}{suffix}").write_text(text, errors="surrogateescape")
        record = self.saved = self.record()
        (self.repro / "reduction.json").write_text(json.dumps(stamped("reduction", record), indent=2) + "\n")
        (self.repro / "README.md").write_text(readme(record, self.finding, files[".sql"], self.name,
                                                      getattr(self, "seen", {}).get("version", "")))

    def checked(self) -> dict:
        """The finding with what its oracle saw on the best case (a shrunk statement's own two
        sides of the relation), for the test case and its verification."""
        seen = getattr(self, "seen_finding", None) or self.finding
        return {**self.finding, **{k: seen[k] for k in ("evidence", "statement") if k in seen}}

    def verify(self) -> dict:
        return verify_with_mtr(self.repro, self.name, self.checked(), self.targets[0])


def reduce(finding: Union[str, os.PathLike, dict], *, budget: float = 600, any_crash: bool = False,
           progress: bool = False, hang_timeout: Optional[float] = None) -> Reduction:
    """Reduces a finding (its folder ``OUT/findings/ID``, or a finding dict of a RunResult whose run
    folder is known) to a small, verified mysql-test-run test case in ``FINDING/repro``.

    ``budget``: seconds for the reduction stages (the best case so far is kept when it runs out);
    ``any_crash``: any crash counts, not only one with the finding's frames; ``hang_timeout``: for
    a hang, the seconds without a finished statement that make an attempt hang (default: the run's
    hang timeout, at most 10 s; raise it when a slow statement could pass for the hang).
    """
    if isinstance(finding, dict):
        if "folder" not in finding:
            raise _core.InvalidInput("reduce: give the finding's folder (OUT/findings/ID)")
        finding = finding["folder"]
    folder = pathlib.Path(path_argument("finding (its folder, or a finding dict of a RunResult)", finding))
    if not (folder / "finding.json").exists():
        raise _core.InvalidInput(f"{folder}: no finding.json: not a finding folder (OUT/findings/ID)")
    if not isinstance(budget, (int, float)) or budget <= 0:
        raise _core.InvalidInput(f"budget: seconds, more than 0, not {budget!r}")
    if hang_timeout is not None and (not isinstance(hang_timeout, (int, float)) or hang_timeout <= 0):
        raise _core.InvalidInput(f"hang_timeout: seconds, more than 0, not {hang_timeout!r}")
    return _Reducer(folder, float(budget), any_crash, progress,
                    None if hang_timeout is None else float(hang_timeout)).reduce()
