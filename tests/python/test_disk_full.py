"""A full disk under --out ends a run cleanly: exit 2 naming the file and what the results lack,
a summary.json that says so (room for it is held from the start), no torn or empty summary, no
traceback, no server left behind. Tried on a real full filesystem: a 2 MB tmpfs (needs root,
as CI has)."""

import contextlib
import json
import subprocess

import gauntlet
from gauntlet import _core
import pytest

from conftest import REPO
from faults import gauntlet_cli, mount_tmpfs, processes_under

OPTIMIZER = str(REPO / "grammars" / "optimizer.yy")


@contextlib.contextmanager
def small_disk(path, size="2m"):
    path.mkdir()
    mount_tmpfs(path, size)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def _ended_by_full_disk(r, out, wanted: str) -> dict:
    assert r.returncode == 2 and "Traceback" not in r.stderr, (r.stdout[-2000:], r.stderr[-2000:])
    assert "cannot write" in r.stderr and wanted in r.stderr, r.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "error" and summary["error"]["kind"] == "output", summary["error"]
    assert wanted in summary["error"]["message"]
    assert not (out / ".gauntlet.summary-room").exists() and not (out / "summary.json.tmp").exists()
    assert processes_under(out) == []
    return summary


@pytest.mark.slow
def test_a_full_disk_ends_a_run_cleanly_and_the_summary_says_what_is_missing(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        # The managed server's datadir does not fit: said before any statement, the part copied removed.
        out = disk / "managed"
        r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "20", "--out", out)
        summary = _ended_by_full_disk(r, out, "the server's datadir")
        assert summary["statements"] == 0 and not (out / "server" / "data").exists()
        subprocess.run(["rm", "-rf", str(out)], check=True)

        # Bench and campaign alike: exit 2 naming the file, nothing left running.
        space = tmp_path / "space.json"
        space.write_text(json.dumps({"parameters": {"join_cache_level": [2, 4]}}))
        for argv in (["bench", "--workload", "oltp_read_only", "--target", "a", "--runs", "2", "--duration", "3",
                      "--out", str(disk / "bench")],
                     ["campaign", str(space), "--plan", "exhaustive", "--grammar", OPTIMIZER, "--duration", "2",
                      "--out", str(disk / "campaign")]):
            r = gauntlet_cli(*argv)
            assert r.returncode == 2 and "cannot write" in r.stderr + r.stdout, (argv[0], r.stdout[-1500:], r.stderr[-1500:])
            assert "Traceback" not in r.stderr and processes_under(disk) == []
            subprocess.run(["rm", "-rf", argv[-1]], check=True)

        # A server elsewhere, statement logs under --out: they fill the disk, the run stops at once.
        with gauntlet.ManagedServer(tmp_path / "server", die_with_parent=True) as server:
            out = disk / "logged"
            r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "60", "--threads", "2",
                             "--statement-log", "--server", server.dsn, "--out", out)
            summary = _ended_by_full_disk(r, out, "statement log ends before statement")
            assert summary["statements"] > 0 and summary["seconds"] < 30
            # What was logged reads back, the torn last line dropped, and replay knows the log is short.
            logs = sorted(out.glob("statements-*.jsonl"))
            logged = sum(len(_core.read_statement_log(str(p))) for p in logs)
            assert 0 < logged <= summary["statements"]
            with pytest.warns(UserWarning, match="the run's results are incomplete, the replay executes what"):
                replayed = gauntlet.replay(out, out=tmp_path / "replay", server=server.dsn)
            assert replayed.summary()["statements"] == logged

            # The Python API: the same result, exit_code 2.
            subprocess.run(["rm", "-rf", str(out)], check=True)
            result = gauntlet.run(OPTIMIZER, duration=60, threads=2, statement_log=True, server=server.dsn,
                                  out=out)
            assert result.exit_code == 2 and result.summary()["error"]["kind"] == "output"
