"""The `gauntlet` command.

Exit codes: 0 success (a run found nothing), 1 a run found something (crash,
shutdown, hang, corruption, unreachable, a server that would not start), 2 bad
usage or input (the message names the file, line and column, or the option;
also a grammar that fails or gets stuck during the run), 128+N when signal N
stopped it: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (the results written so far
stay readable and the server is stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

from .. import _core
from .._core import GauntletError, InvalidInput
from ..grammar import Grammar, Schema, load_data_spec
from ..reduction import REDUCIBLE
from ..runs import Stopped, templates
from ..runs.signals import ignore_signals_after_a_stop
from ..runs.plan import RUN_DEFAULTS
from ..server import ManagedServer, ServerError, parse_replica_flag, parse_target_flag, server_binary
from .corpus import add_corpus
from .coverage import add_coverage
from .hunt import add_hunt
from .report import add_report, add_report_flags, write_reports
from .known_bugs import add_known_bugs

# Settings whose value is text (the others are numbers or flags, checked by run()).
_TEXT = {"grammar": str, "data": str, "server": str, "out": str, "known_bugs": str, "shard": str, "kill_signal": str,
         "replica_server": str}
_LISTS = ("redefine", "mysqld", "oracles", "replica_mysqld")
# Settings whose flag is singular (repeated on the command line); a config file may use either spelling.
_FLAG_SPELLINGS = {"oracle": "oracles", "target": "targets"}


def _gensql(args: argparse.Namespace) -> int:
    # RQG's gensql.pl: statements from a grammar, without a server.
    for flag, value, low in (("--queries", args.queries, 0), ("--thread", args.thread, 1), ("--seed", args.seed, 0),
                             ("--max-depth", args.max_depth, 1)):
        if value < low:
            raise InvalidInput(f"{flag}: {low} or more, not {value}")
    grammar = Grammar.from_file(args.grammar, *args.redefine, trusted_perl=args.trusted_perl)
    if args.warnings:
        for w in grammar.warnings:
            print(f"warning: {w}", file=sys.stderr)
    schema = load_data_spec(args.schema, trusted_perl=args.trusted_perl) if args.schema else Schema.rqg_default()
    gen = grammar.generator(args.seed, schema, thread_id=args.thread, max_depth=args.max_depth)
    try:
        gen.write(args.queries, sys.stdout, args.semicolons)
    except GauntletError as e:
        if "Broken pipe" in str(e):  # `gauntlet gensql ... | head`
            return 0
        raise
    if args.coverage:
        cov = gen.coverage()
        print(f"# {cov!r}", file=sys.stderr)
        for name in cov.unreached_rules:
            print(f"# never reached: {name}", file=sys.stderr)
    return 0


def _read_config(path: str) -> dict:
    try:
        if path.endswith(".toml"):
            import tomllib
            with open(path, "rb") as f:
                config = tomllib.load(f)
        else:
            with open(path) as f:
                config = json.load(f)
    except FileNotFoundError:
        raise InvalidInput(f"{path}: config file not found") from None
    except json.JSONDecodeError as e:
        raise InvalidInput(f"{path}:{e.lineno}:{e.colno}: {e.msg}") from None
    except ValueError as e:  # tomllib.TOMLDecodeError says "(at line N, column M)"
        raise InvalidInput(f"{path}: {e}") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        raise InvalidInput(f"{path}: cannot read the config file: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(config, dict):
        raise InvalidInput(f"{path}: a config file holds settings by name (a JSON object or TOML table), "
                           f"not a {type(config).__name__}")
    config = {k.replace("-", "_"): v for k, v in config.items()}
    for flag, key in _FLAG_SPELLINGS.items():  # a key spelt as its flag: --oracle, --target
        if flag in config:
            if key in config:
                raise InvalidInput(f"{path}: both {flag!r} and {key!r}: give one")
            config[key] = config.pop(flag)
    unknown = sorted(set(config) - set(RUN_DEFAULTS))
    if unknown:
        raise InvalidInput(f"{path}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(RUN_DEFAULTS)}")
    for key, value in config.items():
        default = RUN_DEFAULTS[key]
        if key == "targets":  # run() checks each target
            ok = isinstance(value, list) and all(isinstance(v, dict) for v in value)
        elif key == "replicas":  # a number, or each replica's server and options (run() checks them)
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, list) and all(isinstance(v, dict) for v in value))
        elif key == "oracles" and isinstance(value, str):
            ok = True
        elif key in _TEXT:
            ok = isinstance(value, str) or (key in ("data", "known_bugs", "shard", "replica_server") and value is None)
        elif key in _LISTS:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        elif isinstance(default, bool):
            ok = isinstance(value, bool)
        else:  # numbers: run() checks the range; bools are no numbers here
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok:
            want = "a list of targets (objects with name, server, options, engine)" if key == "targets" else {
                str: "text", list: "a list of text", bool: "true or false"}.get(
                _TEXT.get(key) or (list if key in _LISTS else type(default)), "a number")
            raise InvalidInput(f"{path}: setting {key!r} must be {want}, not {value!r}")
    return config


def _run(args: argparse.Namespace) -> int:
    from ..runs import run
    settings = dict(RUN_DEFAULTS)
    if args.config:
        settings.update(_read_config(args.config))
    settings.update({k: v for k, v in vars(args).items() if k in RUN_DEFAULTS and v is not None})
    if args.target:
        settings["targets"] = [parse_target_flag(t) for t in args.target]
    if args.oracle:
        settings["oracles"] = [n.strip() for flag in args.oracle for n in flag.split(",") if n.strip()]
    if args.replica:
        if args.replicas is not None:
            raise InvalidInput("--replica: gives one replica each; leave out --replicas")
        settings["replicas"] = [parse_replica_flag(r) for r in args.replica]
    if args.corpus:
        if settings["grammar"]:
            raise InvalidInput("--corpus: its statements are the workload; leave out --grammar")
        settings["grammar"] = f"corpus:{args.corpus}"
    if not settings["grammar"]:
        raise InvalidInput("--grammar is required (or 'grammar' in the config file, or --corpus)")
    try:
        result = run(settings.pop("grammar"), progress=True, **settings)
    except Stopped as stopped:
        _print_result(stopped.result)
        raise
    _print_result(result)
    if settings.get("keep_server"):
        _say_kept_servers(result.out)
    if args.reduce:
        for finding in result.findings:
            if finding.get("known") or finding["kind"] not in REDUCIBLE:
                continue
            print(result.reduce(finding, budget=args.reduce_budget, progress=True))
    write_reports(args, result.out)
    return result.exit_code


def _print_result(result) -> None:
    """A run's table on stdout and its error, if one ended it, on stderr."""
    print(result.table(error=False), flush=True)
    if result.error_line():
        print(result.error_line(), file=sys.stderr)


