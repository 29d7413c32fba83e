"""Oracles written in Python (gauntlet.Oracle); the built-in ones are C++ (``_core.known_oracles()``)."""

from .custom import Observation, Oracle, Skip

__all__ = ["Observation", "Oracle", "Skip"]
