"""Runs: a grammar (or a replayed statement log) against one or more servers, as plain runs, keep-going
rounds and replays. ``plan`` checks settings, ``preparation`` readies the targets, ``execute`` runs
the statements in C++ and always leaves summary.json."""

from .run import Run, replay, run
from .signals import Stopped

__all__ = ["replay", "Run", "run", "Stopped"]
