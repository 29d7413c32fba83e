"""Grammar and data code is contained: by default a grammar's Perl (and a .zz file's) cannot run,
wait for or signal processes, write or open files, use the network, load native code or change
Gauntlet's signals, environment or user, tried several ways each; it is bounded in memory; and a
user who trusts a grammar can lift the restriction (``trusted_perl``, ``--trusted-perl``)."""

import ctypes
import json
import os
import re

import gauntlet
import pytest
from gauntlet import Grammar
from gauntlet.grammar import load_data_spec

from faults import gauntlet_cli, processes_under

# Each way leaves MARK behind if it works: a process started, a file written.
WAYS = {
    "system": "system('touch MARK')",
    "system list": "system('touch', 'MARK')",
    "backticks": "`touch MARK`",
    "qx": "qx{touch MARK}",
    "readpipe": "readpipe('touch MARK')",
    "pipe open": "open(my $f, '|-', 'touch MARK')",
    "two-argument pipe open": "open(F, '| touch MARK')",
    "exec": "CORE::exec('touch', 'MARK')",
    "fork": "CORE::fork() or CORE::exec('touch', 'MARK')",
    "write open": "open(my $f, '>', 'MARK')",
    "sysopen": "sysopen(my $f, 'MARK', 0101)",
    "mkdir": "mkdir('MARK')",
    "rename": "rename('/nonexistent', 'MARK')",
    "symlink": "symlink('/etc/hostname', 'MARK')",
    "string eval": "eval q{system('touch MARK')}; die $@ if $@",
    "POSIX": "require POSIX; POSIX::system('touch MARK')",
    "syscall": "syscall(83, 'MARK', 0755)",  # mkdir(2)
    "glob": "glob('`touch MARK`')",
}
# Ways to signal, end or wait for processes; none may compile or succeed.
SIGNALS = {
    "kill": "kill 'TERM', getppid()",
    "CORE::kill": "CORE::kill('TERM', getppid())",
    "CORE::exit": "CORE::exit(3)",
    "alarm": "alarm(1)",
    "waitpid": "waitpid(-1, 0)",
    "socket": "socket(my $s, 2, 1, 0)",
    "connect": "connect(STDIN, pack('Sn', 2, 22))",
    "host lookup": "gethostbyname('localhost')",
    "chdir": "chdir('/')",
}


def _block(code: str, mark) -> str:
    return "query: SELECT { " + code.replace("MARK", str(mark)) + "; 1 } ;"


@pytest.mark.parametrize("way", sorted(WAYS))
def test_grammar_perl_cannot_run_processes_or_write_files(way, tmp_path):
    mark = tmp_path / "mark"
    with pytest.raises((gauntlet.InvalidInput, gauntlet.GenerationError)) as e:
        Grammar.from_string(_block(WAYS[way], mark)).generate(3)
    assert "<string>:1:15" in str(e.value), e.value
    assert re.search(r"trapped by operation mask|cannot load native code", str(e.value)), e.value
    assert not mark.exists()


@pytest.mark.parametrize("way", sorted(SIGNALS))
def test_grammar_perl_cannot_signal_end_or_reach_out(way, tmp_path):
    with pytest.raises((gauntlet.InvalidInput, gauntlet.GenerationError)) as e:
        Grammar.from_string(_block(SIGNALS[way], tmp_path)).generate(3)
    assert re.search(r"trapped by operation mask|called: grammar and data code cannot", str(e.value)), e.value
    assert os.getcwd() != "/"


def test_grammar_perl_leaves_signals_environment_and_user_alone(tmp_path):
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    path = libc.getenv(b"PATH")
    ignored_before = _ignored_signals()
    g = Grammar.from_string("query: SELECT { $SIG{TERM} = 'IGNORE'; $SIG{INT} = sub { 1 }; $ENV{PATH} = '/x'; "
                            "$ENV{GAUNTLET_SET_BY_PERL} = 1; $> = 65534; $< = 65534; $0 = 'renamed'; "
                            "$ENV{PATH} . ' ' . $> } ;")
    assert g.generate(2) == ["SELECT /x 65534"] * 2  # the block sees its own copies
    assert libc.getenv(b"PATH") == path and libc.getenv(b"GAUNTLET_SET_BY_PERL") is None
    assert os.geteuid() == os.getuid() == 0 or os.geteuid() != 65534
    assert _ignored_signals() == ignored_before
    with open("/proc/self/comm") as comm:
        assert comm.read().strip() != "renamed"


def _ignored_signals() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("SigIgn:"):
                return int(line.split()[1], 16)
    raise AssertionError("no SigIgn in /proc/self/status")


def test_what_grammars_do_still_works():
    g = Grammar.from_string("query: SELECT { use List::Util qw(sum); no strict; my %h = (a => 1); "
                            "print STDERR ''; sum(map { $_ * 2 } 1..5) . join('', sort keys %h) . sprintf('%03d', 7) "
                            "} ;")
    assert g.generate(1) == ["SELECT 30a007"]


