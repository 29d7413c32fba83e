// Executor: N concurrent sessions running a grammar against one or more
// servers (targets).
//
// Each worker is a statement source (a Generator seeded from the run seed and
// its number, RQG's threadN, running query_init/threadN_init once, then
// query/threadN until the duration, the statement budget or Stop(); or one
// session of a recorded Script, in the run's start order), a Session that
// executes each statement on every target in turn, the run's oracles, which
// judge what the statement did, and the recorder. Every statement ends in an
// Outcome per target; the first target's are counted per second and per kind,
// with latency in a mergeable histogram (each target's totals are in
// RunResult::targets). The calling thread is the watchdog: it
// closes each second (timeline), kills statements past the timeout (KILL
// QUERY), notices hangs (no statement finished for hang_timeout while the
// server lives) and turns a lost session on a dead server into a crash
// finding. Events and findings stream to OUT/events.jsonl as they happen.
// Nothing a worker meets escapes Run(): a grammar that fails or generation
// that gets stuck ends the run with a RunFailure, and stopping interrupts
// generation (Perl loops and sleeps) so that a run ends on time.
#ifndef GAUNTLET_EXEC_EXECUTOR_H_
#define GAUNTLET_EXEC_EXECUTOR_H_

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/connection.h"
#include "exec/crash_report.h"
#include "exec/finding.h"
#include "exec/oracle.h"
#include "exec/run_result.h"
#include "exec/script.h"
#include "exec/session.h"
#include "exec/target.h"
#include "generate/generator.h"
#include "sql/reach.h"

namespace gauntlet {

struct RunOptions {
  int threads = 2;
  double duration = 30;          // seconds; 0 = no time limit
  uint64_t queries = 0;          // per worker, like RQG's --queries; 0 = no limit
  uint64_t seed = 1;
  // Open loop: queries start at this rate over all sessions (Poisson
  // arrivals), each taken by the next free session; a query's latency counts
  // from when it was due, so a server that falls behind shows it (no
  // coordinated omission). 0 = closed loop (each session starts its next
  // query when the last ends).
  double rate = 0;
  double statement_timeout = 0;  // seconds; 0 = none (max_statement_time + KILL QUERY)
  double hang_timeout = 60;      // seconds without any finished statement = a hang
                                 // (and, for a session, without a connection = unreachable)
  double generate_timeout = 10;  // seconds one query's generation may take (Perl, Python rules)
  std::string out_dir;           // events.jsonl (and statement logs) go here; "" = nowhere
  // OUT/statements-N.jsonl: every statement with its global sequence number
  // (start order across sessions), query index, times, outcome and, on a
  // query's first statement, its generator's ReplayKey.
  bool statement_log = false;
  int max_depth = 64;
  std::vector<KnownBug> known_bugs;  // findings matching these are marked known
  RootCauses::KeyOf root_cause_key;  // groups findings in OUT/root_causes.json (null: by signature)
  size_t history = 20;               // statements before a finding's, kept per session
  // Killing the managed servers on purpose (the recovery oracle's crashes): at
  // this many seconds (0 = never) the run stops with stop_reason "killed" and
  // sends them kill_signal; what the sessions then meet is no finding.
  double kill_at = 0;
  int kill_signal = 9;  // SIGKILL
  // The server's names whose use the run counts (RunResult::reach); null: none counted.
  std::shared_ptr<const ReachIndex> reach;
};

class Executor {
 public:
  using Oracles = std::vector<std::shared_ptr<Oracle>>;
  Executor(std::shared_ptr<const Grammar> grammar, Schema schema, std::vector<Target> targets,
           RunOptions options, Oracles oracles = {});
  // Executes `script`, one worker per session (options.threads and
  // options.queries do not apply).
  Executor(std::shared_ptr<const Script> script, std::vector<Target> targets, RunOptions options,
           Oracles oracles = {});
  // One target. `probe` may be null (an external server with no lifecycle management).
  Executor(std::shared_ptr<const Grammar> grammar, Schema schema, ConnectionParams connection,
           RunOptions options, ServerProbe* probe);
  Executor(std::shared_ptr<const Script> script, ConnectionParams connection, RunOptions options,
           ServerProbe* probe);
  ~Executor();

