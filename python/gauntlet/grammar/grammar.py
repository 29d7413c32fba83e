"""Grammars, schemas and generators: the Python face of the C++ engine."""

from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

from .. import _core, stock
from ..arguments import flag_argument, number_argument

Column = _core.Column
Table = _core.Table
RuleContext = _core.RuleContext
split_statements = _core.split_statements


class Schema:
    """Tables and columns that `_table` and `_field*` draw from.

    ``Schema.rqg_default()`` is RQG's GendataSimple schema (tables A..E and
    AA..DD); ``Schema.from_json(...)`` reads our JSON format; or build one:
    ``Schema([Table("t1", [Column("pk", "int", primary=True)])])``.
    """

    def __init__(self, tables: Sequence[Table] = (), databases: Sequence[str] = ("test",), *, _core_schema=None):
        self._s = _core_schema if _core_schema is not None else _core.Schema(list(databases), list(tables))

    @classmethod
    def rqg_default(cls) -> "Schema":
        """RQG's default tables A..E and AA..DD (GendataSimple), with RQG's row counts and value mix."""
        return cls(_core_schema=_core.Schema.rqg_default())

    @classmethod
    def random(cls, seed: int = 1, tables: int = 0, max_rows: int = 200, database: str = "test") -> "Schema":
        """A seeded schema of edge cases (``--data random[:SEED]``): 1-4 tables (or ``tables``) on InnoDB,
        MyISAM, Aria and MEMORY with columns of every type family, character sets, NULL/NOT NULL,
        defaults, generated and COMPRESSED columns, keys of every kind, some tables partitioned or
        system-versioned, and rows mixing each type's edge values (minimum, maximum, just outside,
        -0, fractions, '' and long strings, case and accent variants, zero and invalid dates, NULL)
        with random ones. Tables a server refuses are skipped with a warning."""
        schema = cls(_core_schema=_core.Schema.random(seed, tables, max_rows, database))
        schema._lenient = True
        schema._source = f"random:{seed}"
        return schema

    @classmethod
    def from_json(cls, text_or_path: str) -> "Schema":
        """Parses JSON text, or reads it from a file path."""
        if os.path.exists(text_or_path):
            return cls(_core_schema=_core.Schema.from_json_file(text_or_path))
        return cls(_core_schema=_core.Schema.from_json(text_or_path))

    def to_json(self) -> str:
        """The schema in our JSON data-spec format (what Schema.from_json reads)."""
        return self._s.to_json()

    @property
    def tables(self) -> list:
        """The Tables, in order."""
        return self._s.tables

    @property
    def databases(self) -> list:
        """The database names; the first is where tables without one go."""
        return self._s.databases

    def __repr__(self) -> str:
        names = [t.name for t in self._s.tables]
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        return f"Schema({len(names)} tables: {shown})"


# Grammars that are one rule of the query builder: ``Grammar("builtin:select")``,
# ``--grammar builtin:select``.
BUILTIN_GRAMMARS = {
    "select": "query:\n    _query ;\n",
    "statements": "query:\n    _query | _query | _query | _query | _dml | _dml | _ddl | _setting ;\n",
}


