"""Runs the stock hunting grammars one after another and tabulates what they found.

    /usr/bin/python3 tools/hunt.py [--seconds 225] [--out hunt] [--seed N] [--threads N]
                                   [--known-bugs FILE] [GRAMMAR ...]

Each grammar of grammars/hunt/ runs for --seconds on a random schema with
--keep-going, a statement log, a 30 s hang timeout and every single-server
oracle (errorlog, tlp, norec, transforms); its header's --threads (unless
--threads is given) and --statement-timeout apply. --seed picks the first
round's schema (rounds after a crash take the next seeds). Results go to OUT/<grammar>; the table (markdown,
as in the README) is printed at the end and written to OUT/table.md. A GRAMMAR is a name in
grammars/hunt/ or a .yy file's path.

With --known-bugs (a catalogue such as known-bugs/mariadb-10.11.toml), findings of known causes are
marked known, the root causes of the whole hunt are printed with the new ones named, and the exit
status is 1 when a cause is new (0 when everything found is known).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import gauntlet  # noqa: E402

GRAMMARS = ("optimizer", "dml", "ddl", "transactions", "json", "window", "temporal", "partitions")
SERVER_KINDS = ("crash", "hang", "corruption", "shutdown", "unreachable", "error-log")


def header_setting(text: str, flag: str, default):
    m = re.search(rf"--{flag} (\d+)", text)
    return type(default)(m.group(1)) if m else default


def row(name: str, s: dict) -> str:
    n = max(s["statements"], 1)
    o = s["outcomes"]
    syntax = 100.0 * o.get("syntax", 0) / n
    other = 100.0 * (s["statements"] - o.get("ok", 0) - o.get("syntax", 0)) / n
    checks = sum(v["checked"] for k, v in s["oracles"].items() if k != "errorlog")
    ended = collections.Counter(r["stop_reason"] for r in s.get("rounds", []))
    relation = collections.Counter(f["oracle"].split(":")[0] for f in s["findings"] if f["kind"] not in SERVER_KINDS)
    server = [f"{f['kind']} x{f['occurrences']}" for f in s["findings"] if f["kind"] in SERVER_KINDS]
    return (f"| `{name}.yy` | {len(s.get('rounds', []))} ({', '.join(f'{k} {v}' for k, v in ended.items())}) "
            f"| {s['statements']:,} | {syntax:.2f}% | {other:.1f}% | {checks:,} "
            f"| {', '.join(f'{k} {v}' for k, v in relation.most_common()) or '-'} | {'; '.join(server) or '-'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grammars", nargs="*", default=list(GRAMMARS))
    parser.add_argument("--seconds", type=float, default=225)
    parser.add_argument("--out", default="hunt")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, help="sessions, instead of the grammar header's")
    parser.add_argument("--known-bugs", metavar="FILE", help="a known-bugs catalogue: exit 1 only for new causes")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    rows = ["| grammar | rounds (ended by) | statements | syntax errors | other errors | oracle checks "
            "| relation findings | server findings |", "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for name in args.grammars:
        path = pathlib.Path(name) if name.endswith(".yy") else REPO / "grammars" / "hunt" / f"{name}.yy"
        name = path.stem
        text = path.read_text()
        result = gauntlet.run(str(path), data="random", seed=args.seed,
                              threads=args.threads or header_setting(text, "threads", 2),
                              statement_timeout=header_setting(text, "statement-timeout", 0), hang_timeout=30,
                              duration=args.seconds, out=out / name, overwrite=True, keep_going=True,
                              statement_log=True, oracles="errorlog,tlp,norec,transforms",
                              known_bugs=args.known_bugs)
        rows.append(row(name, result.summary()))
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    (out / "table.md").write_text(table)
    print(table)
    if not args.known_bugs:
        return 0
    causes = gauntlet.triage(out, known_bugs=args.known_bugs)
    new = causes.new_causes
    print(f"{len(causes.root_causes)} root causes, {len(causes.root_causes) - len(new)} of them known bugs; "
          f"{len(new)} new" + "".join(f"\n  NEW {c['kind']} x{c['count']}: {c['key']}  ({c['findings'][0]})"
                                      for c in new))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
