"""Bad input: exit 2 with a message naming the file, line and column or the setting; never a
traceback, never silently accepted, and nothing left running."""

import json
import os
import re
import shutil
import time

import gauntlet
import pytest
from gauntlet import Grammar

from conftest import REPO
from faults import gauntlet_cli, killed_outright_leaves_nothing, processes_under

OPTIMIZER = str(REPO / "grammars" / "optimizer.yy")


def config(tmp_path, text: str, name: str = "run.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def data(tmp_path, spec: dict) -> str:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return str(path)


def table(**overrides) -> dict:
    t = {"name": "t1", "rows": 5, "columns": [{"name": "id", "type": "int", "primary": True}]}
    t.update(overrides)
    return {"tables": [t]}


CASES = {
    "config list": (lambda p: ["--config", config(p, "[1, 2]")], "not a list"),
    "config null": (lambda p: ["--config", config(p, "null")], "not a NoneType"),
    "config string": (lambda p: ["--config", config(p, '"x"')], "not a str"),
    "config grammar number": (lambda p: ["--config", config(p, '{"grammar": 5}')], "'grammar' must be text"),
    "config duration true": (lambda p: ["--config", config(p, '{"grammar": "g.yy", "duration": true}')],
                             "'duration' must be a number"),
    "config is a folder": (lambda p: ["--config", str(p)], "cannot read the config file"),
    "config bad toml": (lambda p: ["--config", config(p, "threads = = 2", "run.toml")], "line 1"),
    "grammar is a folder": (lambda p: ["--grammar", str(p)], "folder"),
    "grammar line and column": (lambda p: ["--grammar", config(p, "query: { 1 + } ;\n", "g.yy")], "g.yy:1:"),
    "non-ASCII rule name": (lambda p: ["--grammar", config(p, "query: x ;\nnäme: 1 ;\n", "g.yy")], "g.yy:2:1"),
    "duration nan": (lambda p: ["--grammar", OPTIMIZER, "--duration", "nan"], "duration: must be a number"),
    "duration inf": (lambda p: ["--grammar", OPTIMIZER, "--duration", "inf"], "duration: must be a number"),
    "negative duration": (lambda p: ["--grammar", OPTIMIZER, "--duration", "-1"], "duration"),
    "no end": (lambda p: ["--grammar", OPTIMIZER, "--duration", "0"], "the run needs an end"),
    "seed too big": (lambda p: ["--grammar", OPTIMIZER, "--seed", str(2**64)], "seed: must be"),
    "negative seed": (lambda p: ["--grammar", OPTIMIZER, "--seed", "-1"], "seed: must be"),
    "negative timeout": (lambda p: ["--grammar", OPTIMIZER, "--statement-timeout", "-2"], "statement_timeout"),
    "negative hang timeout": (lambda p: ["--grammar", OPTIMIZER, "--hang-timeout", "-2"], "hang_timeout"),
    "threads 100000": (lambda p: ["--grammar", OPTIMIZER, "--threads", "100000"], "threads: must be"),
    "threads 0": (lambda p: ["--grammar", OPTIMIZER, "--threads", "0"], "threads: must be"),
    "out is a file": (lambda p: ["--grammar", OPTIMIZER, "--out", config(p, "x", "file")], "not a folder"),
    "out is /dev/null": (lambda p: ["--grammar", OPTIMIZER, "--out", "/dev/null"], "not a folder"),
    "out in /proc": (lambda p: ["--grammar", OPTIMIZER, "--out", "/proc/self/gauntlet"], "cannot write results"),
    "server /bin/true": (lambda p: ["--grammar", OPTIMIZER, "--server", "/bin/true"], "not a MariaDB or MySQL"),
    "server folder": (lambda p: ["--grammar", OPTIMIZER, "--server", str(p)], "holds no server binary"),
    "server missing": (lambda p: ["--grammar", OPTIMIZER, "--server", "/no/mariadbd"], "no such file"),
    "postgres dsn": (lambda p: ["--grammar", OPTIMIZER, "--server", "postgres://u@h/db"], "not a MySQL DSN"),
    "port 99999": (lambda p: ["--grammar", OPTIMIZER, "--server", "mysql://root@127.0.0.1:99999/t"], "port"),
    "ipv6 nobody home": (lambda p: ["--grammar", OPTIMIZER, "--server", "mysql://root@[::1]:1/t"],
                         "cannot connect to mysql://root@[::1]:1/t"),
    "mysqld with a dsn": (lambda p: ["--grammar", OPTIMIZER, "--server", "mysql://root@127.0.0.1:1/t",
                                     "--mysqld", "x=1"], "cannot apply to an external server"),
    "mysqld socket": (lambda p: ["--grammar", OPTIMIZER, "--mysqld", f"socket={p}/x.sock"], "'socket' is set by"),
    "negative rows": (lambda p: ["--grammar", OPTIMIZER, "--data", data(p, table(rows=-5))], "tables[0].rows"),
    "unknown column type": (lambda p: ["--grammar", OPTIMIZER, "--data", data(p, table(columns=[
        {"name": "id", "type": "intt"}]))], "creating table test.t1"),
    "bad value expression": (lambda p: ["--grammar", OPTIMIZER, "--data", data(p, table(columns=[
        {"name": "id", "type": "int", "values": "_uniform(5)"}]))], "_uniform needs a lower and an upper"),
    "failing values": (lambda p: ["--grammar", OPTIMIZER, "--data", data(p, table(columns=[
        {"name": "id", "type": "int", "values": "_uniform(1, "}]))], "values of table test.t1.id"),
    "unclosed built-in arguments": (lambda p: ["--grammar", config(p, "query: SELECT _uniform(1, ;\n", "g.yy")],
                                    "g.yy:1:23: _uniform: arguments are numbers"),
    "data spec folder": (lambda p: ["--grammar", OPTIMIZER, "--data", str(p)], "not a folder"),
    "keep going without duration": (lambda p: ["--grammar", OPTIMIZER, "--keep-going", "--duration", "0",
                                               "--queries", "5"], "keep_going: a keep-going run ends by its duration"),
    "keep going on a dsn": (lambda p: ["--grammar", OPTIMIZER, "--keep-going", "--server",
                                       "mysql://root@127.0.0.1:1/t"], "each round starts fresh servers"),
    "keep going keeps no server": (lambda p: ["--grammar", OPTIMIZER, "--keep-going", "--keep-server"],
                                   "keep_server: a keep-going run"),
    "empty grammar": (lambda p: ["--grammar", config(p, "", "g.yy")], "g.yy: the grammar has no 'query' rule"),
    "endless grammar": (lambda p: ["--grammar", config(p, "query: a ;\na: a b ;\nb: SELECT 1 ;\n", "g.yy")],
                        "g.yy:1:1: rule 'query' recurses without end"),
    "misspelt option": (lambda p: ["--grammar", OPTIMIZER, "--mysqld", "join_cache_levle=2"],
                        "does not know the option 'join_cache_levle'; did you mean 'join_cache_level'?"),
    "misspelt option of target b": (lambda p: ["--grammar", OPTIMIZER, "--target", "a", "--target",
                                               "b,optimizer_swtich=mrr=on"], "targets: b: /usr/sbin/mariadbd does not "
                                                                             "know the option 'optimizer_swtich'"),
    "option without a name": (lambda p: ["--grammar", OPTIMIZER, "--mysqld", "=5"], "not '=5'"),
}


@pytest.mark.foreign_files
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_with_a_clear_message(tmp_path, case):
    args, message = CASES[case]
    argv = args(tmp_path)
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")]
    r = gauntlet_cli("run", "--duration", "3", *argv)
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr
    assert message in r.stderr, r.stderr
    assert processes_under(tmp_path) == []
    if case in ("empty grammar", "endless grammar", "misspelt option", "misspelt option of target b"):
        assert not (tmp_path / "out").exists()  # said before any server started, nothing claimed


def test_run_shows_grammar_warnings_and_takes_a_byte_order_mark(tmp_path):
    grammar = tmp_path / "g.yy"
    grammar.write_bytes(b"\xef\xbb\xbfquery: SELECT 1 | selct_list ;\n")
    assert Grammar(grammar).rules == ["query"]
    r = gauntlet_cli("run", "--grammar", grammar, "--mysqld", "no_such_option=1", "--out", tmp_path / "out")
    assert r.returncode == 2 and "does not know the option 'no_such_option'" in r.stderr, r.stderr
    assert "warning: " + str(grammar) + ":1:19: 'selct_list' is not a rule or built-in" in r.stderr, r.stderr


def test_option_values_are_read_as_a_config_file_would_and_names_are_checked():
    assert gauntlet.server.option_list(["sql_mode='ANSI_QUOTES'", '--init_connect="SET @a = 1"', "skip-log-bin"]) \
        == ["sql_mode=ANSI_QUOTES", "init_connect=SET @a = 1", "skip-log-bin"]
    assert gauntlet.server.option_list({"sql_mode": "'ANSI_QUOTES'"}) == ["sql_mode=ANSI_QUOTES"]
    for bad in (["=5"], ["sql mode=1"], {"": 1}, {"a b": 1}):
        with pytest.raises(gauntlet.InvalidInput, match="mysqld"):
            gauntlet.server.option_list(bad)
    check = gauntlet.server.check_known_options
    check("/usr/sbin/mariadbd", ["character-set-server=utf8mb4", "skip-log-bin", "loose-no-such=1", "datadir=/x",
                                 "innodb_buffer_pool_size=64M", "disable-performance-schema"])
    check("/usr/sbin/mariadbd", ["plugin_load_add=ha_rocksdb", "rocksdb_block_size=4096"])  # the plugin's to judge
    with pytest.raises(gauntlet.InvalidInput, match="targets: b: .* does not know the option 'no_such'"):
        check("/usr/sbin/mariadbd", ["no_such=1"], "targets: b")


@pytest.mark.slow
def test_a_run_that_stopped_at_its_input_leaves_the_folder_to_the_corrected_command(tmp_path):
    out = tmp_path / "out"
    r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--mysqld", "default_storage_engine=NoSuchEngine", "--duration", "2",
                     "--out", out)
    assert r.returncode == 2 and "refused to start" in r.stderr and (out / "summary.json").exists(), r.stderr
    r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "2", "--out", out)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads((out / "summary.json").read_text())["statements"] > 0
    # A run that ran is kept: the next needs --overwrite.
    r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "2", "--out", out)
    assert r.returncode == 2 and "holds an earlier run" in r.stderr


