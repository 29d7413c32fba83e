"""A reduced case (value types) as a mysql-test-run test case, and its verification there.

The .test states what a mariadb-test-run server does differently from a plain one (the .opt
carries the values the reduction ran with), expects each statement's error codes, and checks
itself: a crash's test ends with an echo, a wrong result's computes both sides of the oracle's
relation (INTO OUTFILE, sorted when unordered, compared with LOAD_FILE) and dies naming it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import shutil
from typing import List, Optional, Union

from .. import _core
from ..server import DEFAULT_BINARY
from .mtr import run_mtr

RELATION_KINDS = ("tlp", "norec", "metamorphic")
_HANG_MESSAGE = "hang: no statement finished for"


@dataclasses.dataclass(frozen=True)
class Step:
    """One statement of the history: its session (``thread``) and place (``seq``) in the run."""
    seq: int
    thread: int
    sql: Union[str, bytes]
    start: float = 0.0
    end: float = 0.0
    key: Optional[dict] = dataclasses.field(default=None, compare=False)  # its replay key, when generated
    error: int = dataclasses.field(default=0, compare=False)  # the error it met in the run (0: none)


@dataclasses.dataclass
class Case:
    """What an attempt runs: data statements, each session's own first statements, the history
    before the finding, the statement that found it, the sessions, and each target's options."""
    setup: List[str]
    session_setup: List[str]
    history: List[Step]
    target: Optional[Step]
    sessions: int  # 1: everything in one session in seq order; 0: the run's sessions, in order
    options: dict  # target name -> ["name=value", ...]
    check_all: bool = False  # the oracles check every statement, as in the run (not only the finding's)

    def replace(self, **changes) -> "Case":
        return dataclasses.replace(self, **changes)

    @property
    def size(self) -> int:
        """Statements of the history (the finding's own included)."""
        return len(self.history) + (self.target is not None)


def sql_text(sql: Union[str, bytes]) -> str:
    return sql if isinstance(sql, str) else sql.decode("utf-8", "replace")



def _frames(signature: str) -> list:
    """A crash signature's frames without parameter lists, offsets and repeats: gdb and the error
    log spell frames slightly differently, and a recursion goes deeper on other data."""
    head, _, frames = signature.partition(": ")
    out = [head]
    for frame in frames.split(" | "):
        frame = re.sub(r"\([^()]*\)|\+0x[0-9a-f]+|\s+", "", frame)
        if frame != out[-1]:
            out.append(frame)
    return out


def same_crash(a: str, b: str) -> bool:
    """Whether two crash signatures name the same crash: the same signal (or assertion) and
    frames, one list a prefix of the other once repeats are folded."""
    fa, fb = _frames(a), _frames(b)
    n = min(len(fa), len(fb))
    return n > 1 and fa[:n] == fb[:n] if len(fa) > 1 and len(fb) > 1 else fa == fb


def _mtr_statement(sql: str) -> str:
    """A statement as mysqltest reads it: a changed delimiter around one that holds ';'."""
    sql = sql.rstrip().rstrip(";")
    if ";" in sql or sql.lstrip().startswith(("--", "#")):
        return f"--delimiter //\n{sql}//\n--delimiter ;\n"
    return sql + ";\n"


# Before a hang's statement is sent: its connection's current query id (the next statement's is
# higher), from the server's process list.
_BEFORE_SEND = ("--let $gauntlet_sent{t}= "
                "`SELECT QUERY_ID FROM information_schema.processlist WHERE ID = CONNECTION_ID()`")


