"""Every RQG grammar in ../shared loads and generates 10,000 statements."""

import pathlib

import pytest
from gauntlet import Grammar

from conftest import shared_dir

GRAMMARS = sorted((shared_dir() / "rqg-grammars").glob("*.yy"))


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