def test_python_refuses_what_the_cli_refuses(tmp_path):
    g = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    for kwargs, message in [({"duration": 0, "queries": 0}, "needs an end"), ({"threads": True}, "threads"),
                            ({"duration": float("nan")}, "duration"), ({"seed": -1}, "seed")]:
        with pytest.raises(gauntlet.InvalidInput, match=message):
            gauntlet.run(g, out=tmp_path / "o", **kwargs)


def test_server_options_from_python_are_a_list_or_a_dict_and_nothing_else(tmp_path):
    """A string was read as its characters (--j --o --i ...) and a dict lost its values: both ended in a
    false start finding."""
    g = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    for bad, words in [("join_cache_level=0", "did you mean ['join_cache_level=0']"), ({"join_cache_level": [0]}, "a value"),
                       (["join_cache_level=0", 3], "each option is a string"), ({"x", "y"}, "not set")]:
        with pytest.raises(gauntlet.InvalidInput, match=re.escape(words)):
            gauntlet.run(g, mysqld=bad, queries=1, duration=0, out=tmp_path / "bad")
    with pytest.raises(gauntlet.InvalidInput, match="options are a dict"):
        gauntlet.Target("a", "default", "join_cache_level=0")
    r = gauntlet.run(g, mysqld={"join_cache_level": 0, "innodb_stats_auto_recalc": False, "skip-log-bin": None},
                     queries=1, duration=0, threads=1, data="none", out=tmp_path / "dict")
    assert r.exit_code == 0 and not r.findings, r.table()
    variables = json.loads((tmp_path / "dict" / "server_variables.json").read_text())
    assert str(variables["join_cache_level"]) == "0" and variables["innodb_stats_auto_recalc"] == "OFF", variables


