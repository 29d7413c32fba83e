"""What runs leave behind, read back: RunResult and Finding, tables (pandas) and plots, and the root
causes of many runs' findings (triage), and the catalogues of known bugs they are matched against."""

from .frames import KINDS, flatten, plot_timeline, timeline_frame
from .known_bugs import Catalogue, CheckResult, KnownBug, load_catalogue
from .run_result import Finding, RunResult, compare, server_lines, servers_of
from .statement_log import read_statement_log
from .triage import Triage, triage

__all__ = ["Catalogue", "CheckResult", "compare", "Finding", "flatten", "KINDS", "KnownBug", "load_catalogue",
           "plot_timeline", "read_statement_log", "RunResult", "server_lines", "servers_of", "timeline_frame", "Triage",
           "triage"]
