"""Runs that hide a few planted statements in a long multi-session history of noise (selects,
writes, DDL and SET), for the reducer's tests and benchmark; and short runs of known wrong results
of Debian's MariaDB 10.11.19 in padded shapes, for minimisation and root causes."""

import collections
import json
import time

import gauntlet
from gauntlet import Grammar
from gauntlet.server import Target
from gauntlet.reduction.testcase import verify_with_mtr

NOISE = """
query: planted ;
noise: ==FACTOR:3== select | ==FACTOR:2== dml | ddl ;
select: SELECT _digit | SELECT COUNT(*) FROM _table | SELECT _field FROM _table WHERE _field < _digit ORDER BY 1 LIMIT 3 ;
dml: INSERT INTO noise VALUES (_digit) | UPDATE noise SET c = c + 1 WHERE c < _digit | DELETE FROM noise WHERE c = _digit ;
ddl: CREATE TABLE IF NOT EXISTS noise (c INT) | ALTER TABLE noise ADD COLUMN IF NOT EXISTS d INT |
     ALTER TABLE noise DROP COLUMN IF EXISTS d | CREATE OR REPLACE TABLE scratch (a INT) | DROP TABLE IF EXISTS scratch |
     SET SESSION sort_buffer_size = 262144 ;
"""

# A crash of Debian's MariaDB 10.11 (README), its table created and filled by other sessions.
CRASH = {(2, 300): "CREATE TABLE tj (c CHAR(5))", (3, 600): "INSERT INTO tj VALUES ('zz')",
         (1, 1450): "SELECT COUNT(*) FROM tj WHERE JSON_EXTRACT('{}', '$') <=> UNHEX(c)"}
# Only the query TLP derives from the last one crashes the same release (README, item 16): its
# partition HAVING NOT (...).
FOLLOW_UP_CRASH = {(2, 300): "CREATE TABLE tr (c DATETIME) ENGINE=MEMORY", (3, 600): "INSERT INTO tr VALUES (NULL)",
                   (1, 1450): "SELECT 1 FROM tr GROUP BY c WITH ROLLUP "
                              "HAVING (TIME'-838:59:59' >= c) AND (c != '0000-00-00 00:00:00' AND 'a' = NULL)"}
# A wrong result of the same release (README): a row in both WHERE p and WHERE NOT p (TLP).
WRONG = {(2, 300): "CREATE TABLE t (e ENUM('a','b'))", (3, 600): "INSERT INTO t VALUES ('a'), ('b')",
         (1, 1450): "SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)"}
# Differs between servers only when both div_precision_increment=8 and lc_time_names=es_ES.
TWO_OPTIONS = {(1, 700): "SELECT (1/3 = 0.33333333) AND (DAYNAME('2024-01-07') = 'domingo') AS both_set"}

# A hang of two sessions: one holds a table lock, the other waits for it (and the run stops).
HANG = {(2, 60): "CREATE TABLE th (c INT)", (3, 120): "LOCK TABLES th WRITE", (1, 290): "SELECT * FROM th"}
# A join that is much slower with join_cache_level=0 (no join buffer: one scan of tj2 per row of tj1).
SLOW_JOIN = {(1, 50): "CREATE TABLE tj1 (a INT)", (1, 51): "INSERT INTO tj1 SELECT seq FROM seq_1_to_1000",
             (1, 52): "CREATE TABLE tj2 (b INT)", (1, 53): "INSERT INTO tj2 SELECT seq FROM seq_1_to_1000",
             (1, 250): "SELECT COUNT(*) FROM tj1, tj2 WHERE tj1.a = tj2.b"}


# Item 11 of docs/findings.md: `1 >= ALL (subquery over a NULL)` is NULL, yet IS NULL of it is 0, so
# TLP's partitions lose every row. Hidden in a query with a join, more select items, a conjunct that is
# true for every row and an ORDER BY; and in another shape. Item 4 beside it: an ENUM in NOT IN.
SETUP = ["CREATE TABLE n (b INT)", "INSERT INTO n VALUES (NULL)",
         "CREATE TABLE t2 (a INT, c VARCHAR(10))", "INSERT INTO t2 VALUES (1, 'x'), (2, 'y'), (3, NULL)",
         "CREATE TABLE t (e ENUM('a','b'))", "INSERT INTO t VALUES ('a'), ('b')"]
PADDED = ("SELECT t2.a, t2.c, n.b FROM t2 JOIN n WHERE COALESCE(t2.a, 0) < 100 "
          "AND (1 >= ALL (SELECT b FROM n)) ORDER BY 1")
OTHER_SHAPE = "SELECT UPPER(t2.c) AS u, t2.a FROM t2 WHERE 2 > ALL (SELECT b FROM n) ORDER BY 2"
ENUM_NOT_IN = "SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)"
HEALTHY = "SELECT t2.a, t2.c FROM t2 JOIN n WHERE COALESCE(t2.a, 0) < 100 AND t2.c IS NOT NULL ORDER BY 1"


def steps_grammar(*queries) -> Grammar:
    """A grammar whose query is SETUP and then ``queries``, one statement each."""
    steps = " ; ".join(f"step{i}" for i in range(len(SETUP) + len(queries)))
    rules = "\n".join(f"step{i}: {sql} ;" for i, sql in enumerate(SETUP + list(queries)))
    return Grammar.from_string(f"query: {steps} ;\n{rules}\n")


def planted_run(out, plant: dict, *, threads: int = 4, queries: int = 1500, quiet: bool = False, **run_args):
    """A run whose session T sends plant[(T, N)] as its Nth query and noise otherwise. ``quiet``:
    the last planted statement waits until the other sessions have sent all theirs (oracles confirm
    a wrong result only while no other session writes)."""
    calls = collections.Counter()
    last = max(plant, key=lambda key: key[1])

    def planted(ctx):
        calls[ctx.thread_id] += 1
        key = (ctx.thread_id, calls[ctx.thread_id])
        if quiet and key == last:
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline and any(calls[t] < queries for t in range(1, threads + 1)
                                                      if t != ctx.thread_id):
                time.sleep(0.01)
        return plant.get(key) or ctx.expand("noise")
    grammar = Grammar.from_string(NOISE, rules={"planted": planted})
    return gauntlet.run(grammar, threads=threads, queries=queries, out=out, statement_log=True, **run_args)


def verified_without_the_bug(tmp_path, result, reduction, cause: str, instead: str) -> dict:
    """mariadb-test-run's verdict on the reduction's test case with its cause replaced."""
    name = reduction.record["name"]
    fixed = tmp_path / "fixed"
    fixed.mkdir()
    for suffix in (".test", ".opt", ".result"):
        text = (reduction.folder / f"{name}{suffix}").read_text()
        (fixed / f"{name}{suffix}").write_text(text.replace(cause, instead))
    finding = json.loads((result.out / "findings" / reduction.record["finding"] / "finding.json").read_text())
    return verify_with_mtr(fixed, name, finding, Target("default"))
