"""Oracles against real servers: each fires on what it is for and stays quiet otherwise.

Differential: div_precision_increment 4 vs 12 fires; two identical targets over
10,000 SELECTs of the stock optimizer grammar, and InnoDB against MyISAM, do not.
Metamorphic, TLP and NoREC: a minute of each stock grammar (optimizer, and the OLTP
read-write mix, which holds every OLTP statement kind) with no finding, and each
fires on an injected wrong result (a target behind a proxy that alters one value).
Error log: an [ERROR] line written during the run fires. Crash: two runs that crash
at the same place give one signature, which a known-bugs file then marks.
"""

import json
import pathlib

import pytest

import gauntlet
from conftest import two_targets
from wrong_result_proxy import WrongResultProxy

REPO = pathlib.Path(__file__).resolve().parents[2]
UDF_DIR = REPO / "build" / "tests" / "udf"
OPTIMIZER = REPO / "grammars" / "optimizer.yy"
OLTP = REPO / "grammars" / "oltp"
RELATION_ORACLES = ["tlp", "norec", "transforms"]


def test_differential_fires_on_div_precision_increment(tmp_path):
    g = gauntlet.Grammar.from_string("query: SELECT col_int_key / _digit AS q FROM _table WHERE pk < 5 ORDER BY q ;")
    r = gauntlet.run(g, threads=2, queries=200, duration=0, out=tmp_path / "run", oracles="differential",
                     targets=two_targets({"div_precision_increment": 4}, {"div_precision_increment": 12}))
    assert r.findings, r.table()
    f = r.findings[0]
    assert f["kind"] == "divergence" and f["oracle"] == "differential"
    assert f["targets"] == ["a", "b"]
    assert "a: ('" in f["detail"] and "b: ('" in f["detail"]
    assert len(f["detail"].split("b: ('")[1].split("'")[0]) > len(f["detail"].split("a: ('")[1].split("'")[0])
    assert f["key"]["seed"] == 1 and f["statement"].startswith("SELECT col_int_key /")
    # One finding per query pattern (table names do not count), streamed and in its folder.
    assert len(r.findings) == 1 and f["occurrences"] > 10
    lines = (tmp_path / "run" / "findings.jsonl").read_text().splitlines()
    assert [json.loads(x)["signature"] for x in lines] == [f["signature"]]
    folder = tmp_path / "run" / "findings" / f["id"]
    details = json.loads((folder / "finding.json").read_text())["target_details"]
    assert details["a"]["options"] == {"div_precision_increment": 4}
    assert f["statement"] in (folder / "statements.sql").read_text()
    s = r.summary()
    assert s["finding_counts"]["by_kind"] == {"divergence": 1}
    assert s["oracles"]["differential"]["fired"] == f["occurrences"]
    assert [t["name"] for t in s["targets"]] == ["a", "b"]
    assert r.exit_code == 1


def test_differential_compares_a_limit_that_the_primary_key_orders(tmp_path):
    # ORDER BY pk decides each row's place though the text does not sort by every column: the schema says so.
    g = gauntlet.Grammar.from_string(
        "query: SELECT pk, col_int_key / 3 FROM _table ORDER BY pk LIMIT 20 "
        "| SELECT T1.pk, T2.pk FROM _table AS T1 JOIN _table AS T2 ON T1.pk < T2.col_int_key ORDER BY T1.pk, T2.pk LIMIT 5 "
        "| SELECT T1.pk, T2.col_int_key FROM _table AS T1 JOIN _table AS T2 ON T1.pk < T2.col_int_key ORDER BY T1.pk LIMIT 5 ;")
    r = gauntlet.run(g, threads=1, queries=300, duration=0, out=tmp_path / "run", oracles="differential",
                     targets=two_targets({"div_precision_increment": 4}, {"div_precision_increment": 12}))
    assert [f["statement"].startswith("SELECT pk, col_int_key / 3") for f in r.findings] == [True], r.table()
    assert r.findings[0]["kind"] == "divergence"
    same = gauntlet.run(g, threads=1, queries=300, duration=0, out=tmp_path / "same", oracles="differential",
                        targets=two_targets())
    o = same.summary()["oracles"]["differential"]
    assert o["fired"] == 0, same.findings[:2]
    # Only the join sorted by one side's key stays a LIMIT of rows in any order.
    assert o["skipped_by_reason"] == {"LIMIT without a total ORDER BY": o["skipped"]}, o
    assert 50 < o["skipped"] < 150 and o["passed"] == 300 - o["skipped"], o