def test_data_code_is_contained_too(tmp_path):
    mark = tmp_path / "mark"
    zz = tmp_path / "bad.zz"
    zz.write_text(f"$tables = {{ rows => [1] }};\nsystem('touch {mark}');\n")
    with pytest.raises(gauntlet.InvalidInput, match=r"bad\.zz.*'system' trapped by operation mask"):
        load_data_spec(str(zz))
    zz.write_text(f"$tables = {{ rows => [1] }};\nopen(my $f, '>', '{mark}');\n")
    grammar = tmp_path / "g.yy"
    grammar.write_text("query: SELECT 1 ;\n")
    r = gauntlet_cli("gensql", "--grammar", grammar, "--schema", zz)
    assert r.returncode == 2 and "bad.zz" in r.stderr and "--trusted-perl" in r.stderr and not mark.exists()
    assert load_data_spec(str(zz), trusted_perl=True).tables and mark.exists()


def test_a_trusted_grammar_may(tmp_path):
    mark = tmp_path / "mark"
    text = _block(WAYS["system"], mark)
    with pytest.raises(gauntlet.InvalidInput, match="trusted_perl: True or False"):
        Grammar.from_string(text, trusted_perl="yes")
    g = Grammar.from_string(text, trusted_perl=True)
    assert g.trusted_perl and "trusted Perl" in repr(g) and not Grammar.from_string(text).trusted_perl
    assert g.generate(1) == ["SELECT 1"] and mark.exists()
    mark.unlink()
    path = tmp_path / "g.yy"
    path.write_text(text + "\n")
    r = gauntlet_cli("gensql", "--grammar", path, "--queries", "1")
    assert r.returncode == 2 and "'system' trapped by operation mask" in r.stderr and "--trusted-perl" in r.stderr
    assert not mark.exists()
    r = gauntlet_cli("gensql", "--grammar", path, "--queries", "1", "--trusted-perl")
    assert r.returncode == 0 and r.stdout.strip() == "SELECT 1" and mark.exists()


def test_a_block_is_bounded_in_memory():
    cases = {
        "'x' x 1e12": r"asked for 953674 MB in one step \('repeat \(x\)'\)",
        "my $n = 1e9; my @a = (1) x $n": "in one step",
        "my $n = 1e9; my @a = (1..$n)": "in one step",
        "my $s = ''; $s .= 'x' x 1e6 for 1..3000": "used more than 1024 MB of memory",
        "my @a; $#a = 1e11": "Perl ended: grammar code asked for more memory than there is",
    }
    for code, message in cases.items():
        with pytest.raises(gauntlet.GenerationError, match=message):
            Grammar.from_string("query: SELECT { " + code + "; 1 } ;").generate(1)
    # What is left works: the process, and a fresh interpreter.
    assert Grammar.from_string("query: SELECT { length('x' x 1e6) } ;").generate(1) == ["SELECT 1000000"]


@pytest.mark.slow
def test_a_run_whose_grammar_code_is_refused_or_runs_out_of_memory_ends_cleanly(tmp_path):
    for name, code, message in [("kill", "system(q{kill -9 $PPID})", "'system' trapped by operation mask"),
                                ("memory", "$n++ > 20 ? 'x' x 1e12 : 1", "in one step"),
                                ("exhausted", "my @a; $#a = 1e11 if $n++ > 20; 1", "Perl ended")]:
        grammar = tmp_path / f"{name}.yy"
        grammar.write_text(f"query: SELECT {{ {code} }} ;\n")
        out = tmp_path / f"out-{name}"
        r = gauntlet_cli("run", "--grammar", grammar, "--data", "none", "--duration", "30", "--out", out)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (name, r.stdout[-1500:], r.stderr[-1500:])
        assert message in r.stderr and message not in r.stdout, (name, r.stderr[-1500:])  # errors: stderr
        if name == "kill":  # code that does not compile is refused before anything starts
            assert not out.exists()
            continue
        summary = json.loads((out / "summary.json").read_text())
        assert message in json.dumps(summary), (name, summary)
        assert processes_under(out) == []
    run = json.loads((out / "run.json").read_text())
    assert run["trusted_perl"] is False



def test_a_prng_int_block_draws_as_its_perl_would():
    # `{ $prng->int(lo, hi) }` runs without entering Perl (RQG's commonest block): the same statements as
    # when Perl draws it, which it does once any code could change what $prng means.
    body = "query: SELECT { $prng->int(1, 10000) }, { $prng->uint16(5,5) }, { $prng->int(-3,3); }, _digit ;\n"
    fast = Grammar.from_string(body).generate(200, seed=9)
    perl = Grammar.from_string(body + "unused: { GenTest::Random->new } ;\n").generate(200, seed=9)
    assert fast == perl and len(set(fast)) > 150
    assert all(s.split(", ")[1] == "5" for s in fast)
    shadowed = Grammar.from_string("query: { $prng = bless {}, 'P'; '' } SELECT { $prng->int(1, 10) } ;\n"
                                   "package_p: { sub P::int { 42 } '' } ;\n")
    assert shadowed.generate(3) == ["SELECT 42"] * 3
