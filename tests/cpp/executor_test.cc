// The executor against real managed servers, with faults injected while
// sessions run. Small enough to run under ThreadSanitizer (`make tsan`).
#include "exec/executor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "oracle/registry.h"
#include "server/managed_server.h"
#include "server/server_probe.h"

namespace gauntlet {
namespace {

namespace fs = std::filesystem;

// A started server in a fresh directory, removed afterwards.
class Fixture {
 public:
  Fixture() : dir_(MakeDir()), server_(Options(dir_)), probe_(&server_) { server_.Start(); }
  ~Fixture() {
    server_.Stop(5);
    fs::remove_all(dir_);
  }
  ManagedServer& server() { return server_; }

  RunResult Run(const std::string& grammar, RunOptions options, std::function<void()> during = nullptr) {
    ConnectionParams params = server_.connection();
    params.database = "test";
    Executor executor(Grammar::FromString(grammar, "<test>"), Schema::RqgDefault(), params, options, &probe_);
    return Finish(executor, during);
  }

  RunResult RunScript(std::shared_ptr<const Script> script, RunOptions options,
                      std::function<void()> during = nullptr) {
    ConnectionParams params = server_.connection();
    params.database = "test";
    Executor executor(std::move(script), params, options, &probe_);
    return Finish(executor, during);
  }

  const std::string& dir() const { return dir_; }

 private:
  static std::string MakeDir() {
    char tmpl[] = "/tmp/gauntlet-exec-XXXXXX";
    return mkdtemp(tmpl);
  }
  static ServerOptions Options(const std::string& dir) {
    ServerOptions o;
    o.dir = dir + "/server";
    o.core_file = false;
    return o;
  }
  std::string dir_;
  ManagedServer server_;
  ManagedServerProbe probe_;

  static RunResult Finish(Executor& executor, const std::function<void()>& during) {
    std::thread fault;
    if (during) fault = std::thread(during);
    RunResult r = executor.Run();
    if (fault.joinable()) fault.join();
    return r;
  }
};

std::vector<std::string> Logs(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("statements-", 0) == 0) files.push_back(e.path().string());
  return files;
}

// Every logged statement's SQL in start order (by seq), all sessions.
std::vector<std::string> InStartOrder(const std::string& dir) {
  const Script all = Script::FromStatementLogs(Logs(dir), 1);
  std::vector<std::string> sql;
  for (const ScriptStatement& s : all.sessions.at(0)) sql.push_back(s.sql);
  return sql;
}

RunOptions Sessions(int threads, double duration = 30) {
  RunOptions o;
  o.threads = threads;
  o.duration = duration;
  o.hang_timeout = 5;
  return o;
}

// Exactly one finding, of `kind`, which is also why the run stopped.
void ExpectOneFinding(const RunResult& r, const std::string& kind) {
  ASSERT_EQ(r.findings.size(), 1u) << r.stop_reason;
  EXPECT_EQ(r.findings[0].kind, kind);
  EXPECT_EQ(r.stop_reason, kind);
}

constexpr char kLoad[] = "query: SELECT BENCHMARK(20000, MD5(_digit)) | SELECT _digit | SELECT { $n++ } ;\n";

TEST(Executor, ServerCrashAtManyMomentsIsOneCrashFinding) {
  std::mt19937 rng(7);
  const int signals[] = {SIGSEGV, SIGKILL, SIGABRT};
  for (int i = 0; i < 6; ++i) {
    Fixture f;
    const int sig = signals[i % 3];
    const int delay_ms = static_cast<int>(rng() % 400);
    const pid_t pid = f.server().pid();
    const RunResult r = f.Run(kLoad, Sessions(i % 2 ? 8 : 2), [=] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      kill(pid, sig);
    });
    ExpectOneFinding(r, "crash");
    if (r.findings.empty()) continue;
    EXPECT_EQ(r.findings[0].signature.rfind("signal " + std::to_string(sig), 0), 0u) << r.findings[0].signature;
    EXPECT_LT(r.seconds, 20);
  }
}

// The recovery oracle's kills (RunOptions::kill_at): the run stops as "killed", and what the sessions
// meet of the dying server (its crash report too) is no finding.
TEST(Executor, AKillOnPurposeUnderLoadIsNoFinding) {
  for (const int sig : {SIGKILL, SIGSEGV}) {
    Fixture f;
    RunOptions o = Sessions(8);
    o.kill_at = 0.5;
    o.kill_signal = sig;
    const RunResult r = f.Run(kLoad, o);
    EXPECT_EQ(r.stop_reason, "killed");
    EXPECT_TRUE(r.findings.empty()) << r.findings[0].signature;
    EXPECT_LT(r.seconds, 5);
    for (int i = 0; i < 600 && f.server().Alive(); ++i)  // a SIGSEGV's report takes a moment
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(f.server().Alive());
    f.server().Start();  // the datadir recovers (the fixture stops it)
  }
}

TEST(Executor, StoppedServerIsOneHangFinding) {
  Fixture f;
  RunOptions o = Sessions(4);
  o.hang_timeout = 1;
  const pid_t pid = f.server().pid();
  const RunResult r = f.Run(kLoad, o, [=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, SIGSTOP);
  });
  ExpectOneFinding(r, "hang");
}