def test_an_earlier_run_is_kept_unless_overwrite(tmp_path):
    out = tmp_path / "out"
    g = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    first = gauntlet.run(g, queries=3, duration=0, threads=1, out=out)
    with pytest.raises(gauntlet.InvalidInput, match="holds an earlier run"):
        gauntlet.run(g, queries=5, duration=0, threads=1, out=out)
    assert json.loads((out / "summary.json").read_text())["statements"] == first.summary()["statements"] == 3
    second = gauntlet.run(g, queries=5, duration=0, threads=1, out=out, overwrite=True)
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events].count("start") == 1 and second.summary()["statements"] == 5


def test_folders_of_the_users_own_in_out_are_never_removed(tmp_path):
    """Findings copied into a folder for triage, and a folder named server, are not a run's: --out
    refuses the folder (exit 2) with or without --overwrite, and every file stays."""
    g = gauntlet.Grammar.from_string("query: SELECT 1 ;")
    for mine in ("findings", "rounds"):
        out = tmp_path / mine
        (out / mine / "0001-tlp").mkdir(parents=True)
        (out / mine / "0001-tlp" / "notes.txt").write_text("my triage notes")
        for overwrite in (False, True):
            with pytest.raises(gauntlet.InvalidInput, match=f"has {mine}/ but no run's files"):
                gauntlet.run(g, queries=1, duration=0, threads=1, out=out, overwrite=overwrite)
        r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "1", "--out", out, "--overwrite")
        assert r.returncode == 2 and f"has {mine}/" in r.stderr, r.stderr
        assert (out / mine / "0001-tlp" / "notes.txt").read_text() == "my triage notes"
    # Beside an earlier run, --overwrite replaces what that run left, and a server folder only if it is one.
    out = tmp_path / "server"
    gauntlet.run(g, queries=1, duration=0, threads=1, out=out)
    shutil.rmtree(out / "server")  # the run's, in its place a folder of the user's
    (out / "server").mkdir()
    (out / "server" / "mine.txt").write_text("mine")
    with pytest.raises(gauntlet.InvalidInput, match="is not a server folder of an earlier run"):
        gauntlet.run(g, queries=1, duration=0, threads=1, out=out, overwrite=True)
    assert (out / "server" / "mine.txt").read_text() == "mine"