@pytest.mark.slow
def test_differential_quiet_on_identical_targets_over_10000_selects(tmp_path):
    r = gauntlet.run(OPTIMIZER, threads=2, queries=5000, duration=0, out=tmp_path / "run", oracles="differential",
                     targets=two_targets())
    o = r.summary()["oracles"]["differential"]
    assert r.summary()["statements"] >= 10000
    assert o["fired"] == 0, r.findings[:2]
    assert o["passed"] > 3000, o  # most are compared, not skipped
    assert o["checked"] == r.summary()["statements"]
    assert r.exit_code == 0


def test_differential_quiet_with_sessions_writing_concurrently(tmp_path):
    # Sessions interleave differently on each target: what they then read may differ without a bug.
    g = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE IF NOT EXISTS t (a INT) ;\n"
        "query: INSERT INTO t VALUES (_digit) | DELETE FROM t WHERE a = _digit | SELECT COUNT(*) FROM t | "
        "SELECT a FROM t WHERE a > _digit ;")
    r = gauntlet.run(g, threads=4, queries=400, duration=0, out=tmp_path / "run", oracles="differential",
                     targets=two_targets())
    o = r.summary()["oracles"]["differential"]
    assert o["fired"] == 0, r.findings[:2]
    assert o["skipped_by_reason"].get("the targets' data may differ since concurrent writes", 0) > 0, o
    # One writing session: compared throughout.
    one = gauntlet.run(g, threads=1, queries=400, duration=0, out=tmp_path / "one", oracles="differential",
                       targets=two_targets())
    assert one.summary()["oracles"]["differential"]["passed"] == one.summary()["statements"]


@pytest.mark.slow
def test_differential_quiet_innodb_against_myisam(tmp_path):
    r = gauntlet.run(OPTIMIZER, threads=2, queries=1500, duration=0, out=tmp_path / "run", oracles="differential",
                     targets=two_targets(a={"engine": "InnoDB"}, b={"engine": "MyISAM"}))
    o = r.summary()["oracles"]["differential"]
    assert o["fired"] == 0, r.findings[:2]
    assert o["passed"] > 1000, o


@pytest.mark.slow
def test_relation_oracles_quiet_for_a_minute_of_each_stock_grammar(tmp_path):
    # Both grammars at once (each run starts its own server), so the minute is one minute of the suite.
    runs = {"optimizer": gauntlet.Run(OPTIMIZER, threads=2, duration=60, out=tmp_path / "optimizer",
                                      oracles=RELATION_ORACLES + ["errorlog"]).start(),
            "oltp_read_write": gauntlet.Run(OLTP / "oltp_common.yy", redefine=[OLTP / "oltp_read_write.yy"],
                                            data=OLTP / "sbtest.json", threads=2, duration=60,
                                            out=tmp_path / "oltp", oracles=RELATION_ORACLES + ["errorlog"]).start()}
    for grammar, run in runs.items():
        r = run.wait()
        s = r.summary()
        assert s["statements"] > 1000, (grammar, s["statements"])
        assert not r.findings, (grammar, [(f["kind"], f["detail"][:600]) for f in r.findings[:3]])
        applies = ["tlp", "norec", "transform:derived", "transform:cte", "transform:prepared",
                   "transform:ignore_index", "transform:optimizer_switch", "transform:join_cache"]
        if grammar == "optimizer":  # OLTP reads in transactions, where views are skipped (their DROP would wait)
            applies += ["transform:view", "transform:view_temptable"]
        else:
            view = s["oracles"]["transform:view"]
            assert view["skipped_by_reason"] == {"inside a transaction": view["checked"]}
        for name in applies:
            assert s["oracles"][name]["passed"] > 50, (grammar, name, s["oracles"][name])


