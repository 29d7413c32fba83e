"""Minimal queries checked by Debian's mariadb-test-run: what ``gauntlet triage --verify`` does.

A relation finding's minimal query comes with the data it read (``minimal["data"]``,
oracle/data_snapshot.h), so it runs alone. Each becomes a test case (testcase.minimal_test_files):
the data, the session's settings, both sides of the relation written to files and compared. All run
in one mariadb-test-run call on the server binary the run used, each with its target's options and
the values the run's server had where mariadb-test-run's own differ. A test case that dies naming its
relation shows the wrong result on a fresh server from the minimal query alone.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import tempfile
from typing import Dict, List, Tuple

from .. import _core
from ..server import DEFAULT_BINARY, ManagedServer, server_binary
from .lab import mtr_overrides
from .mtr import run_mtr
from .testcase import minimal_evidence, minimal_test_files, relation_failed


def verify_minimal(findings: List[dict], work: pathlib.Path, timeout: float = 1800) -> List[dict]:
    """For each finding (a finding.json dict), whether mariadb-test-run shows its minimal query's wrong
    result: ``{"verified": bool, "why": str}``, and ``"test"`` (the .test file, kept in ``work``) when
    one was written."""
    work.mkdir(parents=True, exist_ok=True)
    results: List[dict] = []
    files, names = [], {}
    overrides: Dict[Tuple[str, ...], List[str]] = {}
    for n, finding in enumerate(findings, 1):
        options, why = _target_options(finding)
        if why:
            results.append({"verified": False, "why": why})
            continue
        key = tuple(options)
        if key not in overrides:
            overrides[key] = _server_values(options) + options
        name = f"minimal_{n:03d}"
        written = minimal_test_files(finding, name, overrides[key])
        if isinstance(written, str):
            results.append({"verified": False, "why": written})
            continue
        for suffix, text in written.items():
            (work / f"{name}{suffix}").write_text(text)
            files.append(work / f"{name}{suffix}")
        names[n - 1] = name
        results.append({"test": str(work / f"{name}.test")})
    if files:
        try:
            run = run_mtr(files, work / "var", timeout=timeout, parallel=2)
        except FileNotFoundError as e:
            run = None
            for i in names:
                results[i].update(verified=False, why=str(e))
        finally:
            shutil.rmtree(work / "var", ignore_errors=True)
        if run is not None:
            (work / "mtr.log").write_text(run.output)
            for i, name in names.items():
                results[i].update(_verdict(findings[i], run.status.get(name), run.section(name)))
    (work / "verified.json").write_text(json.dumps(results, indent=2) + "\n")
    return results


def _verdict(finding: dict, status, section: str) -> dict:
    if status == "fail" and relation_failed(minimal_evidence(finding), section):
        return {"verified": True, "why": "mariadb-test-run showed the wrong result (its relation failed)"}
    if status == "pass":
        return {"verified": False, "why": "mariadb-test-run passed it: the relation held on a fresh server"}
    if status == "fail":
        return {"verified": False, "why": "mariadb-test-run failed it otherwise (mtr.log)"}
    return {"verified": False, "why": f"mariadb-test-run did not run it ({status or 'no status'}; mtr.log)"}


def _target_options(finding: dict) -> Tuple[List[str], str]:
    """The server options of the finding's target as NAME=VALUE, or why its server is not the one
    mariadb-test-run runs."""
    name = (finding.get("targets") or ["default"])[0]
    target = (finding.get("target_details") or {}).get(name, {})
    server = target.get("server") or "default"
    binary = server_binary(server)
    if not os.path.isfile(binary) or os.path.realpath(binary) != os.path.realpath(DEFAULT_BINARY):
        return [], f"mariadb-test-run runs {DEFAULT_BINARY}, the finding's target is {server}"
    return [f"{k}={v}" for k, v in (target.get("options") or {}).items()], ""


def _server_values(options: List[str]) -> List[str]:
    """What a server started as the run started it has where mariadb-test-run's differs."""
    with tempfile.TemporaryDirectory(prefix="gauntlet-verify-") as tmp:
        with ManagedServer(pathlib.Path(tmp) / "server", mysqld=options, die_with_parent=True) as server:
            return mtr_overrides(_core.Connection.open(server.connection))
