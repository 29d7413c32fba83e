"""Option spaces and the plans that cover them: which server configurations a campaign runs.

An ``OptionSpace`` holds parameters with their values: server options
(``innodb_flush_log_at_trx_commit``), the flags of a compound option as
parameters of their own (``optimizer_switch.mrr``), session variables
(``session:join_cache_level``) and workload dimensions (``grammar``, ``data``,
``engine``, ``threads``, ``duration``, ``queries``, ``oracles``). A value of
``None`` means "not set" (the server's default), and is what a conditional
parameter takes while its parent does not enable it. Constraints, seeds,
strengths and invalid values are data::

    space = OptionSpace.from_dict({
        "parameters": {"innodb_buffer_pool_size": ["128M", "1G"], "innodb_buffer_pool_instances": [1, 4],
                       "optimizer_switch.mrr": ["on", "off"], "optimizer_switch.mrr_sort_keys": ["on", "off"]},
        "constraints": [{"forbid": {"innodb_buffer_pool_size": "128M", "innodb_buffer_pool_instances": 4}}],
        "conditional": {"optimizer_switch.mrr_sort_keys": {"optimizer_switch.mrr": "on"}},
        "invalid": {"innodb_buffer_pool_instances": [0]},
        "strength": 2})
    plan = space.covering()          # t-wise covering array (cpp/combi), every feasible tuple covered
    plan.coverage()                  # counted independently: {"feasible": ..., "covered": ...}

Generators: ``covering(strength)`` (t = 2..4 or more, mixed strength with
``mixed``), ``exhaustive()`` (lazy; ``count()`` first), ``random(n, seed)``.
Invalid values are left out of the covering and each gets a negative row of
its own (a valid row with that one value changed), as PICT's ``~value`` does.
"""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import random as _random
import re
import time
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from .. import _core

WORKLOAD = ("grammar", "data", "engine", "threads", "duration", "queries", "oracles")
_NAME = re.compile(r"^(session:)?[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)?$")
_Value = Union[str, int, float, bool, None]


def _bad(where: str, what: str) -> _core.InvalidInput:
    return _core.InvalidInput(f"{where}: {what}")


