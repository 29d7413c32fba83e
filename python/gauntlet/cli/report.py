"""`gauntlet report DIR`, and the same flags on `hunt` and `run`: reports/ from the shell."""

from __future__ import annotations

import argparse
import sys

from ..reports import markdown, report


def add_report_flags(parser) -> None:
    """--junit, --markdown and --html on a command that leaves a folder."""
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (a test case per grammar and "
                                                        "oracle, known causes skipped)")
    parser.add_argument("--markdown", metavar="FILE", help="write a Markdown summary (for a pull-request comment)")
    parser.add_argument("--html", metavar="FILE", help="write one self-contained HTML report")


def write_reports(args: argparse.Namespace, folder) -> None:
    """The reports the flags ask for, of ``folder``; their paths said on stdout."""
    if args.junit or args.markdown or args.html:
        report(folder, junit=args.junit, markdown_file=args.markdown, html_file=args.html)
        for path in (args.junit, args.markdown, args.html):
            if path:
                print(f"report: {path}")


def add_report(sub) -> None:
    """The `report` command."""
    r = sub.add_parser("report", help="JUnit, Markdown or HTML reports of a hunt, run, campaign or bench folder",
                       description="Reads a hunt, run, campaign or bench folder (while it runs too: what it found so "
                                   "far) and writes the reports asked for; without any, prints the Markdown.")
    r.add_argument("folder", help="the folder (hunt.json, summary.json, findings.jsonl, results.jsonl or verdict.json)")
    add_report_flags(r)
    r.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    if not (args.junit or args.markdown or args.html):
        sys.stdout.write(markdown(report(args.folder)))
        return 0
    write_reports(args, args.folder)
    return 0
