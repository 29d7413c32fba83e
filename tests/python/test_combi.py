"""Option spaces: covering arrays that keep every constraint and cover every feasible tuple (by the
independent checker), exhaustive and random plans, invalid values, RQG .cc files, bad input."""

import json

import gauntlet
import pytest
from gauntlet.combi import OptionSpace, row_settings

FLAGS = ["on", "off"]


def mariadb_space(**extra) -> OptionSpace:
    """InnoDB durability and buffers, and optimizer_switch flags with their dependencies."""
    return OptionSpace.from_dict({
        "parameters": {
            "innodb_flush_log_at_trx_commit": [0, 1, 2], "innodb_doublewrite": ["ON", "OFF"],
            "innodb_buffer_pool_size": ["128M", "512M"], "innodb_log_file_size": ["48M", "256M"],
            "innodb_adaptive_hash_index": ["ON", "OFF"], "join_cache_level": [2, 4, 8],
            "optimizer_switch.semijoin": FLAGS, "optimizer_switch.firstmatch": FLAGS,
            "optimizer_switch.loosescan": FLAGS, "optimizer_switch.materialization": FLAGS,
            "optimizer_switch.mrr": FLAGS, "optimizer_switch.mrr_sort_keys": FLAGS,
            "optimizer_switch.join_cache_bka": FLAGS, "optimizer_switch.index_merge": FLAGS,
            "optimizer_switch.index_merge_union": FLAGS},
        "conditional": {"optimizer_switch.firstmatch": {"optimizer_switch.semijoin": "on"},
                        "optimizer_switch.loosescan": {"optimizer_switch.semijoin": "on"},
                        "optimizer_switch.mrr_sort_keys": {"optimizer_switch.mrr": "on"},
                        "optimizer_switch.index_merge_union": {"optimizer_switch.index_merge": "on"}},
        "constraints": [{"if": {"optimizer_switch.join_cache_bka": "on"}, "then": {"join_cache_level": 8}},
                        {"forbid": {"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "256M"}}],
        **extra})


@pytest.mark.parametrize("strength", [2, 3])
def test_a_covering_array_keeps_every_constraint_and_covers_every_feasible_tuple(strength):
    space = mariadb_space()
    plan = space.covering(strength)
    cov = plan.coverage()
    assert cov["covered"] == cov["feasible"] > 0 and cov["invalid_rows"] == 0, cov
    assert cov["tuples"] > cov["feasible"]  # the constraints made some tuples infeasible
    for row in plan:
        assert space.valid(row)
        if row["optimizer_switch.semijoin"] == "off":
            assert row["optimizer_switch.firstmatch"] is None and row["optimizer_switch.loosescan"] is None
        else:
            assert row["optimizer_switch.firstmatch"] in FLAGS
        if row["optimizer_switch.join_cache_bka"] == "on":
            assert row["join_cache_level"] == 8
    # Far fewer rows than the space, and than random rows covering the same.
    assert len(plan) < (20 if strength == 2 else 80) < space.count()
    random = space.random(len(plan), seed=5)
    assert space.coverage(random.rows, strength)["covered"] < cov["covered"]


def test_plans_are_deterministic_by_seed():
    space = mariadb_space()
    assert space.covering(seed=7).rows == space.covering(seed=7).rows
    assert space.covering(seed=7, effort=0).rows != space.covering(seed=8, effort=0).rows
    assert space.random(10, seed=3).rows == space.random(10, seed=3).rows


def test_exhaustive_count_and_rows_agree_and_skip_invalid_combinations():
    space = OptionSpace({"a": [1, 2, 3], "b": ["x", "y"], "c": [True, False]},
                        constraints=[{"forbid": {"a": [1, 2], "b": "y"}}])
    rows = list(space.exhaustive())
    assert space.count() == len(rows) == 3 * 2 * 2 - 2 * 2
    assert {"a": 1, "b": "y", "c": True} not in rows and {"a": 3, "b": "y", "c": False} in rows


def test_seeds_mixed_strength_and_negative_rows():
    space = mariadb_space(seeds=[{"innodb_flush_log_at_trx_commit": 2, "optimizer_switch.semijoin": "off"}],
                          mixed=[{"parameters": ["innodb_flush_log_at_trx_commit", "innodb_doublewrite",
                                                 "join_cache_level", "innodb_adaptive_hash_index"], "strength": 3}],
                          invalid={"innodb_log_file_size": ["1K"], "join_cache_level": [9]})
    plan = space.covering()
    assert plan.rows[0]["innodb_flush_log_at_trx_commit"] == 2 and plan.rows[0]["optimizer_switch.semijoin"] == "off"
    assert plan.negative == 2
    negative = plan.rows[-2:]
    assert [r["innodb_log_file_size"] for r in negative] == ["1K", "48M"]
    assert [r["join_cache_level"] for r in negative][1] == 9
    triples = {(r["innodb_flush_log_at_trx_commit"], r["innodb_doublewrite"], r["join_cache_level"],
                r["innodb_adaptive_hash_index"]) for r in plan.rows[:-2]}
    assert len({t[:3] for t in triples}) == 3 * 2 * 3  # every triple of the stronger group
    cov = plan.coverage()
    assert cov["covered"] == cov["feasible"]
    assert "+ 2 negative" in repr(plan) and "OptionSpace 15 parameters" in repr(space)


def test_row_settings_join_compound_flags_and_leave_out_unset_ones():
    s = row_settings({"innodb_doublewrite": "OFF", "optimizer_switch.mrr": "on",
                      "optimizer_switch.mrr_sort_keys": None, "optimizer_switch.semijoin": "off",
                      "session:join_cache_level": 4, "session:sql_mode": "", "grammar": "g.yy", "threads": 4})
    assert s["mysqld"] == ["innodb_doublewrite=OFF", "optimizer_switch=mrr=on,semijoin=off"]
    assert s["session"] == ["SET SESSION join_cache_level = 4", "SET SESSION sql_mode = ''"]
    assert s["run"] == {"grammar": "g.yy", "threads": 4}


def test_rqg_combination_files_load_as_groups(tmp_path):
    cc = tmp_path / "opt.cc"
    cc.write_text("""# an RQG combinations file
$combinations = [
    ['--threads=4 --duration=60'],
    [
        '--grammar=conf/mariadb/optimizer.yy',   # the main one
        "--grammar=conf/optimizer/outer_join.yy --gendata=conf/optimizer/outer_join.zz",
    ],
    ['--engine=MyISAM', '--engine=InnoDB', ''],
    ['--mysqld=--optimizer_switch=mrr=on', '
        --mysqld=--join_cache_level=8
        --mysqld=--optimizer_switch=mrr=on']
];
""")
    space = OptionSpace.from_rqg(cc)
    assert space.names == ["group1", "group2", "group3", "group4"]
    assert space.parameters["group3"] == ["--engine=MyISAM", "--engine=InnoDB", ""]
    assert space.parameters["group4"][1] == "--mysqld=--join_cache_level=8 --mysqld=--optimizer_switch=mrr=on"
    plan = space.covering()
    assert len(plan) == 6 and plan.coverage()["covered"] == plan.coverage()["feasible"]
    cc.write_text("$combinations = [\n  ['--a'],\n  [ map { \"--x=$_\" } (1..3) ]\n];\n")
    with pytest.raises(gauntlet.InvalidInput, match=r"opt.cc:3:5: Perl that is not a list of option strings"):
        OptionSpace.from_rqg(cc)


def test_bad_option_spaces_are_errors_that_name_the_part(tmp_path):
    bad = tmp_path / "space.json"
    bad.write_text('{"parameters": {"a": [1, 2],\n "b": [1 2]}}')
    with pytest.raises(gauntlet.InvalidInput, match=r"space.json:2:10: Expecting"):
        OptionSpace.from_json(bad)
    cases = [
        ({"parameters": {}}, "at least one parameter"),
        ({"parameters": {"a": []}}, "a has no values"),
        ({"parameters": {"a b": [1]}}, "is no option name"),
        ({"parameters": {"a": [1, 1]}}, "lists a value twice"),
        ({"parameters": {"a": [1, 2]}, "constraints": [{"forbid": {"b": 1}}]}, r"constraints\[0\]: no parameter 'b'"),
        ({"parameters": {"a": [1, 2]}, "constraints": [{"forbid": {"a": 3}}]}, "a has no value 3"),
        ({"parameters": {"a": [1, 2]}, "constraints": [{"when": {"a": 1}}]}, r"constraints\[0\]: \{\"forbid\""),
        ({"parameters": {"a": [1, 2]}, "strength": 3}, "strength: 1 to 1"),
        ({"parameters": {"a": [1, 2]}, "invalid": {"a": [2]}}, "2 is also a valid value"),
        ({"parameters": {"a": [1, 2]}, "seeds": [{"a": 5}]}, r"seeds\[0\]: a has no value 5"),
        ({"parameters": {"a": [1, 2]}, "colour": 1}, "unknown key 'colour'"),
    ]
    for d, message in cases:
        bad.write_text(json.dumps(d))
        with pytest.raises(gauntlet.InvalidInput, match=message):
            OptionSpace.from_json(bad)
    with pytest.raises(gauntlet.InvalidInput, match="nowhere.json: cannot read"):
        OptionSpace.from_json(tmp_path / "nowhere.json")


def test_toml_spaces_and_the_reader_by_suffix(tmp_path):
    toml = tmp_path / "space.toml"
    toml.write_text('strength = 2\n[parameters]\njoin_cache_level = [2, 4, 8]\n"optimizer_switch.mrr" = ["on", "off"]\n'
                    'tmp_table_size = ["8M", "16M"]\n\n[[constraints]]\nforbid = { join_cache_level = 8, '
                    '"optimizer_switch.mrr" = "off" }\n')
    space = OptionSpace.from_file(toml)
    assert space.parameters["join_cache_level"] == [2, 4, 8] and space.forbidden == [
        {"join_cache_level": [8], "optimizer_switch.mrr": ["off"]}]
    assert all(space.valid(r) for r in space.covering())
    toml.write_text("[parameters\n")
    with pytest.raises(gauntlet.InvalidInput, match=r"space.toml: .*line 1"):
        OptionSpace.from_file(toml)
    with pytest.raises(gauntlet.InvalidInput, match=r"a .json, .toml or RQG .cc file"):
        OptionSpace.from_file(tmp_path / "space.yaml")


def test_plans_too_large_to_make_are_refused_at_once_with_their_size(tmp_path):
    """60 parameters of 10 values: an exhaustive plan (1e60 rows) or strength 6 (5e13 combinations)
    printed nothing and grew by hundreds of MB a second; now each is refused before any search."""
    import math
    import time

    from faults import gauntlet_cli
    space = OptionSpace.from_dict({"parameters": {f"p{i}": list(range(10)) for i in range(60)}})
    assert space.tuples(6) == math.comb(60, 6) * 10 ** 6 and space.rows_bound() == 10 ** 60
    path = tmp_path / "space.json"
    path.write_text(json.dumps({"parameters": {f"p{i}": list(range(10)) for i in range(60)}}))
    for args, words in [(["--plan", "exhaustive"], "an exhaustive plan has up to 1e+60 rows"),
                        (["--strength", "6"], "strength 6: 5.01e+13 combinations of values to cover")]:
        t0 = time.monotonic()
        r = gauntlet_cli("plan", path, *args, timeout=60)
        assert r.returncode == 2 and words in r.stderr and time.monotonic() - t0 < 30, (r.stdout, r.stderr)
        assert r.stdout == ""
    # With constraints on few parameters the count is exact (one of four combinations forbidden).
    small = OptionSpace.from_dict({"parameters": {"a": [1, 2], "b": [1, 2]},
                                   "constraints": [{"forbid": {"a": [1], "b": [2]}}]})
    assert small.rows_bound() == 3 and len(list(small.exhaustive())) == 3
