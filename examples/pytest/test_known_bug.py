"""A test that meets a real bug of MariaDB 10.11.19: TLP finds the row that is in neither WHERE p nor
WHERE NOT p nor WHERE p IS NULL, and the failure shows the minimal reproducer. Marked xfail while the
server has the bug (strict: once it is fixed, the test says so); `pytest --runxfail` shows the failure."""

import pytest


@pytest.mark.xfail(strict=True, reason="MariaDB 10.11.19: an ENUM column in NOT IN (subquery) (docs/findings.md)")
def test_enum_not_in_a_subquery(gauntlet_run):
    gauntlet_run(["CREATE TABLE t (e ENUM('a','b'))",
                  "INSERT INTO t VALUES ('a'), ('b')",
                  "SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)"], oracles="tlp")
