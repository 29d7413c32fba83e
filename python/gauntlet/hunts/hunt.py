"""`gauntlet hunt`: the CI main job. Within a time budget it runs rounds (each a keep-going run of a
grammar on a random schema, with every single-server oracle, a statement log and a hang
watchdog), rotating the stock hunting grammars and the user's own (every other round is the
user's), the schemas (round N: seed + N - 1) and, given an option space, the rows of its covering
array; after every round the root causes of all rounds so far (OUT/root_causes.json, known bugs
marked). The budget's end is kept for the new causes: each new wrong-result cause's minimal query
is checked by mariadb-test-run (one call for all), each other new cause reduced (gauntlet reduce)
in turn. OUT/hunt.json says what ran and what came of it; the exit status is 1 when a cause is
new, 0 when not, 2 for bad input or setup.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
from typing import Optional, Sequence, Union

from .. import _core, stock
from ..arguments import capped_duration, number_argument, path_argument, shard_argument, writable_folder
from ..combi import OptionSpace, dask_client
from ..corpus import SUITE
from ..formats import read_json, stamped
from ..reduction import REDUCIBLE, Reduction
from ..results import load_catalogue, server_lines, servers_of, triage
from ..results.reach import Reach, add_reach, read_reach
from ..runs import Stopped
from ..runs.folder import write_atomically
from ..grammar import Grammar
from ..server import ManagedServer, ServerError, make_targets
from ..server.managed import server_binary
from ..server.surface import read_surface
from .rounds import (HuntGrammar, RoundSpec, hunt_grammars, portable, round_line, run_round, run_round_packed,
                     schedule, unpack_round)
from .surface_grammar import surface_grammar

ORACLES = "errorlog,tlp,norec,transforms"
# What new causes need of the budget's end: one mariadb-test-run call checks every minimal query
# (9 s for five here, with its server's start), always kept since the last round may bring one; a
# reduction wants a few minutes.
_VERIFY_SECONDS, _REDUCE_SECONDS, _MIN_REDUCE_SECONDS = 20.0, 120.0, 30.0
_MIN_ROUND_SECONDS = 10.0


def parse_duration(text: Union[str, float, int], name: str = "duration") -> float:
    """Seconds from ``90``, ``90s``, ``30m``, ``2h`` or ``1h30m``."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(number_argument(name, text, low=1))
    m = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", str(text))
    if not m or not any(m.groups()) or str(text).strip() == "":
        raise _core.InvalidInput(f"{name}: seconds, or a time such as 90s, 30m, 2h or 1h30m, not {text!r}")
    h, mnt, s = (float(g) if g else 0.0 for g in m.groups())
    seconds = 3600 * h + 60 * mnt + s
    return float(number_argument(name, seconds, low=1))


def _server_version(server: str) -> str:
    try:
        binary = server_binary(server)
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError as e:
        raise _core.InvalidInput(f"server: cannot run {binary}: {e.strerror}") from None


def default_known_bugs(server: str) -> Optional[str]:
    """The stock catalogue for the server's release series (MariaDB 10.11 -> mariadb-10.11.toml), if any."""
    m = re.search(r"Ver (\d+\.\d+)\.\d+-MariaDB", _server_version(server))
    if not m:
        return None
    path = stock.KNOWN_BUGS / f"mariadb-{m.group(1)}.toml"
    return str(path) if path.is_file() else None