def _reduce(args: argparse.Namespace) -> int:
    from ..reduction import reduce
    reduction = reduce(args.finding_dir, budget=args.budget, any_crash=args.any_crash, progress=True,
                       hang_timeout=args.hang_timeout)
    print(reduction)
    print(f"test case: {reduction.folder} ({reduction.record['verification'].get('why', '')})")
    return 0 if reduction.verified else 1


def _replay(args: argparse.Namespace) -> int:
    from ..runs import replay
    try:
        result = replay(args.run_dir, out=args.out, sessions=args.sessions, ordered=not args.unordered,
                        until_seq=args.until_seq, server=args.server, mysqld=args.mysqld,
                        hang_timeout=args.hang_timeout, statement_timeout=args.statement_timeout,
                        progress=True, keep_server=args.keep_server, overwrite=args.overwrite,
                        attempts=args.attempts)
    except Stopped as stopped:
        _print_result(stopped.result)
        raise
    _print_result(result)
    if args.keep_server:
        _say_kept_servers(result.out)
    return result.exit_code


def _say_kept_servers(out: pathlib.Path) -> None:
    """After --keep-server: each server still running, with its DSN and the command that stops it."""
    for info in sorted(pathlib.Path(out).glob("server*/server.json")):
        server = ManagedServer.attach(info.parent)
        if server.alive:
            print(f"server kept running: {server.dsn}\n  stop it with: gauntlet server stop --dir {info.parent}")


def _server_start(args: argparse.Namespace) -> int:
    server = ManagedServer(args.dir, binary=server_binary(args.binary), mysqld=args.mysqld, tcp=args.tcp)
    try:
        server.start()
    except ServerError as e:
        print(f"gauntlet: the server did not start: {e}", file=sys.stderr)
        return 1
    server.detach()
    print(f"dsn:    {server.dsn}")
    print(f"socket: {server.socket}")
    if server.port:
        print(f"port:   {server.port}")
    print(f"pid:    {server.pid}")
    print(f"log:    {server.error_log}")
    print(f"client: mariadb -uroot -S {server.socket}")
    return 0