def mtr_test_files(case: Case, finding: dict, name: str, seen: dict, first_target: str) -> dict:
    """The .test, .opt, .result and .sql of a case. ``seen``: what _Lab.observe noted."""
    kind = finding["kind"]
    hang = kind == "hang"
    looping = False  # in a loop of rounds, where a hang's statements may fail otherwise
    codes = seen.get("codes", {})
    test = [f"# Gauntlet {kind} finding {finding['id']}: {finding['signature'][:300]}",
            "# Reduced by gauntlet reduce; expected and actual result in README.md.", "",
            "--source include/have_innodb.inc",
            "--disable_query_log", "--disable_result_log", "--disable_warnings"]
    sql_file = []

    def add(sql, connection=None, send=False):
        sql = sql_text(sql)
        if connection:
            test.append(f"--connection {connection}")
        if codes.get(sql) and not send and not (hang and looping):
            test.append(expect(sql))
        text = _mtr_statement(sql).rstrip()
        if send:  # mysqltest sends the next statement without reading its result
            text = text.replace("//\n", "//\n--send\n", 1) if text.startswith("--delimiter") else "--send\n" + text
        test.append(text)
        sql_file.append(_mtr_statement(sql).replace("--delimiter", "DELIMITER").rstrip())

    def expect(sql):
        return "--error 0," + ",".join(str(c) for c in sorted(codes[sql]))
    for sql in case.setup:
        add(sql)
    steps = list(case.history) + ([case.target] if case.target else [])

    def session(step):
        return 1 if case.sessions == 1 else step.thread
    threads = sorted({session(s) for s in steps})
    # One connection per session when there are several, or when a statement must be sent
    # without waiting for it (a hang's).
    named = len(threads) > 1 or hang
    if named:
        for t in threads:
            test.append(f"--connect (con{t},localhost,root,,{_database(case)})")
            if hang:  # the hang's wait below tells this connection's statements apart by it
                test.append(f"--let $gauntlet_id{t}= `SELECT CONNECTION_ID()`")
    charset = seen.get("charset")
    for t in threads if named else [None]:
        con = f"con{t}" if t is not None else None
        if charset:
            add(f"SET NAMES {charset[0]} COLLATE {charset[1]}", con)
        for sql in case.session_setup:
            add(sql, con)
    body = steps[:-1] if case.target is not None else steps
    last_start = max((s.start for s in body), default=0.0)
    current, pending = None, {}  # connections with a statement sent and not reaped yet
    # A race that the replay hit now and then: its sessions' statements again and again (the
    # reducer says how often), sweeping the gap between sending one session's statement and the
    # next session's, since mysqltest's timing is not the replay's (a hang's round
    # ignores the errors of a changed state).
    rounds = seen.get("rounds", 1) if named and kind in ("crash", "shutdown", "hang") else 1
    if rounds > 1:
        looping, current = True, None  # each round begins by naming its connection
        test += [f"--let $gauntlet_round= {rounds}", "while ($gauntlet_round)", "{",
                 f"--let $gauntlet_gap= `SELECT $gauntlet_round % {GAPS} * {_GAP_STEP:f}`"]
        if hang:
            test.append("--disable_abort_on_error")

    def switch(con):
        nonlocal current
        if con and con != current:
            test.append(f"--connection {con}")
            current = con

    def reap(con):
        switch(con)
        sql = sql_text(pending.pop(con))
        if codes.get(sql) and not (hang and looping):
            test.append(expect(sql))
        test.append("--reap")
    for i, step in enumerate(body):
        con = f"con{session(step)}" if named else None
        switch(con)
        if con in pending:
            reap(con)
        # Sent, not waited for, when another session's statement started before it ended in the
        # run (as the replay had it), or when a hang caught it: it still ran when the last began.
        later = next((o for o in body[i + 1:] if session(o) != session(step)), None)
        send = named and (later is not None and later.start < step.end or hang and step.end >= last_start)
        if send and hang:  # before the gap, which stays between the sends
            test.append(_BEFORE_SEND.format(t=session(step)))
        if looping and any(c != con for c in pending):  # another session's statement runs
            test.append("--sleep $gauntlet_gap")
        add(step.sql, send=send)
        if send:
            pending[con] = step.sql
    result = []
    if hang:
        timeout = seen.get("hang_timeout", 10)
        message = f"{_HANG_MESSAGE} {timeout:g} s"
        switch("default")
        # A statement sent is running until the server has begun it and ended it: its
        # connection's query id moves past the one noted before the send only when it begins,
        # so one that the server has not read yet (under load, for a while) counts as running.
        unread = "".join(f" OR id = $gauntlet_id{c.removeprefix('con')} AND query_id <= "
                         f"$gauntlet_sent{c.removeprefix('con')}" for c in pending)
        test += [f"--let $wait_timeout= {timeout:g}",
                 "--let $wait_condition= SELECT COUNT(*) = 0 FROM information_schema.processlist "
                 f"WHERE id <> CONNECTION_ID() AND (command = 'Query'{unread})",
                 "--source include/wait_condition.inc", "if (!$success)", "{", f"  --die {message}", "}",
                 "--disable_query_log"]  # the include turns the query log back on
    for con in list(pending):
        reap(con)
    if case.target is not None:
        switch(f"con{session(case.target)}" if named else None)
        sql_file.append(_mtr_statement(sql_text(case.target.sql)).replace("--delimiter", "DELIMITER").rstrip())
        if kind in RELATION_KINDS:
            check, result = _relation_check(finding.get("evidence", {}), finding, sql_text(case.target.sql))
            test += check
        else:
            test.append(_mtr_statement(sql_text(case.target.sql)).rstrip())
    if rounds > 1:
        test += ["--enable_abort_on_error"] if hang else []
        test += ["--dec $gauntlet_round", "}"]
    done = {"crash": "no crash", "shutdown": "no crash", "hang": "no hang"}.get(kind, "done")
    if kind not in RELATION_KINDS:
        test.append(f"--echo # {done}")
        result.append(f"# {done}")
    if named:
        test += [f"--disconnect con{t}" for t in threads] + ["--connection default"]
    for sql in case.setup:
        m = re.match(r"CREATE DATABASE IF NOT EXISTS `([^`]+)`", sql)
        if m and m.group(1) != "test":
            test.append(f"DROP DATABASE IF EXISTS `{m.group(1)}`;")
    test += ["DROP DATABASE IF EXISTS test;", "CREATE DATABASE test;", ""]
    opt = " ".join(f"--{o}" for o in seen.get("mtr_options", []) + case.options.get(first_target, []))
    return {".test": "\n".join(test), ".opt": opt + "\n", ".result": "".join(x + "\n" for x in result),
            ".sql": "\n".join(sql_file) + "\n"}


