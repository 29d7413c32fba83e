"""`gauntlet coverage DIR...`: which of the server's own names the runs and hunts in the folders used."""

from __future__ import annotations

import argparse
import json

from ..results.reach import reach_of


def add_coverage(sub) -> None:
    """The `coverage` command."""
    c = sub.add_parser("coverage", help="which of the server's functions, statements, types, variables and "
                                        "keywords the runs and hunts in folders used, against its own lists",
                       description="Reads the reach each run (summary.json) or hunt (hunt.json) recorded, with the "
                                   "server's lists beside it (surface.json), merges the folders (and the run "
                                   "folders below a folder), and prints each category's reached and total names.")
    c.add_argument("dirs", nargs="+", metavar="DIR", help="a run or hunt folder, or a folder holding them")
    c.add_argument("--unreached", type=int, default=0, metavar="N",
                   help="list up to N unreached names of each category (default: none)")
    c.add_argument("--json", action="store_true", help="print the merged reach (summary.json's shape) and the "
                                                       "categories' rows instead of text")
    c.set_defaults(func=_coverage)


def _coverage(args: argparse.Namespace) -> int:
    reach = reach_of(*args.dirs)
    if args.json:
        print(json.dumps({"reach": reach.to_json(), "server": reach.surface.server,
                          "categories": reach.categories()}, indent=1))
    else:
        print(reach.table(unreached=args.unreached))
    return 0