def test_two_runs_on_one_folder_at_once_are_refused(tmp_path):
    out = tmp_path / "out"
    bg = gauntlet.Run(gauntlet.Grammar.from_string("query: SELECT SLEEP(0.1) ;"), duration=20, out=out).start()
    try:
        deadline = time.monotonic() + 60
        while not (out / "events.jsonl").exists() and time.monotonic() < deadline:
            assert bg.running, bg.wait()
            time.sleep(0.05)
        r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--duration", "2", "--out", out)
        assert r.returncode == 2 and "in use by another run" in r.stderr, r.stderr
        with pytest.raises(gauntlet.InvalidInput, match="in use"):
            gauntlet.ManagedServer(out / "server").start()
    finally:
        bg.stop()
    assert processes_under(out) == []


def test_option_file_password_with_percent_is_read_and_never_shown(tmp_path, monkeypatch):
    monkeypatch.delenv("GAUNTLET_PASSWORD", raising=False)
    monkeypatch.delenv("MYSQL_PWD", raising=False)
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[client]\npassword=se%cr(et\n")
    p = gauntlet.parse_dsn(f"mysql://qa@127.0.0.1:1/t?option_file={cnf}")
    assert p.password == "se%cr(et" and "se%cr" not in str(p)
    cnf.write_text("[client\npassword=se%cr(et\n")
    with pytest.raises(gauntlet.InvalidInput) as e:
        gauntlet.parse_dsn(f"mysql://qa@127.0.0.1:1/t?option_file={cnf}")
    assert "se%cr" not in str(e.value)
    r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--server", "mysql://qa:hunter2@127.0.0.1:1/t?bad=1",
                     "--out", tmp_path / "o")
    assert r.returncode == 2 and "hunter2" not in r.stderr + r.stdout


