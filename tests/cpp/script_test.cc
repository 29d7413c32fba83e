// Script and Turns: what a replay waits for, read from statement logs, and
// the order sessions then start in; no server.
#include "exec/script.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

#include "exec/turns.h"

namespace gauntlet {
namespace {

ScriptStatement At(uint64_t seq, int thread, double start, double end) {
  ScriptStatement s;
  s.seq = seq;
  s.thread = thread;
  s.start = start;
  s.end = end;
  s.sql = "SELECT " + std::to_string(seq);
  return s;
}

// Session 1 inserts while session 2's crashing SELECT (seq 2) runs until the crash is noticed.
Script Crash() {
  std::vector<ScriptStatement> all = {At(0, 1, 0.000, 0.001), At(1, 1, 0.0011, 0.002), At(2, 2, 0.0015, 1.0),
                                      At(3, 1, 0.0021, 0.003), At(4, 1, 0.0031, 0.004), At(5, 1, 0.0041, 0.005)};
  all[2].cut_off = true;
  return Script::FromStatements(all, 0);
}

TEST(Script, ACutOffStatementLetsTheNextOfOtherSessionsGoFirst) {
  Script script = Crash();
  const ScriptStatement& crashing = script.sessions[1][0];
  ASSERT_EQ(crashing.seq, 2u);
  // Other sessions' statements ranked before it, then let_first more.
  EXPECT_EQ(script.LetFirst(1, crashing), (std::vector<uint64_t>{2, 0}));
  script.let_first = 1;
  EXPECT_EQ(script.LetFirst(1, crashing), (std::vector<uint64_t>{3, 0}));
  script.let_first = 3;
  EXPECT_EQ(script.LetFirst(1, crashing), (std::vector<uint64_t>{5, 0}));
  script.let_first = 8;  // no more than there are
  EXPECT_EQ(script.LetFirst(1, crashing), (std::vector<uint64_t>{5, 0}));
  // A statement that ended normally waits for nobody.
  EXPECT_EQ(script.LetFirst(0, script.sessions[0][1]), (std::vector<uint64_t>{0, 0}));
}

TEST(Script, TheStatementThatACutOffOneOverlappedIsMarked) {
  const Script script = Crash();
  std::vector<uint64_t> marked;
  for (const auto& session : script.sessions)
    for (const ScriptStatement& s : session)
      if (s.before_cut_off) marked.push_back(s.seq);
  EXPECT_EQ(marked, std::vector<uint64_t>{1});  // seq 1 ran until 0.002; seq 2 started at 0.0015
  std::vector<ScriptStatement> apart = {At(0, 1, 0.0, 0.001), At(1, 2, 0.002, 1.0)};
  apart[1].cut_off = true;
  EXPECT_FALSE(Script::FromStatements(apart, 0).sessions[0][0].before_cut_off);
  apart[0].end = 0.003;
  EXPECT_TRUE(Script::FromStatements(apart, 0).sessions[0][0].before_cut_off);
  EXPECT_FALSE(Script::FromStatements(apart, 1).sessions[0][0].before_cut_off);  // one session: no order to guess
}

TEST(Script, AStillRunningQuickStatementCountsAsAppliedWithinTheReplyWindow) {
  Script script = Crash();
  const ScriptStatement& after = script.sessions[0][2];  // seq 3, starts 0.0021
  // Session 2's SELECT ended when the crash was noticed: its end says nothing, it never counts.
  script.reply_window = 1.0;
  EXPECT_EQ(script.MustFinishBefore(1, after), 0u);
  // Session 1's seq 1 was still running 0.4 ms after seq 2 started: within 1 ms, not within 0.1 ms.
  const ScriptStatement& crashing = script.sessions[1][0];
  script.reply_window = 0.001;
  EXPECT_EQ(script.MustFinishBefore(0, crashing), 2u);
  script.reply_window = 0.0001;
  EXPECT_EQ(script.MustFinishBefore(0, crashing), 1u);
}

TEST(Script, TheLogSaysWhichStatementsTheCrashCutOff) {
  const std::string path = std::filesystem::temp_directory_path() / ("script_test_" + std::to_string(getpid()) + ".jsonl");
  {
    std::ofstream out(path);
    out << R"({"header": "gauntlet statement log"})" << "\n"
        << R"({"seq": 0, "thread": 1, "start": 0.1, "end": 0.2, "sql": "SELECT 1", "outcome": "ok"})" << "\n"
        << R"({"seq": 1, "thread": 1, "start": 0.2, "end": 0.9, "sql": "SELECT 2", "outcome": "crash"})" << "\n"
        << R"({"seq": 2, "thread": 2, "start": 0.3, "end": 0.9, "sql": "SELECT 3", "outcome": "connection"})" << "\n"
        << R"({"seq": 3, "thread": 2, "start": 0.3, "end": 0.9, "sql": "SELECT 4", "outcome": "error"})" << "\n"
        << R"({"seq": 4, "thread": 2, "start": 0.3, "end": 0.9, "sql": "SELECT 5", "outcome": "cancelled"})" << "\n";
  }
  const Script script = Script::FromStatementLogs({path}, 0);
  std::filesystem::remove(path);
  ASSERT_EQ(script.sessions.size(), 2u);
  EXPECT_FALSE(script.sessions[0][0].cut_off);
  EXPECT_TRUE(script.sessions[0][1].cut_off);
  EXPECT_TRUE(script.sessions[1][0].cut_off);
  EXPECT_FALSE(script.sessions[1][1].cut_off);
  EXPECT_TRUE(script.sessions[1][2].cut_off);
}

// The original seqs (in the SQL) of a one-session script, in its order.
std::vector<std::string> Sql(const Script& script) {
  std::vector<std::string> out;
  for (const ScriptStatement& s : script.sessions.at(0)) out.push_back(s.sql.substr(7));
  return out;
}

TEST(Script, OneSessionTakesTheGuessesByMovingTheCutOffStatement) {
  std::vector<ScriptStatement> all;
  for (const auto& session : Crash().sessions) all.insert(all.end(), session.begin(), session.end());
  Script serial = Script::FromStatements(all, 1);
  EXPECT_EQ(Sql(serial.Serialized()), (std::vector<std::string>{"0", "1", "2", "3", "4", "5"}));
  serial.let_first = 2;
  EXPECT_EQ(Sql(serial.Serialized()), (std::vector<std::string>{"0", "1", "3", "4", "2", "5"}));
  serial.let_first = 9;  // no further than there are
  EXPECT_EQ(Sql(serial.Serialized()), (std::vector<std::string>{"0", "1", "3", "4", "5", "2"}));
  serial.let_first = 0;
  serial.hold_back = 0.01;  // before seq 1, which it overlapped
  EXPECT_EQ(Sql(serial.Serialized()), (std::vector<std::string>{"0", "2", "1", "3", "4", "5"}));
  // Not past a statement of its own thread: it ran after it in the run.
  Script own = Script::FromStatements({At(0, 1, 0, 0.001), At(1, 2, 0.0005, 1.0), At(2, 2, 1.0, 1.1)}, 1);
  own.sessions[0][1].cut_off = true;
  own.let_first = 1;
  EXPECT_EQ(Sql(own.Serialized()), (std::vector<std::string>{"0", "1", "2"}));
}

// Each session a thread that "executes" a statement instantly, between
// Turns::Start and Turns::Finish: the seqs in the order they started (Start
// called) and executed (Start returned).
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> Executed(const Script& script) {
  std::atomic<bool> stop{false};
  Turns turns(script, stop);
  std::mutex mu;
  std::vector<uint64_t> started, executed;
  std::vector<std::thread> sessions;
  for (size_t x = 0; x < script.sessions.size(); ++x)
    sessions.emplace_back([&, x] {
      for (const ScriptStatement& s : script.sessions[x]) {
        if (!turns.Wait(x, s)) return;
        {
          std::lock_guard<std::mutex> lock(mu);
          started.push_back(s.seq);
        }
        turns.Start(x, s);
        {
          std::lock_guard<std::mutex> lock(mu);
          executed.push_back(s.seq);
        }
        turns.Finish(x);
      }
    });
  for (std::thread& t : sessions) t.join();
  return {started, executed};
}

TEST(Turns, SessionsStartInTheRunsOrderAndExecuteAsTheGuessSays) {
  Script script = Crash();
  const std::vector<uint64_t> in_order = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(Executed(script).first, in_order);
  script.let_first = 2;  // the crash read late: after seq 3 and 4, before seq 5
  auto [started, executed] = Executed(script);
  EXPECT_EQ(started, in_order);
  EXPECT_EQ(executed, (std::vector<uint64_t>{0, 1, 3, 4, 2, 5}));
  script.let_first = 0;
  script.hold_back = 0.01;  // early: before seq 1, which it overlapped
  script.reply_window = 0;
  EXPECT_EQ(Executed(script).second, (std::vector<uint64_t>{0, 2, 1, 3, 4, 5}));
}

}  // namespace
}  // namespace gauntlet
