import subprocess
import sys

from conftest import REPO


def gauntlet(*args):
    return subprocess.run([sys.executable, "-m", "gauntlet", *args], cwd=REPO, capture_output=True,
                          text=True, env={"PYTHONPATH": str(REPO / "python")})


def test_gensql_prints_one_statement_per_line(tmp_path, rqg_grammars):
    r = gauntlet("gensql", "--grammar", str(rqg_grammars / "conf__examples__example.yy"),
                 "--queries", "500", "--seed", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 500
    assert all(l.split()[0] in ("UPDATE", "INSERT", "DELETE") for l in lines)
    again = gauntlet("gensql", "--grammar", str(rqg_grammars / "conf__examples__example.yy"),
                     "--queries", "500", "--seed", "3")
    assert again.stdout == r.stdout


def test_gensql_redefine_and_schema(tmp_path):
    main = tmp_path / "main.yy"
    main.write_text("query: SELECT _field FROM _table WHERE x = item ;\nitem: 1 ;\n")
    redefine = tmp_path / "r.yy"
    redefine.write_text("item: 2 ;\n")
    schema = tmp_path / "s.json"
    schema.write_text('{"tables": [{"name": "t", "columns": [{"name": "c"}]}]}')
    r = gauntlet("gensql", "--grammar", str(main), "--redefine", str(redefine), "--schema", str(schema),
                 "--queries", "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["SELECT `c` FROM `t` WHERE x = 2"] * 2


def test_bad_grammar_exits_2_naming_the_position(tmp_path):
    bad = tmp_path / "bad.yy"
    bad.write_text("query:\n  SELECT _char(-1) ;\n")
    r = gauntlet("gensql", "--grammar", str(bad))
    assert r.returncode == 2
    assert f"{bad}:2:10" in r.stderr


def test_gensql_writes_what_the_generator_and_splitter_give(tmp_path, rqg_grammars):
    # The engine writes gensql's output; it must be the statements the executor would send.
    import gauntlet as g
    path = rqg_grammars / "conf__transactions__transactions.yy"
    grammar = g.Grammar.from_file(str(path))
    expected = [s.replace("\n", " ") for q in grammar.generator(5).generate(300) for s in g.split_statements(q)]
    assert len(expected) > 300  # the grammar has multi-statement queries
    r = gauntlet("gensql", "--grammar", str(path), "--queries", "300", "--seed", "5", "--semicolons")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [s + ";" for s in expected]


def test_gensql_into_a_closed_pipe_ends_quietly(rqg_grammars):
    p = subprocess.run(f"{sys.executable} -m gauntlet gensql --grammar "
                       f"{rqg_grammars / 'conf__examples__example.yy'} --queries 5000000 | head -3",
                       shell=True, capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "python")})
    assert len(p.stdout.splitlines()) == 3 and "Traceback" not in p.stderr, p.stderr
