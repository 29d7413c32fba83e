"""What runs leave behind, read back: RunResult and Finding, tables (pandas) and plots, and the root
causes of many runs' findings (triage)."""

from .frames import KINDS, flatten, plot_timeline, timeline_frame
from .run_result import Finding, RunResult, compare
from .triage import Triage, triage

__all__ = ["compare", "Finding", "flatten", "KINDS", "plot_timeline", "RunResult", "timeline_frame", "Triage",
           "triage"]