class Grammar:
    """An RQG-dialect grammar, loaded from files or text (``builtin:select``,
    ``builtin:statements``: the query builder alone).

    Later sources override earlier rules (RQG's ``--redefine``). ``rules``
    maps rule names to Python functions ``f(ctx) -> str`` that compute the
    rule's text; ``ctx`` offers ``below(n)``, ``range(lo, hi)``,
    ``choice(seq)`` (all recorded, so replay works), ``expand(name)``,
    ``thread_id`` and ``last_table``.

    Its Perl (``{ ... }`` blocks, ``$variables``) runs restricted: it cannot run, wait for or
    signal processes, open or write files, use the network, load native code (XS modules) or
    change Gauntlet's signal handlers, environment or user; such code does not compile. Give
    ``trusted_perl=True`` for a grammar you trust that needs them. Any block is bounded to
    1 GiB of memory.
    """

    def __init__(self, path: Union[str, os.PathLike], *redefine: Union[str, os.PathLike],
                 rules: Optional[Mapping[str, Callable]] = None, trusted_perl: bool = False):
        """Loads grammar files: ``Grammar("g.yy", "r.yy")`` is ``Grammar.from_file("g.yy", "r.yy")``;
        ``builtin:NAME`` names one of BUILTIN_GRAMMARS."""
        g = _core.Grammar()
        g.trusted_perl = flag_argument("trusted_perl", trusted_perl)
        for p in (path, *redefine):
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError(f"Grammar(path, *redefine): a grammar file path, not {type(p).__name__}; "
                                "use Grammar.from_string(text) for grammar text")
            p = os.fspath(p)
            if p.startswith("builtin:"):
                if p[8:] not in BUILTIN_GRAMMARS:
                    raise _core.InvalidInput(f"{p}: no such built-in grammar (known: "
                                             f"{', '.join('builtin:' + n for n in BUILTIN_GRAMMARS)})")
                g.add_text(BUILTIN_GRAMMARS[p[8:]], p)
            else:
                g.add_file(stock.resolve(p))
        self._set(g, rules, os.path.basename(os.fspath(path)))

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike], *redefine: Union[str, os.PathLike],
                  rules: Optional[Mapping[str, Callable]] = None, trusted_perl: bool = False) -> "Grammar":
        """Loads ``path`` and then each ``redefine`` file, whose rules replace earlier ones
        (RQG's ``--redefine``). Raises InvalidInput naming the file, line and column."""
        return cls(path, *redefine, rules=rules, trusted_perl=trusted_perl)

    @classmethod
    def from_string(cls, text: str, *redefine: str, rules: Optional[Mapping[str, Callable]] = None,
                    name: str = "<string>", trusted_perl: bool = False) -> "Grammar":
        """A grammar from text; ``name`` stands for the file in error messages."""
        g = _core.Grammar()
        g.trusted_perl = flag_argument("trusted_perl", trusted_perl)
        g.add_text(text, name)
        for i, extra in enumerate(redefine):
            g.add_text(extra, f"<redefine {i + 1}>")
        grammar = cls.__new__(cls)
        grammar._set(g, rules, name)
        return grammar

    def _set(self, g: "_core.Grammar", rules: Optional[Mapping[str, Callable]], label: str) -> None:
        for name, fn in (rules or {}).items():
            g.define(name, fn)
        g.finish()
        self._g = g
        self._label = label
        self._python_rules = sorted(rules or ())

    @property
    def rules(self) -> list:
        """The rule names, in definition order."""
        return self._g.rules

    @property
    def python_rules(self) -> list:
        """The names of the rules computed by Python functions."""
        return list(self._python_rules)

    @property
    def warnings(self) -> list:
        """Warnings as "file:line:column: message": undefined words, redefined rules, ignored text."""
        return self._g.warnings

    @property
    def undefined_words(self) -> list:
        """Lowercase words that are neither rules nor built-ins (printed as written, as RQG does)."""
        return self._g.undefined_words

    @property
    def trusted_perl(self) -> bool:
        """Whether its Perl may run processes, open files and load native code (see the class)."""
        return self._g.trusted_perl

    @property
    def uses_perl(self) -> bool:
        """True when the grammar has Perl blocks or $variables."""
        return self._g.perl_blocks > 0

    def generator(self, seed: int = 1, schema: Optional[Schema] = None, *, thread_id: int = 1,
                  thread_count: int = 1, max_depth: int = 64) -> "Generator":
        """A Generator of this grammar: one per worker (`thread_id` picks threadN rules)."""
        return Generator(self, seed=seed, schema=schema, thread_id=thread_id,
                         thread_count=thread_count, max_depth=max_depth)

    def generate(self, n: int, seed: int = 1, schema: Optional[Schema] = None) -> list:
        """The first ``n`` queries of a fresh generator."""
        return self.generator(seed, schema).generate(n)

    def __repr__(self) -> str:
        perl = f", {self._g.perl_blocks} Perl blocks" if self._g.perl_blocks else ""
        perl += ", trusted Perl" if self._g.trusted_perl else ""
        return (f"Grammar({self._label!r}: {len(self.rules)} rules, "
                f"{self._g.alternative_count} alternatives{perl}, {len(self.warnings)} warnings)")


