"""The ``gauntlet`` command: one sub-command per task (gensql, run, replay, reduce, server, plan, campaign, bench)."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
