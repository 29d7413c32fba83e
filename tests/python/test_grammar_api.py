import gauntlet
import pytest
from gauntlet import Column, Grammar, Schema, Table


def test_generate_is_deterministic_per_seed():
    g = Grammar.from_string("query: SELECT _int FROM _table WHERE _field > _digit ;")
    assert g.generate(50, seed=3) == g.generate(50, seed=3)
    assert g.generate(50, seed=3) != g.generate(50, seed=4)


def test_iteration_and_reprs():
    g = Grammar.from_string("query: A | B ;\nunused: C ;", name="two.yy")
    assert repr(g) == "Grammar('two.yy': 2 rules, 3 alternatives, 0 warnings)"
    gen = g.generator(seed=1)
    first = [next(gen) for _ in range(10)]
    assert set(first) <= {"A", "B"}
    assert repr(gen) == "Generator('two.yy', seed=1, thread=1, generated=10)"
    cov = gen.coverage()
    assert cov.unreached_rules == ["unused"]
    assert repr(cov) == "Coverage(rules 1/2, alternatives 2/3)"
    merged = cov + g.generator(seed=2).coverage()
    assert sum(merged.alternative_hits("query")) == 10


def test_replay_from_key_and_choices():
    g = Grammar.from_string("query: SELECT _varchar(5) , _date | DELETE FROM _table ;")
    gen = g.generator(seed=11)
    made = [gen.next_statement() for _ in range(20)]
    fresh = g.generator(seed=1)
    for st in reversed(made):
        assert fresh.replay(st).text == st.text
        assert fresh.replay(st.key, st.choices).text == st.text  # the key as a log stores it
    assert made[3].key["index"] == made[3].index == 3 and made[3].key["seed"] == 11
    assert repr(made[3]).startswith("Statement(thread 1, query 3, ")
    assert fresh.replay(made[0], [], strict=False).text.startswith("SELECT")
    with pytest.raises(gauntlet.InvalidInput, match="choice 0"):
        fresh.replay(made[0], [(7, 3)])
    with pytest.raises(gauntlet.InvalidInput, match="replay key"):
        fresh.replay({"seed": 1})


def test_python_rule_callbacks_are_deterministic():
    def pick(ctx):
        return ctx.choice(["red", "green", "blue"]) + str(ctx.range(1, 9))

    g = Grammar.from_string("query: SELECT colour ;", rules={"colour": pick})
    out = g.generate(30, seed=5)
    assert out == g.generate(30, seed=5)
    assert all(s.startswith("SELECT ") for s in out)
    assert len(set(out)) > 5


def test_callback_can_expand_builtins():
    g = Grammar.from_string("query: _table x ;", rules={"x": lambda ctx: ctx.last_table + ctx.expand("_field_pk")})
    assert g.generate(1)[0].endswith("`pk`")


def test_errors_carry_file_line_column():
    with pytest.raises(gauntlet.InvalidInput) as e:
        Grammar.from_string("query:\n  SELECT { 1 + } ;\n", name="bad.yy").generate(1)
    assert (e.value.file, e.value.line, e.value.column) == ("bad.yy", 2, 10)
    assert isinstance(e.value, ValueError)
    with pytest.raises(gauntlet.InvalidInput, match=r"missing\.yy"):
        Grammar.from_file("missing.yy")
    with pytest.raises(gauntlet.InvalidInput, match="no 'query' rule"):
        Grammar.from_string("other: X ;").generate(1)


def test_perl_block_death_is_a_generation_error():
    g = Grammar.from_string("query: { die 'nope' } ;")
    with pytest.raises(gauntlet.GenerationError, match="nope"):
        g.generate(1)


def test_schema_built_in_python_and_json(tmp_path):
    s = Schema([Table("t1", [Column("id", "int", primary=True), Column("name", "varchar(10)")], rows=5)])
    assert repr(s) == "Schema(1 tables: t1)"
    g = Grammar.from_string("query: SELECT _field_char FROM _table ;")
    assert g.generate(3, schema=s) == ["SELECT `name` FROM `t1`"] * 3
    path = tmp_path / "s.json"
    path.write_text(s.to_json())
    assert Schema.from_json(str(path)).to_json() == s.to_json()
    with pytest.raises(gauntlet.InvalidInput, match=r"tables\[0\]"):
        Schema.from_json('{"tables": [{"columns": []}]}')


def test_redefine_overrides_rules():
    g = Grammar.from_string("query: item ;\nitem: OLD ;", "item: NEW ;")
    assert g.generate(3) == ["NEW"] * 3
    assert any("redefined" in w for w in g.warnings)


def test_split_statements():
    assert gauntlet.split_statements("A ; B ';' ; C") == ["A", "B ';'", "C"]


def test_choices_say_what_they_decided():
    g = Grammar.from_string("query: a | b ;\na: SELECT _digit ;\nb: SELECT { $prng->int(1, 6) } ;\n",
                            name="g.yy")
    gen = g.generator(seed=3)
    names = set()
    for _ in range(30):
        st = gen.next_statement()
        assert len(st.choice_names) == len(st.choices)
        names.update(n.split(":")[0] for n in st.choice_names)
        if st.text.startswith("SELECT") and st.choice_names[0] == "query: alternative 1 of 2":
            assert st.choice_names[1] == f"_digit: {st.text.split()[-1]} of 10"
    assert names == {"query", "_digit", "Perl block at g.yy"}
    assert "query: alternative" in repr(st)