def _server_stop(args: argparse.Namespace) -> int:
    server = ManagedServer.attach(args.dir)
    if not server.alive:
        print(f"no server running in {args.dir}")
        return 0
    server.stop(args.timeout)
    print(f"stopped {args.dir}")
    return 0


def _make_plan(args: argparse.Namespace):
    from ..combi import OptionSpace
    space = OptionSpace.from_file(args.space)
    if args.plan == "random":
        return space.random(args.rows, seed=args.seed)
    if args.plan == "exhaustive":
        from ..combi import Plan
        from ..combi.space import MAX_PLAN_ROWS, NO_ROW
        bound = space.rows_bound()
        if bound > MAX_PLAN_ROWS:
            raise InvalidInput(f"{args.space}: an exhaustive plan has up to {bound:.3g} rows, more than "
                               f"{MAX_PLAN_ROWS:,}: use a covering array (--plan covering --strength T) or fewer values")
        rows = list(space.exhaustive())
        if not rows:
            raise InvalidInput(f"{args.space}: {NO_ROW}")
        return Plan(space, rows, "exhaustive", space.strength, 0.0, args.seed)
    return space.covering(args.strength, seed=args.seed)


def _plan(args: argparse.Namespace) -> int:
    plan = _make_plan(args)
    for row in plan:
        print(json.dumps(row))
    cov = plan.coverage()
    print(f"{plan!r}: covers {cov['covered']:,} of {cov['feasible']:,} feasible {plan.strength}-tuples "
          f"({cov['tuples']:,} in all), {plan.seconds:.2f} s", file=sys.stderr)
    return 0


def _campaign(args: argparse.Namespace) -> int:
    from ..combi import Campaign
    plan = _make_plan(args)
    settings = {k: v for k, v in (("data", args.data), ("threads", args.threads), ("duration", args.duration),
                                  ("queries", args.queries), ("mysqld", args.mysqld),
                                  ("hang_timeout", args.hang_timeout)) if v is not None}
    if args.trusted_perl:
        settings["trusted_perl"] = True
    if args.oracle:
        settings["oracles"] = [n.strip() for flag in args.oracle for n in flag.split(",") if n.strip()]
    result = Campaign(plan, args.out, grammar=args.grammar, parallel=args.parallel, cluster=args.cluster,
                      **settings).run(progress=True)
    print(result.table())
    return result.exit_code


def _bench(args: argparse.Namespace) -> int:
    from ..perf import best_to_best, bench, compare_queries, scaling
    targets = [parse_target_flag(t) for t in args.target or []]
    if args.config:
        config = _read_config(args.config)
        unknown = sorted(set(config) - {"targets"})
        if unknown:
            raise InvalidInput(f"{args.config}: unknown key {unknown[0]!r} (a bench config holds targets)")
        for t in config.get("targets") or []:
            if isinstance(t, dict) and isinstance(t.get("space"), str):  # relative to the config file
                t["space"] = str(pathlib.Path(args.config).parent / t["space"])
        targets = list(config.get("targets") or []) + targets
    targets = targets or [parse_target_flag("default")]  # one target: its throughput, timeline, stalls
    try:
        threads = [int(n) for n in str(args.threads).split(",")]
    except ValueError:
        raise InvalidInput(f"--threads: a number of sessions or a list (1,2,4,8), not {args.threads!r}") from None
    common = dict(workload=args.workload, duration=args.duration, tables=args.tables, table_size=args.table_size,
                  data=args.data, progress=True)
    measured = dict(common, runs=args.runs, warmup="auto" if args.warmup is None else args.warmup,
                    threshold=args.threshold, rate=args.rate,
                    pin=[int(c) for c in args.pin.split(",")] if args.pin else None)
    out = pathlib.Path(args.out)
    regressed = False
    if any(isinstance(t, dict) and ("space" in t or "plan" in t) for t in targets):
        if len(threads) > 1:
            raise InvalidInput("--threads: one thread count for a best-to-best comparison")
        result = best_to_best(targets, threads=threads[0], metric=args.metric, strength=args.strength,
                              screen_runs=args.screen_runs, screen_duration=args.screen_duration, out=out, **measured)
        print(result.table())
        print(f"results: {out} (screening.csv, best_to_best.txt, final/verdict.json and plots)")
        regressed = result.regressed
        targets = [{"name": t.name, "server": t.server, "options": t.options, "engine": t.engine}
                   for t in result.bests.values()]
    elif args.runs > 0 and len(threads) > 1:
        result = scaling(targets, threads=threads, out=out, **measured)
        print(result.table())
        print(f"results: {out} (scaling.csv, scaling.png, threads-N/verdict.json and plots)")
        regressed = result.regressed
    elif args.runs > 0:
        result = bench(targets, threads=threads[0], out=out, **measured)
        print(result.table())
        print(f"results: {out} (verdict.json, runs.csv, timelines.csv, timelines.png, boxes.png, stalls.png)")
        regressed = result.regressed
    elif not args.per_query:
        raise InvalidInput("--runs: 0 only with --per-query (then only the statements are compared)")
    if args.per_query:
        queries = compare_queries(targets, threads=threads[-1], threshold=args.query_threshold, out=out / "queries",
                                  **common)
        print(queries.table())
        print(f"query classes: {out / 'queries'} (query_classes.csv, query_classes.txt, queries.png, run/)")
        regressed = regressed or queries.regressed
    return 1 if regressed else 0


