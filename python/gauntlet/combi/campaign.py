"""Campaigns: a workload run once per row of an option plan, each on a fresh server with the
row's options, streamed to disk and resumable.

    plan = OptionSpace.from_json("space.json").covering()
    result = Campaign(plan, "OUT", grammar="grammars/optimizer.yy", duration=30, threads=4,
                      oracles="crash,tlp", parallel=2).run()
    result.by_value(), result.by_pair(), result.minimal_options(row)

``OUT/campaign.json`` holds the settings and the rows; ``OUT/results.jsonl`` gets a line per
finished row as it finishes; ``OUT/rows/NNN`` is each row's run folder (``gauntlet.run``'s:
summary, findings, server log). Running the same campaign again skips the rows that have a
result line. A row whose server refuses to start is an ``invalid`` combination (with the
server's error lines), and the campaign goes on. Rows run in parallel in worker processes
(``parallel=N``), or on a Dask cluster (``cluster="tcp://scheduler:8786"`` or a
``distributed.Client``): each worker starts its own servers from its own template cache.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import itertools
import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Union

from .. import _core
from ..arguments import path_argument, writable_folder
from ..formats import read_json, stamped, version
from ..reduction.shrink import shrink
from ..runs.signals import Stopped
from ..server import ServerRefused
from .space import WORKLOAD, Plan, row_settings

_SETTINGS = ("grammar", "redefine", "data", "threads", "duration", "queries", "seed", "oracles", "mysqld",
             "statement_timeout", "hang_timeout", "statement_log", "data_template", "known_bugs", "trusted_perl")


# Seconds to reach a Dask scheduler before the campaign says it cannot.
CLUSTER_TIMEOUT = 10


def dask_client(cluster, setting: str = "cluster"):
    """(a distributed.Client, whether it is ours to close) for a scheduler's address or a Client;
    InvalidInput naming ``setting`` when the scheduler cannot be reached."""
    import distributed
    if isinstance(cluster, distributed.Client):
        return cluster, False
    try:
        return distributed.Client(cluster, timeout=CLUSTER_TIMEOUT), True
    except OSError as e:
        raise _core.InvalidInput(f"{setting}: cannot reach the Dask scheduler at {cluster}: {e}") from None


def _option_text(value) -> str:
    return ("ON" if value else "OFF") if isinstance(value, bool) else str(value)


def row_mysqld(row: dict, base: Sequence[str] = ()) -> List[str]:
    """The server options of a row (session variables become the server's default for every
    session), after the campaign's own."""
    settings = row_settings({k: v for k, v in row.items() if not k.startswith("session:")})
    return list(base) + settings["mysqld"] + [f"{k[8:]}={_option_text(v)}" for k, v in row.items()
                                              if k.startswith("session:") and v is not None]


def run_row(spec: dict) -> dict:
    """Runs one row (``spec``: the campaign's settings, the row's index, values and folder) and
    returns its result line. Module-level so that row processes and Dask workers can call it."""
    from ..runs import run
    row, settings = spec["values"], dict(spec["settings"])
    mysqld = row_mysqld(row, settings.pop("mysqld", None) or ())
    workload = {**settings, **row_settings(row)["run"]}
    grammar = workload.pop("grammar")
    engine = workload.pop("engine", None)
    if engine is not None:  # the engine the data is created with: a target's
        workload["targets"] = [{"name": "server", "engine": engine}]
    out = pathlib.Path(spec["out"])
    result = {"format": version("campaign-row"), "row": spec["row"], "values": row, "mysqld": mysqld, "host": os.uname().nodename, "started": time.time()}
    t0 = time.monotonic()
    try:
        r = run(grammar, out=out, mysqld=mysqld, overwrite=True, **workload)
    except Stopped as e:  # not done: the campaign stops, and its next run() does the row again
        return {**result, "status": "interrupted", "signal": signal.Signals(e.signum).name,
                "seconds": round(time.monotonic() - t0, 2)}
    except ServerRefused as e:  # the point of a negative row: recorded, not an error of the campaign
        return {**result, "status": "invalid", "error_lines": "\n".join(e.log_errors) or str(e), "findings": [],
                "statements": 0, "seconds": round(time.monotonic() - t0, 2)}
    except (_core.InvalidInput, _core.GauntletError) as e:
        return {**result, "status": "error", "error": str(e), "seconds": round(time.monotonic() - t0, 2)}
    s = r.summary()
    findings = [{"kind": f["kind"], "signature": f["signature"], "id": f.get("id"), "known": f.get("known")}
                for f in r.findings]
    if s.get("stop_reason") == "start":
        status = "invalid"
        result["error_lines"] = next((f.get("detail", "") for f in r.findings if f["kind"] == "start"), "")
    else:
        status = "failed" if any(not f["known"] for f in findings) else "passed"
    clamped = _clamped(mysqld, out / "server_variables.json")
    if clamped:
        result["clamped"] = clamped
    latency = s.get("latency_ms") or {}
    return {**result, "status": status, "findings": findings, "statements": s.get("statements", 0),
            "statements_per_second": s.get("statements_per_second", 0.0),
            "latency_ms": {k: latency[k] for k in ("p50", "p95", "p99") if k in latency},
            "ready_seconds": s.get("server_ready_seconds"), "ready_with_data_seconds": s.get("ready_with_data_seconds"),
            "seconds": round(time.monotonic() - t0, 2)}


_SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_FLAGS = {"ON": "1", "TRUE": "1", "YES": "1", "OFF": "0", "FALSE": "0", "NO": "0"}


def _same_value(planned: str, ran: str) -> bool:
    """A planned option value and the server's: the same text, flag or number (64M is 67108864), or
    flags of a list the server's has (optimizer_switch=index_merge=off)."""
    if "=" in planned:
        return set(planned.lower().replace(" ", "").split(",")) <= set(ran.lower().split(","))

    def norm(v: str) -> str:
        v = v.strip().strip("'\"").upper()
        if v in _FLAGS:
            v = _FLAGS[v]
        elif v[-1:] in _SUFFIXES and v[:-1].isdigit():
            v = str(int(v[:-1]) * _SUFFIXES[v[-1]])
        try:
            return repr(float(v))
        except ValueError:
            return v
    return norm(planned) == norm(ran)


def _clamped(mysqld: Sequence[str], variables_file: pathlib.Path) -> Dict[str, dict]:
    """The row's options whose value the server took otherwise without a word (join_cache_level=99
    runs as 8): {name: {"planned", "ran"}}. Options that are no variable (skip-log-bin) are left out."""
    try:
        variables = json.loads(variables_file.read_text())
    except (OSError, ValueError):
        return {}
    clamped = {}
    for option in mysqld:
        name, eq, planned = option.partition("=")
        ran = variables.get(name.strip().replace("-", "_"))
        if eq and ran is not None and not _same_value(planned, str(ran)):
            clamped[name.strip()] = {"planned": planned, "ran": str(ran)}
    return clamped


def _results_in(out: pathlib.Path) -> Dict[int, dict]:
    results = {}
    path = out / "results.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill
            results[r["row"]] = r
    return results


