"""Corpora: the SQL of a server's own test suite, as statements a run sends at random (pquery's way)."""

from .corpus import SUITE, Corpus, CorpusStatement, build, corpus_grammar, unsafe
from .mysqltest import TestStatement, statements

__all__ = ["build", "Corpus", "corpus_grammar", "CorpusStatement", "statements", "SUITE", "TestStatement",
           "unsafe"]
