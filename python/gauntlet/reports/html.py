"""A report as one self-contained HTML file (jinja2): the verdict, the totals, the timeline plot
(matplotlib, embedded as a PNG data URI), every root cause with its minimal query, difference and
reproducer, and the checks. Nothing is fetched from elsewhere: a Content-Security-Policy forbids it."""

from __future__ import annotations

import base64
import io

from .model import Report


def html(report: Report) -> str:
    """The report's HTML text."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.PackageLoader("gauntlet.reports", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    causes = report.new_causes + [c for c in report.causes if not c.new]  # new first
    return env.get_template("report.html.j2").render(report=report, causes=causes, plots=_plots(report))


def _plots(report: Report) -> list:
    series = [(label, ts, rates) for label, ts, rates in report.timelines if ts]
    if not series:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 3.2), dpi=90)
    for label, ts, rates in series:
        ax.plot(ts, rates, label=label, linewidth=1)
    ax.set_xlabel("seconds into the round")
    ax.set_ylabel("statements per second")
    if len(series) <= 12:
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return [("statements per second, each round", base64.b64encode(buf.getvalue()).decode("ascii"))]
