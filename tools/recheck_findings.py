#!/usr/bin/python3
"""Re-checks the reproducers of docs/findings.md with Debian's mariadb-test-run and says which still
reproduce.

Each docs/findings/NN-name.test fails while its bug is there and passes on a server without it. Its
header claims what it does on the server we last checked (``# claim: reproduces "TEXT"``: the test
fails and mariadb-test-run's output for it holds TEXT, e.g. a crash's frame or the test's own --die
message; ``# claim: fixed``: it passes). Exit 0 when every claim holds, 1 when one does not (a bug
fixed, or one failing otherwise), 2 when the files or mariadb-test-run are missing.

    /usr/bin/python3 tools/recheck_findings.py [--parallel 2] [--vardir DIR] [NAME ...]
"""

import argparse
import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from gauntlet.reduction.mtr import run_mtr  # noqa: E402

FOLDER = ROOT / "docs" / "findings"
_CLAIM = re.compile(r'^# claim: (reproduces "(?P<text>[^"]+)"|fixed)\s*$', re.M)


def claims(names):
    """name -> (claimed verdict, text to find); a test without a claim line is bad input."""
    out = {}
    for test in sorted(FOLDER.glob("*.test")):
        if names and test.stem not in names:
            continue
        m = _CLAIM.search(test.read_text())
        if not m:
            raise ValueError(f"{test}: no line '# claim: reproduces \"TEXT\"' or '# claim: fixed'")
        if not test.with_suffix(".result").exists():
            raise ValueError(f"{test.with_suffix('.result')}: missing (what a fixed server prints)")
        out[test.stem] = ("reproduces", m.group("text")) if m.group("text") else ("fixed", None)
    missing = set(names) - set(out)
    if missing:
        raise ValueError(f"no such reproducer in {FOLDER}: {', '.join(sorted(missing))}")
    return out


def verdict(run, name, text):
    status = run.status.get(name)
    if status == "pass":
        return "fixed"
    if status == "fail":
        return "reproduces" if text and text in run.section(name) else "fails otherwise"
    return "not run"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="reproducers to run (file names without .test); default: all")
    ap.add_argument("--parallel", type=int, default=2, help="mariadb-test-run workers (default 2)")
    ap.add_argument("--vardir", type=pathlib.Path, help="mariadb-test-run's var folder (default: a temporary one)")
    args = ap.parse_args(argv)
    try:
        wanted = claims(args.names)
    except ValueError as e:
        print(f"recheck_findings: {e}", file=sys.stderr)
        return 2
    files = [f for name in wanted for f in sorted(FOLDER.glob(f"{name}.*")) if f.suffix in (".test", ".opt", ".result")]
    with tempfile.TemporaryDirectory(prefix="gauntlet-findings-") as tmp:
        try:
            run = run_mtr(files, args.vardir or pathlib.Path(tmp) / "var", timeout=1800, parallel=args.parallel)
        except FileNotFoundError as e:
            print(f"recheck_findings: {e}", file=sys.stderr)
            return 2
    wrong = 0
    print(f"{'reproducer':<44} {'claimed':<11} now")
    for name, (claimed, text) in wanted.items():
        now = verdict(run, name, text)
        wrong += now != claimed
        print(f"{name:<44} {claimed:<11} {now}{'' if now == claimed else '   <- differs'}")
    print(f"{len(wanted) - wrong} of {len(wanted)} as claimed ({run.seconds} s in mariadb-test-run)")
    if wrong:
        print("mariadb-test-run's output:\n" + "\n".join(run.section(n) for n, (c, t) in wanted.items()
                                                        if verdict(run, n, t) != c))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