def test_a_finding_inside_a_transaction_says_whether_a_second_connection_sees_it_too(tmp_path):
    # Item 4 of the README (an ENUM against an integer in NOT IN), once inside a transaction
    # and once outside: the wrong result is the server's, so the second connection sees it too.
    grammar = gauntlet.Grammar.from_string(
        "query_init: CREATE TABLE t (e ENUM('a','b')) ; INSERT INTO t VALUES ('a'), ('b') ;\n"
        "query: START TRANSACTION ; SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t) ; COMMIT ;"
        " SELECT t.e FROM t WHERE t.e NOT IN (SELECT 1 FROM t) ;\n")
    r = gauntlet.run(grammar, threads=1, queries=2, data=None, out=tmp_path / "run", oracles=["tlp"])
    evidence = {f["statement"].startswith("SELECT e"): f["evidence"] for f in r.findings}
    assert set(evidence) == {True, False}, [f["statement"] for f in r.findings]
    assert evidence[True]["in_transaction"] is True
    assert evidence[True]["outside_transaction"]["holds"] is False
    assert evidence[False]["in_transaction"] is False and "outside_transaction" not in evidence[False]


def _wrapped_run(tmp_path, trigger, oracles, grammar="query: SELECT pk FROM D WHERE col_int_key > _digit ;"):
    """A run whose only target is a real server behind a proxy that alters results of queries
    containing ``trigger``."""
    server = gauntlet.ManagedServer(tmp_path / "server").start()
    proxy = WrongResultProxy(server.socket, trigger)
    try:
        r = gauntlet.run(gauntlet.Grammar.from_string(grammar), threads=1, queries=30, duration=0,
                         out=tmp_path / "run", server=proxy.dsn, oracles=oracles)
    finally:
        proxy.close()
        server.stop()
    return r, proxy.altered


@pytest.mark.parametrize("oracle, trigger, kind", [
    ("tlp", "IS NULL", "tlp"),
    ("norec", "gauntlet_norec", "norec"),
    ("transform:derived", "gauntlet_d", "metamorphic"),
    ("transform:cte", "gauntlet_c", "metamorphic"),
    ("transform:view", "gauntlet_view", "metamorphic"),
    ("transform:view_temptable", "gauntlet_view", "metamorphic"),
    ("transform:optimizer_switch", "optimizer_switch", "metamorphic"),
    ("transform:prepared", "EXECUTE", "metamorphic"),
    ("transform:ignore_index", "USE INDEX", "metamorphic"),
    ("transform:join_cache", "join_cache_level", "metamorphic"),
])
def test_relation_oracle_fires_on_an_injected_wrong_result(tmp_path, oracle, trigger, kind):
    r, altered = _wrapped_run(tmp_path, trigger, oracle)
    assert altered > 0
    assert r.findings, r.table()
    f = r.findings[0]
    assert (f["kind"], f["oracle"]) == (kind, oracle)
    assert "relation" in f["detail"] and f["evidence"]["right"]
    assert r.exit_code == 1
    # The same queries without the wrong value: quiet.
    quiet, _ = _wrapped_run(tmp_path / "quiet", "no such text", oracle)
    assert not quiet.findings and quiet.summary()["oracles"][oracle]["passed"] > 0


def test_tlp_partitions_a_grouped_query_and_merges_its_groups(tmp_path):
    grammar = "query: SELECT COUNT(*), col_int_key, MAX(pk) AS m FROM D WHERE pk > _digit GROUP BY col_int_key ;"
    r, altered = _wrapped_run(tmp_path, "gauntlet_tlp", "tlp", grammar)  # the merged partitions' first row
    assert altered > 0 and r.findings, r.table()
    f = r.findings[0]
    assert f["signature"].startswith("tlp: SELECT") and "GROUP BY" in f["evidence"]["right"], f
    quiet, _ = _wrapped_run(tmp_path / "quiet", "no such text", "tlp", grammar)
    o = quiet.summary()["oracles"]["tlp"]
    assert not quiet.findings and o["passed"] == 30 and o["skipped"] == 0, o


