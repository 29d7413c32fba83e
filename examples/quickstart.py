"""Quick start: generate, run against a managed MariaDB, look at the result.

    PYTHONPATH=python /usr/bin/python3 examples/quickstart.py [OUT_DIR]
"""

import pathlib
import sys

import gauntlet

ROOT = pathlib.Path(__file__).resolve().parents[1]
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "quickstart-run")

# 1. A grammar, and a few statements from it without any server.
grammar = gauntlet.Grammar.from_file(ROOT / "grammars" / "optimizer.yy")
print(grammar)
for statement in grammar.generate(3, seed=42):
    print("  ", statement[:120])

# 2. A short run: Gauntlet starts MariaDB, loads RQG's tables and runs 2 sessions.
result = gauntlet.run(grammar, threads=2, duration=5, out=out, overwrite=True)
print(result)
print(result.table())

# 3. The timeline, one row per second.
for second in result.timeline():
    print(f"  t={second['t']:.0f}s {second['statements']} statements, p95 {second['p95_ms']:.2f} ms")
sys.exit(result.exit_code)
