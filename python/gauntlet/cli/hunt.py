"""`gauntlet hunt`: the CI main job (hunt/hunt.py) from the shell."""

from __future__ import annotations

import argparse

from ..hunts import ORACLES, hunt
from ..server import parse_target_flag
from .report import add_report_flags, write_reports


def add_hunt(sub) -> None:
    """The `hunt` command."""
    h = sub.add_parser("hunt", help="the CI main job: hunt within a time budget, exit 1 on a new root cause",
                       description="Runs rounds within --duration: the stock hunting grammars and yours (every "
                                   "other round), random schemas, and the rows of the covering array of --options; "
                                   "every single-server oracle; root causes of all rounds as they form (known bugs "
                                   "marked); at the end, the new causes' minimal queries checked by "
                                   "mariadb-test-run and the other new causes reduced, while the budget lasts. "
                                   "Exit 0: nothing new; 1: a new root cause; 2: bad input or setup.")
    h.add_argument("--duration", required=True, help="the budget: seconds, or 90s, 30m, 2h, 1h30m")
    h.add_argument("--out", required=True, help="the hunt's folder (hunt.json, root_causes.json, rounds/)")
    h.add_argument("--grammar", action="append", default=[], metavar="G.yy",
                   help="a grammar for the feature under test (repeatable): every other round runs one")
    h.add_argument("--no-stock", action="store_true", help="only the --grammar files, no stock hunting grammars")
    h.add_argument("--corpus", default="default", metavar="FILE",
                   help="the corpus of the stock rotation's corpus round (gauntlet corpus build): a file, 'default' "
                        "(the installed suite's, built once) or 'none'")
    h.add_argument("--server", default="default",
                   help="'default' (Debian's mariadbd), a server binary or a folder holding an unpacked server")
    h.add_argument("--target", action="append", type=parse_target_flag, metavar="NAME[=SERVER][,OPTION=VALUE...]",
                   help="instead of --server, two or more servers run in lockstep and compared by the differential "
                        "oracle (repeatable: --target new=default --target old=DIR)")
    h.add_argument("--options", metavar="SPACE", help="an option space (JSON/TOML, docs/guide/campaigns.md): the "
                                                     "rounds take the rows of its covering array in turn")
    h.add_argument("--known-bugs", default="default", metavar="FILE",
                   help="a known-bugs catalogue (default: the stock one for the server's release series; "
                        "'none' for none): causes it matches do not fail the hunt")
    h.add_argument("--seed", type=int, default=1, help="round N runs seed + N - 1 (its schema too; default 1)")
    h.add_argument("--threads", type=int, help="sessions (default: each grammar's header, else 2)")
    h.add_argument("--round-seconds", type=float, help="a round's length (default: an eighth of the hunting time, "
                                                       "15 s to 5 min)")
    h.add_argument("--rounds", type=int, help="at most this many rounds (of this --shard); the budget still ends "
                                              "the hunt (default: as many as fit)")
    h.add_argument("--reduce-share", type=float, default=0.25,
                   help="at most this share of the budget is kept for the new causes' reproducers (default 0.25)")
    h.add_argument("--oracle", default=ORACLES, help=f"the checks (default {ORACLES})")
    h.add_argument("--dask", metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786) whose workers run the rounds, one each at a time, each "
                        "with its own servers; their round folders come back into --out")
    h.add_argument("--shard", metavar="I/N", help="the Ith of N CI jobs that hunt together: rounds I, I + N, ... of "
                                                 "one hunt (disjoint seeds and option rows); `gauntlet triage` over "
                                                 "the jobs' folders gives one list")
    add_report_flags(h)
    h.set_defaults(func=_hunt)


def _hunt(args: argparse.Namespace) -> int:
    known = None if args.known_bugs == "none" else args.known_bugs
    result = hunt(args.out, duration=args.duration, grammars=args.grammar, server=args.server, options=args.options,
                  known_bugs=known, seed=args.seed, threads=args.threads, round_seconds=args.round_seconds,
                  rounds=args.rounds, reduce_share=args.reduce_share, oracles=args.oracle,
                  with_stock=not args.no_stock, targets=args.target, shard=args.shard, dask=args.dask, progress=True,
                  corpus=None if args.corpus == "none" else args.corpus)
    print(result.text())
    print(f"results: {result.folder} (hunt.json, root_causes.json, rounds/)")
    write_reports(args, args.out)  # the folder as the user named it
    return result.exit_code
