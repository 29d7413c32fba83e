"""Reduction of a finding to a verified mysql-test-run test case: the reducer, its lab of servers,
the shrinking passes and the test case writer."""

from .reducer import REDUCIBLE, Reduction, reduce

__all__ = ["REDUCIBLE", "reduce", "Reduction"]