def minimal_test_files(finding: dict, name: str, options: List[str]) -> Union[dict, str]:
    """The .test, .opt and .result of a relation finding's minimal query run alone on a fresh server:
    the data it read (``minimal["data"]``, oracle/data_snapshot.h), the session's settings, then both
    sides of the relation compared as a reduced case's are. ``options``: the .opt's (NAME=VALUE).
    Why not, as a string, when the finding has no minimal query with its data."""
    m = finding.get("minimal") or {}
    if finding.get("kind") not in RELATION_KINDS:
        return f"a {finding.get('kind')} finding has no relation to check on one server"
    if not m:
        return "it was not minimised"
    data = m.get("data") or {}
    if "statements" not in data:
        return "its minimal query came without its data: " + data.get("missing", "older run")
    shown = minimal_evidence(finding)
    test = [f"# Gauntlet {finding['kind']} finding {finding.get('id', '')}: the minimal query with the data it read",
            f"# {finding.get('signature', '')[:300]}", "",
            "--source include/have_innodb.inc"]
    # mariadb-test-run starts its servers with --skip-partition unless a test asks for partitions.
    if any(re.search(r"\bPARTITION\s+BY\b", sql, re.I) for sql in data["statements"]):
        test.append("--source include/have_partition.inc")
    test += ["--disable_query_log", "--disable_result_log", "--disable_warnings"]
    test += [_mtr_statement(sql).rstrip() for sql in data["statements"] + finding.get("settings", [])]
    check, result = _relation_check(shown["evidence"], shown, m["sql"])
    test += check + ["DROP DATABASE IF EXISTS test;", "CREATE DATABASE test;", ""]
    return {".test": "\n".join(test), ".opt": " ".join(f"--{o}" for o in options) + "\n",
            ".result": "".join(x + "\n" for x in result)}


def minimal_evidence(finding: dict) -> dict:
    """The finding as its minimal query showed it: the evidence's relation with the minimal sides (the
    evidence's own when no smaller form failed: the query is its own minimal form)."""
    m = finding.get("minimal") or {}
    sides = {k: m[k] for k in ("left", "right", "setup", "side_setup", "relation") if k in m and "left" in m}
    return {**finding, "evidence": {**finding.get("evidence", {}), **sides}}


def relation_failed(finding: dict, output: str) -> bool:
    """mariadb-test-run's output has the test case dying of the finding's relation."""
    return _relation_message(finding) in output


