"""`gauntlet hunt`, the CI main job: rounds over the hunting grammars, random schemas and option rows
within a time budget, root causes as they form, reproducers for the new ones."""

from .hunt import ORACLES, HuntResult, default_known_bugs, hunt, parse_duration

__all__ = ["HuntResult", "hunt", "default_known_bugs", "parse_duration", "ORACLES"]