def die_with_parent(parent: int) -> None:
    """In a row's process, first: killed when the thread that started it ends (Linux's
    PR_SET_PDEATHSIG), so that a campaign killed outright leaves no row behind, and through the
    row's run no server; a parent already gone ends it at once."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def _run_row_process(spec: dict) -> dict:
    """run_row in a Python process of its own (the spec in, the result out, as JSON): rows at
    once need a process each, and a fresh interpreter imports nothing of the caller's script."""
    package = str(pathlib.Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")]))}
    p = subprocess.run([sys.executable, "-c", "import sys, json; from gauntlet.combi.campaign import die_with_parent, "
                        f"run_row; die_with_parent({os.getpid()}); print(json.dumps(run_row(json.load(sys.stdin))))"],
                       input=json.dumps(spec), capture_output=True, text=True, env=env)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        return {"format": version("campaign-row"), "row": spec["row"], "values": spec["values"], "status": "error", "started": time.time(),
                "seconds": 0.0, "error": f"the row's process exited with {p.returncode}: {p.stderr.strip()[-2000:]}"}
    return json.loads(lines[-1])


class Campaign:
    """A workload (grammar, data, threads, duration or queries, oracles, ...: ``gauntlet.run``'s
    settings) run once per row of ``plan`` (a Plan, or a list of rows ``{parameter: value}``),
    each on a fresh server with the row's options; ``out`` is the campaign's folder.
    ``parallel``: rows at once (worker processes); ``cluster``: a Dask scheduler address or
    ``distributed.Client`` to run the rows on instead."""

    def __init__(self, plan: Union[Plan, Sequence[dict]], out: Union[str, os.PathLike], *, grammar,
                 parallel: int = 1, cluster: Any = None, data_template: bool = True, **settings):
        self.rows = [dict(r) for r in (plan.rows if isinstance(plan, Plan) else plan)]
        if not self.rows:
            raise _core.InvalidInput("campaign: the plan has no rows")
        unknown = set(settings) - set(_SETTINGS)
        if unknown:
            raise _core.InvalidInput(f"campaign: unknown setting {sorted(unknown)[0]!r} "
                                     f"(settings: {', '.join(_SETTINGS)})")
        if not isinstance(parallel, int) or parallel < 1:
            raise _core.InvalidInput(f"campaign: parallel must be 1 or more, not {parallel!r}")
        self.out = pathlib.Path(path_argument("out", out))
        self.parallel, self.cluster = parallel, cluster
        grammar = str(pathlib.Path(grammar).resolve()) if isinstance(grammar, (str, os.PathLike)) and \
            pathlib.Path(grammar).exists() else grammar
        if not isinstance(grammar, str):
            raise _core.InvalidInput("campaign: grammar is a file name or builtin:NAME (rows may run in other processes)")
        self.settings = {"grammar": grammar, "data_template": data_template, **settings}
        for key in ("oracles",):
            if isinstance(self.settings.get(key), (list, tuple)) and not all(
                    isinstance(o, str) for o in self.settings[key]):
                raise _core.InvalidInput("campaign: oracles by name (rows may run in other processes)")

    def _record(self) -> dict:
        return stamped("campaign", {"settings": self.settings, "rows": self.rows})

    def done(self) -> Dict[int, dict]:
        """The result lines written so far, by row."""
        return _results_in(self.out)

    def run(self, progress: bool = False) -> "CampaignResult":
        """Runs the rows not done yet (all of them the first time) and returns every row's result.
        A signal (Ctrl-C, SIGTERM) stops it once the rows done are written: Stopped is raised, and
        the next run() goes on from there."""
        writable_folder("out", self.out)
        record = self.out / "campaign.json"
        if record.exists():
            before = read_json(record, "campaign")
            before.pop("format", None)  # a folder of an earlier format resumes alike
            if before != json.loads(json.dumps({k: v for k, v in self._record().items() if k != "format"})):
                raise _core.InvalidInput(f"{self.out}: holds another campaign (other rows or settings); "
                                         "give another folder or remove it")
        else:
            record.write_text(json.dumps(self._record(), indent=2) + "\n")
        done = self.done()
        todo = [i for i in range(len(self.rows)) if i not in done]
        specs = [{"row": i, "values": self.rows[i], "settings": self.settings,
                  "out": str(self.out / "rows" / f"{i + 1:03d}")} for i in todo]
        stopped = None
        with open(self.out / "results.jsonl", "a") as results:
            for result in self._results(specs):
                if result["status"] == "interrupted":
                    stopped = result["signal"]
                    break  # not done: the next run() does it again
                results.write(json.dumps(result) + "\n")
                results.flush()
                if progress:
                    print(f"gauntlet campaign: row {result['row'] + 1}/{len(self.rows)} {result['status']} "
                          f"({result['seconds']:.1f} s)", flush=True)
        if stopped:
            raise Stopped(int(getattr(signal.Signals, stopped)))
        return CampaignResult(self.out)

    def _results(self, specs: List[dict]):
        """Each spec's result as it finishes: here, in worker processes, or on the cluster."""
        if self.cluster is not None:
            import distributed
            client, own = dask_client(self.cluster)
            futures = [client.submit(run_row, spec, pure=False) for spec in specs]
            for future in distributed.as_completed(futures):
                yield future.result()
            if own:
                client.close()
        elif self.parallel == 1 or len(specs) <= 1:
            for spec in specs:
                result = run_row(spec)
                yield result
                if result["status"] == "interrupted":
                    return
        else:
            with concurrent.futures.ThreadPoolExecutor(self.parallel) as pool:
                futures = [pool.submit(_run_row_process, spec) for spec in specs]
                try:
                    for future in concurrent.futures.as_completed(futures):
                        yield future.result()
                finally:
                    for f in futures:
                        f.cancel()

    def __repr__(self) -> str:
        return f"<Campaign {len(self.rows)} rows in {self.out}, {len(self.done())} done>"


class CampaignResult:
    """The rows' results (``rows``: dicts with row, values, mysqld, status passed/failed/invalid/
    error, findings, statements, seconds), and which option values and pairs go with failures."""

    def __init__(self, out: Union[str, os.PathLike]):
        self.out = pathlib.Path(out)
        record = read_json(self.out / "campaign.json", "campaign")
        self.settings, self.plan = record["settings"], record["rows"]
        results = _results_in(self.out)
        self.rows = [results[i] for i in sorted(results)]

    @classmethod
    def load(cls, out: Union[str, os.PathLike]) -> "CampaignResult":
        """Reads a campaign folder (finished or not)."""
        return cls(out)

    def counts(self) -> dict:
        """Rows by status, and rows still to run."""
        counts = {"passed": 0, "failed": 0, "invalid": 0, "error": 0}
        for r in self.rows:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        counts["to run"] = len(self.plan) - len(self.rows)
        return counts

    def by_value(self) -> List[dict]:
        """For each parameter value: rows run with it, how many failed, the share; the values
        that go most with failures first (invalid rows aside)."""
        return self._association(1)

    def by_pair(self) -> List[dict]:
        """The same for each pair of values of two parameters."""
        return self._association(2)

    def _association(self, size: int) -> List[dict]:
        rows = [r for r in self.rows if r["status"] in ("passed", "failed")]
        table: Dict[tuple, List[int]] = {}
        for r in rows:
            items = sorted((k, json.dumps(v)) for k, v in r["values"].items())
            for combo in itertools.combinations(items, size):
                seen = table.setdefault(combo, [0, 0])
                seen[0] += 1
                seen[1] += r["status"] == "failed"
        out = [{"values": {k: json.loads(v) for k, v in combo}, "rows": n, "failed": f, "share": f / n}
               for combo, (n, f) in table.items() if f]
        return sorted(out, key=lambda d: (-d["share"], -d["failed"], json.dumps(d["values"])))

    def minimal_options(self, row: int, finding: Optional[str] = None, *, out: Union[None, str, os.PathLike] = None,
                        progress: bool = False) -> List[str]:
        """The fewest of row ``row``'s server options (the rest at the server's defaults) with
        which the same workload still finds the row's finding (its signature, or ``finding``;
        for an invalid row: the server still refuses to start), by delta debugging, each step a
        real server run, as reducer.sh's option stage does."""
        r = next((x for x in self.rows if x["row"] == row), None)
        if r is None:
            raise _core.InvalidInput(f"campaign: row {row} has no result")
        if r["status"] == "invalid":
            wanted = "start"
        else:
            signatures = [f["signature"] for f in r.get("findings", []) if not f.get("known")]
            wanted = finding or (signatures[0] if signatures else None)
            if wanted is None:
                raise _core.InvalidInput(f"campaign: row {row} found nothing to keep")
        base = list(self.settings.get("mysqld") or [])
        own = r["mysqld"][len(base):]
        work = pathlib.Path(out) if out is not None else self.out / "minimal" / f"{row + 1:03d}"
        settings = {k: v for k, v in self.settings.items() if k != "mysqld"}
        settings["mysqld"] = base
        steps = itertools.count(1)

        def still(kept: list) -> bool:
            n = next(steps)
            spec = {"row": row, "values": {k: v for k, v in r["values"].items() if k in WORKLOAD},
                    "settings": {**settings, "mysqld": base + kept}, "out": str(work / f"{n:03d}")}
            result = run_row(spec)
            hit = result["status"] == "invalid" if wanted == "start" else any(
                f["signature"] == wanted for f in result.get("findings", []))
            if progress:
                print(f"gauntlet campaign: minimal options of row {row + 1}: {len(kept)} options: "
                      f"{'still' if hit else 'not'}", flush=True)
            return hit
        return shrink(own, still)

    def to_pandas(self):
        """One row per result: status, seconds, statements, statements per second, latency p50/p95/p99
        (ms), findings, and a column per parameter."""
        import pandas as pd
        return pd.DataFrame([{"row": r["row"], "status": r["status"], "seconds": r["seconds"],
                              "statements": r.get("statements", 0),
                              "statements_per_second": r.get("statements_per_second"),
                              **{f"{k}_ms": (r.get("latency_ms") or {}).get(k) for k in ("p50", "p95", "p99")},
                              "findings": len(r.get("findings", [])), **r["values"]} for r in self.rows])

    @property
    def exit_code(self) -> int:
        """1 when a row failed (a new finding); 2 when rows were to run and none ran (each an error,
        or refused: a missing grammar, a misspelt option); else 0."""
        c = self.counts()
        if c["failed"]:
            return 1
        ran = [r for r in self.rows if r["status"] in ("passed", "failed", "interrupted")]
        return 2 if self.rows and not ran else 0

    def table(self) -> str:
        """A text summary: counts, then the values and pairs that go most with failures, the values
        the server took otherwise, and why no row ran when none did."""
        c = self.counts()
        lines = [f"campaign {self.out}: " + ", ".join(f"{v} {k}" for k, v in c.items())]
        if self.exit_code == 2:
            first = self.rows[0]
            lines.append(f"  no row ran: row {first['row']}: {first.get('error') or first.get('error_lines', '')}"[:2000])
        for r in self.rows:
            for name, v in r.get("clamped", {}).items():
                lines.append(f"  row {r['row']}: {name}={v['planned']} ran as {v['ran']} (the server's own choice)")
        for label, rows in (("value", self.by_value()[:5]), ("pair", self.by_pair()[:5])):
            for d in rows:
                values = " ".join(f"{k}={v}" for k, v in d["values"].items())
                lines.append(f"  failing {label}: {values}: {d['failed']}/{d['rows']} rows")
        return "\n".join(lines)

    def __repr__(self) -> str:
        c = self.counts()
        return (f"<CampaignResult {len(self.rows)}/{len(self.plan)} rows: {c['passed']} passed, {c['failed']} failed, "
                f"{c['invalid']} invalid, {c['error']} errors>")