def _core_oracles():
    return _core.known_oracles()


def _add_gensql(sub) -> None:
    """`gauntlet gensql`: statements from a grammar, no server."""
    g = sub.add_parser("gensql", help="print statements generated from a grammar (no server)")
    g.add_argument("--grammar", required=True, help="the .yy grammar")
    g.add_argument("--redefine", action="append", default=[],
                   help="a grammar whose rules override the main one (repeatable)")
    g.add_argument("--queries", type=int, default=100, help="how many queries (default 100)")
    g.add_argument("--seed", type=int, default=1, help="the seed (default 1)")
    g.add_argument("--schema", help="a JSON schema or RQG .zz file (default: RQG's tables A..DD)")
    g.add_argument("--thread", type=int, default=1, help="worker number for threadN rules")
    g.add_argument("--max-depth", type=int, default=64, help="rule nesting limit (default 64)")
    g.add_argument("--semicolons", action="store_true", help="end each statement with ';'")
    g.add_argument("--warnings", action="store_true", help="print grammar warnings to stderr")
    g.add_argument("--coverage", action="store_true", help="print rule coverage to stderr")
    g.add_argument("--trusted-perl", action="store_true",
                   help="let the grammar's (and .zz file's) Perl run processes, open files and load native code "
                        "(only for grammars you trust; by default such code does not compile)")
    g.set_defaults(func=_gensql)