class HuntResult:
    """What a hunt left in its folder: ``record`` is OUT/hunt.json (rounds, causes and their
    reproducers); ``new_causes`` the causes no known bug matched; ``exit_code`` 1 when there is one."""

    def __init__(self, folder: pathlib.Path, record: dict):
        self.folder = pathlib.Path(folder)
        self.record = record

    @classmethod
    def load(cls, folder: Union[str, os.PathLike]) -> "HuntResult":
        """The hunt that ran into ``folder`` (its hunt.json)."""
        folder = pathlib.Path(path_argument("hunt folder", folder))
        return cls(folder, read_json(folder / "hunt.json", "hunt"))

    @property
    def rounds(self) -> list:
        """The rounds in order (grammar, seed, options, folder, seconds, statements, findings)."""
        return self.record["rounds"]

    @property
    def causes(self) -> list:
        """The root causes of all rounds, most frequent first, with their reproducers."""
        return self.record["causes"]

    @property
    def new_causes(self) -> list:
        """The causes no known bug matched."""
        return [c for c in self.causes if not c.get("known")]

    @property
    def reach(self) -> Optional[Reach]:
        """Which of the server's own names the rounds' statements used, merged (a Reach), or None."""
        return read_reach(self.folder)

    @property
    def exit_code(self) -> int:
        """What ``gauntlet hunt`` exits with: 1 when a cause is new, else 0."""
        return 1 if self.new_causes else 0

    def text(self) -> str:
        """What the command prints at the end: the rounds in a line, then each cause (new first) with
        its reproducer."""
        r = self.record
        statements = sum(x["statements"] for x in r["rounds"])
        lines = [f"hunt: {len(r['rounds'])} rounds, {statements:,} statements in {r['seconds']:.0f} s; "
                 f"{len(r['causes'])} root causes, {len(self.new_causes)} new"]
        lines += ["  " + line for line in server_lines(r.get("servers") or {})]
        for c in sorted(r["causes"], key=lambda c: bool(c.get("known"))):
            what = f"known: {c['known']}" if c.get("known") else "NEW"
            lines.append(f"  {what:<40} {c['kind']} x{c['count']}: {c['key']}")
            query = " ".join((c.get("minimal") or c["statement"]).split())
            lines.append(f"      {'minimal' if c.get('minimal') else 'statement'}: "
                         f"{query if len(query) <= 300 else query[:300] + ' ...'}")
            repro = c.get("reproducer")
            if c.get("known_reproducer"):
                lines.append(f"      reproducer {c['known_reproducer']} (the catalogue's)")
            elif repro:
                state = "verified by mariadb-test-run" if repro.get("verified") else f"not verified: {repro.get('why')}"
                lines.append(f"      reproducer {repro.get('test') or '-'} ({state})")
            elif not c.get("known"):
                lines.append(f"      example {c['example']}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<HuntResult {self.folder}: {len(self.rounds)} rounds, {len(self.causes)} causes, "
                f"{len(self.new_causes)} new>")


class _Progress:
    """A bar redrawn in place on a terminal; plain lines (round ends, new causes) in a CI log."""

    def __init__(self, enabled: bool, total: float, stream=sys.stderr):
        self.enabled, self.total, self.stream, self.t0 = enabled, total, stream, time.monotonic()
        self.tty = enabled and stream.isatty()
        self.status = ""

    def line(self, text: str) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.redraw()

    def redraw(self) -> None:
        if not self.tty:
            return
        elapsed = time.monotonic() - self.t0
        share = min(1.0, elapsed / self.total)
        bar = "#" * int(30 * share) + "." * (30 - int(30 * share))
        self.stream.write(f"\r\033[K[{bar}] {elapsed:4.0f}/{self.total:.0f} s  {self.status}")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


class _Here:
    """Rounds run one at a time, in this process."""

    def __init__(self, out: pathlib.Path, say: "_Progress"):
        self.out, self.say, self.done = out, say, []

    def free(self) -> bool:
        return not self.done

    def running(self) -> int:
        return len(self.done)

    def start(self, spec: RoundSpec, began: float) -> None:
        def status(text: str) -> None:
            self.say.status = text
            self.say.redraw()
        self.done.append((spec, run_round(self.out, spec, status), began))

    def next_done(self):
        return self.done.pop(0)

    def close(self) -> None:
        pass