class Generator:
    """Produces queries from a grammar; deterministic for a given seed.

    Iterating yields query texts forever; ``generate(n)`` returns a batch
    (the GIL is released while it runs). ``next_statement()`` also returns the
    statement's replay key and recorded choices; ``replay`` re-creates it from
    them on any generator of the same grammar and schema.
    """

    def __init__(self, grammar: Grammar, seed: int = 1, schema: Optional[Schema] = None, *,
                 thread_id: int = 1, thread_count: int = 1, max_depth: int = 64):
        self.grammar = grammar
        self.schema = schema if schema is not None else Schema.rqg_default()
        self._gen = _core.Generator(grammar._g, self.schema._s, seed=seed, thread_id=thread_id,
                                    thread_count=thread_count, max_depth=max_depth)

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return self._gen.next()

    def next(self) -> str:
        """The next query text."""
        return self._gen.next()

    def generate(self, n: int) -> list:
        """The next `n` query texts (the GIL is released while they are made)."""
        return self._gen.generate(number_argument("n", n, whole=True))

    def write(self, n: int, file=None, semicolons: bool = False) -> int:
        """Writes the next ``n`` queries to ``file`` (default stdout) as ``gauntlet gensql`` does:
        one statement a line, ``;`` appended when asked. The engine writes to the file's
        descriptor directly (the GIL is released). Returns the statements written."""
        import sys
        file = sys.stdout if file is None else file
        file.flush()
        return self._gen.write(n, file.fileno(), semicolons)

    def advance(self, n: int) -> int:
        """Generates and discards ``n`` queries; returns the bytes generated."""
        return self._gen.advance(n)

    def next_statement(self) -> "_core.Statement":
        """The next query with its replay ``key`` and recorded ``choices``."""
        return self._gen.next_statement()

    def next_key(self) -> dict:
        """The replay key of the query ``next()`` would make now."""
        return self._gen.next_key()

    def replay(self, statement, choices: Optional[Iterable] = None, *, strict: bool = True,
               rule: str = "") -> "_core.Statement":
        """Re-creates a statement from its key (a Statement, or its ``key`` dict as a statement
        log stores it) on this generator, fresh or not. Without ``choices`` the draws come from
        the statement's own seed: the original text. With ``choices`` (shrunk ones, say) those
        are the draws; strict: choices that do not fit raise InvalidInput, ``strict=False``
        clamps them and pads with 0. ``rule`` expands another rule instead of the start rule.
        The generator then continues after that statement."""
        key = statement.key if isinstance(statement, _core.Statement) else statement
        return self._gen.replay(key, None if choices is None else list(choices), strict, rule)

    def coverage(self) -> "Coverage":
        """How often each rule and alternative was used so far."""
        return Coverage(self._gen.coverage())

    @property
    def count(self) -> int:
        """How many queries this generator made (replays position it, see replay)."""
        return self._gen.count

    def __repr__(self) -> str:
        return (f"Generator({self.grammar._label!r}, seed={self._gen.seed}, "
                f"thread={self._gen.thread_id}, generated={self._gen.count})")


class Coverage:
    """How often each rule and alternative was used; ``+`` merges workers."""

    def __init__(self, core: "_core.Coverage"):
        self._c = core

    @property
    def rule_hits(self) -> dict:
        """Uses per rule name."""
        return dict(zip(self._c.rules, self._c.rule_hits))

    def alternative_hits(self, rule: str) -> list:
        """Uses of each alternative of `rule`, in order."""
        i = self._c.rules.index(rule)
        start = self._c.first_alternative[i]
        end = (self._c.first_alternative[i + 1] if i + 1 < len(self._c.rules)
               else len(self._c.alternative_hits))
        return list(self._c.alternative_hits[start:end])

    @property
    def unreached_rules(self) -> list:
        """Rules never used."""
        return self._c.unreached_rules()

    @property
    def unreached_alternatives(self) -> list:
        """"rule/N" for every alternative never taken (N counts from 0)."""
        return self._c.unreached_alternatives()

    def __add__(self, other: "Coverage") -> "Coverage":
        merged = _core.Coverage()
        merged.merge(self._c)
        merged.merge(other._c)
        return Coverage(merged)

    def __repr__(self) -> str:
        reached = sum(1 for h in self._c.rule_hits if h)
        alts = sum(1 for h in self._c.alternative_hits if h)
        return (f"Coverage(rules {reached}/{len(self._c.rules)}, "
                f"alternatives {alts}/{len(self._c.alternative_hits)})")