def _add_run(sub) -> None:
    """`gauntlet run`: its flags name the settings of RUN_DEFAULTS."""
    r = sub.add_parser("run", help="run a grammar against a server with concurrent sessions",
                       description="Flags left out take their value from --config, then the defaults.")
    r.add_argument("--config", help="settings file (JSON or TOML); keys are named like the flags")
    r.add_argument("--grammar", help="the .yy grammar")
    r.add_argument("--corpus", metavar="FILE", help="instead of a grammar, a corpus's statements at random "
                                                     "('default': the installed suite's, built once; see corpus build)")
    r.add_argument("--redefine", action="append", help="a grammar overriding rules (repeatable)")
    r.add_argument("--data", help="JSON data spec or RQG .zz file, 'random[:SEED]' for a random schema of edge "
                                  "cases (SEED defaults to --seed), or 'none' for the server's own tables "
                                  "(default: RQG's tables A..DD)")
    r.add_argument("--threads", type=int, help=f"concurrent sessions (default {RUN_DEFAULTS['threads']})")
    r.add_argument("--duration", type=float,
                   help=f"seconds (default {RUN_DEFAULTS['duration']:g}; 0 = until --queries)")
    r.add_argument("--queries", type=int, help="queries per session (default: no limit)")
    r.add_argument("--seed", type=int, help=f"the run seed (default {RUN_DEFAULTS['seed']})")
    r.add_argument("--rate", type=float, help="open loop: queries a second over all sessions (Poisson arrivals); "
                                              "latency counts from when each was due (default 0: closed loop)")
    r.add_argument("--server", help="'default' (Debian's MariaDB, managed), a mysqld path, or a DSN")
    r.add_argument("--mysqld", action="append", metavar="OPTION=VALUE", help="server option (repeatable)")
    r.add_argument("--out", help="results directory (default gauntlet-run)")
    r.add_argument("--statement-timeout", type=float, help="seconds per statement (default: none)")
    r.add_argument("--hang-timeout", type=float,
                   help=f"seconds without progress = hang (default {RUN_DEFAULTS['hang_timeout']:g})")
    r.add_argument("--generate-timeout", type=float,
                   help="seconds one query's generation may take before the grammar counts as stuck "
                        f"(default {RUN_DEFAULTS['generate_timeout']:g})")
    r.add_argument("--overwrite", action="store_true", default=None,
                   help="replace an earlier run's results in --out (otherwise refused)")
    r.add_argument("--statement-log", action="store_true", default=None, help="log every statement")
    r.add_argument("--max-depth", type=int, help=f"grammar nesting limit (default {RUN_DEFAULTS['max_depth']})")
    r.add_argument("--trusted-perl", action="store_true", default=None,
                   help="let the grammar's (and .zz file's) Perl run processes, open files and load native code "
                        "(only for grammars you trust; by default such code does not compile)")
    r.add_argument("--keep-server", action="store_true", default=None, help="leave the server running")
    r.add_argument("--data-template", action="store_true", default=None,
                   help="cache the loaded datadir and start later runs from a copy of it")
    r.add_argument("--target", action="append", metavar="NAME[=SERVER][,OPTION=VALUE...]",
                   help="a server every statement also goes to (repeatable; two or more for the differential "
                        "oracle): SERVER as --server, OPTIONs as server options (session variables for a DSN), "
                        "engine=ENGINE for the data; or a JSON object")
    r.add_argument("--oracle", action="append", metavar="NAME[,NAME...]",
                   help="checks to run: " + ", ".join(f"{n} ({what})" for n, what in _core_oracles()))
    r.add_argument("--keep-going", action="store_true", default=None,
                   help="after a crash, hang or shutdown: record it, start fresh servers and go on until "
                        "--duration (rounds in OUT/rounds/NNN)")
    r.add_argument("--crash-every", type=float, metavar="S",
                   help="with --oracle recovery: kill the server about every S seconds (default 10), restart it "
                        "and check what survived")
    r.add_argument("--kill-signal", choices=("SIGKILL", "SIGSEGV", "SIGABRT"),
                   help="with --oracle recovery: how the server is killed (default SIGKILL)")
    r.add_argument("--replicas", type=int, metavar="N",
                   help="N replicas follow the server by GTID (binary log on the primary); at each checkpoint they "
                        "must catch up and hold the same rows in every table (replication-divergence, "
                        "replication-error findings)")
    r.add_argument("--replica", action="append", metavar="[SERVER][,OPTION=VALUE...]",
                   help="one replica with its own server (a binary or folder; empty: the primary's) and options "
                        "(repeatable, instead of --replicas)")
    r.add_argument("--replica-server", metavar="SERVER",
                   help="the replicas' server: a binary or an unpacked server's folder (default: the primary's)")
    r.add_argument("--replica-mysqld", action="append", metavar="OPTION=VALUE",
                   help="a replica's server option (repeatable; after --mysqld, which applies to replicas too)")
    r.add_argument("--checkpoint-every", type=float, metavar="S",
                   help=f"with --replicas: compare every S seconds (default {RUN_DEFAULTS['checkpoint_every']:g})")
    r.add_argument("--replica-crash-every", type=float, metavar="S",
                   help="with --replicas: kill a replica about every S seconds and start it again: replication "
                        "must resume (default 0: never)")
    r.add_argument("--shard", metavar="I/N",
                   help="the Ith of N CI jobs that split the work: seed + I - 1 (a keep-going run's rounds step "
                        "by N), so that the jobs' seeds differ; `gauntlet triage` over their folders gives one list")
    r.add_argument("--known-bugs", metavar="FILE",
                   help="a known-bugs catalogue (.toml, e.g. known-bugs/mariadb-10.11.toml: findings whose root "
                        "cause it matches) or a file of signature patterns, one a line (PATTERN ## NOTE): such "
                        "findings are marked known and do not fail the run")
    r.add_argument("--reduce", action="store_true",
                   help="after the run, reduce each new finding to a verified mysql-test-run test case "
                        "(OUT/findings/ID/repro)")
    r.add_argument("--reduce-budget", type=float, default=600, metavar="SECONDS",
                   help="seconds per finding for --reduce (default 600)")
    add_report_flags(r)
    r.set_defaults(func=_run)