TEST(Executor, ShutdownStatementIsAShutdownFinding) {
  Fixture f;
  const RunResult r = f.Run("query: ==FACTOR:100== SELECT _digit | SHUTDOWN ;\n", Sessions(4));
  ExpectOneFinding(r, "shutdown");
}

TEST(Executor, PerlBlockThatDiesEndsTheRunWithAFailure) {
  Fixture f;
  const RunResult r = f.Run("query: SELECT { $n++; die 'boom' if $n > 20; $n } ;\n", Sessions(4));
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->kind, "grammar");
  EXPECT_NE(r.failure->message.find("boom"), std::string::npos);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.stop_reason, "error");
}

TEST(Executor, StuckPerlIsReportedAndInterrupted) {
  Fixture f;
  RunOptions o = Sessions(2);
  o.generate_timeout = 1;
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = f.Run("query: SELECT 1 | SELECT { while (1) {} ; 1 } | SELECT { sleep 100; 1 } ;\n", o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->kind, "stuck");
  EXPECT_NE(r.failure->message.find("Perl block at <test>:1:"), std::string::npos) << r.failure->message;
}

TEST(Executor, DeadlineInterruptsARunawayBlock) {
  Fixture f;
  RunOptions o = Sessions(2, 1.5);
  o.generate_timeout = 60;
  const RunResult r = f.Run("query: SELECT 1 | SELECT { while (1) {} ; 1 } ;\n", o);
  EXPECT_EQ(r.stop_reason, "duration");
  EXPECT_FALSE(r.failure.has_value());
  EXPECT_LT(r.seconds, 4);
}

TEST(Executor, AScriptRunsTheLoggedStatementsInTheRunsStartOrder) {
  Fixture f;
  RunOptions o = Sessions(3, 0);
  o.queries = 40;
  o.statement_log = true;
  o.out_dir = f.dir() + "/run";
  const RunResult run = f.Run(
      "query: INSERT INTO t VALUES (_digit) ; SELECT COUNT(*) FROM t | UPDATE t SET a = a + 1 | SELECT _digit ;\n"
      "query_init: CREATE TABLE IF NOT EXISTS t (a INT) ;\n", o);
  ASSERT_TRUE(run.findings.empty());
  auto script = std::make_shared<Script>(Script::FromStatementLogs(Logs(o.out_dir), 0));
  ASSERT_EQ(script->sessions.size(), 3u);
  ASSERT_EQ(script->size(), run.statements);
  o.out_dir = f.dir() + "/replay";
  const RunResult replay = f.RunScript(script, o);
  EXPECT_EQ(replay.stop_reason, "script");
  EXPECT_EQ(replay.statements, run.statements);
  EXPECT_EQ(InStartOrder(f.dir() + "/replay"), InStartOrder(f.dir() + "/run"));
}

TEST(Executor, ServerCrashDuringAScriptIsOneCrashFinding) {
  std::mt19937 rng(11);
  for (int i = 0; i < 3; ++i) {
    Fixture f;
    const std::string log = f.dir() + "/statements-1.jsonl";
    {
      std::ofstream out(log);
      for (int k = 0; k < 200000; ++k)
        out << "{\"seq\":" << k << ",\"thread\":" << 1 + k % 4 << ",\"sql\":\"SELECT " << k << "\"}\n";
    }
    auto script = std::make_shared<Script>(Script::FromStatementLogs({log}, 0));
    const int delay_ms = static_cast<int>(rng() % 300);
    const pid_t pid = f.server().pid();
    const RunResult r = f.RunScript(script, Sessions(4), [=] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      kill(pid, SIGSEGV);
    });
    ExpectOneFinding(r, "crash");
  }
}

