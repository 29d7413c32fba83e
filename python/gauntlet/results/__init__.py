"""What runs leave behind, read back: RunResult and Finding, tables (pandas) and plots, and the root
causes of many runs' findings (triage), the catalogues of known bugs they are matched against, and
what of the server's own surface their statements reached (Reach)."""

from .frames import KINDS, flatten, plot_timeline, timeline_frame
from .known_bugs import Catalogue, CheckResult, KnownBug, load_catalogue
from .reach import Reach, reach_of
from .run_result import Finding, RunResult, compare, server_lines, servers_of
from .statement_log import read_statement_log
from .triage import Triage, triage

__all__ = ["Catalogue", "CheckResult", "compare", "Finding", "flatten", "KINDS", "KnownBug", "load_catalogue",
           "plot_timeline", "Reach", "reach_of", "read_statement_log", "RunResult", "server_lines", "servers_of",
           "timeline_frame", "Triage", "triage"]