def _add_reduce(sub) -> None:
    """`gauntlet reduce`: a finding to a verified test case."""
    rd = sub.add_parser("reduce", help="reduce a finding to a small mysql-test-run test case, verified there",
                        description="Replays the finding's history on fresh servers and shrinks it (statements, "
                                    "data, server options) while the finding keeps coming back; writes "
                                    "FINDING/repro/ (NAME.test, .opt, .result, .sql, README.md) and runs the test "
                                    "with mariadb-test-run. Exit 0 when verified there, 1 when not.")
    rd.add_argument("finding_dir", metavar="FINDING_DIR", help="OUT/findings/ID")
    rd.add_argument("--budget", type=float, default=600, help="seconds for the reduction stages (default 600)")
    rd.add_argument("--any-crash", action="store_true",
                    help="count any crash as the finding, not only one with its frames")
    rd.add_argument("--hang-timeout", type=float, metavar="SECONDS",
                    help="a hang: seconds without a finished statement that make an attempt hang "
                         "(default: the run's hang timeout, at most 10)")
    rd.set_defaults(func=_reduce)


def _add_triage(sub) -> None:
    """`gauntlet triage`: run folders' findings grouped by root cause (results/triage.py)."""
    t = sub.add_parser("triage", help="group the findings of run folders by root cause, most frequent first",
                       description="Reads each run folder (or the run folders below a folder, such as a hunt's "
                                   "output; a keep-going run counts whole) and prints its findings grouped by "
                                   "likely cause, most frequent first, each with its smallest reproducer.")
    t.add_argument("dirs", nargs="+", metavar="DIR", help="a run folder, or a folder holding run folders")
    t.add_argument("--json", action="store_true", help="print root_causes.json's shape instead of text")
    t.add_argument("--verify", metavar="WORK", help="run each cause's minimal query, with the data it read, "
                                                    "through mariadb-test-run on the run's server binary "
                                                    "(test cases and mtr.log kept in WORK)")
    t.add_argument("--known-bugs", metavar="FILE",
                   help="a known-bugs catalogue (.toml) or patterns file: causes it matches are marked known, and "
                        "the exit status is 1 when a cause is new")
    t.set_defaults(func=_triage)


def _triage(args: argparse.Namespace) -> int:
    from ..results import triage
    result = triage(args.dirs, known_bugs=args.known_bugs)
    if args.verify:
        result.verify(args.verify)
    print(json.dumps(result.to_json(), indent=2) if args.json else result.table())
    return 1 if args.known_bugs and result.new_causes else 0


def _add_replay(sub) -> None:
    """`gauntlet replay`: a run's statement logs, executed again."""
    rp = sub.add_parser("replay", help="execute again the statements a run logged (--statement-log)",
                        description="Sets the server up as the run did (binary, options, data, seed) and "
                                    "executes each session's logged statements in the run's start order.")
    rp.add_argument("run_dir", metavar="RUN_DIR", help="the run's --out folder")
    rp.add_argument("--out", help="results directory (default RUN_DIR/replay)")
    rp.add_argument("--sessions", type=int, choices=[1],
                    help="1: every statement in one session, in start order (default: the run's sessions)")
    rp.add_argument("--unordered", action="store_true",
                    help="let sessions run freely instead of in the run's start order")
    rp.add_argument("--until-seq", type=int, default=0, help="leave out statements from this seq on")
    rp.add_argument("--attempts", type=int, default=1,
                    help="replay up to N times (fresh server each) until something is found (default 1)")
    rp.add_argument("--server", help="override the run's server: 'default', a mysqld path, or a DSN")
    rp.add_argument("--mysqld", action="append", metavar="OPTION=VALUE",
                    help="server option (repeatable; replaces the run's)")
    rp.add_argument("--hang-timeout", type=float, help="seconds without progress = hang (default: the run's)")
    rp.add_argument("--statement-timeout", type=float, help="seconds per statement (default: the run's)")
    rp.add_argument("--keep-server", action="store_true", help="leave the server running")
    rp.add_argument("--overwrite", action="store_true", help="replace an earlier replay's results in --out")
    rp.set_defaults(func=_replay)


