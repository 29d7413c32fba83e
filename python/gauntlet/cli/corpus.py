"""`gauntlet corpus build`: the SQL of the server's own test suite as a corpus (corpus/corpus.py)."""

from __future__ import annotations

import argparse

from ..corpus import SUITE, build


def add_corpus(sub) -> None:
    """The `corpus` command and its subcommands."""
    c = sub.add_parser("corpus", help="the server's own test suite as statements a run sends at random",
                       description="A corpus is the SQL statements of a mysql-test suite (Debian's mariadb-test "
                                   "installs MariaDB's), one of each shape, without those a hunt may not run on its "
                                   "own server; gauntlet run --corpus FILE sends them in many sessions at random.")
    csub = c.add_subparsers(dest="corpus_command", required=True)
    b = csub.add_parser("build", help="read a suite's .test and .inc files into a corpus file")
    b.add_argument("--suite", default=str(SUITE), help=f"the mysql-test folder (default {SUITE})")
    b.add_argument("--out", help="the corpus file (default: the cache, by the suite's version, reused once built)")
    b.set_defaults(func=_build)


def _build(args: argparse.Namespace) -> int:
    corpus = build(args.suite, args.out)
    left = ", ".join(f"{n} {why}" for why, n in sorted(corpus.left_out.items(), key=lambda x: -x[1]))
    print(f"corpus: {corpus.path}\n  {len(corpus.distinct):,} distinct statements, "
          f"{sum(len(s.statements) for s in corpus.sequences):,} in the order of {corpus.tests:,} tests "
          f"({corpus.suite}, {corpus.version})\n  left out: {left or 'none'}")
    return 0
