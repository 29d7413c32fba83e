"""A report as Markdown for a pull-request comment: the totals in a line, the new root causes first
with their reproducers (folded), then the known ones in a table."""

from __future__ import annotations

from .model import Report

_FENCE = "```"


def markdown(report: Report, max_test_chars: int = 6000) -> str:
    """The report's Markdown text."""
    new = report.new_causes
    verdict = (f"**{len(new)} new root cause{'s' if len(new) != 1 else ''}**" if new
               else "**nothing new**")
    lines = [f"### {report.title}", "",
             f"{verdict} · " + " · ".join(f"{k}: {v}" for k, v in report.totals.items()), ""]
    if report.running:
        lines += ["_Still running: what it found so far._", ""]
    for i, c in enumerate(new, 1):
        lines.append(f"#### {i}. {c.kind} ×{c.count}: `{_inline(c.key)}`")
        lines.append("")
        if c.reproducer:
            state = "verified by mariadb-test-run" if c.verified else f"not verified: {c.why}"
            lines.append(f"Reproducer `{c.reproducer}` ({state}); finding `{c.example}`.")
        else:
            lines.append(f"Finding `{c.example}`" + (f" (no reproducer: {c.why})" if c.why else "") + ".")
        lines.append("")
        if c.minimal:
            lines += [f"{_FENCE}sql", c.minimal, _FENCE, ""]
        if c.reproducer_text:
            text = c.reproducer_text if len(c.reproducer_text) <= max_test_chars else (
                c.reproducer_text[:max_test_chars] + "\n... (cut)")
            lines += ["<details><summary>mysql-test-run test case</summary>", "", _FENCE, text.rstrip(), _FENCE, "",
                      "</details>", ""]
    known = [c for c in report.causes if not c.new]
    if known:
        lines += ["| known bug | kind | occurrences | root cause |", "| --- | --- | ---: | --- |"]
        lines += [f"| {c.known} | {c.kind} | {c.count} | `{_inline(c.key)}` |" for c in known]
        lines.append("")
    failed = [c for c in report.cases if c.status == "failed" and not report.causes]
    if failed:  # campaigns and benches: their failed cases are what there is to say
        lines += ["| failed | why |", "| --- | --- |"] + [f"| {c.name} | {_inline(c.message)} |" for c in failed] + [""]
    lines.append(f"Results: `{report.folder}`")
    return "\n".join(lines) + "\n"


def _inline(text: str) -> str:
    return " ".join(text.split()).replace("`", "'").replace("|", "\\|")