class _OnCluster:
    """Rounds on a Dask cluster's workers, one each at a time; each round's folder comes back packed."""

    def __init__(self, cluster, out: pathlib.Path):
        import distributed
        self.distributed, self.out, self.futures = distributed, out, {}
        self.client, self.own = dask_client(cluster, "dask")
        self.slots = max(1, len(self.client.scheduler_info()["workers"]))

    def free(self) -> bool:
        return len(self.futures) < self.slots

    def running(self) -> int:
        return len(self.futures)

    def start(self, spec: RoundSpec, began: float) -> None:
        future = self.client.submit(run_round_packed, portable(spec), pure=False)
        self.futures[future] = (spec, began)

    def next_done(self):
        done, _ = self.distributed.wait(list(self.futures), return_when="FIRST_COMPLETED")
        future = next(iter(done))
        spec, began = self.futures.pop(future)
        entry, work, packed = future.result()
        unpack_round(self.out, spec, work, packed)
        return spec, {**entry, "grammar": spec.grammar.path}, began

    def close(self) -> None:
        for future in self.futures:
            future.cancel()
        if self.own:
            self.client.close()


def hunt(out: Union[str, os.PathLike], *, duration: Union[float, str], grammars: Sequence[str] = (),
         server: str = "default", options: Union[None, str, os.PathLike, OptionSpace] = None,
         known_bugs: Union[None, str, os.PathLike] = "default", seed: int = 1, threads: Optional[int] = None,
         round_seconds: Optional[float] = None, rounds: Optional[int] = None, reduce_share: float = 0.25,
         oracles: str = ORACLES, with_stock: bool = True, targets: Optional[Sequence[dict]] = None,
         shard: Union[None, str, tuple] = None, dask=None, progress: bool = False,
         corpus: Optional[str] = "default") -> HuntResult:
    """Hunts for ``duration`` seconds (or "30m") and returns the HuntResult (OUT/hunt.json).

    ``grammars``: the user's grammars for the feature under test, run every other round between the
    stock hunting grammars (only them with ``with_stock=False``); ``server``: "default", a server binary or a folder
    holding an unpacked server; ``targets``: instead of ``server``, two or more servers (dicts as for ``run``: name,
    server, options) that every round runs in lockstep, the differential oracle comparing them (a new build
    against the last release); ``options``: an option space
    (file or OptionSpace) whose covering array's rows the rounds take in turn; ``known_bugs``: a
    catalogue, "default" (the stock one for the server's release series) or None; ``round_seconds``:
    a round's length (default: an eighth of the hunting time, 15 s to 5 min); ``rounds``: at most this
    many rounds (of this shard), the budget still the limit; ``reduce_share``: at
    most this share of the budget is kept for checking and reducing new causes; ``shard``: "I/N", the
    Ith of N CI jobs hunting together: it runs rounds I, I + N, I + 2N ... of the one hunt they share
    (their seeds, grammars and option rows), and ``triage`` over the jobs' folders gives one list;
    ``dask``: a Dask scheduler's address (or a ``distributed.Client``) whose workers run the rounds, one
    each at a time, every worker with its own servers; their round folders come back into OUT.
    ``corpus``: the stock rotation's corpus round (the server's own test suite's statements at random,
    in four sessions, on an empty database): a corpus file, "default" (the installed suite's, when
    there is one) or None for no corpus round."""
    total = capped_duration("duration", parse_duration(duration))
    out = writable_folder("out", out).resolve()  # root_causes.json names findings by absolute path
    seed = int(number_argument("seed", seed, whole=True))
    index, count = shard_argument(shard) or (1, 1)
    if threads is not None:
        threads = int(number_argument("threads", threads, low=1, whole=True))
    if rounds is not None:
        rounds = int(number_argument("rounds", rounds, low=1, whole=True))
    share = float(number_argument("reduce_share", reduce_share))
    if share >= 1:
        raise _core.InvalidInput(f"reduce_share: a share of the budget below 1, not {reduce_share!r}")
    if targets is not None:
        chosen = make_targets(targets, server)
        if len(chosen) < 2:
            raise _core.InvalidInput("targets: a hunt compares two or more targets; one server is --server")
        server = chosen[0].server
        targets = [t.to_dict() for t in chosen]
        if "differential" not in oracles.split(","):
            oracles = f"{oracles},differential"
    plan = None
    if options is not None:
        space = options if isinstance(options, OptionSpace) else OptionSpace.from_file(options)
        plan = space.covering(seed=seed)
    if known_bugs == "default":
        known_bugs = default_known_bugs(server)
    elif known_bugs is not None:
        known_bugs = stock.resolve(path_argument("known_bugs", known_bugs))
        if not os.path.isfile(known_bugs):
            raise _core.InvalidInput(f"known_bugs: {known_bugs}: no such file")
    pool = hunt_grammars(grammars, threads, with_stock)
    _clear(out)
    surface = _surface_grammar(out, server, threads) if with_stock else None
    # Where the seed's turn of the stock grammars starts: the surface round, then the corpus round; a hunt
    # of any length reaches them.
    first = [g for g in (surface, _corpus_round(corpus) if with_stock else None) if g is not None]
    if first:
        theirs = [g for g in pool if not g.user]
        at = (seed - 1) % (len(theirs) + len(first))
        pool = [g for g in pool if g.user] + theirs[:at] + first + theirs[at:]
    # The catalogue's own reproducers, shown with the known causes they stand for.
    known_tests = ({b.name: str(b.reproducer) for b in load_catalogue(known_bugs).bugs}
                   if known_bugs and known_bugs.endswith(".toml") else {})
    hunting = total * (1 - share)
    length = float(round_seconds) if round_seconds else min(300.0, max(15.0, hunting / 8))
    say = _Progress(progress, total)
    record = {"settings": {"duration": total, "grammars": [g.path for g in pool if g.user], "server": server,
                           "targets": targets, "shard": f"{index}/{count}" if shard else None,
                           "options": None if plan is None else [dict(r) for r in plan], "known_bugs": known_bugs,
                           "stock": with_stock, "seed": seed, "threads": threads, "round_seconds": length,
                           "rounds": rounds, "reduce_share": share, "oracles": oracles},
              "rounds": [], "causes": [], "seconds": 0.0, "stop_reason": "duration"}
    t0 = time.monotonic()
    causes = reach = None
    runner = _OnCluster(dask, out) if dask is not None else _Here(out, say)
    try:
        n, overhead = 0, 0.0  # a round's time besides its run's duration: server start, data, triage
        while True:
            while runner.free():
                if n == rounds:
                    record["stop_reason"] = "rounds"
                    break
                left = total - (time.monotonic() - t0)
                reserve = min(share * total, _reserve(record["causes"]))
                seconds = min(length, left - reserve - overhead)
                if seconds < _MIN_ROUND_SECONDS:
                    break
                number = n * count + index - 1  # over all shards, from 0: its seed, grammar and option row
                runner.start(RoundSpec(number, schedule(pool, number, seed), seconds, seed, server, targets,
                                       dict(plan[number % len(plan)]) if plan is not None else None,
                                       number % len(plan) if plan is not None else None, known_bugs, oracles),
                             time.monotonic())
                n += 1
            if not runner.running():
                break
            spec, entry, began = runner.next_done()
            say.line(round_line(spec, entry))
            record["rounds"] = sorted(record["rounds"] + [entry], key=lambda r: r["round"])
            record["servers"] = record.get("servers") or servers_of(
                read_json(out / entry["folder"] / "summary.json", "summary"))
            causes = _causes(out, known_bugs, known_tests, record, say)
            reach = _reach(out, reach, out / entry["folder"], record)
            overhead = max(overhead, time.monotonic() - began - spec.seconds)
            record["seconds"] = time.monotonic() - t0
            _save(out, record)  # readable (gauntlet report) while the hunt goes on
        if causes is not None:
            _reproduce(out, causes, record, t0 + total, say)
    except Stopped:
        record["stop_reason"] = "interrupted"
        raise
    finally:
        runner.close()
        record["seconds"] = time.monotonic() - t0
        say.done()
        _save(out, record)
    return HuntResult(out, stamped("hunt", record))