def _listed(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


NO_ROW = "the constraints forbid every row: there is nothing to plan"

# Bounds on plans made whole before anything runs: an exhaustive plan's rows, a covering array's
# combinations to cover (its search takes about 10 s per million on this machine's cores).
MAX_PLAN_ROWS = 1_000_000
MAX_TUPLES = 10_000_000


class OptionSpace:
    """Parameters with value lists, constraints (forbidden combinations, if/then rules,
    conditional parameters), seed rows, strength (and stronger sub-models), and invalid values;
    generates plans (covering arrays, exhaustive, random) of rows ``{parameter: value}``."""

    def __init__(self, parameters: Mapping[str, Sequence[_Value]], *, constraints: Sequence[Mapping] = (),
                 conditional: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 invalid: Optional[Mapping[str, Sequence[_Value]]] = None, seeds: Sequence[Mapping] = (),
                 strength: Optional[int] = None, mixed: Sequence[Mapping] = (), where: str = "option space"):
        self.where = where
        if not isinstance(parameters, Mapping) or not parameters:
            raise _bad(where, "parameters: a mapping of names to value lists, with at least one parameter")
        self.parameters: Dict[str, List[_Value]] = {}
        for name, values in parameters.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise _bad(where, f"parameters: {name!r} is no option name (name, section.flag or session:name)")
            values = _listed(values)
            if not values:
                raise _bad(where, f"parameters: {name} has no values")
            for v in values:
                if not isinstance(v, (str, int, float, bool, type(None))):
                    raise _bad(where, f"parameters: {name}: {v!r} is not text, a number, a flag or null")
            if len(set(map(repr, values))) != len(values):
                raise _bad(where, f"parameters: {name} lists a value twice")
            self.parameters[name] = values
        self.names = list(self.parameters)
        self.forbidden: List[Dict[str, list]] = []
        self.conditional = dict(conditional or {})
        for child, parents in self.conditional.items():
            self._check_name(child, "conditional")
            if not isinstance(parents, Mapping) or not parents:
                raise _bad(where, f"conditional: {child}: a mapping of parent parameters to the values that enable it")
            if None not in self.parameters[child]:
                self.parameters[child].append(None)
            for parent, enabling in parents.items():
                enabling = self._values(parent, enabling, f"conditional: {child}")
                others = [v for v in self.parameters[parent] if v not in enabling]
                set_values = [v for v in self.parameters[child] if v is not None]
                if others:
                    self.forbidden.append({parent: others, child: set_values})
                self.forbidden.append({parent: enabling, child: [None]})
        for i, c in enumerate(constraints):
            self._add_constraint(c, f"constraints[{i}]")
        self.invalid = {}
        for name, values in (invalid or {}).items():
            self._check_name(name, "invalid")
            values = _listed(values)
            clash = [v for v in values if v in self.parameters[name]]
            if clash:
                raise _bad(where, f"invalid: {name}: {clash[0]!r} is also a valid value")
            self.invalid[name] = values
        if strength is None:  # pairs, or all there are
            strength = min(2, len(self.names))
        if not isinstance(strength, int) or not 1 <= strength <= len(self.names):
            raise _bad(where, f"strength: 1 to {len(self.names)} (the number of parameters), not {strength!r}")
        self.strength = strength
        self.mixed = []
        for i, m in enumerate(mixed):
            if not isinstance(m, Mapping) or set(m) - {"parameters", "strength"} or "parameters" not in m:
                raise _bad(where, f"mixed[{i}]: {{\"parameters\": [names], \"strength\": t}}")
            names = _listed(m["parameters"])
            for n in names:
                self._check_name(n, f"mixed[{i}]")
            t = m.get("strength", strength + 1)
            if not isinstance(t, int) or not 1 <= t <= len(names):
                raise _bad(where, f"mixed[{i}]: strength 1 to {len(names)}, not {t!r}")
            self.mixed.append((names, t))
        self.seeds = []
        for i, s in enumerate(seeds):
            if not isinstance(s, Mapping):
                raise _bad(where, f"seeds[{i}]: a mapping of parameters to values")
            for name, v in s.items():
                self._values(name, v, f"seeds[{i}]")
            self.seeds.append(dict(s))

    # -- reading ---------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping, where: str = "option space") -> "OptionSpace":
        """From a dict of the JSON form: parameters, constraints, conditional, invalid, seeds,
        strength, mixed."""
        if not isinstance(d, Mapping):
            raise _bad(where, "an option space is a JSON object")
        known = {"parameters", "constraints", "conditional", "invalid", "seeds", "strength", "mixed"}
        unknown = set(d) - known
        if unknown:
            raise _bad(where, f"unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(known))})")
        return cls(d.get("parameters") or {}, constraints=d.get("constraints", ()), conditional=d.get("conditional"),
                   invalid=d.get("invalid"), seeds=d.get("seeds", ()), strength=d.get("strength"),
                   mixed=d.get("mixed", ()), where=where)

    @classmethod
    def from_json(cls, path: Union[str, os.PathLike]) -> "OptionSpace":
        """From a JSON file (errors name the file, and the line and column of bad JSON)."""
        path = pathlib.Path(path)
        try:
            text = path.read_text()
        except OSError as e:
            raise _bad(str(path), f"cannot read: {e.strerror}") from None
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise _bad(f"{path}:{e.lineno}:{e.colno}", e.msg) from None
        return cls.from_dict(d, where=str(path))

    @classmethod
    def from_toml(cls, path: Union[str, os.PathLike]) -> "OptionSpace":
        """From a TOML file of the same form (``[parameters]``, ``[[constraints]]``, ...)."""
        import tomllib
        path = pathlib.Path(path)
        try:
            d = tomllib.loads(path.read_text())
        except OSError as e:
            raise _bad(str(path), f"cannot read: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise _bad(str(path), str(e)) from None
        return cls.from_dict(d, where=str(path))

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "OptionSpace":
        """By the file's suffix: ``.json``, ``.toml``, or an RQG ``.cc`` combinations file."""
        suffix = pathlib.Path(path).suffix.lower()
        readers = {".json": cls.from_json, ".toml": cls.from_toml, ".cc": cls.from_rqg}
        if suffix not in readers:
            raise _bad(str(path), "an option space is a .json, .toml or RQG .cc file")
        return readers[suffix](path)

    @classmethod
    def from_rqg(cls, path: Union[str, os.PathLike], strength: int = 2) -> "OptionSpace":
        """From an RQG combinations file (``.cc``): its ``$combinations = [[...], ...]`` list of
        groups of alternative option strings becomes parameters ``group1``, ``group2``, ...
        whose values are the strings (whitespace folded). Other Perl is an error naming the line."""
        path = pathlib.Path(path)
        try:
            text = path.read_text()
        except OSError as e:
            raise _bad(str(path), f"cannot read: {e.strerror}") from None
        groups = _parse_rqg_combinations(text, str(path))
        return cls({f"group{i + 1}": g for i, g in enumerate(groups)}, strength=min(strength, len(groups)),
                   where=str(path))

    # -- helpers ---------------------------------------------------------------------------------
    def _check_name(self, name, where: str) -> None:
        if name not in self.parameters:
            raise _bad(self.where, f"{where}: no parameter {name!r}")

    def _values(self, name, values, where: str) -> list:
        self._check_name(name, where)
        values = _listed(values)
        for v in values:
            if v not in self.parameters[name]:
                raise _bad(self.where, f"{where}: {name} has no value {v!r} "
                                       f"(values: {', '.join(map(repr, self.parameters[name]))})")
        return values

    def _add_constraint(self, c, where: str) -> None:
        if not isinstance(c, Mapping) or not (set(c) == {"forbid"} or set(c) == {"if", "then"}):
            raise _bad(self.where, f"{where}: {{\"forbid\": {{name: values}}}} or "
                                   "{\"if\": {name: values}, \"then\": {name: values}}")
        if "forbid" in c:
            terms = {n: self._values(n, v, where) for n, v in dict(c["forbid"]).items()}
            if not terms:
                raise _bad(self.where, f"{where}: forbid names no parameter")
            self.forbidden.append(terms)
            return
        cond = {n: self._values(n, v, f"{where}: if") for n, v in dict(c["if"]).items()}
        then = {n: self._values(n, v, f"{where}: then") for n, v in dict(c["then"]).items()}
        if not cond or not then:
            raise _bad(self.where, f"{where}: if and then each name a parameter")
        for name, allowed in then.items():
            others = [v for v in self.parameters[name] if v not in allowed]
            if others:
                self.forbidden.append({**cond, name: others})

    def _index(self, row: Mapping) -> List[int]:
        out = []
        for name in self.names:
            if name in row:
                out.append(self.parameters[name].index(row[name]))
            else:
                out.append(-1)
        return out

    def _model(self, strength: int):
        levels = [len(self.parameters[n]) for n in self.names]
        parts = [(list(range(len(self.names))), strength)]
        parts += [([self.names.index(n) for n in names], t) for names, t in self.mixed]
        forbidden = [[(self.names.index(n), [self.parameters[n].index(v) for v in vs]) for n, vs in f.items()]
                     for f in self.forbidden]
        return levels, parts, forbidden

    def valid(self, row: Mapping) -> bool:
        """Whether a full row (every parameter given) breaks no constraint."""
        return not any(all(row.get(n) in vs for n, vs in f.items()) for f in self.forbidden)

    # -- generators ------------------------------------------------------------------------------
    def tuples(self, strength: int) -> int:
        """How many combinations of values of ``strength`` parameters a covering array has to cover
        (before constraints): the size of the problem, known before any search."""
        e = [1] + [0] * strength  # elementary symmetric sums of the domain sizes
        for n in self.names:
            for j in range(strength, 0, -1):
                e[j] += e[j - 1] * len(self.parameters[n])
        return e[strength]

    def rows_bound(self) -> int:
        """The valid rows: exact (count()) when the constrained parameters' combinations are few
        enough to go through, else the product of every domain's size, an upper bound."""
        product = 1
        for n in self.names:
            product *= len(self.parameters[n])
        constrained = 1
        for n in {n for f in self.forbidden for n in f}:
            constrained *= len(self.parameters[n])
        return self.count() if constrained <= MAX_PLAN_ROWS else product

    def count(self) -> int:
        """How many valid rows the space has (exhaustive() yields them)."""
        constrained = sorted({n for f in self.forbidden for n in f}, key=self.names.index)
        free = 1
        for n in self.names:
            if n not in constrained:
                free *= len(self.parameters[n])
        valid = sum(1 for values in itertools.product(*(self.parameters[n] for n in constrained))
                    if self.valid(dict(zip(constrained, values))))
        return free * valid

    def exhaustive(self) -> Iterator[Dict[str, _Value]]:
        """Every valid row, lazily, in order (the last parameter changing fastest)."""
        for values in itertools.product(*(self.parameters[n] for n in self.names)):
            row = dict(zip(self.names, values))
            if self.valid(row):
                yield row

    def random(self, n: int, seed: int = 1) -> "Plan":
        """``n`` valid rows drawn uniformly (rejection sampling; the same seed, the same rows)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise _bad(self.where, f"random: rows must be a whole number, 1 or more, not {n!r}")
        rng = _random.Random(seed)
        rows, tries = [], 0
        t0 = time.monotonic()
        while len(rows) < n:
            tries += 1
            if tries > 1000 * (n + 1):
                raise _bad(self.where, "random: almost no row satisfies the constraints")
            row = {name: rng.choice(self.parameters[name]) for name in self.names}
            if self.valid(row):
                rows.append(row)
        return Plan(self, rows, "random", self.strength, time.monotonic() - t0, seed)

    def covering(self, strength: Optional[int] = None, *, seed: int = 1, effort: float = 1.0) -> "Plan":
        """A t-wise covering array: every feasible combination of values of every ``strength``
        parameters (and of each ``mixed`` group at its strength) in some row, no row breaking a
        constraint, seeds first; then a negative row per invalid value. Deterministic by seed;
        ``effort`` scales the search that shortens it (0: greedy only)."""
        t = self.strength if strength is None else strength
        if not isinstance(t, int) or not 1 <= t <= len(self.names):
            raise _bad(self.where, f"strength: 1 to {len(self.names)}, not {t!r}")
        combinations = self.tuples(t)
        if combinations > MAX_TUPLES:  # the search's time and memory grow with them (~100,000 a second)
            raise _bad(self.where, f"strength {t}: {combinations:.3g} combinations of values to cover, more than "
                                   f"{MAX_TUPLES:,}: lower the strength, use fewer values, or give the parameters "
                                   "that interact a higher strength of their own (mixed)")
        levels, parts, forbidden = self._model(t)
        parts[0] = (parts[0][0], t)
        seeds = [self._index(s) for s in self.seeds]
        t0 = time.monotonic()
        rows = _core.covering_array(levels, parts, forbidden, seeds, seed, 0, float(effort), True)
        plan_rows = [{n: self.parameters[n][v] for n, v in zip(self.names, r)} for r in rows]
        if not plan_rows:
            raise _bad(self.where, NO_ROW)
        negative = []
        for name, values in self.invalid.items():
            for v in values:
                negative.append({**plan_rows[0], name: v})
        return Plan(self, plan_rows + negative, f"covering t={t}", t, time.monotonic() - t0, seed,
                    negative=len(negative))

    def coverage(self, rows: Sequence[Mapping], strength: Optional[int] = None) -> dict:
        """Counts the t-tuples of the space (feasible ones: those some valid row can hold) and
        how many of them ``rows`` cover, independently of the generator; rows with an invalid
        value are left out."""
        t = self.strength if strength is None else strength
        levels, parts, forbidden = self._model(t)
        parts[0] = (parts[0][0], t)
        indexed = []
        for r in rows:
            if any(r.get(n) in vs for n, vs in self.invalid.items()):
                continue
            indexed.append(self._index(r))
            if -1 in indexed[-1]:
                missing = self.names[indexed[-1].index(-1)]
                raise _bad(self.where, f"coverage: a row without {missing} (or with a value it does not have)")
        report = _core.check_coverage(levels, parts, forbidden, indexed)
        report["missing"] = [self._tuple_text(m) for m in report["missing"]]
        return report

    def _tuple_text(self, text: str) -> str:
        out = []
        for part in text.split():
            p, v = part[1:].split("=")
            name = self.names[int(p)]
            out.append(f"{name}={self.parameters[name][int(v)]!r}")
        return " ".join(out)

    def to_dict(self) -> dict:
        """The JSON form (constraints as the forbidden combinations they became)."""
        return {"parameters": self.parameters, "constraints": [{"forbid": f} for f in self.forbidden],
                "invalid": self.invalid, "seeds": self.seeds, "strength": self.strength,
                "mixed": [{"parameters": n, "strength": t} for n, t in self.mixed]}

    def __repr__(self) -> str:
        return (f"<OptionSpace {len(self.names)} parameters, {len(self.forbidden)} forbidden combinations, "
                f"strength {self.strength}{', mixed' if self.mixed else ''}>")


class Plan:
    """Rows of an option space to run, in order: ``plan.rows`` (dicts), ``len(plan)``,
    ``plan.coverage()``, ``plan.to_pandas()``. The last ``negative`` rows each hold one invalid
    value (a server that refuses them is the expected outcome)."""

    def __init__(self, space: OptionSpace, rows: List[dict], method: str, strength: int, seconds: float,
                 seed: int, negative: int = 0):
        self.space, self.rows, self.method, self.strength = space, rows, method, strength
        self.seconds, self.seed, self.negative = seconds, seed, negative

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    def coverage(self, strength: Optional[int] = None) -> dict:
        """The space's coverage of these rows at ``strength`` (the plan's by default)."""
        return self.space.coverage(self.rows, self.strength if strength is None else strength)

    def to_pandas(self):
        """One row per plan row, one column per parameter (pandas from Debian's python3-pandas)."""
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.space.names)

    def __repr__(self) -> str:
        neg = f" + {self.negative} negative" if self.negative else ""
        return f"<Plan {self.method}: {len(self.rows) - self.negative} rows{neg} over {len(self.space.names)} parameters>"


def row_settings(row: Mapping[str, _Value]) -> dict:
    """What a row asks of a run: ``mysqld`` (server options, the flags of a compound option
    joined: ``optimizer_switch=mrr=on,mrr_sort_keys=off``), ``session`` (SET SESSION
    statements) and ``run`` (workload settings); parameters at None are left out."""
    mysqld, compound, session, run = [], {}, [], {}
    for name, value in row.items():
        if value is None:
            continue
        text = ("ON" if value else "OFF") if isinstance(value, bool) else str(value)
        if name in WORKLOAD:
            run[name] = value
        elif name.startswith("session:"):
            literal = text if re.match(r"^-?\d+(\.\d+)?$", text) else "'" + text.replace("'", "''") + "'"
            session.append(f"SET SESSION {name[8:]} = {literal}")
        elif "." in name:
            option, flag = name.split(".", 1)
            compound.setdefault(option, []).append(f"{flag}={text}")
        else:
            mysqld.append(f"{name}={text}")
    mysqld += [f"{option}={','.join(flags)}" for option, flags in compound.items()]
    return {"mysqld": mysqld, "session": session, "run": run}


def _parse_rqg_combinations(text: str, where: str) -> List[List[str]]:
    """The groups of ``$combinations = [ [ 'a', "b" ], ... ];`` (comments and whitespace aside)."""
    m = re.search(r"\$combinations\s*=\s*\[", text)
    if not m:
        raise _bad(where, "no $combinations = [ ... ] list")
    i, groups, group, depth = m.end(), [], None, 1

    def location(at: int) -> str:
        line = text.count("\n", 0, at) + 1
        return f"{where}:{line}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"
    while i < len(text) and depth > 0:
        c = text[i]
        if c.isspace() or c == ",":
            i += 1
        elif c == "#":
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif c == "[":
            if depth != 1:
                raise _core.InvalidInput(f"{location(i)}: a list inside a group: only lists of option strings are read")
            group, depth = [], 2
            i += 1
        elif c == "]":
            if depth == 2:
                groups.append(group)
            depth -= 1
            i += 1
        elif c in "'\"":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= len(text):
                raise _core.InvalidInput(f"{location(i)}: an unterminated string")
            if depth != 2:
                raise _core.InvalidInput(f"{location(i)}: a string outside a group")
            group.append(" ".join(text[i + 1:j].split()))
            i = j + 1
        else:
            raise _core.InvalidInput(f"{location(i)}: Perl that is not a list of option strings ({text[i:i + 20]!r})")
    if depth > 0:
        raise _core.InvalidInput(f"{location(len(text))}: the $combinations list does not end")
    for k, g in enumerate(groups):
        if not g:
            raise _core.InvalidInput(f"{where}: group {k + 1} has no alternatives")
    return groups