def _add_plans(sub) -> None:
    """`gauntlet plan` and `gauntlet campaign`: an option space's rows, printed or run."""
    def plan_flags(parser):
        parser.add_argument("space", metavar="SPACE", help="option space: a .json or .toml file, or an RQG combinations .cc file")
        parser.add_argument("--plan", choices=["covering", "random", "exhaustive"], default="covering",
                            help="rows: a t-wise covering array (default), random rows, or every valid row")
        parser.add_argument("--strength", type=int, help="t for --plan covering (default: the space's, else 2)")
        parser.add_argument("--rows", type=int, default=10, help="rows for --plan random (default 10)")
        parser.add_argument("--seed", type=int, default=1, help="the plan's seed (default 1)")
    pl = sub.add_parser("plan", help="print the rows of an option space's plan (JSON lines) and their coverage")
    plan_flags(pl)
    pl.set_defaults(func=_plan)
    cp = sub.add_parser("campaign", help="run a grammar once per row of an option plan, each on a fresh server",
                        description="Rows stream to OUT/results.jsonl; run it again to resume. Exit 1 when a row "
                                    "found something.")
    plan_flags(cp)
    cp.add_argument("--grammar", required=True, help="the .yy grammar (or builtin:NAME)")
    cp.add_argument("--data", help="data as for gauntlet run")
    cp.add_argument("--trusted-perl", action="store_true", help="as for gauntlet run")
    cp.add_argument("--threads", type=int, help=f"sessions per row (default {RUN_DEFAULTS['threads']})")
    cp.add_argument("--duration", type=float, help=f"seconds per row (default {RUN_DEFAULTS['duration']:g})")
    cp.add_argument("--queries", type=int, help="queries per session per row")
    cp.add_argument("--mysqld", action="append", metavar="OPTION=VALUE", help="server option of every row")
    cp.add_argument("--hang-timeout", type=float, help=f"seconds without progress = hang (default {RUN_DEFAULTS['hang_timeout']:g})")
    cp.add_argument("--oracle", action="append", metavar="NAME[,NAME...]", help="checks to run (as for run)")
    cp.add_argument("--parallel", type=int, default=1, help="rows at once (default 1)")
    cp.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler (tcp://host:8786) to run the rows on")
    cp.add_argument("--out", required=True, help="the campaign folder")
    cp.set_defaults(func=_campaign)


def _add_bench(sub) -> None:
    """`gauntlet bench`: performance of targets compared."""
    bn = sub.add_parser("bench", help="compare targets' performance: runs interleaved A B A B, a verdict per metric",
                        description="Each run starts a fresh server (same data template), the warm-up is cut, each "
                                    "run becomes summary values, and each target is judged against the first. "
                                    "Exit 1 when one regressed.")
    bn.add_argument("--workload", default="oltp_read_write",
                    help="a stock OLTP grammar (oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, "
                         "...; default oltp_read_write) or a grammar file (then --data)")
    bn.add_argument("--config", help="JSON or TOML file with \"targets\": [{name, server, options}, ...]; a target "
                                     "with \"space\" (an option space file) makes it best-to-best")
    bn.add_argument("--target", action="append", metavar="NAME[=SERVER][,OPTION=VALUE...]",
                    help="a target (repeatable; the first is the baseline)")
    bn.add_argument("--runs", type=int, default=5, help="runs per target (default 5)")
    bn.add_argument("--duration", type=float, default=30, help="seconds per run (default 30)")
    bn.add_argument("--threads", default="4",
                    help="sessions (default 4), or a list (1,2,4,8) for a scaling curve (scaling.png)")
    bn.add_argument("--rate", type=float, default=0,
                    help="open loop: queries a second over all sessions; latency counts queueing (default: closed)")
    bn.add_argument("--warmup", type=float, help="seconds to cut at the start (default: detected)")
    bn.add_argument("--tables", type=int, default=1, help="sbtest tables (default 1)")
    bn.add_argument("--table-size", type=int, default=10000, help="rows per table (default 10000)")
    bn.add_argument("--data", help="data spec for a grammar file workload")
    bn.add_argument("--threshold", type=float, default=0.02, help="smallest change that matters (default 0.02)")
    bn.add_argument("--pin", metavar="CPUS", help="CPUs for the server (e.g. 0); the client gets the others")
    bn.add_argument("--per-query", action="store_true",
                    help="also run the workload once on all targets in lockstep and compare each class of "
                         "statements (OUT/queries; with --runs 0 only this)")
    bn.add_argument("--query-threshold", type=float, default=0.10,
                    help="smallest per-statement change that matters for --per-query (default 0.10)")
    bn.add_argument("--metric", default="throughput", choices=["throughput", "p95_ms", "jitter"],
                    help="best-to-best: what picks each side's best row (default throughput)")
    bn.add_argument("--strength", type=int, help="best-to-best: covering strength of the targets' spaces")
    bn.add_argument("--screen-runs", type=int, default=2, help="best-to-best: runs per screened row (default 2)")
    bn.add_argument("--screen-duration", type=float, help="best-to-best: seconds per screening run "
                                                          "(default --duration)")
    bn.add_argument("--out", default="gauntlet-bench", help="results folder (default gauntlet-bench)")
    bn.set_defaults(func=_bench)


def _add_server(sub) -> None:
    """`gauntlet server start|stop`: a managed server for other tools."""
    srv = sub.add_parser("server", help="start or stop a managed server for use by other tools")
    ssub = srv.add_subparsers(dest="server_command", required=True)
    start = ssub.add_parser("start", help="start a server, print its DSN and socket, and return")
    start.add_argument("--dir", required=True, help="run directory")
    start.add_argument("--binary", default="default",
                       help="'default' (Debian's mariadbd), a server binary, or a folder holding an unpacked server")
    start.add_argument("--mysqld", action="append", default=[], metavar="OPTION=VALUE")
    start.add_argument("--tcp", action="store_true", help="also listen on 127.0.0.1:<free port>")
    start.set_defaults(func=_server_start)
    stop = ssub.add_parser("stop", help="stop the server started in --dir")
    stop.add_argument("--dir", required=True)
    stop.add_argument("--timeout", type=float, default=60, help="seconds before SIGKILL (default 60)")
    stop.set_defaults(func=_server_stop)


def _add_cache(sub) -> None:
    """`gauntlet cache list|trim|clear`: the template cache (gauntlet/runs/templates.py)."""
    c = sub.add_parser("cache", help="list, trim or clear the cache of server and data templates")
    csub = c.add_subparsers(dest="cache_command", required=True)
    csub.add_parser("list", help="every template, most recently used first, with its size").set_defaults(
        func=_cache_list)
    trim = csub.add_parser("trim", help="remove the least recently used templates down to a size")
    trim.add_argument("--max", help="the size to fit in (default $GAUNTLET_CACHE_MAX or "
                                    f"{templates.DEFAULT_MAX}), e.g. 2G")
    trim.set_defaults(func=_cache_trim)
    csub.add_parser("clear", help="remove every template").set_defaults(func=_cache_clear)


def _human(n: float) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return f"{n:.1f}G"


def _cache_list(args) -> int:
    rows = templates.entries()
    for e in rows:
        made = e["made"] or {}
        what = f"seed {made['seed']}, {os.path.basename(made['binary'])}" if made else ""
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(e["used"]))
        print(f"{_human(e['bytes']):>8}  {used}  {e['kind']:<9}  {e['path']}  {what}".rstrip())
    total = sum(e["bytes"] for e in rows)
    print(f"{len(rows)} templates, {_human(total)} of {_human(templates.max_bytes())} in {templates.cache_dir()}")
    return 0


def _cache_trim(args) -> int:
    removed = templates.trim(templates.parse_size(args.max) if args.max else None)
    print(f"removed {len(removed)} templates")
    return 0


def _cache_clear(args) -> int:
    print(f"freed {_human(templates.clear())} in {templates.cache_dir()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gauntlet", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_gensql, _add_run, add_hunt, add_report, _add_reduce, _add_triage, add_coverage, add_corpus,
                _add_replay, _add_plans, _add_bench, _add_server, _add_cache, add_known_bugs):
        add(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if argv is None:  # the process is the command (not a caller's Python): it ends with the run
        ignore_signals_after_a_stop()
    try:
        return args.func(args)
    except InvalidInput as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    except GauntletError as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    except Stopped as stopped:  # what was done is written; the table (run, replay) printed
        return stopped.result.exit_code if stopped.result is not None else 128 + stopped.signum
    except BrokenPipeError:
        return 0
    except OSError as e:  # a file or folder the command could not use: said as that, not as a traceback
        where = f"{e.filename}: " if e.filename else ""
        print(f"gauntlet: {where}{e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