def _surface_grammar(out: pathlib.Path, server: str, threads: Optional[int]) -> Optional[HuntGrammar]:
    """The surface grammar (hunts/surface_grammar.py) of the hunt's server, written to OUT/surface.yy
    from the lists of a server started for it in OUT/surface-server (removed after); None, said on
    stderr, when that server does not start or its lists cannot be read (the rounds then say why)."""
    folder = out / "surface-server"
    try:
        with ManagedServer(str(folder), binary=server_binary(server)) as managed:
            surface = read_surface(_core.Connection.open(managed.connection), details=True)
    except (ServerError, _core.GauntletError) as e:
        print(f"gauntlet: hunt: no surface round: the server's lists: {e}", file=sys.stderr)
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    path = out / "surface.yy"
    write_atomically(path, surface_grammar(surface))
    Grammar.from_file(str(path))  # a grammar we wrote that does not parse is our bug: said now
    return HuntGrammar(str(path), "surface", False, threads or 2, 10.0, path.read_text())


def _corpus_round(corpus: Optional[str]) -> Optional[HuntGrammar]:
    """The corpus round's grammar: ``corpus`` (a file, or "default" when the suite is installed) as run() takes
    it; None without one. Four sessions, as pquery runs a corpus, and three seconds for a statement (the
    suite's loops run until killed)."""
    if corpus is None or (corpus == "default" and not SUITE.is_dir()):
        return None
    if corpus != "default":
        corpus = os.path.abspath(path_argument("corpus", corpus))
        if not os.path.isfile(corpus):
            raise _core.InvalidInput(f"corpus: {corpus}: no such file (gauntlet corpus build makes one)")
    return HuntGrammar(f"corpus:{corpus}", "corpus", False, 4, 3.0)


