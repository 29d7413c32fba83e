"""Gauntlet: randomized QA for MySQL-family servers.

>>> import gauntlet
>>> g = gauntlet.Grammar.from_string("query: SELECT _digit ;")
>>> g.generate(2, seed=7)  # doctest: +SKIP
"""

try:
    from . import _core
except ImportError as e:  # pragma: no cover - only without a build
    raise ImportError(
        "gauntlet._core is not built. Run `make build` in the source tree, or "
        "`pip install --no-build-isolation --no-index .`") from e

from ._core import GauntletError, GenerationError, InvalidInput, OutputError
from .version import __version__
from .grammar import Column, Coverage, Generator, Grammar, RuleContext, Schema, Table, split_statements
from .server import Connection, ManagedServer, ServerError, ServerRefused, Target, parse_dsn
from .oracles import Observation, Oracle, Skip
from .results import (Catalogue, Finding, Reach, RunResult, Triage, compare, load_catalogue, reach_of,
                      read_statement_log, triage)
from .runs import Run, Stopped, replay, run
from .hunts import HuntResult, hunt
from .reports import report
from .reduction import Reduction, reduce
from .combi import Campaign, CampaignResult, OptionSpace, Plan
from .perf import BenchResult, BestToBest, QueryComparison, ScalingResult, best_to_best, bench, compare_queries, scaling

__all__ = [
    "bench", "BenchResult", "best_to_best", "BestToBest", "Campaign", "CampaignResult", "Catalogue", "Column", "compare",
    "compare_queries", "Connection", "Coverage", "Finding", "GauntletError", "GenerationError", "Generator",
    "Grammar", "hunt", "HuntResult", "InvalidInput", "load_catalogue", "ManagedServer", "Observation", "OptionSpace", "Oracle", "OutputError", "parse_dsn",
    "Plan", "QueryComparison", "Reach", "reach_of", "read_statement_log", "reduce", "Reduction", "replay", "report", "RuleContext", "Run", "run", "RunResult", "scaling",
    "ScalingResult", "Schema", "ServerError", "ServerRefused", "Skip", "split_statements", "Stopped", "Table", "Target",
    "Triage", "triage",
]


def __dir__():
    return __all__