def test_a_limits_rows_must_be_among_the_rows_without_it(tmp_path):
    # ORDER BY a non-unique column: which 3 rows is left to chance, but they are 3 of the query's rows without
    # the LIMIT. The proxy alters the LIMIT's first row (the unlimited query says LIMIT 10001, not LIMIT 3).
    grammar = "query: SELECT pk, col_int_key FROM D WHERE col_int_key > _digit ORDER BY col_int_key LIMIT 3 ;"
    r, altered = _wrapped_run(tmp_path, "LIMIT 3", "transform:derived", grammar)
    assert altered > 0 and r.findings, r.table()
    f = r.findings[0]
    assert f["signature"].startswith("limit: SELECT") and f["kind"] == "metamorphic", f["signature"]
    assert "the LIMIT's rows among the query's rows without it" in f["detail"]
    assert f["evidence"]["limit"] == {"limit": 3, "offset": 0} and "LIMIT 3" not in f["evidence"]["left"]
    quiet, _ = _wrapped_run(tmp_path / "quiet", "no such text", "transform:derived", grammar)
    o = quiet.summary()["oracles"]["transform:derived"]
    assert not quiet.findings and o["passed"] == 30 and o["skipped"] == 0, o


def test_errorlog_fires_on_an_error_line_and_is_quiet_otherwise(tmp_path):
    g = gauntlet.Grammar.from_string(
        "query_init: CREATE FUNCTION IF NOT EXISTS log_error_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so' ;\n"
        "query: SELECT log_error_if(_digit = 7) ;")
    r = gauntlet.run(g, threads=2, queries=100, duration=0, out=tmp_path / "run", oracles="errorlog",
                     mysqld=[f"plugin-dir={UDF_DIR}"])
    kinds = [(f["kind"], f["oracle"]) for f in r.findings]
    assert kinds == [("error-log", "errorlog")], r.table()
    assert "log_error_if(1) reports a damaged page" in r.findings[0]["detail"]
    assert r.findings[0]["signature"] == "error-log: [ERROR] gauntlet test: log_error_if(N) reports a damaged page"
    # Each read of the log counts: the run that fired says so (it said "0 checked" once).
    stats = r.summary()["oracles"]["errorlog"]
    assert stats["fired"] >= 1 and stats["checked"] == stats["passed"] + stats["fired"], stats
    quiet = gauntlet.run(OPTIMIZER, threads=2, duration=5, out=tmp_path / "quiet", oracles="errorlog")
    assert not quiet.findings
    stats = quiet.summary()["oracles"]["errorlog"]
    assert stats["fired"] == 0 and stats["passed"] >= 5 and stats["checked"] == stats["passed"], stats


def test_same_crash_twice_is_one_signature_and_known_bugs_mark_it(tmp_path):
    g = gauntlet.Grammar.from_string(
        "query_init: CREATE FUNCTION IF NOT EXISTS crash_if RETURNS INTEGER SONAME 'gauntlet_crash_if.so' ;\n"
        "query: SELECT crash_if(_digit = 7) ;")
    runs = [gauntlet.run(g, threads=2, duration=30, seed=seed, out=tmp_path / f"run{seed}",
                         mysqld=[f"plugin-dir={UDF_DIR}"]) for seed in (1, 2)]
    signatures = [r.findings[0]["signature"] for r in runs]
    assert all(r.findings[0]["kind"] == "crash" for r in runs)
    assert signatures[0] == signatures[1] and "crash_if" in signatures[0]
    known = tmp_path / "known_bugs.txt"
    known.write_text(f"# bugs we reported\n{signatures[0].split(':')[0]} ## TEST-1 crash_if crashes by design\n")
    again = gauntlet.run(g, threads=2, duration=30, seed=3, out=tmp_path / "known", known_bugs=known,
                         mysqld=[f"plugin-dir={UDF_DIR}"])
    assert again.findings[0]["known"] == "TEST-1 crash_if crashes by design"
    assert again.exit_code == 0
    assert again.summary()["finding_counts"]["known"] == 1


