"""`gauntlet known-bugs check|list`: the known-bugs catalogue (results/known_bugs.py) from the shell."""

from __future__ import annotations

import argparse
import json

from ..results import known_bugs


def add_known_bugs(sub) -> None:
    """The `known-bugs` command and its subcommands."""
    k = sub.add_parser("known-bugs", help="re-check or list a catalogue of known bugs",
                       description="A catalogue of known bugs (TOML, docs/reference/known-bugs.md): each entry "
                                   "with the root causes it matches and a mysql-test-run reproducer.")
    ksub = k.add_subparsers(dest="known_bugs_command", required=True)
    check = ksub.add_parser("check", help="run every reproducer and say which still reproduce",
                            description="Runs each entry's reproducer with Debian's mariadb-test-run and prints, "
                                        "per entry, reproduces / fixed (it passed) / error (it failed otherwise). "
                                        "Exit 0 when every entry behaves as recorded, 1 when one does not.")
    check.add_argument("file", nargs="?", help=f"the catalogue (default {known_bugs.DEFAULT_CATALOGUE.name})")
    check.add_argument("--server", help="'default' (Debian's mariadbd) or the path of a mariadbd of the same "
                                        "series, e.g. one unpacked with dpkg -x")
    check.add_argument("--only", action="append", metavar="NAME", help="check this entry only (repeatable)")
    check.add_argument("--json", action="store_true",
                       help="print a list of entries (name, kind, status, as_recorded) instead of text")
    check.add_argument("--parallel", type=int, default=2, help="mariadb-test-run workers (default 2)")
    check.set_defaults(func=_check)
    listing = ksub.add_parser("list", help="the catalogue's entries with what they match")
    listing.add_argument("file", nargs="?", help="the catalogue (default: MariaDB 10.11's)")
    listing.set_defaults(func=_list)


def _check(args: argparse.Namespace) -> int:
    catalogue = known_bugs.load_catalogue(args.file)
    server = None if args.server in (None, "default") else args.server
    results = known_bugs.check(catalogue, server=server, names=args.only or (), parallel=args.parallel)
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        print("\n".join(known_bugs.summary_lines(catalogue, results)))
    return 0 if all(r.as_recorded for r in results) else 1


def _list(args: argparse.Namespace) -> int:
    catalogue = known_bugs.load_catalogue(args.file)
    print(repr(catalogue))
    for bug in catalogue.bugs:
        print(f"\n{bug.name} ({bug.kind}{', fixed in ' + bug.fixed if bug.fixed else ''}): {bug.note}")
        print(f"  matches: {', '.join(bug.match) or 'no root cause (checked by its reproducer only)'}")
        print(f"  reproducer: {bug.reproducer}")
    return 0
