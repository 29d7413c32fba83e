"""Corpora: the SQL of a server's own test suite, as statements a run sends at random (pquery's way)."""

from .corpus import SUITE, Corpus, CorpusStatement, build, corpus_named, unsafe
from .mysqltest import TestStatement, statements

__all__ = ["build", "Corpus", "corpus_named", "CorpusStatement", "statements", "SUITE", "TestStatement",
           "unsafe"]
