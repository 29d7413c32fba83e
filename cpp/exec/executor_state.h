// Internal to the executor (executor.cc, executor_session.cc): the state its
// sessions and its watchdog share, and one session's own. Not a public header.
#ifndef GAUNTLET_EXEC_EXECUTOR_STATE_H_
#define GAUNTLET_EXEC_EXECUTOR_STATE_H_

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/rng.h"
#include "exec/clock.h"
#include "exec/executor.h"
#include "exec/finding.h"
#include "exec/syntax_share.h"
#include "exec/turns.h"

namespace gauntlet {
namespace executor_internal {

using nlohmann::json;

using nlohmann::json;

inline std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

inline bool SqlStartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && strncasecmp(s.data(), prefix.data(), prefix.size()) == 0;
}

inline bool IsCommit(std::string_view s) { return SqlStartsWith(s, "COMMIT"); }

// The first target whose server is gone, or `fallback`.
inline size_t DeadTarget(const std::vector<Target>& targets, size_t fallback) {
  for (size_t t = 0; t < targets.size(); ++t)
    if (targets[t].probe != nullptr && !targets[t].probe->Alive()) return t;
  return fallback;
}

}  // namespace executor_internal

// State shared by the workers and the watchdog.
struct Executor::Shared {
  // The counters every statement touches each have a cache line of their
  // own: `stop`, read all the time, shares none with what sessions write.
  alignas(64) std::atomic<bool> stop{false};
  std::atomic<int64_t> stopped_at{0};  // when stop was set
  // Besides each session's last_finished(), which the watchdog also reads:
  // starts, empty queries, a server that moved on.
  alignas(64) std::atomic<int64_t> last_progress{0};
  std::mutex mu;  // guards everything below
  std::string stop_reason;
  RunResult result;
  std::ofstream events;
  std::map<unsigned, uint64_t> connect_errors;
  std::unique_ptr<FindingLog> findings;
  int64_t start_ns = 0;
  std::string last_kill;      // the watchdog's last KILL, in words
  int64_t last_kill_ns = 0;   // and when
  alignas(64) std::atomic<uint64_t> seq{0};  // statements started, all sessions
  // Statements that change data: their starts and ends (an epoch), and how
  // many run now; a statement during which these moved saw other sessions write.
  alignas(64) std::atomic<uint64_t> write_epoch{0};
  std::atomic<int> writes_in_flight{0};

  std::unique_ptr<Turns> turns;  // a script's, when `ordered`
  SyntaxShare syntax;            // generated statements by top-level rule

  // Open loop: when the next query is due, and the arrival gaps' source.
  std::mutex due_mu;
  int64_t next_due = 0;
  Rng arrivals;

  double Since(int64_t ns) const { return static_cast<double>(ns - start_ns) / 1e9; }

  // REQUIRES: mu held.
  void Event(const nlohmann::json& j) {
    if (!events.is_open()) return;
    events << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
    if (!events) {
      const std::string reason = std::strerror(errno);
      events.close();
      OutputFailed(OutputError("events.jsonl", reason, "the events stop here").what(), 0);
    }
  }
  // Ends the run with an "output" error: a file of its results could not be
  // written. Unlike other failures it counts after the run stopped too (the
  // last lines of a log are written then), and it is reported even then.
  // False when another failure came first. REQUIRES: mu held.
  bool OutputFailed(const std::string& message, int thread) {
    if (result.failure) return false;
    result.failure = RunFailure{"output", Since(NowNs()), thread, message};
    stop_reason = "error";
    if (!stop) stopped_at = NowNs();
    stop = true;
    return true;
  }
  void AddFinding(Finding f) {
    nlohmann::json j = f.ToJson();
    if (!findings->Add(std::move(f))) return;  // seen before: counted
    std::lock_guard<std::mutex> lock(mu);
    j["type"] = "finding";
    Event(j);
  }
};

struct Executor::Worker {
  int id = 0;
  std::unique_ptr<Session> session;
  std::unique_ptr<Generator> generator;
  std::thread thread;
  std::ofstream log;
  std::string log_name;  // statements-N.jsonl

  std::mutex mu;  // guards the per-second block, errors, target totals and `current`
  LatencyHistogram second;
  LatencyHistogram second_queries;
  KindCounts second_kinds{};
  uint64_t second_commits = 0;
  uint64_t second_verified = 0;  // statements an oracle passed or fired on
  std::map<unsigned, uint64_t> errors;
  std::map<unsigned, std::vector<RunResult::ErrorExample>> error_examples;
  std::map<std::string, RuleCounts> rules;  // generated statements by top-level rule
  std::unique_ptr<ReachTally> reach;        // the session's own: counted without a lock
  // The last rule's entry, by the grammar's stable name: most queries come
  // from the rule before them, and the map's nodes do not move.
  const std::string* last_rule = nullptr;
  RuleCounts* last_rule_counts = nullptr;
  std::vector<TargetStats> targets;  // only with more than one target
  std::string current;
  uint64_t queries = 0;
  uint64_t cancelled = 0;  // statements that returned after the run stopped
  double generate_seconds = 0;
  std::vector<OracleStats> oracles;  // per oracle of the run
  uint64_t observed = 0;             // statements the oracles were shown (Observation::number)
  // The session's last statements, for findings: a ring.
  std::vector<std::string> history;
  size_t history_next = 0;
  // Its SET statements since it connected: a finding may need a setting made
  // long before the statements the ring still holds.
  std::vector<std::string> settings;

  // The last statement's, per target (Send fills them).
  std::vector<Outcome> outcomes;
  std::vector<ResultSet> results;  // when an oracle wants the rows
  std::vector<bool> ran;           // the targets it ran on (all but after a lost session)

  std::atomic<int64_t> generate_start{0};   // 0 when not generating
  std::atomic<bool> waiting{false};         // open loop: for its next query to be due
  std::atomic<bool> done{false};

  void Remember(std::string_view sql) {
    if (history.empty()) return;
    history[history_next % history.size()].assign(sql.data(), std::min<size_t>(sql.size(), 20000));
    ++history_next;
  }
  void RememberSetting(std::string_view sql) {
    constexpr size_t kMaxSettings = 200;
    if (settings.size() == kMaxSettings) settings.erase(settings.begin());
    settings.emplace_back(sql.substr(0, 2000));
  }
  // The statements before the last one, oldest first.
  std::vector<std::string> Preceding() const {
    std::vector<std::string> out;
    const size_t n = std::min(history_next == 0 ? 0 : history_next - 1, history.size() - 1);
    for (size_t i = history_next - 1 - n; i + 1 < history_next; ++i) out.push_back(history[i % history.size()]);
    return out;
  }
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_EXECUTOR_STATE_H_