def _clear(out: pathlib.Path) -> None:
    """A hunt's own files of an earlier hunt into the same folder: its rounds would count again."""
    for name in ("rounds", "verify"):
        if (out / name).is_dir():
            shutil.rmtree(out / name)
    for name in ("hunt.json", "root_causes.json", "surface.json", "surface.yy"):
        (out / name).unlink(missing_ok=True)


def _save(out: pathlib.Path, record: dict) -> None:
    write_atomically(out / "hunt.json", json.dumps(stamped("hunt", record), indent=1) + "\n")


def _reach(out: pathlib.Path, reach, folder: pathlib.Path, record: dict):
    """The rounds' reach with a round's (``folder``) added: in the record and, what it counts against,
    OUT/surface.json."""
    reach = add_reach(reach, folder)
    if reach is not None:
        record["reach"] = reach.to_json()
        write_atomically(out / "surface.json", reach.surface.dumps())
    return reach


def _reserve(causes: list) -> float:
    new = [c for c in causes if not c.get("known") and not c.get("reproducer")]
    return _VERIFY_SECONDS + _REDUCE_SECONDS * sum(1 for c in new if not c.get("minimal"))


def _causes(out: pathlib.Path, known_bugs, known_tests: dict, record: dict, say: _Progress):
    """The root causes of every round so far, into OUT/root_causes.json and the record; new ones said."""
    causes = triage(out / "rounds", known_bugs=known_bugs)
    (out / "root_causes.json").write_text(json.dumps(causes.to_json(), indent=1) + "\n")
    before = {c["key"]: c for c in record["causes"]}
    record["causes"] = [_cause(out, c, before.get(c["key"]), known_tests) for c in causes.root_causes]
    for c in record["causes"]:
        if c["key"] not in before and not c.get("known"):
            say.line(f"NEW root cause: {c['kind']} x{c['count']}: {c['key']}  ({c['example']})")
    return causes


