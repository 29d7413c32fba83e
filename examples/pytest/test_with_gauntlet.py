"""Gauntlet in a pytest suite: the plugin's fixtures (gauntlet/pytest_plugin.py).

`pytest examples/pytest` where Gauntlet is installed; from a source tree,
`PYTHONPATH=python pytest -p gauntlet.pytest_plugin examples/pytest`."""

import pathlib

import pytest

from gauntlet.pytest_plugin import option_params
from gauntlet.server import Connection

HERE = pathlib.Path(__file__).parent


def test_the_server_answers(gauntlet_server):
    [(version,)] = Connection(gauntlet_server).query("SELECT VERSION()")
    assert "MariaDB" in version


@pytest.mark.gauntlet_server(mysqld={"div_precision_increment": 8})
def test_a_marker_gives_the_server_its_options(gauntlet_server):
    [(digits,)] = Connection(gauntlet_server).query("SELECT @@div_precision_increment")
    assert digits == 8


# One test per row of the covering array: every pair of values meets in some row.
@pytest.mark.parametrize("gauntlet_server", option_params({"join_cache_level": [0, 2, 8],
                                                           "optimizer_use_condition_selectivity": [1, 4]}),
                         indirect=True)
def test_joins_agree_with_their_partitions_under_every_option_pair(gauntlet_run):
    result = gauntlet_run(HERE / "joins.yy", queries=200, threads=1, data="none")
    assert result.summary()["oracles"]["tlp"]["checked"] > 0


def test_statements_run_in_order_in_one_session(gauntlet_run):
    result = gauntlet_run(["CREATE TABLE t (a INT, s VARCHAR(10))",
                           "INSERT INTO t VALUES (1, 'a|b'), (2, 'c;d'), (NULL, NULL)",
                           "SELECT a FROM t WHERE a > 1 OR s LIKE 'a%'"])
    assert result.summary()["statements"] == 3