def _database(case: Case) -> str:
    for sql in case.setup:
        m = re.match(r"USE `([^`]+)`", sql)
        if m:
            return m.group(1)
    return "test"


def _relation_check(ev: dict, finding: dict, target: str):
    """mysqltest lines that compute both sides of the oracle's relation, write each to a file and
    fail naming the relation when the files differ; and the .result lines of a server where it holds."""
    def listed(v):
        if isinstance(v, list):
            return v
        try:
            return json.loads(v) if v else []
        except (TypeError, json.JSONDecodeError):
            return []
    left = ev.get("left") or target
    rights = listed(ev.get("right")) if str(ev.get("right", "")).startswith("[") else [ev.get("right", "")]
    relation = ev.get("relation", "unordered")
    what = (ev.get("what") or finding.get("oracle", "")).replace("\n", " ")
    lines = [_mtr_statement(s).rstrip() for s in listed(ev.get("setup")) + listed(ev.get("side_setup"))]
    # mysqltest cannot send a result to a file, the server can: INTO OUTFILE (a path relative to the
    # current database's folder, inside mariadb-test-run's secure_file_priv) keeps the session and
    # streams rows as they would go to a client, without materializing them.
    lines.append("--let $gauntlet_dir= `SELECT CONCAT(@@datadir, IFNULL(DATABASE(), ''))`")
    files = []
    prepared = _prepared_into_outfile(listed(ev.get("setup")))
    for i, sql in enumerate([left] + rights):
        name = f"gauntlet_side{i}.txt"
        files.append(f"$gauntlet_dir/{name}")
        executed = re.fullmatch(r"\s*EXECUTE\s+(\w+)\s*;?\s*", sql, re.I)
        if executed and executed.group(1) in prepared:
            # EXECUTE takes no INTO: its statement, prepared again with one, writes each execution.
            statement = executed.group(1)
            if prepared[statement]:
                lines.append(_mtr_statement(prepared.pop(statement) + ";").rstrip())
                prepared[statement] = ""
            lines += [f"EXECUTE {statement}_into_file;",
                      f"--move_file $gauntlet_dir/{_EXECUTED} $gauntlet_dir/{name}"]
        else:
            lines.append(_mtr_statement(_into_outfile(sql, name)).rstrip())
        # Sorted for every relation, exact too: the oracle lets rows that differ only in case and
        # trailing spaces come in any order, which a byte-wise order check would call a failure.
        lines.append(f"--exec LC_ALL=C sort -o $gauntlet_dir/{name} $gauntlet_dir/{name}")
    message = _relation_message(finding)
    result = []
    for path in files[1:]:
        if relation == "superset":
            lines += _superset_check(files[0], path, ev.get("limit") or {})
        else:
            lines.append(f"--let $gauntlet_same= `SELECT LOAD_FILE('{files[0]}') <=> LOAD_FILE('{path}')`")
        lines += ["if (!$gauntlet_same)", "{",
                  # The head of the difference (--diff_files would end the test before --die
                  # when the files differ, and snip a long difference with the message in it).
                  f"  --echo # {message}", "  --enable_result_log",
                  f"  --exec diff -a -u {files[0]} {path} | head -n 40 || true", f"  --die {message}", "}"]
    lines.append(f"--echo # relation {relation} holds: {what}")
    result.append(f"# relation {relation} holds: {what}")
    for path in files + ([_EXTRA] if relation == "superset" else []):
        lines.append(f"--remove_file {path}")
    return lines, result


_EXTRA = "$gauntlet_dir/gauntlet_extra.txt"


def _superset_check(left: str, right: str, limit: dict) -> List[str]:
    """mysqltest lines setting $gauntlet_same to whether the sorted file ``right`` holds the relation
    superset to ``left`` as the oracle checks it (oracle/result_compare.h): each of its lines is one of
    ``left``'s (as multisets: comm), and, with ``limit``, it has as many lines as LIMIT n OFFSET m
    leaves of ``left``'s. (Compared for equality, a LIMIT ... OFFSET that wrongly kept rows would pass,
    and a right one that dropped them would fail.)"""
    def rows(path: str) -> str:
        return f"(LENGTH(LOAD_FILE('{path}')) - LENGTH(REPLACE(LOAD_FILE('{path}'), CHAR(10), '')))"
    holds = f"IFNULL(LENGTH(LOAD_FILE('{_EXTRA}')), 0) = 0"
    if int(limit.get("limit", -1)) >= 0:
        holds += (f" AND {rows(right)} = LEAST({int(limit['limit'])}, "
                  f"GREATEST(0, {rows(left)} - {int(limit.get('offset', 0))}))")
    return [f"--exec LC_ALL=C comm -13 {left} {right} > {_EXTRA}", f"--let $gauntlet_same= `SELECT {holds}`"]