def _cause(out: pathlib.Path, c: dict, earlier: Optional[dict], known_tests: dict) -> dict:
    entry = {"key": c["key"], "kind": c["kind"], "count": c["count"], "findings": len(c["findings"]),
             "example": os.path.relpath(c["findings"][0], out), "statement": c["statement"],
             "minimal": (c.get("minimal") or {}).get("sql")}
    if c.get("known"):
        entry["known"] = c["known"]
        if c["known"] in known_tests:
            entry["known_reproducer"] = known_tests[c["known"]]
    if earlier and earlier.get("reproducer"):
        entry["reproducer"] = earlier["reproducer"]
    return entry


def _reproduce(out: pathlib.Path, causes, record: dict, deadline: float, say: _Progress) -> None:
    """Each new cause to a reproducer, while the budget lasts: the minimal queries of the wrong-result
    causes through one mariadb-test-run call, then the others reduced in turn (most frequent first)."""
    new = [c for c in causes.root_causes if not c.get("known")]
    by_key = {c["key"]: c for c in record["causes"]}
    relation = [c for c in new if c.get("minimal")]
    if relation and deadline - time.monotonic() >= 3:  # one call, ~10 s: worth a short overrun
        say.status = f"mariadb-test-run: {len(relation)} minimal queries"
        say.redraw()
        causes.verify(out / "verify", keys=[c["key"] for c in relation])
        for c in relation:
            v = c.get("verified") or {}
            by_key[c["key"]]["reproducer"] = {"test": _rel(out, v.get("test")), "verified": bool(v.get("verified")),
                                              "why": v.get("why", ""), "how": "minimal query"}
            say.line(f"{'verified' if v.get('verified') else 'not verified'}: {c['key']}: {v.get('why', '')}")
        (out / "root_causes.json").write_text(json.dumps(causes.to_json(), indent=1) + "\n")
    else:
        for c in relation:
            by_key[c["key"]]["reproducer"] = _out_of_budget("minimal query")
    rest = [c for c in new if not c.get("minimal") and c["kind"] in REDUCIBLE]
    for i, c in enumerate(rest):
        left = deadline - time.monotonic()
        budget = left / (len(rest) - i)
        entry = by_key[c["key"]]
        if budget < _MIN_REDUCE_SECONDS:
            entry["reproducer"] = _out_of_budget("reduce")
            continue
        say.status = f"reducing {c['kind']}: {c['key'][:60]}"
        say.redraw()
        r, why = _reduce_within(c["findings"][0], budget)
        if r is None:
            entry["reproducer"] = {"test": None, "verified": False, "why": why, "how": "reduce"}
        else:
            test = r.folder / f"{r.record['name']}.test"
            entry["reproducer"] = {"test": _rel(out, str(test)) if test.exists() else None, "verified": r.verified,
                                   "why": r.record.get("verification", {}).get("why", ""), "how": "reduce"}
        say.line(f"{'verified' if entry['reproducer']['verified'] else 'not verified'}: {c['key']}: "
                 f"{entry['reproducer']['test'] or entry['reproducer']['why']}")


def _reduce_within(finding: str, seconds: float):
    """gauntlet reduce in a process of its own, killed (its servers with it) at the deadline: the
    reduction's budget bounds its stages, not its first reproductions nor mariadb-test-run's check,
    and a hunt must end on time. (Reduction, "") or (None, why)."""
    package = str(pathlib.Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")]))}
    code = "import sys, gauntlet; gauntlet.reduce(sys.argv[1], budget=float(sys.argv[2]))"
    p = subprocess.Popen([sys.executable, "-c", code, finding, str(seconds * 0.5)], env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = p.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "the reduction did not finish within the hunt's budget"
    try:
        return Reduction.load(finding), ""
    except (_core.GauntletError, OSError):
        return None, (err.strip().splitlines() or ["the reduction wrote nothing"])[-1][:500]


def _out_of_budget(how: str) -> dict:
    return {"test": None, "verified": False, "why": "the hunt's budget ran out before it", "how": how}


def _rel(out: pathlib.Path, path: Optional[str]) -> Optional[str]:
    return os.path.relpath(path, out) if path else None