def test_bad_oracle_and_target_input_is_refused_before_anything_starts(tmp_path):
    with pytest.raises(gauntlet.InvalidInput, match="unknown oracle 'tlq'; known: crash, errorlog"):
        gauntlet.run(OPTIMIZER, oracles="tlq", out=tmp_path / "a")
    with pytest.raises(gauntlet.InvalidInput, match="differential compares targets"):
        gauntlet.run(OPTIMIZER, oracles="differential", out=tmp_path / "b")
    with pytest.raises(gauntlet.InvalidInput, match="names must differ; a appears more than once"):
        gauntlet.run(OPTIMIZER, targets=[{"name": "a"}, {"name": "a"}], out=tmp_path / "c")
    with pytest.raises(gauntlet.InvalidInput, match="unknown key"):
        gauntlet.run(OPTIMIZER, targets=[{"name": "a", "option": {}}], out=tmp_path / "d")
    with pytest.raises(gauntlet.InvalidInput, match="known_bugs.txt: cannot read"):
        gauntlet.run(OPTIMIZER, known_bugs=tmp_path / "known_bugs.txt", out=tmp_path / "e")
    assert not (tmp_path / "a").exists()


def _timing_targets(tmp_path, drop_index: bool):
    """Two servers with the same table of 100,000 rows; on b, unless identical, without the index
    the query uses."""
    servers = [gauntlet.ManagedServer(tmp_path / name).start() for name in ("a", "b")]
    for i, server in enumerate(servers):
        server.connect().query("CREATE DATABASE IF NOT EXISTS test")
        c = server.connect(database="test")
        c.query("CREATE TABLE test.t (pk INT PRIMARY KEY, k INT, KEY k (k)) ENGINE=InnoDB")
        c.query("INSERT INTO test.t SELECT seq, seq % 1000 FROM seq_1_to_100000")
        c.query("ANALYZE TABLE test.t")
        if drop_index and i == 1:
            c.query("ALTER TABLE test.t DROP KEY k")
    return servers


@pytest.mark.timing  # compares speeds: alone, not beside another worker
@pytest.mark.parametrize("drop_index", [True, False], ids=["index-dropped", "identical"])
def test_timing_fires_on_a_dropped_index_only(tmp_path, drop_index):
    servers = _timing_targets(tmp_path, drop_index)
    try:
        g = gauntlet.Grammar.from_string("query: SELECT COUNT(*) FROM t WHERE k = _digit ;")
        r = gauntlet.run(g, threads=1, queries=40, duration=0, data="none", out=tmp_path / "run", oracles="timing",
                         targets=[{"name": "a", "server": servers[0].dsn}, {"name": "b", "server": servers[1].dsn}])
    finally:
        for s in servers:
            s.stop()
    o = r.summary()["oracles"]["timing"]
    if not drop_index:
        assert not r.findings and o["passed"] == 40, (o, r.findings[:1])
        return
    assert [f["kind"] for f in r.findings] == ["timing"], r.table()
    f = r.findings[0]
    assert f["targets"] == ["a", "b"] and f["evidence"]["p_value"] < 0.01
    assert f["evidence"]["median_ms"]["b"] > 2 * f["evidence"]["median_ms"]["a"]
    assert "plan on a:" in f["detail"] and "ref" in f["detail"].split("plan on b:")[0]  # a used the index
    assert "ALL" in f["detail"].split("plan on b:")[1]  # b scans


class _Sevens(gauntlet.Oracle):
    """Fires on rows holding 7; skips when the statement failed; follows up in the session."""
    name = "sevens"

    def __init__(self):
        self.follow_ups = []

    def wants_rows(self, sql):
        return sql.startswith("SELECT")

    def check(self, obs):
        if obs.outcomes[0]["kind"] != "ok":
            raise gauntlet.Skip("statement failed")
        self.follow_ups.append(obs.execute("SELECT CONNECTION_ID()")[2][0][0])
        if any("7" in str(v) for row in obs.rows[0] for v in row):
            return {"detail": f"a seven in {obs.sql}", "evidence": {"rows": len(obs.rows[0])}}


class _Broken(gauntlet.Oracle):
    name = "broken"

    def check(self, obs):
        raise ValueError("oops")