_EXECUTED = "gauntlet_executed.txt"


def _prepared_into_outfile(setup: list) -> dict:
    """The statements ``setup`` prepares (``PREPARE name FROM '...'``), by name, each as a PREPARE of
    ``name_into_file`` whose statement writes its rows to gauntlet_executed.txt as _into_outfile does.
    A statement ending in a locking clause is left out (its INTO would go before the clause)."""
    out = {}
    for statement in setup:
        m = re.fullmatch(r"\s*PREPARE\s+(\w+)\s+FROM\s+('(?:[^'\\]|''|\\.)*')\s*;?\s*", statement, re.I | re.S)
        if m and not re.search(r"(UPDATE|SHARE\s+MODE|NOWAIT|LOCKED|WAIT\s+\d+)\s*'$", m.group(2), re.I):
            out[m.group(1)] = (f"PREPARE {m.group(1)}_into_file FROM {m.group(2)[:-1]} "
                               f"INTO OUTFILE ''{_EXECUTED}'' CHARACTER SET utf8mb4'")
    return out


def _relation_message(finding: dict) -> str:
    """What a reproducer of a relation finding says when the relation fails."""
    ev = finding.get("evidence", {})
    what = (ev.get("what") or finding.get("oracle", "")).replace("\n", " ")
    return f"relation {ev.get('relation', 'unordered')} fails: {what}"


def _into_outfile(sql: str, name: str) -> str:
    """The query writing its rows to ``name`` (before a trailing locking clause, where INTO goes), each
    column converted to utf8mb4 as Gauntlet's sessions receive it (a column's character set is part
    of the result: the same bytes as latin1 and as binary reach a client as different text)."""
    sql = sql.rstrip().rstrip(";")
    m = re.search(r"\s+(FOR\s+UPDATE|LOCK\s+IN\s+SHARE\s+MODE)(\s+(NOWAIT|SKIP\s+LOCKED|WAIT\s+\d+))?$", sql, re.I)
    at = m.start() if m else len(sql)
    return f"{sql[:at]} INTO OUTFILE '{name}' CHARACTER SET utf8mb4{sql[at:]}"


def readme(record: dict, finding: dict, sql: str, name: str, version: str) -> str:
    v = record["verification"]
    stages = "\n".join(f"| {s['stage']} | {s['before']} | {s['after']} | {s['attempts']} | {s['seconds']} |"
                       for s in record["stages"])
    detail = finding.get("detail", "").strip()
    if finding["kind"] in ("crash", "shutdown"):
        expected = "the last statement completes"
        actual = "\n".join(line for line in detail.splitlines()
                           if "got signal" in line or "Assertion" in line or line.startswith(("/", "Query"))
                           or "(" in line and ")[0x" in line)
    elif finding["kind"] == "hang":
        expected, actual = f"every statement finishes within {record.get('hang_timeout', 10):g} s", detail
    elif finding["kind"] == "timing":
        expected, actual = "the statement is about as fast on each target", detail
    else:
        expected, actual = "the relation between the results holds (or the targets agree)", detail
    return f"""# {finding['kind']}: {finding['signature'][:300]}

Finding {finding['id']} of the run in `{pathlib.Path(record['folder']).parent.parent.parent}`, reduced by
`gauntlet reduce`. Status: **{'verified by mariadb-test-run' if v.get('verified') else 'NOT verified'}**
({v.get('why', '')}). Server: {version or 'see the run'}.

## The test case

```sql
{sql.strip()[:8000]}
```

Server options it needs beyond the defaults: `{' '.join(sum(record['options_after'].values(), [])) or 'none'}`
(per target: {json.dumps(record['options_after'])}).

Expected: {expected}. Actual, as {finding.get('oracle', 'crash')} saw it in the run:

```
{actual[:4000]}
```

## Files

- `{name}.test`, `{name}.opt`, `{name}.result`: copy into `mysql-test/suite/SUITE/t/` (and `r/`), then
  `perl mariadb-test-run --suite=SUITE {name}`. It passes on a server without the bug.
- `{name}.sql`: the same statements for `mariadb test < {name}.sql` on a server started with the options
  in `{name}.opt`.

Recurrence when replayed before reduction: {record['recurrence']:.0%}.{_rounds(record)}

## Reduction

{record['statements_before']} statements -> {record['statements_after']}, {record['setup_before']} data statements
-> {record['setup_after']}, {record['attempts']} attempts, {record['seconds']} s.

| stage | before | after | attempts | seconds |
|---|---|---|---|---|
{stages}
"""