@pytest.mark.slow
def test_grammar_failures_during_the_run_end_it_cleanly(tmp_path):
    big = "query: SELECT a ;\n" + "".join(f"{x}: {' '.join([y] * 40)} ;\n" for x, y in
                                          [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]) + "e: " + "Z" * 20 + " ;\n"
    cases = {
        "die": ("query: SELECT { $n++; die 'boom' if $n > 30; $n } ;", "Perl block died: boom"),
        "exit": ("query: SELECT { $n++; exit(3) if $n > 30; 1 } ;", "exit(3) called"),
        "kill": ("query: SELECT { kill 9, $$; 1 } ;", "kill() called"),
        "too long": (big, "statement longer than"),
        "loop": ("query: SELECT { while (1) {} ; 1 } ;", "generating one query took longer than 2 s"),
        "sleep": ("query: SELECT { sleep 100; 1 } ;", "Perl block at"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.yy"
        path.write_text(text + "\n")
        out = tmp_path / f"out-{path.stem}"
        r = gauntlet_cli("run", "--grammar", path, "--data", "none", "--duration", "30",
                         "--generate-timeout", "2", "--out", out)
        assert r.returncode == 2, (name, r.stdout[-1500:], r.stderr[-1500:])
        assert "Traceback" not in r.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["stop_reason"] == "error" and message in summary["error"]["message"], (name, summary["error"])
        assert summary["seconds"] < 10, name
        assert processes_under(out) == []


def test_python_rule_that_raises_ends_the_run(tmp_path):
    def rule(ctx):
        raise ValueError("no value today")
    g = gauntlet.Grammar.from_string("query: SELECT r ;", rules={"r": rule})
    result = gauntlet.run(g, duration=10, out=tmp_path, data="none")
    assert result.exit_code == 2
    assert "Python rule 'r' raised ValueError: no value today" in result.summary()["error"]["message"]


def test_a_runaway_generator_does_not_hold_up_the_deadline(tmp_path):
    g = gauntlet.Grammar.from_string("query: SELECT 1 | SELECT { while (1) {} ; 1 } ;")
    result = gauntlet.run(g, duration=2, generate_timeout=60, out=tmp_path, data="none")
    s = result.summary()
    assert s["stop_reason"] == "duration" and s["seconds"] < 4 and s["error"] is None


def test_zz_data_file_cannot_end_gauntlet(tmp_path):
    zz = tmp_path / "bad.zz"
    zz.write_text("$tables = { rows => [1] };\nexit(3);\n")
    r = gauntlet_cli("run", "--grammar", OPTIMIZER, "--data", zz, "--out", tmp_path / "o")
    assert r.returncode == 2 and "exit(3) called" in r.stderr, r.stderr


def test_mistakes_that_used_to_pass_silently_are_named(tmp_path, rqg_grammars):
    with pytest.raises(gauntlet.InvalidInput, match=r"<string>:1:1: no rule here"):
        Grammar.from_string("query SELECT 1 ;")
    g = Grammar.from_string("# a comment line\nstray text ;\nquery: SELECT 1 ;\n")
    assert g.warnings == ["<string>:2:1: text before the first rule is ignored (a rule starts with 'name:')"]
    with pytest.raises(gauntlet.InvalidInput, match="redefine: applies to grammar files"):
        gauntlet.run(g, redefine=["other.yy"], out=tmp_path / "r")
    with pytest.raises(gauntlet.InvalidInput, match=r"missing\.yy"):
        Grammar.from_file(str(rqg_grammars / "conf__examples__example.yy"), "missing.yy")
    with pytest.raises(TypeError, match="unexpected keyword argument 'treads'"):
        gauntlet.Run(g, treads=4)  # at once, not at wait()
    with pytest.raises(TypeError, match="Grammar.from_string"):
        Grammar(12)
    assert Grammar(rqg_grammars / "conf__examples__example.yy").rules == \
        Grammar.from_file(rqg_grammars / "conf__examples__example.yy").rules


def test_a_run_that_never_started_still_has_a_frame_with_the_documented_columns(tmp_path):
    frame = gauntlet.RunResult(tmp_path, gauntlet._core.empty_summary(), []).to_pandas()
    assert len(frame) == 0 and frame.index.name == "t"
    assert {"statements", "p95_ms", "n_ok", "n_crash"} <= set(frame.columns)


def test_keep_server_keeps_it_and_says_how_to_stop_it(tmp_path):
    """--keep-server: the server outlives the command (it was killed as the command exited), and the
    command prints its DSN and the command that stops it."""
    g = tmp_path / "one.yy"
    g.write_text("query: SELECT 1 ;\n")
    out = tmp_path / "out"
    r = gauntlet_cli("run", "--grammar", g, "--queries", "3", "--duration", "0", "--data", "none", "--keep-server",
                     "--out", out)
    try:
        assert r.returncode == 0, r.stderr
        assert f"stop it with: gauntlet server stop --dir {out / 'server'}" in r.stdout, r.stdout
        server = gauntlet.ManagedServer.attach(out / "server")
        assert server.alive and f"server kept running: {server.dsn}" in r.stdout
        assert server.connect().query("SELECT 1 + 1") == [(2,)]
    finally:
        stop = gauntlet_cli("server", "stop", "--dir", out / "server")
    assert stop.returncode == 0, stop.stderr
    assert processes_under(out) == []


def test_a_bench_killed_outright_leaves_no_server(tmp_path):
    out = tmp_path / "bench"
    killed_outright_leaves_nothing(["bench", "--workload", "oltp_point_select", "--target", "a", "--runs", "2",
                                    "--duration", "30", "--table-size", "100", "--out", out], out)


def test_python_parameters_of_the_wrong_type_are_named(tmp_path):
    g = Grammar.from_string("query: SELECT 1 ;")
    out = tmp_path / "o"
    cases = {
        "data": lambda: gauntlet.run(g, data=5, out=out),
        "out": lambda: gauntlet.run(g, out=5),
        "known_bugs": lambda: gauntlet.run(g, known_bugs=5, out=out),
        "statement_log": lambda: gauntlet.run(g, statement_log="yes", out=out),
        "grammar": lambda: gauntlet.run(5, out=out),
        "duration": lambda: gauntlet.bench([{"name": "a"}], duration="3", out=out),
        "n": lambda: g.generate("3"),
        "run_dir": lambda: gauntlet.replay(5),
        "dir": lambda: gauntlet.ManagedServer(5),
        "finding": lambda: gauntlet.reduce(5),
        "triage: a folder": lambda: gauntlet.triage(5),
        "trusted_perl": lambda: Grammar.from_string("query: SELECT 1 ;", trusted_perl=1),
    }
    for name, call in cases.items():
        with pytest.raises(gauntlet.InvalidInput) as e:
            call()
        assert str(e.value).startswith(name), (name, str(e.value))
    assert not out.exists()


def test_misuse_of_commands_and_objects_is_said_plainly(tmp_path):
    run = gauntlet.Run(Grammar.from_string("query: SELECT 1 ;"), out=tmp_path / "o")
    for method in (run.stop, run.wait):
        with pytest.raises(RuntimeError, match="the run was not started; call start"):
            method()
    (tmp_path / "file").write_text("")
    with pytest.raises(gauntlet.InvalidInput, match="server's folder: cannot make .*file: File exists"):
        gauntlet.ManagedServer(tmp_path / "file").start()
    for argv, message in [(["gensql", "--grammar", OPTIMIZER, "--queries", "-5"], "--queries: 0 or more, not -5"),
                          (["gensql", "--grammar", OPTIMIZER, "--max-depth", "0"], "--max-depth: 1 or more"),
                          (["gensql", "--grammar", OPTIMIZER, "--thread", "-1"], "--thread: 1 or more"),
                          (["server", "start", "--dir", str(tmp_path / "file")], "server's folder: cannot make"),
                          (["plan", str(REPO / "examples" / "mariadb_options.json"), "--plan", "random", "--rows", "-5"],
                           "random: rows must be a whole number, 1 or more, not -5"),
                          (["plan", config(tmp_path, json.dumps({"parameters": {"a": [1, 2]},
                                                                 "constraints": [{"forbid": {"a": [1, 2]}}]}),
                                           "space.json")], "the constraints forbid every row")]:
        r = gauntlet_cli(*argv)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, (argv, r.stderr[-1500:])


def test_a_read_only_out_is_said_by_every_command(tmp_path):
    disk = tmp_path / "ro"
    disk.mkdir()
    if os.system(f"mount -t tmpfs -o size=1m,ro tmpfs {disk}") != 0:
        pytest.fail("cannot mount a read-only tmpfs: the suite runs as root (as CI does)")
    try:
        space = config(tmp_path, json.dumps({"parameters": {"join_cache_level": [2, 4]}}), "space.json")
        for argv in (["run", "--grammar", OPTIMIZER, "--duration", "2", "--out", str(disk / "run")],
                     ["bench", "--workload", "oltp_read_only", "--target", "a", "--runs", "2", "--duration", "2",
                      "--out", str(disk / "bench")],
                     ["campaign", space, "--plan", "exhaustive", "--grammar", OPTIMIZER, "--duration", "2",
                      "--out", str(disk / "campaign")]):
            r = gauntlet_cli(*argv)
            assert r.returncode == 2 and "Read-only file system" in r.stderr and "Traceback" not in r.stderr, \
                (argv[0], r.stderr[-1500:])
    finally:
        os.system(f"umount -l {disk}")


def test_a_server_that_dies_before_its_error_log_opens_points_to_what_it_said(tmp_path):
    server = gauntlet.ManagedServer(tmp_path / "s", core_file=False,
                                    wrapper=["/bin/sh", "-c", "echo I refuse to start; kill -9 $$", "sh"])
    with pytest.raises(gauntlet.GauntletError, match=r"killed by signal 9 during startup; see \S+/stdout\.log$") as e:
        server.start()
    assert "error.log" not in str(e.value) and "I refuse to start" in (tmp_path / "s" / "stdout.log").read_text()


def test_bench_checks_every_target_and_size_before_a_server_starts(tmp_path):
    for argv, message in [(["--target", "a", "--target", "b,join_cache_levle=2"],
                           "targets: b: /usr/sbin/mariadbd does not know the option 'join_cache_levle'; "
                           "did you mean 'join_cache_level'?"),
                          (["--target", "a", "--table-size", "0"], "bench: table_size must be a whole number, 1 or more"),
                          (["--target", "a", "--tables", "-1"], "bench: tables must be a whole number, 1 or more")]:
        r = gauntlet_cli("bench", "--workload", "oltp_read_only", "--runs", "2", "--duration", "2", *argv,
                         "--out", tmp_path / "bench")
        assert r.returncode == 2 and message in r.stderr, r.stderr[-1500:]
        assert not (tmp_path / "bench" / "runs").exists()


def test_a_run_starts_once(tmp_path):
    run = gauntlet.Run(Grammar.from_string("query: SELECT 1 ;"), queries=1, duration=0, data="none",
                       out=tmp_path / "o").start()
    try:
        with pytest.raises(RuntimeError, match="this run was started already"):
            run.start()
    finally:
        assert run.wait(120).exit_code == 0


@pytest.mark.slow
def test_an_unreachable_cluster_is_named(tmp_path):
    space = config(tmp_path, json.dumps({"parameters": {"join_cache_level": [2, 4]}}), "space.json")
    r = gauntlet_cli("campaign", space, "--plan", "exhaustive", "--grammar", OPTIMIZER, "--duration", "2",
                     "--cluster", "tcp://127.0.0.1:1", "--out", tmp_path / "c")
    assert r.returncode == 2 and "cluster: cannot reach the Dask scheduler at tcp://127.0.0.1:1" in r.stderr, \
        r.stderr[-1500:]
    assert "Traceback" not in r.stderr


@pytest.mark.foreign_files
def test_loading_a_run_that_has_no_summary_says_why(tmp_path):
    with pytest.raises(gauntlet.InvalidInput, match="no summary.json: not a run folder"):
        gauntlet.RunResult.load(tmp_path)
    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "events.jsonl").write_text('{"type": "start"}\n{"type": "sec')
    with pytest.raises(gauntlet.InvalidInput, match="still going, or was killed outright"):
        gauntlet.RunResult.load(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps({"stop_reason": "interrupted", "statements": 0}))
    assert gauntlet.RunResult.load(tmp_path).timeline() == []  # the torn last event skipped