def test_verified_counts_the_statements_an_oracle_checked_through(tmp_path):
    """summary["verified"]: statements at least one oracle passed or fired on (what was checked, not
    skipped), per second in the timeline too; per oracle, its passed + fired."""
    # A third of the queries call RAND(): skipped.
    g = gauntlet.Grammar.from_string("query: SELECT pk FROM _table WHERE col_int_key > _digit | "
                                     "SELECT pk FROM _table WHERE col_int_key > _digit AND pk > 2 | "
                                     "SELECT pk FROM _table WHERE col_int_key > RAND() ;")
    r = gauntlet.run(g, threads=1, duration=3, out=tmp_path / "run", oracles=["tlp", "norec"])
    s = r.summary()
    tlp, norec = s["oracles"]["tlp"], s["oracles"]["norec"]
    for o in (tlp, norec):
        assert o["verified"] == o["passed"] + o["fired"] and o["verified"] < o["checked"], o  # some are skipped
    assert max(tlp["verified"], norec["verified"]) <= s["verified"] <= min(tlp["verified"] + norec["verified"],
                                                                           s["statements"]), s
    assert s["verified_per_second"] == pytest.approx(s["verified"] / s["seconds"])
    seconds = [e for e in map(json.loads, (tmp_path / "run" / "events.jsonl").read_text().splitlines())
               if e["type"] == "second"]
    assert len(seconds) >= 2 and 0 < sum(e["verified"] for e in seconds) <= s["verified"], seconds
    assert f"verified     {s['verified']:>12,}" in r.table()
    plain = gauntlet.run(OPTIMIZER, threads=1, queries=50, duration=0, out=tmp_path / "plain")
    assert plain.summary()["verified"] == 0 and "verified " not in plain.table()


def test_python_oracle_fires_skips_and_follows_up(tmp_path):
    g = gauntlet.Grammar.from_string("query: SELECT _digit | SELECT no_such_column FROM A ;")
    sevens = _Sevens()
    r = gauntlet.run(g, threads=2, queries=100, duration=0, out=tmp_path / "run", oracles=[sevens, "norec"])
    o = r.summary()["oracles"]["sevens"]
    assert o["fired"] > 0 and o["passed"] > 0 and o["skipped_by_reason"]["statement failed"] > 0, o
    assert [(f["kind"], f["oracle"], f["signature"]) for f in r.findings] == [
        ("custom", "sevens", "sevens: SELECT ?")]
    assert r.findings[0]["detail"] == "a seven in SELECT 7" and r.findings[0]["evidence"] == {"rows": 1}
    assert len(set(sevens.follow_ups)) == 2  # each session's own connection
    assert json.loads((tmp_path / "run" / "run.json").read_text())["oracles"] == ["crash", "custom:sevens", "norec"]
    broken = gauntlet.run(g, threads=1, queries=10, duration=0, out=tmp_path / "broken", oracles=[_Broken()])
    assert broken.summary()["error"]["kind"] == "oracle"
    assert "oracle broken: ValueError: oops" in broken.summary()["error"]["message"]
    assert broken.exit_code == 2
    with pytest.raises(gauntlet.InvalidInput, match="an oracle is a name or a gauntlet.Oracle"):
        gauntlet.run(g, oracles=[42], out=tmp_path / "x")


class _FiresOnLast(gauntlet.Oracle):
    """Fires on the statement that selects 'last'."""
    name = "last"

    def wants_rows(self, sql):
        return False

    def check(self, obs):
        return "the last one" if "'last'" in obs.sql else None


def test_a_finding_carries_its_sessions_settings_from_long_before(tmp_path):
    # 40 statements after the SETs: out of the finding's last-statements window (20), still its settings.
    g = gauntlet.Grammar.from_string(
        "query_init: SET SESSION sql_mode = 'ANSI' ; SET @x = 1 ; SET STATEMENT max_statement_time = 1 FOR SELECT 1 ;\n"
        "query: { $n++ < 40 ? 'SELECT 1' : \"SELECT 'last'\" } ;")
    r = gauntlet.run(g, threads=1, queries=42, duration=0, out=tmp_path / "run", oracles=[_FiresOnLast()])
    (f,) = r.findings
    assert f["settings"] == ["SET SESSION sql_mode = 'ANSI'", "SET @x = 1"], f
    assert not any(p.startswith("SET") for p in f["preceding"])
    sql = (tmp_path / "run" / "findings" / f["id"] / "statements.sql").read_text()
    assert sql.index("SET SESSION sql_mode = 'ANSI';") < sql.index("SELECT 'last';")


