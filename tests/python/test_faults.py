"""The fault matrix: real managed servers under load, faults injected at many moments.

Every case checks that Gauntlet ends the way the README says: the documented
exit code, exactly one finding of the right kind, summary.json and
events.jsonl complete, no server or child process left, no session thread
still running. The crash cases repeat 20 times each with random moments and
session counts, so that a race that shows once in ten runs shows here.
"""

import json
import os
import random
import signal
import threading
import time

import gauntlet
import pytest
from gauntlet import Grammar, ManagedServer

from conftest import REPO, shared_dir
from faults import Injector, check_ended, gauntlet_cli, mount_tmpfs, own_threads, processes_under

PLAIN = "conf__examples__example.yy"               # no Perl
PERL = "conf__optimizer__optimizer_no_subquery.yy"  # 19 Perl blocks
# Statements that take a while, so that faults land mid-statement too.
SLOW = "query_add: SELECT BENCHMARK(200000, MD5(_digit)) ;\n"
INIT = "query_init: SELECT SLEEP(0.5) ;\n"


def grammar(name: str, *extra: str) -> Grammar:
    text = (shared_dir() / "rqg-grammars" / name).read_text()
    return Grammar.from_string(text + "\n" + "".join(extra), name=name)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL], ids=lambda s: s.name)
def test_server_crash_at_random_moments(tmp_path, sig):
    rng = random.Random(sig)
    grammars = {"plain": grammar(PLAIN, SLOW), "perl": grammar(PERL, SLOW),
                "init": grammar(PLAIN, SLOW, INIT)}
    threads_before = own_threads()
    for i in range(20):
        threads = [1, 2, 8, 32][i % 4]
        kind = ["plain", "perl", "init"][i % 3]
        moment = "init" if kind == "init" else rng.choice(["early", "mid"])
        out = tmp_path / f"r{i}"
        server = ManagedServer(out / "server", core_file=False)
        injector = Injector(server, out, sig, moment, rng)
        result = gauntlet.run(grammars[kind], server=server, threads=threads, duration=30, out=out,
                              hang_timeout=20)
        injector.join()
        where = f"iteration {i}: {threads} sessions, {kind} grammar, {moment} +{injector.delay:.2f}s"
        assert injector.sent, where
        summary = check_ended(out, stop_reason="crash", findings=["crash"])
        assert summary["findings"][0]["signature"].startswith(f"signal {int(sig)}"), where
        assert result.exit_code == 1, where
        assert summary["seconds"] < 20, where
        assert not server.alive
        assert own_threads() == threads_before, where  # every session thread joined


@pytest.mark.slow
def test_crash_while_the_crash_report_is_collected(tmp_path):
    # With a core file, gdb takes seconds inside the report while the other
    # 31 sessions lose their connections and fail to reconnect.
    server = ManagedServer(tmp_path / "server", core_file=True)
    Injector(server, tmp_path, signal.SIGSEGV, "mid", random.Random(1))
    result = gauntlet.run(grammar(PLAIN, SLOW), server=server, threads=32, duration=30, out=tmp_path)
    summary = check_ended(tmp_path, stop_reason="crash", findings=["crash"])
    assert "#0" in summary["findings"][0]["crash"]["gdb_backtrace"]
    assert result.exit_code == 1


def test_crash_during_data_load_is_a_crash_finding(tmp_path):
    spec = gauntlet.Schema([gauntlet.Table("t1", [gauntlet.Column("id", "int", primary=True, auto_increment=True),
                                                   gauntlet.Column("v", "varchar(200)", values="_varchar(200)")],
                                           rows=400000)])
    server = ManagedServer(tmp_path / "server", core_file=False)
    injector = Injector(server, tmp_path, signal.SIGSEGV, "load", random.Random(2))
    result = gauntlet.run(grammar(PLAIN), data=spec, server=server, duration=30, out=tmp_path)
    assert injector.sent
    summary = check_ended(tmp_path, stop_reason="crash", findings=["crash"], executed=False)
    assert summary["findings"][0]["signature"].startswith("signal 11")
    assert result.exit_code == 1


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 8, 32])
def test_sigstop_is_one_hang_finding(tmp_path, threads):
    server = ManagedServer(tmp_path / "server", core_file=False)
    Injector(server, tmp_path, signal.SIGSTOP, "mid", random.Random(threads))
    start = time.monotonic()
    result = gauntlet.run(grammar(PERL), server=server, threads=threads, duration=60, hang_timeout=2,
                          out=tmp_path)
    assert time.monotonic() - start < 30
    check_ended(tmp_path, stop_reason="hang", findings=["hang"])
    assert result.exit_code == 1 and not server.alive


