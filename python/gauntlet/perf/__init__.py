"""Performance: run summaries and verdicts (stats), A/B benchmarks (bench), query-level comparisons
(queries) and sweeps over threads or option plans (sweep)."""

from .bench import BenchResult, bench
from .queries import QueryComparison, compare_queries
from .stats import QueryClass, RunSummary, Verdict, compare, query_classes, runs_needed, summarize, warmup_end
from .sweep import BestToBest, ScalingResult, best_to_best, scaling

__all__ = ["bench", "BenchResult", "best_to_best", "BestToBest", "compare", "compare_queries", "query_classes",
           "QueryClass", "QueryComparison", "runs_needed", "RunSummary", "scaling", "ScalingResult", "summarize",
           "Verdict", "warmup_end"]
