"""Reports of any hunt, run, campaign or bench folder, during the run and after it: JUnit XML for CI
viewers, Markdown for a pull-request comment, one self-contained HTML file."""

from __future__ import annotations

import os
import pathlib
from typing import Optional, Union

from ..runs.folder import write_atomically
from .html import html
from .junit import junit_xml
from .markdown import markdown
from .model import Report, load_report

PathLike = Union[str, os.PathLike]

__all__ = ["report", "load_report", "Report", "junit_xml", "markdown", "html"]


def report(folder: PathLike, *, junit: Optional[PathLike] = None, markdown_file: Optional[PathLike] = None,
           html_file: Optional[PathLike] = None) -> Report:
    """Reads ``folder`` and writes the reports asked for; returns what they show."""
    r = load_report(folder)
    for path, render in ((junit, junit_xml), (markdown_file, markdown), (html_file, html)):
        if path is None:
            continue
        data = render(r)
        target = pathlib.Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data.decode("utf-8") if isinstance(data, bytes) else data)
    return r