@pytest.mark.parametrize("threads", [1, 8])
def test_shutdown_from_the_grammar_is_its_own_finding(tmp_path, threads):
    g = Grammar.from_string("query: ==FACTOR:300== SELECT _digit FROM _table | SHUTDOWN ;")
    result = gauntlet.run(g, threads=threads, duration=30, out=tmp_path)
    summary = check_ended(tmp_path, stop_reason="shutdown", findings=["shutdown"])
    assert "crash" not in summary["findings"][0]["signature"]
    assert result.exit_code == 1


def test_killed_sessions_reconnect_without_a_finding(tmp_path):
    server = ManagedServer(tmp_path / "server", core_file=False).start()
    stop = threading.Event()

    def killer():
        c = server.connect()
        others = ("SELECT ID FROM information_schema.PROCESSLIST "
                  "WHERE ID <> CONNECTION_ID() AND COMMAND <> 'Daemon'")
        # Only once the 8 sessions run: the connection that loads the data and reads the schema
        # back, killed, fails the setup with a clear error; this test is about the sessions.
        while len(c.query(others)) < 8 and not stop.wait(0.05):
            pass
        while not stop.wait(0.3):
            for (pid,) in c.query(others):
                c.execute(f"KILL CONNECTION {pid}")

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    try:
        result = gauntlet.run(grammar(PLAIN, SLOW), server=server, threads=8, duration=4, out=tmp_path)
    finally:
        stop.set()
        t.join()
        server.stop()
    summary = check_ended(tmp_path, stop_reason="duration", findings=[])
    assert summary["outcomes"]["connection"] > 0 and summary["outcomes"]["crash"] == 0
    assert result.exit_code == 0


def limited_user(server: ManagedServer) -> str:
    """A DSN of a user without CONNECTION ADMIN: max_connections binds it (root may always connect)."""
    c = server.connect()
    c.query("CREATE USER IF NOT EXISTS qa@localhost")
    c.query("GRANT ALL ON test.* TO qa@localhost")
    return f"mysql://qa@localhost/test?socket={server.socket}"


def test_max_connections_below_the_session_count(tmp_path):
    # 10 is MariaDB's smallest max_connections.
    with ManagedServer(tmp_path / "server", mysqld={"max_connections": 10}, core_file=False) as server:
        result = gauntlet.run(grammar(PLAIN), server=limited_user(server), threads=16, duration=3,
                              out=tmp_path / "out")
    summary = check_ended(tmp_path / "out", stop_reason="duration", findings=[])
    [refused] = summary["connect_errors"]
    assert refused["code"] == 1040 and refused["count"] > 0
    assert summary["outcomes"]["ok"] > 0 and result.exit_code == 0
    assert "connect error 1040" in result.table()


def test_connections_exhausted_from_outside_is_one_unreachable_finding(tmp_path):
    with ManagedServer(tmp_path / "server", mysqld={"max_connections": 10}, core_file=False) as server:
        dsn = limited_user(server)
        held = [gauntlet.Connection(dsn) for _ in range(10)]
        result = gauntlet.run(grammar(PLAIN), server=dsn, threads=4, duration=30, hang_timeout=2,
                              out=tmp_path / "out", data="none")
        del held
    check_ended(tmp_path / "out", stop_reason="unreachable", findings=["unreachable"], executed=False)
    assert result.exit_code == 1


def test_server_that_never_gets_ready_is_a_start_finding(tmp_path):
    server = ManagedServer(tmp_path / "server", wrapper=["sh", "-c", "sleep 300", "--"], start_timeout=3)
    result = gauntlet.run(grammar(PLAIN), server=server, duration=5, out=tmp_path)
    summary = check_ended(tmp_path, stop_reason="start", findings=["start"], executed=False)
    assert "not ready after" in summary["findings"][0]["detail"]
    assert result.exit_code == 1


