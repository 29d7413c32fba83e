"""Runs as tables and plots: flat records and timelines.

pandas and matplotlib are imported on first use, so the rest of Gauntlet
works without them.
"""

from __future__ import annotations

from typing import Sequence

from .. import _core

KINDS = _core.OUTCOME_KINDS  # C++ owns the table (cpp/exec/outcome.cc)
TIMELINE_COLUMNS = ["statements", "transactions", "p50_ms", "p95_ms", "p99_ms", "max_ms"] + [f"n_{k}" for k in KINDS]


def flatten(summary: dict) -> dict:
    """A summary as one level of ``name: scalar``: nested keys joined with ``.``
    (``latency_ms.p95``, ``outcomes.ok``, ``settings.seed``, ``server_info.version``), errors
    as ``errors.<code>`` counts, findings as a count and their kinds, the reach as
    ``reach.<category>`` counts of names reached, lists as text."""
    flat: dict = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, (list, tuple)):
            flat[prefix] = " ".join(map(str, value)) if all(not isinstance(v, (dict, list)) for v in value) \
                else len(value)
        else:
            flat[prefix] = value

    for key, value in summary.items():
        if key == "errors":
            for e in value:
                flat[f"errors.{e['code']}"] = e["count"]
        elif key == "latency_histogram":
            continue
        elif key == "connect_errors":
            for e in value:
                flat[f"connect_errors.{e['code']}"] = e["count"]
        elif key == "findings":
            flat["findings"] = len(value)
            flat["finding_kinds"] = " ".join(sorted({f["kind"] for f in value}))
        elif key == "settings" and isinstance(value, dict):
            sources = value.get("grammar_sources") or []
            walk("settings", {k: v for k, v in value.items() if k != "grammar_sources"})
            flat["settings.grammar_sha256"] = " ".join(s["sha256"][:12] for s in sources)
        elif key == "reach" and isinstance(value, dict):  # names reached per category (Reach has them all)
            for name, category in value.get("categories", {}).items():
                flat[f"reach.{name}"] = len(category.get("reached", {}))
        elif key == "server_info" and isinstance(value, dict):
            walk("server_info", {k: v for k, v in value.items() if k != "command_line"})
            flat["server_info.options"] = " ".join(o for o in (value.get("command_line") or [])[1:])
        else:
            walk(key, value)
    return flat


def timeline_frame(timeline: Sequence[dict]):
    """One row per whole second, indexed by ``t``: statements, transactions, latency
    percentiles (ms) and ``n_<kind>`` per outcome kind."""
    import pandas as pd
    rows = []
    for s in timeline:
        row = {k: v for k, v in s.items() if k != "outcomes"}
        row.update({f"n_{k}": v for k, v in s.get("outcomes", {}).items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=["t"] + TIMELINE_COLUMNS).set_index("t")


def plot_timeline(timeline: Sequence[dict], title: str = ""):
    """Throughput, latency percentiles and errors per second, one panel each (matplotlib).
    Returns the Figure; Jupyter shows it inline."""
    import matplotlib.pyplot as plt
    frame = timeline_frame(timeline)
    fig, (rate, latency, errors) = plt.subplots(3, 1, sharex=True, figsize=(9, 7))
    rate.plot(frame.index, frame["statements"], label="statements/s")
    rate.plot(frame.index, frame["transactions"], label="transactions/s")
    rate.set_ylabel("per second")
    rate.legend(loc="upper right")
    for p in ("p50_ms", "p95_ms", "p99_ms"):
        latency.plot(frame.index, frame[p], label=p.replace("_ms", ""))
    latency.set_ylabel("latency ms")
    latency.legend(loc="upper right")
    failed = [k for k in KINDS[1:] if f"n_{k}" in frame and frame[f"n_{k}"].sum() > 0]
    if failed:
        errors.stackplot(frame.index, [frame[f"n_{k}"] for k in failed], labels=failed)
        errors.legend(loc="upper right")
    errors.set_ylabel("not ok per second")
    errors.set_xlabel("seconds")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    plt.close(fig)  # returned, not shown twice in notebooks
    return fig
