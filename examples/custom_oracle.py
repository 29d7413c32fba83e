"""A custom oracle in Python, next to the built-in ones.

The check: a COUNT(*) over a table with a WHERE must not exceed the table's
row count, which it reads with a follow-up statement in the same session.
It applies to any grammar; here the stock optimizer grammar, with TLP and
NoREC alongside.

    PYTHONPATH=python /usr/bin/python3 examples/custom_oracle.py [OUT_DIR]
"""

import pathlib
import re
import sys

import gauntlet

ROOT = pathlib.Path(__file__).resolve().parents[1]
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "custom-oracle-run")

COUNT = re.compile(r"^SELECT COUNT\(\*\) FROM (\w+) WHERE ", re.IGNORECASE)


class CountWithinTable(gauntlet.Oracle):
    """SELECT COUNT(*) FROM t WHERE ... is at most SELECT COUNT(*) FROM t."""

    name = "count-within-table"

    def wants_rows(self, sql):
        return bool(COUNT.match(sql))

    def check(self, obs):
        m = COUNT.match(obs.sql)
        if not m or obs.outcomes[0]["kind"] != "ok":
            return gauntlet.Oracle.NOT_APPLICABLE
        outcome, _, rows = obs.execute(f"SELECT COUNT(*) FROM {m.group(1)}")
        if outcome["kind"] != "ok":
            raise gauntlet.Skip("the table count failed")
        filtered, total = int(obs.rows[0][0][0]), int(rows[0][0])
        if filtered > total:
            return {"detail": f"{filtered} rows match, the table has {total}",
                    "evidence": {"filtered": filtered, "total": total}}
        return None  # passed


grammar = gauntlet.Grammar.from_string(
    "query: SELECT COUNT(*) FROM _table WHERE col_int_key > _digit | SELECT pk FROM _table WHERE pk < _digit ;")
result = gauntlet.run(grammar, threads=2, duration=5, out=out, overwrite=True,
                      oracles=[CountWithinTable(), "tlp", "norec"])
print(result.table())
print({name: (o["passed"], o["fired"]) for name, o in result.summary()["oracles"].items()})
sys.exit(result.exit_code)
