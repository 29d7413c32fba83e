"""Helpers for the fault tests: inject a fault into a live run, then check the run ended right."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import gauntlet
import pytest

from conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO / "python")}


def gauntlet_cli(*args, timeout=120, **kwargs) -> subprocess.CompletedProcess:
    """`gauntlet ARGS` in a child process (text output)."""
    return subprocess.run([sys.executable, "-m", "gauntlet", *map(str, args)], env=ENV, capture_output=True,
                          text=True, timeout=timeout, **kwargs)


def processes_under(path) -> list:
    """Command lines of processes (servers, wrapper children) that name ``path``."""
    out = subprocess.run(["pgrep", "-af", "."], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(path) in line and "pgrep" not in line]


def mount_tmpfs(path, size: str) -> None:
    """A small filesystem to fill. The suite runs as root (as CI does): a machine where this cannot be
    mounted fails the test rather than skip a promised behaviour."""
    if os.system(f"mount -t tmpfs -o size={size} tmpfs {path}") != 0:
        pytest.fail(f"cannot mount a {size} tmpfs at {path}: the disk-full tests need root and mount rights")


def own_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def check_ended(out: pathlib.Path, *, stop_reason: str, findings: list, executed: bool = True) -> dict:
    """summary.json and events.jsonl complete and parseable, the findings exactly ``findings`` (kinds),
    and nothing left running under ``out``."""
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == stop_reason, summary
    assert [f["kind"] for f in summary["findings"]] == findings, summary["findings"]
    if executed:
        events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
        assert events[0]["type"] == "start" and events[-1]["type"] == "end", events[-3:]
        assert [e["kind"] for e in events if e["type"] == "finding"] == findings
    deadline = time.monotonic() + 10  # a killed server's children may take a moment to go
    while processes_under(out) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_under(out) == []
    return summary


class Injector(threading.Thread):
    """Sends ``sig`` to a managed server once, at a moment of a run in ``out``.

    Moments: "early" (as soon as sessions run), "mid" (a random point of the
    first 1.5 s of statements), "init" (while the sessions' init rules run),
    "load" (while data is being loaded).
    """

    def __init__(self, server: gauntlet.ManagedServer, out: pathlib.Path, sig: int, moment: str, rng):
        super().__init__(daemon=True)
        self.server, self.out, self.sig, self.moment = server, out, sig, moment
        self.delay = {"early": 0.0, "init": 0.15, "mid": rng.uniform(0.05, 1.5), "load": 0.0}[moment]
        self.sent = False
        self.start()

    def run(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.moment == "load":
                if self._loading():
                    break
            elif (self.out / "events.jsonl").exists():
                break
            time.sleep(0.005)
        else:
            return
        time.sleep(self.delay)
        if self.server.alive:
            os.kill(self.server.pid, self.sig)
            self.sent = True

    def _loading(self) -> bool:
        if not self.server.alive or not os.path.exists(self.server.socket):
            return False
        try:
            rows = gauntlet.Connection(self.server).query(
                "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test'")
        except gauntlet.GauntletError:
            return False
        return int(rows[0][0]) > 0


def killed_outright_leaves_nothing(args, out: pathlib.Path, servers: int = 1) -> None:
    """`gauntlet ARGS` is killed with SIGKILL (its own process only) once ``servers`` processes
    name ``out``; within 30 s none may be left."""
    p = subprocess.Popen([sys.executable, "-m", "gauntlet", *map(str, args)], env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(processes_under(out)) < servers and time.monotonic() < deadline:
            assert p.poll() is None, f"gauntlet {args[0]} ended before {servers} server(s) started"
            time.sleep(0.2)
        assert processes_under(out), f"no server under {out}"
        p.kill()
        p.wait(timeout=30)
        deadline = time.monotonic() + 30
        while processes_under(out) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert processes_under(out) == []
    finally:
        if p.poll() is None:
            p.kill()