def test_cli_targets_oracles_and_config(tmp_path):
    import subprocess
    import sys
    grammar = tmp_path / "div.yy"
    grammar.write_text("query: SELECT col_int_key / _digit AS q FROM _table WHERE pk < 5 ORDER BY q ;\n")
    env = {"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-m", "gauntlet", "run", "--grammar", str(grammar), "--queries", "50", "--duration", "0",
           "--target", "a,div_precision_increment=4", "--target", "b,div_precision_increment=12",
           "--oracle", "differential", "--oracle", "errorlog", "--out", str(tmp_path / "cli")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert r.returncode == 1, r.stderr
    assert "FINDING divergence" in r.stdout and "oracle differential:" in r.stdout
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"grammar": str(grammar), "queries": 50, "duration": 0, "oracles": "differential",
                                  "targets": [{"name": "x", "options": {"div_precision_increment": 4}},
                                              {"name": "y", "options": {"div_precision_increment": 4}}]}))
    r = subprocess.run([sys.executable, "-m", "gauntlet", "run", "--config", str(config), "--out",
                        str(tmp_path / "same")], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    recorded = json.loads((tmp_path / "same" / "run.json").read_text())
    assert [t["name"] for t in recorded["targets"]] == ["x", "y"] and recorded["oracles"] == ["crash", "differential"]
    bad = subprocess.run(cmd[:-2] + ["--target", "c,engine", "--out", str(tmp_path / "bad")], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 2 and "'engine' in 'c,engine' is not OPTION=VALUE" in bad.stderr


def quiet_transforms(tmp_path, grammar: str, queries: int, transform: str, passed: int) -> None:
    """A run of ``grammar`` with ``transform`` alone (so on every statement): it passed at least ``passed``
    times, and nothing was found."""
    r = gauntlet.run(gauntlet.Grammar.from_string(grammar), data="none", threads=1, queries=queries, duration=0,
                     out=tmp_path / "run", oracles=[transform])
    assert r.summary()["oracles"][transform]["passed"] >= passed, r.summary()["oracles"][transform]
    assert not r.findings, [f["signature"] for f in r.findings]


def test_views_of_the_transforms_parse_as_the_session_does(tmp_path):
    # Hunt false alarms: the view is made on a second connection, which had neither the session's
    # collation ('A' = 'a' is false under utf8mb4_bin) nor its sql_mode ('' is NULL under
    # EMPTY_STRING_IS_NULL, so '' IN (0) is not true).
    quiet_transforms(tmp_path,
                     "query_init: CREATE TABLE IF NOT EXISTS tv (a INT) ; INSERT INTO tv VALUES (1), (2) ;\n"
                     "query: setting ; SELECT COUNT(*) FROM tv WHERE 'A' = 'a' ; SELECT COUNT(*) FROM tv WHERE '' IN (0) ;\n"
                     "setting: SET SESSION collation_connection = utf8mb4_bin | SET SESSION collation_connection = DEFAULT\n"
                     "  | SET SESSION sql_mode = 'EMPTY_STRING_IS_NULL' | SET SESSION sql_mode = DEFAULT ;",
                     40, "transform:view", 40)


def test_rows_tied_beyond_max_sort_length_may_come_in_any_order(tmp_path):
    # A hunt false alarm: ORDER BY a text compares its first max_sort_length bytes only.
    quiet_transforms(tmp_path,
                     "query_init: CREATE TABLE IF NOT EXISTS tl (a INT, c MEDIUMTEXT) ;"
                     " INSERT INTO tl SELECT seq, CONCAT(REPEAT('x', 80), seq) FROM seq_1_to_30 ;"
                     " SET SESSION max_sort_length = 64 ; SET SESSION join_buffer_size = 128 ;\n"
                     "query: SELECT s2.c FROM tl AS s1 CROSS JOIN tl AS s2 ORDER BY 1 ;",
                     10, "transform:join_cache", 5)
