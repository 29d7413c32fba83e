"""The `gauntlet` command.

Exit codes: 0 success, 2 bad usage or input (the message names the file,
line and column, or the option).
"""

from __future__ import annotations

import argparse
import sys

from . import GauntletError, InvalidInput
from .grammar import Grammar, Schema, split_statements


def _gensql(args: argparse.Namespace) -> int:
    # RQG's gensql.pl: statements from a grammar, without a server.
    grammar = Grammar.from_file(args.grammar, *args.redefine)
    if args.warnings:
        for w in grammar.warnings:
            print(f"warning: {w}", file=sys.stderr)
    schema = Schema.from_json(args.schema) if args.schema else Schema.rqg_default()
    gen = grammar.generator(args.seed, schema, thread_id=args.thread, max_depth=args.max_depth)
    out = sys.stdout
    remaining = args.queries
    while remaining > 0:
        batch = gen.generate(min(remaining, 10000))
        remaining -= len(batch)
        lines = []
        for query in batch:
            for statement in split_statements(query):
                lines.append(statement.replace("\n", " ") + ";\n" if args.semicolons
                             else statement.replace("\n", " ") + "\n")
        out.write("".join(lines))
    if args.coverage:
        cov = gen.coverage()
        print(f"# {cov!r}", file=sys.stderr)
        for name in cov.unreached_rules:
            print(f"# never reached: {name}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gauntlet", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("gensql", help="print statements generated from a grammar (no server)")
    g.add_argument("--grammar", required=True, help="the .yy grammar")
    g.add_argument("--redefine", action="append", default=[],
                   help="a grammar whose rules override the main one (repeatable)")
    g.add_argument("--queries", type=int, default=100, help="how many queries (default 100)")
    g.add_argument("--seed", type=int, default=1, help="the seed (default 1)")
    g.add_argument("--schema", help="a JSON schema file (default: RQG's tables A..DD)")
    g.add_argument("--thread", type=int, default=1, help="worker number for threadN rules")
    g.add_argument("--max-depth", type=int, default=64, help="rule nesting limit (default 64)")
    g.add_argument("--semicolons", action="store_true", help="end each statement with ';'")
    g.add_argument("--warnings", action="store_true", help="print grammar warnings to stderr")
    g.add_argument("--coverage", action="store_true", help="print rule coverage to stderr")
    g.set_defaults(func=_gensql)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "queries", 0) < 0:
        print("gauntlet: --queries must be >= 0", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except InvalidInput as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    except GauntletError as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
