"""A campaign over a MariaDB option model: InnoDB durability and buffers, and optimizer_switch
flags with their dependencies (examples/mariadb_options.json). A pairwise covering array picks
the rows; each row runs the stock optimizer grammar with the TLP and NoREC oracles on a fresh
server with the row's options; then the values and pairs that go with findings.

    PYTHONPATH=python /usr/bin/python3 examples/campaign.py [OUT_DIR] [SECONDS_PER_ROW]

Run it again to resume an interrupted campaign (rows done are skipped).
"""

import pathlib
import sys

import gauntlet

ROOT = pathlib.Path(__file__).resolve().parents[1]
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "campaign-run")
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10

space = gauntlet.OptionSpace.from_json(ROOT / "examples" / "mariadb_options.json")
print(space, f"- {space.count():,} valid combinations")
plan = space.covering()
coverage = plan.coverage()
print(plan, f"covering {coverage['covered']:,} of {coverage['feasible']:,} feasible pairs in {plan.seconds:.2f} s")

campaign = gauntlet.Campaign(plan, out, grammar=ROOT / "grammars" / "optimizer.yy", threads=2,
                             duration=seconds, oracles=["crash", "tlp", "norec"], parallel=2)
result = campaign.run(progress=True)
print(result)
print(result.table())
for row in result.rows:
    if row["status"] == "invalid":
        print(f"row {row['row'] + 1}: the server refused {row['mysqld']}:\n  {row['error_lines'][:300]}")
sys.exit(1 if result.counts()["failed"] else 0)