  // Called about every 50 ms with the second just closed (or null); returning
  // true stops the run (Ctrl-C). Progress displays hook in here.
  using Tick = std::function<bool(const SecondStats* closed)>;
  // Runs to the end.
  RunResult Run(const Tick& tick = nullptr);
  // From any thread. True when this call stopped the run (its reason is the
  // run's stop_reason); false when it was stopping already.
  bool Stop(const std::string& reason = "stopped");

 private:
  struct Worker;
  struct Shared;
  struct Query;
  struct Sent;
  // What a session does after a statement.
  enum class After { kNext, kEndQuery, kEndSession };
  void WorkerLoop(Worker& w);
  // A session's queries until the run stops, its script or query budget ends, or its server is lost.
  void RunSession(Worker& w);
  // The session's next query as statements, from the script or the generator; false when it has none.
  bool NextQuery(Worker& w, size_t& cursor, Query& q);
  // Statement `piece` of `q`: sent, counted, logged, checked by the oracles.
  After RunStatement(Worker& w, const Query& q, size_t piece, int64_t& query_start);
  // Sends `sql` to every target in lockstep (w.outcomes, w.results, w.ran), stopping at a lost session.
  Sent Send(Worker& w, std::string_view sql, const ScriptStatement* scripted, bool want_rows);
  // Adds the statement to the session's second: `first` is the outcome that counts for the run.
  // `rule`: a generated statement's top-level rule (nullptr for a script's).
  void Count(Worker& w, std::string_view sql, const Outcome& first, const std::string* rule = nullptr);
  void ReportCorruption(Worker& w, std::string_view sql, const ReplayKey* key);
  bool Connect(Worker& w);
  // Open loop: waits until the next query is due; returns when it was due
  // (0 when the run stops first).
  int64_t WaitDue(Worker& w);
  void ReportCrash(Worker& w, std::string_view statement, size_t target);
  // Fills in what the session knows (history, targets, replay key) and records `f`.
  void AddSessionFinding(Worker& w, Finding f, std::string_view statement, const ReplayKey* key);
  // f with the session's part filled in: when, which session, its statement, history and settings.
  Finding Stamped(Worker& w, Finding f, std::string_view statement) const;
  void RunOracles(Worker& w, std::string_view sql, const std::vector<Outcome>& outcomes,
                  const std::vector<ResultSet>& results, const ReplayKey* key, bool others_wrote,
                  const std::vector<const Rule*>* keeping_oracles);
  void ReportFailure(const std::string& kind, int thread, const std::string& message);
  // A session's statement log could not be written (from statement `seq` on): an output error.
  void LogFailed(Worker& w, uint64_t seq);
  // Counts the second ending at `t`; `whole`: also a second of the timeline.
  SecondStats CloseSecond(double t, bool whole = true);
  void LogStatement(Worker& w, uint64_t seq, size_t piece, int64_t start_ns, int64_t end_ns, const char* outcome,
                    const Outcome& o, std::string_view sql, const nlohmann::json& key,
                    const std::vector<Outcome>* each = nullptr);
  void Watch(double now);
  bool ServerStandsStill();
  // Run's phases: the sessions' threads started; the run watched until it stops (seconds closed,
  // deadlines, hangs, the tick); the oracles' periodic findings collected; the sessions' totals summed.
  void StartWorkers();
  void Supervise(const Tick& tick);
  void WatchOracles(double at, bool last = false);
  void JudgeUsefulness(double end);
  RunResult Gather(double end);
  // KILL QUERY, or KILL CONNECTION the third time, of worker `w`'s busy statement; an event says so.
  void KillStatement(Worker& w, const Session::Busy& busy);

  std::shared_ptr<const Grammar> grammar_;  // null when executing a script
  std::shared_ptr<const Script> script_;
  Schema schema_;
  std::vector<Target> targets_;
  RunOptions options_;
  Oracles oracles_;
  std::vector<OracleStats> watched_;  // what Watch() found, by oracle (the supervisor's thread only)
  std::unique_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_EXECUTOR_H_
