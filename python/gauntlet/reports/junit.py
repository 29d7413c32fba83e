"""JUnit XML of a report: a testsuite per grammar (or campaign, bench), its cases as model.py makes
them; written with lxml and validated against junit.xsd (the layout CI viewers read) before it is
saved, so a file that a viewer would refuse is never written."""

from __future__ import annotations

import datetime
import pathlib
import socket
from typing import Dict, List

from .. import _core
from .model import Case, Report

XSD = pathlib.Path(__file__).with_name("junit.xsd")


def junit_xml(report: Report) -> bytes:
    """The report as JUnit XML (bytes, UTF-8), validated."""
    from lxml import etree
    suites: Dict[str, List[Case]] = {}
    for case in report.cases:
        suites.setdefault(case.suite, []).append(case)
    root = etree.Element("testsuites", name=report.title)
    stamp = datetime.datetime.now().replace(microsecond=0).isoformat()
    for name, cases in suites.items():
        suite = etree.SubElement(root, "testsuite", name=name, tests=str(len(cases)),
                                 failures=str(sum(c.status == "failed" for c in cases)), errors="0",
                                 skipped=str(sum(c.status == "skipped" for c in cases)),
                                 time=f"{sum(c.seconds for c in cases):.3f}", timestamp=stamp,
                                 hostname=socket.gethostname())
        props = etree.SubElement(suite, "properties")
        for key, value in report.totals.items():
            etree.SubElement(props, "property", name=key, value=value)
        etree.SubElement(props, "property", name="folder", value=str(report.folder))
        for c in cases:
            case = etree.SubElement(suite, "testcase", name=c.name, classname=f"gauntlet.{report.kind}.{name}",
                                    time=f"{c.seconds:.3f}")
            if c.status in ("failed", "skipped"):
                outcome = etree.SubElement(case, "failure" if c.status == "failed" else "skipped",
                                           message=_clean(c.message), type=c.name if c.status == "failed" else "known")
                outcome.text = _clean(c.text)
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(s.get(attr)) for s in root)))
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    check_junit(data)
    return data


def check_junit(data: bytes) -> None:
    """Raises OutputError when ``data`` does not fit junit.xsd."""
    from lxml import etree
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    doc = etree.fromstring(data)
    if not schema.validate(doc):
        raise _core.OutputError(f"JUnit XML does not fit {XSD.name}: {schema.error_log.last_error}")


def _clean(text: str) -> str:
    # XML 1.0 has no place for most control characters (a result's raw bytes may hold them).
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 else f"\\x{ord(ch):02x}" for ch in text)