// Replay's guesses around a statement the run's crash cut off (session 2's
// SELECT, overlapping session 1's inserts): late, it lets the next two of
// session 1 finish first and holds the rest; early, the insert it overlapped
// waits until it has been sent, and hold_back more.
TEST(Executor, AScriptLetsACutOffStatementGoLateOrEarly) {
  const auto at = [](uint64_t seq, int thread, double start, double end, std::string sql) {
    ScriptStatement s;
    s.seq = seq;
    s.thread = thread;
    s.start = start;
    s.end = end;
    s.sql = std::move(sql);
    s.cut_off = end > 0.5;
    return s;
  };
  const std::vector<ScriptStatement> all = {
      at(0, 1, 0.000, 0.001, "CREATE OR REPLACE TABLE t (a INT)"), at(1, 1, 0.002, 0.003, "INSERT INTO t VALUES (1)"),
      at(2, 1, 0.0030, 0.0045, "INSERT INTO t VALUES (2)"),        at(3, 2, 0.0035, 0.9, "SELECT COUNT(*) FROM t"),
      at(4, 1, 0.0046, 0.005, "INSERT INTO t VALUES (3)"),          at(5, 1, 0.0051, 0.006, "INSERT INTO t VALUES (4)"),
      at(6, 1, 0.0061, 0.007, "INSERT INTO t VALUES (5)")};
  Fixture f;
  RunOptions o = Sessions(2, 0);
  o.statement_log = true;
  // seq -> {start, end} as the replay logged them (its seqs are the ranks).
  const auto times = [&](const std::string& dir) {
    std::map<uint64_t, std::pair<double, double>> t;
    for (const std::string& file : Logs(dir)) {
      std::ifstream in(file);
      std::string line;
      while (std::getline(in, line)) {
        const nlohmann::json j = nlohmann::json::parse(line);
        if (!j.contains("header")) t[j["seq"].get<uint64_t>()] = {j["start"].get<double>(), j["end"].get<double>()};
      }
    }
    return t;
  };
  for (int round = 0; round < 3; ++round) {
    auto late = std::make_shared<Script>(Script::FromStatements(all, 0));
    late->let_first = 2;
    o.out_dir = f.dir() + "/late" + std::to_string(round);
    RunResult r = f.RunScript(late, o);
    EXPECT_EQ(r.stop_reason, "script");
    EXPECT_EQ(r.statements, 7u);
    auto t = times(o.out_dir);
    ASSERT_EQ(t.size(), 7u);
    EXPECT_GE(t[3].first, t[5].second);  // after the two it let go first
    EXPECT_GE(t[6].first, t[3].first);   // before the rest

    auto early = std::make_shared<Script>(Script::FromStatements(all, 0));
    early->hold_back = 0.05;
    early->reply_window = 0;
    ASSERT_TRUE(early->sessions[0][2].before_cut_off);
    o.out_dir = f.dir() + "/early" + std::to_string(round);
    r = f.RunScript(early, o);
    EXPECT_EQ(r.stop_reason, "script");
    t = times(o.out_dir);
    ASSERT_EQ(t.size(), 7u);
    EXPECT_GE(t[2].first, t[3].first + 0.045);  // the insert it overlapped went after it
  }
}

// Two targets in lockstep, every statement-following oracle on, sessions
// finding divergences while one server is killed at a random moment: one
// crash finding naming that target, the divergence found before it, and (under
// TSan) no race between sessions, oracles and the watchdog.
TEST(Executor, OraclesOnTwoTargetsUnderLoadWhileOneCrashes) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2; ++round) {
    const std::string dir = [] {
      char tmpl[] = "/tmp/gauntlet-oracles-XXXXXX";
      return std::string(mkdtemp(tmpl));
    }();
    ServerOptions a_options, b_options;
    a_options.dir = dir + "/a";
    b_options.dir = dir + "/b";
    a_options.core_file = b_options.core_file = false;
    a_options.mysqld = {"div_precision_increment=4"};
    b_options.mysqld = {"div_precision_increment=12"};
    ManagedServer a(a_options), b(b_options);
    a.Start();
    b.Start();
    ManagedServerProbe a_probe(&a), b_probe(&b);
    std::vector<Target> targets(2);
    targets[0].name = "a";
    targets[1].name = "b";
    targets[0].connection = a.connection();
    targets[1].connection = b.connection();
    targets[0].probe = &a_probe;
    targets[1].probe = &b_probe;
    for (Target& t : targets) t.connection.database = "test";
    const auto oracles = MakeOracles({"differential", "tlp", "norec", "transforms", "errorlog"}, targets, {});
    RunOptions o = Sessions(4, 30);
    o.out_dir = dir + "/out";
    Executor executor(Grammar::FromString(
                          // One writing session: with more, the differential oracle stops comparing.
                          "thread1_init: CREATE TABLE IF NOT EXISTS t (a INT, b INT) ; "
                          "INSERT INTO t VALUES (1, 2), (3, NULL), (7, 8) ;\n"
                          "query: SELECT a / 3 AS q FROM t WHERE a > _digit ORDER BY q | "
                          "SELECT a FROM t WHERE b < _digit | SELECT COUNT(*) FROM t WHERE a IS NOT NULL ;\n",
                          "<test>"),
                      Schema::RqgDefault(), targets, o, oracles);
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(1500, 2500)(rng));
    std::thread fault([&] {
      std::this_thread::sleep_for(delay);
      b_probe.Kill(SIGKILL);  // SIGKILL, under the probe's lock (the sessions probe meanwhile)
    });
    const RunResult r = executor.Run();
    fault.join();
    EXPECT_EQ(r.stop_reason, "crash");
    std::map<std::string, std::vector<std::string>> kinds;
    for (const Finding& f : r.findings) kinds[f.kind] = f.targets;
    EXPECT_EQ(kinds["crash"], std::vector<std::string>{"b"});
    EXPECT_EQ(kinds["divergence"], (std::vector<std::string>{"a", "b"}));
    EXPECT_GT(r.oracles.at("tlp").passed, 0u);
    EXPECT_EQ(r.oracles.at("tlp").fired + r.oracles.at("norec").fired + r.oracles.at("transform:derived").fired, 0u);
    EXPECT_TRUE(fs::exists(dir + "/out/findings.jsonl"));
    a.Stop(5);
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace gauntlet
