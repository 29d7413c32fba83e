"""Every RQG grammar in ../shared loads and generates 10,000 statements."""

import hashlib
import pathlib
import subprocess
import sys

import pytest
from gauntlet import Grammar

from conftest import shared_grammars

GRAMMARS = sorted(shared_grammars().glob("*.yy"))


def test_the_reference_corpus_is_there(rqg_grammars):
    assert len(list(rqg_grammars.glob("*.yy"))) == 34


@pytest.mark.parametrize("path", GRAMMARS, ids=[p.stem.replace("conf__", "") for p in GRAMMARS])
def test_generates_10000_statements(path: pathlib.Path):
    grammar = Grammar.from_file(str(path))
    out = grammar.generate(10000, seed=1)
    assert len(out) == 10000
    non_empty = [s for s in out if s.strip()]
    assert len(non_empty) > 5000, "most queries should produce text"
    # Determinism on the real corpus, Perl blocks included.
    assert grammar.generate(200, seed=1) == out[:200]


@pytest.mark.parametrize("path", GRAMMARS, ids=[p.stem.replace("conf__", "") for p in GRAMMARS])
def test_a_fresh_generator_replays_every_statement(path: pathlib.Path):
    """Replay from nothing: a statement's key (and, for shrinking, its choices) re-create it on a
    generator that made nothing before, Perl globals and init rules included."""
    grammar = Grammar.from_file(str(path))
    made_by = grammar.generator(seed=7, thread_id=2, thread_count=3)
    made = [made_by.next_statement() for _ in range(300)]
    in_order = grammar.generator(seed=1)
    for st in made:
        assert in_order.replay(st.key).text == st.text, st.key
    by_choices = grammar.generator(seed=1)
    for i in [250, 3, 299, 0, 120, 121, 17]:
        assert by_choices.replay(made[i].key, made[i].choices).text == made[i].text, made[i].key


def test_same_seed_same_statements_in_another_process():
    """Perl hash order is fixed per process; every shared grammar gives the same text elsewhere."""
    script = ("import sys, hashlib, gauntlet\n"
              "for p in sys.argv[1:]:\n"
              "    g = gauntlet.Grammar.from_file(p)\n"
              "    g.generator(seed=1).generate(5)\n"  # a second interpreter in this process
              "    print(hashlib.sha1('\\n'.join(g.generate(400, seed=3)).encode()).hexdigest())\n")
    here = []
    for p in GRAMMARS:
        g = Grammar.from_file(str(p))
        here.append(hashlib.sha1("\n".join(g.generate(400, seed=3)).encode()).hexdigest())
    out = subprocess.run([sys.executable, "-c", script, *map(str, GRAMMARS)], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == here