# The gaps a looping test case sweeps: 0, 0.05, ... 1.95 ms. A race's window can be that
# narrow and move with the server's options (an ALTER TABLE against an UPDATE: 0.5-1.25 ms
# after it on a plain server, under 0.25 ms on mariadb-test-run's).
GAPS, _GAP_STEP = 40, 0.00005


def _rounds(record: dict) -> str:
    replays = record.get("replays")
    if not replays:
        return ""
    return (f" The reduced case, replayed: {replays['hits']} of {replays['tries']}; the test case runs its "
            f"sessions' statements {record.get('rounds', 1)} times (the .sql once).")


def verify_with_mtr(repro: pathlib.Path, name: str, finding: dict, target, timeout: float = 600) -> dict:
    """Runs the test case with Debian's mariadb-test-run on the run's server binary and says whether
    it failed the way the finding did (the same crash frames, the hang's or the relation's message)."""
    if finding["kind"] not in ("crash", "shutdown", "hang") + RELATION_KINDS:
        compare = "time its last statement" if finding["kind"] == "timing" else "compare its output"
        return {"verified": False, "why": f"a {finding['kind']} finding's test case runs its statements but cannot "
                                          f"check itself on one server: {compare} on each target "
                                          "(options in README.md)"}
    if os.path.realpath(target.binary) != os.path.realpath(DEFAULT_BINARY):
        return {"verified": False, "why": f"mariadb-test-run runs {DEFAULT_BINARY}, the run used {target.binary}"}
    vardir = repro / "mtr-var"
    try:
        run = run_mtr([repro / f"{name}{suffix}" for suffix in (".test", ".opt", ".result")], vardir, timeout)
    except FileNotFoundError as e:
        return {"verified": False, "why": str(e)}
    (repro / "mtr.log").write_text(run.output)
    logs = list(vardir.glob("log/**/mysqld.1.err")) + list(vardir.glob("**/mysqld.1.err"))
    text = logs[0].read_text(errors="replace") if logs else ""
    (repro / "mtr-mysqld.err").write_text(text)
    shutil.rmtree(vardir, ignore_errors=True)  # a datadir and more: the logs are kept
    output, status = run.output, run.status.get(name)
    failed, passed = status == "fail", status == "pass"
    result = {"command": " ".join(run.command), "seconds": run.seconds, "failed": failed,
              "passed": passed, "log": str(repro / "mtr.log"), "server_log": str(repro / "mtr-mysqld.err")}
    kind = finding["kind"]
    if not failed:
        result.update(verified=False, why="mariadb-test-run passed the test case" if passed else
                      "mariadb-test-run did not run the test case (mtr.log)")
        return result
    if kind in ("crash", "shutdown"):
        report = _core.crash_report_from_log(text) if text else {}
        signature = report.get("signature", "")
        result["signature"] = signature
        same = bool(signature) and same_crash(signature, finding["signature"])
        result.update(verified=same, why="the server crashed with the same frames" if same else
                      f"mariadb-test-run failed it, but not with the finding's crash ({signature or 'no crash'})")
    elif kind == "hang":
        same = _HANG_MESSAGE in output
        result.update(verified=same, why="the test case's statements did not finish" if same else
                      "mariadb-test-run failed it otherwise (mtr.log)")
    else:
        same = relation_failed(finding, output)
        result.update(verified=same, why="the test case failed naming the relation" if same else
                      "mariadb-test-run failed it otherwise (mtr.log)")
    return result
