"""Debian's mariadb-test-run over test files of ours.

The files go into a suite of their own (named by process and call), so that runs at once, such
as parallel reductions or two test processes, never overwrite each other's files; the suite is
removed afterwards and the output kept.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import pathlib
import re
import shutil
import subprocess
import time
from typing import Dict, List, Optional

from .. import _core
from ..corpus import SUITE

MTR_DIR = SUITE  # Debian's mariadb-test: the suite, and the runner beside it
RUNNER = MTR_DIR / "mariadb-test-run"
_SUITES = itertools.count(1)
_STATUS = re.compile(r"^(?:worker\[\d+\]\s+)?[\w.-]+\.([\w-]+)\s+.*\[ (pass|fail|skipped|disabled) \]", re.M)


@dataclasses.dataclass
class MtrRun:
    """What one mariadb-test-run call did: its command, output, and each test's status."""
    command: List[str]
    seconds: float
    output: str
    status: Dict[str, str]  # test name -> pass | fail | skipped | disabled (absent: not run)

    def section(self, name: str) -> str:
        """The output from the test's status line to the next test's: a failure's message, the
        server's log of the test and its stack trace."""
        lines, inside = [], False
        for line in self.output.splitlines():
            m = _STATUS.match(line)
            if m:
                inside = m.group(1) == name
            if inside:
                lines.append(line)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"MtrRun({len(self.status)} tests, {self.seconds} s, {self.status})"


def mtr_basedir(binary: str) -> str:
    """The folder mariadb-test-run finds ``binary`` below (it looks for mariadbd in BASEDIR/sbin, bin,
    libexec or sql, MTR_BINDIR_FORCED naming BASEDIR). Raises InvalidInput for a binary it would not
    find there."""
    path = pathlib.Path(binary).resolve()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise _core.InvalidInput(f"{binary}: no such server binary")
    if path.name != "mariadbd" or path.parent.name not in ("sbin", "bin", "libexec", "sql"):
        raise _core.InvalidInput(f"{binary}: mariadb-test-run runs a binary named mariadbd in a folder sbin, bin, "
                                 "libexec or sql (as Debian's packages unpack)")
    return str(path.parent.parent)


def run_mtr(files: List[pathlib.Path], vardir: pathlib.Path, timeout: float = 600, parallel: int = 1,
            testcase_minutes: int = 10, binary: Optional[str] = None) -> MtrRun:
    """Runs the tests among ``files`` (``NAME.test`` with their ``NAME.opt`` and ``NAME.result``) on
    Debian's server binary (or ``binary``, a mariadbd of the same series, such as one unpacked with
    ``dpkg -x``), in ``vardir``. A test's ``.result`` says what a server without the bug prints;
    mariadb-test-run records none."""
    if not RUNNER.exists():
        raise FileNotFoundError(f"{RUNNER} is not installed (Debian package mariadb-test)")
    env = dict(os.environ)
    if binary:
        env["MTR_BINDIR_FORCED"] = mtr_basedir(binary)
    suite_name = f"gauntlet_{os.getpid()}_{next(_SUITES)}"
    suite = MTR_DIR / "suite" / suite_name
    names = []
    for f in files:
        folder = suite / ("r" if f.suffix == ".result" else "t")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, folder / f.name)
        if f.suffix == ".test":
            names.append(f.stem)
    shutil.rmtree(vardir, ignore_errors=True)
    cmd = ["perl", str(RUNNER), f"--suite={suite_name}", f"--vardir={vardir}", "--force", "--max-test-fail=0",
           "--retry=0", f"--testcase-timeout={testcase_minutes}", f"--parallel={parallel}",
           "--port-group-size=20"] + names
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=MTR_DIR, capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env)
        output = p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        output += "\n(mariadb-test-run timed out)"
    finally:
        shutil.rmtree(suite, ignore_errors=True)
    status = {m.group(1): m.group(2) for m in _STATUS.finditer(output) if m.group(1) in names}
    return MtrRun(cmd, round(time.monotonic() - t0, 1), output, status)