def test_server_that_exits_during_startup_is_a_usage_error(tmp_path):
    # It exited on its own, as a server does on a value or setup it refuses: no crash, no finding.
    server = ManagedServer(tmp_path / "server", wrapper=["sh", "-c", "exit 3", "--"], start_timeout=3)
    with pytest.raises(gauntlet.ServerRefused, match="refused to start"):
        gauntlet.run(grammar(PLAIN), server=server, duration=5, out=tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["error"]["kind"] == "input" and not summary["findings"]



@pytest.mark.slow
def test_full_filesystem_under_the_datadir(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    mount_tmpfs(mount, "40m")
    try:
        g = Grammar.from_string("query_init: CREATE TABLE fill (a LONGBLOB) ENGINE=InnoDB ;\n"
                                "query: INSERT INTO fill VALUES (REPEAT('x', 1000000)) | SELECT COUNT(*) FROM fill ;")
        server = ManagedServer(mount / "server", core_file=False)
        result = gauntlet.run(g, server=server, data="none", threads=2, duration=8, out=tmp_path / "out")
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        # The server reports the full disk as errors (1114 ER_RECORD_FILE_FULL, a resource outcome), the
        # run goes on to its deadline, and that is no finding of a server bug. (10.11.19 does this in every
        # run; a crash here would be a server bug worth its own test.)
        assert summary["outcomes"]["resource"] > 0
        assert {e["code"]: e["kind"] for e in summary["errors"]}.get(1114) == "resource", summary["errors"]
        assert summary["findings"] == [] and summary["stop_reason"] == "duration"
        assert result.exit_code == 0
        assert processes_under(mount) == []
    finally:
        os.system(f"umount -l {mount}")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
                         ids=["TERM", "HUP", "INT"])
def test_signals_to_gauntlet_end_the_run_cleanly(tmp_path, sig, code):
    import subprocess
    import sys
    from faults import ENV
    proc = subprocess.Popen([sys.executable, "-m", "gauntlet", "run", "--grammar", str(REPO / "grammars" / "optimizer.yy"),
                             "--duration", "120", "--out", str(tmp_path)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and '"second"' not in _read(tmp_path / "events.jsonl"):
        time.sleep(0.1)
    proc.send_signal(sig)
    time.sleep(0.2)
    proc.send_signal(sig)  # a second one must not break the clean-up
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    summary = check_ended(tmp_path, stop_reason="interrupted", findings=[])
    assert summary["signal"] == sig.name and summary["statements"] > 0


def test_ctrl_c_in_python_raises_keyboard_interrupt_with_the_result(tmp_path):
    def press_ctrl_c(second):
        os.kill(os.getpid(), signal.SIGINT)  # as Jupyter's interrupt does
    with pytest.raises(KeyboardInterrupt) as stopped:
        gauntlet.run(REPO / "grammars" / "optimizer.yy", duration=60, progress=press_ctrl_c, out=tmp_path / "out")
    assert isinstance(stopped.value, gauntlet.Stopped) and stopped.value.signum == signal.SIGINT
    result = stopped.value.result
    assert result.exit_code == 130 and result.summary()["statements"] > 0 and result.summary()["seconds"] < 30
    assert processes_under(tmp_path) == []


@pytest.mark.slow
def test_bench_and_campaign_exit_as_run_does_on_sigterm(tmp_path):
    import subprocess
    import sys
    from faults import ENV
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"parameters": {"join_cache_level": [2, 4, 8]}}))
    commands = {
        "bench": ["bench", "--workload", "oltp_read_only", "--target", "a", "--runs", "2", "--duration", "30",
                  "--out", str(tmp_path / "bench")],
        "campaign": ["campaign", str(space), "--plan", "exhaustive", "--grammar", str(REPO / "grammars" / "optimizer.yy"),
                     "--duration", "30", "--out", str(tmp_path / "campaign")],
    }
    for name, argv in commands.items():
        proc = subprocess.Popen([sys.executable, "-m", "gauntlet", *argv], env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any('"second"' in _read(p) for p in tmp_path.glob(f"{name}/**/events.jsonl")):
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 143, (name, stderr[-2000:])
        assert "Traceback" not in stderr
        assert processes_under(tmp_path / name) == []
    # The campaign's interrupted row is not recorded as done: the next run does it again.
    assert not (tmp_path / "campaign" / "results.jsonl").read_text().strip()


def test_ctrl_c_during_data_load(tmp_path):
    import subprocess
    import sys
    from faults import ENV
    spec = tmp_path / "big.json"
    spec.write_text(json.dumps({"tables": [{"name": "t1", "rows": 3000000, "columns": [
        {"name": "id", "type": "int", "primary": True, "auto_increment": True},
        {"name": "v", "type": "varchar(100)", "values": "_varchar(100)"}]}]}))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "gauntlet", "run", "--grammar", str(REPO / "grammars" / "optimizer.yy"),
                             "--data", str(spec), "--duration", "60", "--out", str(out)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (out / "server" / "server.json").exists():
                try:
                    rows = ManagedServer.attach(out / "server").connect().query(
                        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test'")
                    if int(rows[0][0]) > 0:
                        break
                except gauntlet.GauntletError:
                    pass
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:  # a failure above must not leave the run, or its pipes for a later test's garbage collection
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    summary = check_ended(out, stop_reason="interrupted", findings=[], executed=False)
    assert summary["load"]["cancelled"] and 0 < summary["load"]["rows"] < 3000000


def _read(path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def test_gauntlet_killed_outright_leaves_no_server(tmp_path):
    import subprocess
    import sys
    from faults import ENV
    proc = subprocess.Popen([sys.executable, "-m", "gauntlet", "run", "--grammar", str(REPO / "grammars" / "optimizer.yy"),
                             "--duration", "120", "--out", str(tmp_path)], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and '"second"' not in _read(tmp_path / "events.jsonl"):
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while processes_under(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_under(tmp_path) == []


@pytest.mark.slow
def test_server_stop_stops_what_server_start_started(tmp_path):
    r = gauntlet_cli("server", "start", "--dir", tmp_path / "s")
    assert r.returncode == 0, r.stderr
    info = json.loads((tmp_path / "s" / "server.json").read_text())
    os.kill(info["pid"], signal.SIGSTOP)  # even a stopped (hung) server
    r = gauntlet_cli("server", "stop", "--dir", tmp_path / "s", "--timeout", "5")
    assert r.returncode == 0, r.stderr
    assert processes_under(tmp_path / "s") == []
    # A second start on a folder whose server still runs is refused.
    assert gauntlet_cli("server", "start", "--dir", tmp_path / "t").returncode == 0
    r = gauntlet_cli("server", "start", "--dir", tmp_path / "t")
    assert r.returncode == 2 and "already runs" in r.stderr
    assert gauntlet_cli("server", "stop", "--dir", tmp_path / "t").returncode == 0
    assert processes_under(tmp_path / "t") == []


def test_a_disk_too_full_to_start_a_run_on_says_so_and_leaves_the_folder_usable(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    mount_tmpfs(mount, "2m")
    try:
        with open(mount / "filler", "wb", buffering=0) as filler:  # every byte of it
            with pytest.raises(OSError):
                while True:
                    filler.write(b"x" * 4096)
        g = Grammar.from_string("query: SELECT REPEAT('x', 2000) ;")
        with ManagedServer(tmp_path / "server", core_file=False) as server:
            with pytest.raises(gauntlet.OutputError, match=r"cannot write .*: No space left on device; "
                                                           "the run did not start"):
                gauntlet.run(g, server=server, threads=2, duration=2, statement_log=True, out=mount / "out")
            (mount / "filler").unlink()  # room again: the same command runs, no --overwrite needed
            result = gauntlet.run(g, server=server, threads=2, duration=1, out=mount / "out")
        assert result.summary()["statements"] > 0 and result.exit_code == 0
    finally:
        os.system(f"umount -l {mount}")


def test_lock_wait_hang_shows_what_the_server_is_doing(tmp_path):
    # A table locked from outside: every session waits on its metadata lock.
    # The hang finding carries the process list that says so.
    with ManagedServer(tmp_path / "server", core_file=False) as server:
        gauntlet.run(Grammar.from_string("query: SELECT 1 ;"), server=server, queries=1, duration=0,
                     out=tmp_path / "load")
        holder = gauntlet.Connection(server, database="test")
        holder.query("LOCK TABLES A WRITE")
        result = gauntlet.run(Grammar.from_string("query: SELECT COUNT(*) FROM A | UPDATE A SET pk = pk ;"),
                              server=server, threads=3, duration=60, hang_timeout=3, data="none",
                              out=tmp_path / "out")
        del holder
    summary = check_ended(tmp_path / "out", stop_reason="hang", findings=["hang"])
    [hang] = summary["findings"]
    processlist = hang["evidence"]["default"]["processlist"]
    assert "Waiting for table metadata lock" in processlist and "LOCK TABLES" not in processlist, processlist
    assert "SHOW FULL PROCESSLIST on default" in hang["detail"] and result.exit_code == 1
    assert "TRANSACTIONS" in hang["evidence"]["default"]["innodb_status"]  # whole, not its first 300 bytes


@pytest.mark.slow
def test_a_replay_killed_outright_or_on_a_full_disk_leaves_no_server(tmp_path):
    from faults import killed_outright_leaves_nothing
    run = tmp_path / "run"
    r = gauntlet_cli("run", "--grammar", REPO / "grammars" / "optimizer.yy", "--duration", "5", "--threads", "2",
                     "--statement-log", "--out", run)
    assert r.returncode == 0, r.stderr[-1500:]
    killed_outright_leaves_nothing(["replay", run, "--out", tmp_path / "replay"], tmp_path / "replay")
    disk = tmp_path / "disk"
    disk.mkdir()
    mount_tmpfs(disk, "2m")
    try:
        r = gauntlet_cli("replay", run, "--out", disk / "replay")
        assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr, r.stderr[-1500:]
        assert json.loads((disk / "replay" / "summary.json").read_text())["error"]["kind"] == "output"
        assert processes_under(disk) == []
    finally:
        os.system(f"umount -l {disk}")
