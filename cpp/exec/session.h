// Session: one workload session on every target of a run.
//
// Holds one connection per target; Execute() sends a statement to one
// target, and the executor sends each statement to all targets in turn
// (lockstep), so that the targets' states stay equal. Oracles run their
// follow-up statements here, in the same session the workload statement ran
// in (its transaction, temporary tables and variables). Used by one thread;
// the watchdog only reads which target is busy and aborts connections.
#ifndef GAUNTLET_EXEC_SESSION_H_
#define GAUNTLET_EXEC_SESSION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "exec/connection.h"
#include "exec/target.h"

namespace gauntlet {

class Session {
 public:
  explicit Session(const std::vector<Target>& targets);

  size_t size() const { return targets_.size(); }
  const Target& target(size_t t) const { return targets_[t]; }
  bool connected(size_t t) const { return connections_[t] != nullptr; }
  // Opens target t's connection (replacing the old one) and runs its setup
  // statements; false with the reason in *error.
  bool Open(size_t t, Outcome* error);
  void Close(size_t t);
  // `limit`: seconds after which the watchdog kills the statement (0: the
  // run's statement timeout only); for oracles' follow-ups, which may be
  // far heavier than the statement they check.
  Outcome Execute(size_t t, std::string_view sql, ResultSet* rows = nullptr, double limit = 0);
  // On a second session to target t, opened when first used: for an
  // oracle's DDL (CREATE VIEW), which would end the workload's transaction.
  Outcome ExecuteSide(size_t t, std::string_view sql, ResultSet* rows = nullptr, double limit = 0);
  // True when target t's session is inside an explicit transaction.
  bool InTransaction(size_t t) const;
  // The temporary tables the workload made in this session (by the first target's successful
  // statements; a new connection has none): no other connection sees them. Its own thread only.
  const std::set<std::string>& temporary_tables() const { return temporary_tables_; }
  // The database the workload's last successful USE chose ("" for the connection's own). Its own thread only.
  const std::string& database() const { return database_; }

  // For the watchdog (any thread).
  uint64_t connection_id(size_t t) const { return ids_[t]; }
  struct Busy {
    int target = -1;          // -1 when idle
    uint64_t connection = 0;  // the server's id of the busy connection (the side one, too)
    int64_t since = 0;        // steady-clock nanoseconds when the statement started
    int64_t deadline = 0;     // when to kill it (0: no limit of its own)
    int kills = 0;            // how often the watchdog killed this statement already
  };
  // busy_ is published last (release) and read first (acquire): a target seen
  // busy comes with its statement's connection, start and deadline, or later ones.
  Busy busy() const {
    const int target = busy_.load(std::memory_order_acquire);
    return {target, busy_connection_.load(std::memory_order_relaxed), busy_since_.load(std::memory_order_relaxed),
            busy_deadline_.load(std::memory_order_relaxed), busy_kills_.load(std::memory_order_relaxed)};
  }
  // When the statement this session ran last started (its own thread only).
  int64_t last_started() const { return last_started_; }
  // When a statement of this session (follow-ups too) last finished.
  int64_t last_finished() const { return last_finished_.load(std::memory_order_relaxed); }
  // Restarts the busy clock after the watchdog killed the statement (so that
  // it kills once per period), counting the kill.
  void RestartBusyClock(int64_t now) {
    busy_since_ = now;
    busy_deadline_ = 0;
    ++busy_kills_;
  }
  void AbortAll();

 private:
  const std::vector<Target>& targets_;
  mutable std::mutex mu_;  // guards replacing a connection against AbortAll()
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<std::unique_ptr<Connection>> sides_;
  std::unique_ptr<std::atomic<uint64_t>[]> ids_;
  Outcome Run(size_t t, Connection& c, std::string_view sql, ResultSet* rows, double limit);
  std::atomic<int> busy_{-1};
  std::atomic<uint64_t> busy_connection_{0};
  std::atomic<int64_t> busy_since_{0};
  std::atomic<int64_t> busy_deadline_{0};
  std::atomic<int> busy_kills_{0};
  std::atomic<int64_t> last_finished_{0};
  int64_t last_started_ = 0;
  std::set<std::string> temporary_tables_;
  std::string database_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_SESSION_H_
