#include "exec/executor.h"

#include <signal.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "exec/clock.h"
#include "exec/error_table.h"
#include "exec/hang_evidence.h"
#include "exec/output_format.h"
#include "exec/statement_log.h"
#include "exec/executor_state.h"
#include "exec/turns.h"
#include "generate/statements.h"

namespace gauntlet {
namespace {

using executor_internal::DeadTarget;
using executor_internal::Seconds;
using nlohmann::json;

}  // namespace


Executor::Executor(std::shared_ptr<const Grammar> grammar, Schema schema, std::vector<Target> targets,
                   RunOptions options, Oracles oracles)
    : grammar_(std::move(grammar)),
      schema_(std::move(schema)),
      targets_(std::move(targets)),
      options_(std::move(options)),
      oracles_(std::move(oracles)),
      shared_(std::make_unique<Shared>()) {
  if (options_.threads < 1 && grammar_) throw InvalidInput({"--threads", 0, 0}, "needs at least one thread");
  if (targets_.empty()) throw InvalidInput({"targets", 0, 0}, "a run needs at least one target");
  if (!(options_.rate >= 0)) throw InvalidInput({"--rate", 0, 0}, "is queries per second: 0 or more");
  // No client read timeout (it costs a poll() per read); a session stuck on a
  // hung server is freed by Abort() from the watchdog instead.
  for (Target& t : targets_) t.connection.read_timeout = 0;
}

Executor::Executor(std::shared_ptr<const Script> script, std::vector<Target> targets, RunOptions options,
                   Oracles oracles)
    : Executor(nullptr, Schema(), std::move(targets), std::move(options), std::move(oracles)) {
  script_ = std::move(script);
  if (options_.rate > 0) throw InvalidInput({"--rate", 0, 0}, "does not apply to a replay: it keeps its recorded pace");
  options_.threads = static_cast<int>(script_->sessions.size());
  if (script_->ordered) shared_->turns = std::make_unique<Turns>(*script_, shared_->stop);
  options_.queries = 0;
}

namespace {
std::vector<Target> OneTarget(ConnectionParams connection, ServerProbe* probe) {
  Target t;
  t.connection = std::move(connection);
  t.probe = probe;
  return {std::move(t)};
}
}  // namespace

Executor::Executor(std::shared_ptr<const Grammar> grammar, Schema schema, ConnectionParams connection,
                   RunOptions options, ServerProbe* probe)
    : Executor(std::move(grammar), std::move(schema), OneTarget(std::move(connection), probe), std::move(options)) {}

Executor::Executor(std::shared_ptr<const Script> script, ConnectionParams connection, RunOptions options,
                   ServerProbe* probe)
    : Executor(std::move(script), OneTarget(std::move(connection), probe), std::move(options)) {}

Executor::~Executor() {
  Stop();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

bool Executor::Stop(const std::string& reason) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  const bool first = shared_->stop_reason.empty();
  if (first) {
    shared_->stop_reason = reason;
    shared_->stopped_at = NowNs();
  }
  shared_->stop = true;
  return first;
}

// Opens the worker's session on every target. False when the run is
// stopping, a server is gone (the caller reports the crash) or one refused
// connections for longer than the hang timeout (an "unreachable" finding,
// reported here).
void Executor::ReportFailure(const std::string& kind, int thread, const std::string& message) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  // Once the run stops, generation is interrupted on purpose: not a failure.
  if (shared_->stop || shared_->result.failure) return;
  RunFailure f{kind, shared_->Since(NowNs()), thread, message};
  json j = f.ToJson();
  j["type"] = "error";
  shared_->Event(j);
  shared_->result.failure = std::move(f);
  shared_->stop_reason = "error";
  shared_->stopped_at = NowNs();
  shared_->stop = true;
}

void Executor::WorkerLoop(Worker& w) {
  try {
    RunSession(w);
  } catch (const GenerationError& e) {
    ReportFailure("grammar", w.id, e.what());
  } catch (const InvalidInput& e) {
    ReportFailure("grammar", w.id, e.what());
  } catch (const OracleError& e) {
    ReportFailure("oracle", w.id, e.what());
  } catch (const std::exception& e) {
    ReportFailure("internal", w.id, e.what());
  } catch (...) {
    ReportFailure("internal", w.id, "unknown exception");
  }
  w.generate_start = 0;
  if (w.log.is_open()) {
    w.log.flush();
    if (!w.log) LogFailed(w, shared_->seq.load());
  }
  w.done = true;
}

SecondStats Executor::CloseSecond(double t, bool whole) {
  SecondStats s;
  s.t = t;
  LatencyHistogram merged, queries;
  for (auto& w : workers_) {
    std::lock_guard<std::mutex> lock(w->mu);
    merged.Merge(w->second);
    w->second.Clear();
    queries.Merge(w->second_queries);
    w->second_queries.Clear();
    for (size_t k = 0; k < s.kinds.size(); ++k) s.kinds[k] += w->second_kinds[k];
    w->second_kinds = {};
    s.transactions += w->second_commits;
    w->second_commits = 0;
    s.verified += w->second_verified;
    w->second_verified = 0;
  }
  s.statements = merged.count();
  s.p50 = merged.Quantile(0.5);
  s.p95 = merged.Quantile(0.95);
  s.p99 = merged.Quantile(0.99);
  s.max = merged.max();
  s.queries = queries.count();
  s.query_p50 = queries.Quantile(0.5);
  s.query_p95 = queries.Quantile(0.95);
  s.query_p99 = queries.Quantile(0.99);
  s.query_max = queries.max();
  std::lock_guard<std::mutex> lock(shared_->mu);
  RunResult& r = shared_->result;
  r.latency.Merge(merged);
  r.query_latency.Merge(queries);
  r.queries_done += s.queries;
  r.statements += s.statements;
  r.transactions += s.transactions;
  r.verified += s.verified;
  for (size_t k = 0; k < s.kinds.size(); ++k) r.kinds[k] += s.kinds[k];
  if (whole) {
    json j = s.ToJson();
    j["type"] = "second";
    shared_->Event(j);
    r.timeline.push_back(s);
  }
  return s;
}

void Executor::KillStatement(Worker& w, const Session::Busy& busy) {
  Outcome error;
  ConnectionParams p = targets_[busy.target].connection;
  p.connect_timeout = 2;
  p.read_timeout = 5;
  // A statement that two KILL QUERYs did not end (a procedure looping under
  // a CONTINUE HANDLER FOR SQLEXCEPTION takes them as errors and goes on)
  // loses its connection; the session reconnects as after any lost one.
  const bool connection = busy.kills >= 2;
  const std::string kill = (connection ? "KILL CONNECTION " : "KILL QUERY ") + std::to_string(busy.connection);
  if (auto killer = Connection::Open(p, &error)) killer->Execute(kill);
  std::string statement;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    statement = w.current.substr(0, 300);
  }
  const int64_t now = NowNs();
  // A server that goes down as it kills (a crash in the killed session's
  // clean-up) did so at the watchdog's hand, which no statement log shows.
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->last_kill_ns = now;
  shared_->last_kill = kill + " (session " + std::to_string(w.id) + ", after " +
                       Seconds(static_cast<double>(now - busy.since) / 1e9) + " of: " + statement + ")";
  shared_->Event({{"type", "kill"}, {"at", shared_->Since(now)}, {"thread", w.id},
                  {"how", connection ? "connection" : "query"}, {"statement", statement}});
}

void Executor::Watch(double now_s) {
  const int64_t now = NowNs();
  // KILL QUERY statements that outlive the timeout (a fallback where the
  // server ignores max_statement_time), and, once the run is stopping, all
  // that still run, so that a run ends at its deadline.
  double limit_s = options_.statement_timeout > 0 ? options_.statement_timeout + 1.0 : 0;
  if (shared_->stop) limit_s = 1e-9;  // the run ends at its deadline: cancel what is in flight
  if (limit_s > 0) {
    const int64_t limit = static_cast<int64_t>(limit_s * 1e9);
    for (auto& w : workers_) {
      // The workload's statement, or an oracle's follow-up.
      const Session::Busy busy = w->session->busy();
      if (busy.target >= 0 && busy.since != 0 && now - busy.since > limit) {
        KillStatement(*w, busy);
        w->session->RestartBusyClock(now);  // once per period
      }
    }
  }
  // Oracles' follow-ups past their own limit.
  for (auto& w : workers_) {
    const Session::Busy busy = w->session->busy();
    if (busy.target >= 0 && busy.deadline != 0 && now > busy.deadline) {
      KillStatement(*w, busy);
      w->session->RestartBusyClock(now);
    }
  }
  // Sessions that KILL QUERY did not free (a server that hangs in a way KILL
  // cannot reach) are let go of, so that the run still ends.
  if (shared_->stop && shared_->stopped_at != 0 && now - shared_->stopped_at > 10'000'000'000) {
    shared_->stopped_at = 0;  // once
    for (auto& w : workers_) w->session->AbortAll();
  }
  // A query whose generation (Perl, Python rules) outlives generate_timeout
  // stops the run; stopping interrupts the generator.
  if (!shared_->stop && options_.generate_timeout > 0) {
    for (auto& w : workers_) {
      const int64_t started = w->generate_start.load(std::memory_order_acquire);
      if (started != 0 && now - started > static_cast<int64_t>(options_.generate_timeout * 1e9)) {
        const std::string activity = w->generator->Activity();
        ReportFailure("stuck", w->id,
                      "generating one query took longer than " + Seconds(options_.generate_timeout) +
                          (activity.empty() ? "" : " in " + activity));
        break;
      }
    }
  }
  int64_t last = shared_->last_progress;
  for (auto& w : workers_) {
    last = std::max(last, w->session->last_finished());  // follow-ups count too
    if (w->waiting) last = now;
  }
  if (!shared_->stop && options_.hang_timeout > 0 &&
      now - last > static_cast<int64_t>(options_.hang_timeout * 1e9)) {
    if (DeadTarget(targets_, targets_.size()) != targets_.size()) return;  // a crash; the workers report it
    if (!ServerStandsStill()) {
      shared_->last_progress = NowNs();  // the servers moved on: our clock stood still, not they
      return;
    }
    Finding f;
    f.kind = "hang";
    f.at = now_s;
    f.signature = "hang: no statement finished for " + Seconds(options_.hang_timeout);
    std::vector<bool> stuck(targets_.size());
    for (auto& w : workers_) {
      std::lock_guard<std::mutex> lock(w->mu);
      const int busy = w->session->busy().target;
      if (busy >= 0) stuck[busy] = true;
      f.detail += "thread " + std::to_string(w->id) + (busy >= 0 ? " on " + targets_[busy].name : "") + ": " +
                  w->current.substr(0, 500) + "\n";
    }
    for (size_t t = 0; t < targets_.size(); ++t)
      if (stuck[t]) f.targets.push_back(targets_[t].name);
    f.evidence = HangEvidence(targets_, stuck);
    for (const auto& [target, lists] : f.evidence.items())
      if (lists.contains("processlist")) f.detail += "\nSHOW FULL PROCESSLIST on " + target + ":\n" +
                                                    lists["processlist"].get<std::string>();
    shared_->AddFinding(std::move(f));
    Stop("hang");
    for (const Target& t : targets_)
      if (t.probe != nullptr) t.probe->Kill(SIGKILL);  // a managed server: kill it
    for (auto& w : workers_) w->session->AbortAll();  // an external one: let go of it
  }
}

// Our sessions' statements still run on a server, or one does not answer
// (a session waiting to connect waits on it): the hang is the server's. When
// every busy session's statement has ended there (Gauntlet was paused, or
// starved of CPU, and has not read the results yet), it is not.
bool Executor::ServerStandsStill() {
  std::vector<std::vector<uint64_t>> busy(targets_.size());
  for (auto& w : workers_) {
    const Session::Busy b = w->session->busy();
    if (b.target >= 0) busy[b.target].push_back(b.connection);
  }
  for (size_t t = 0; t < targets_.size(); ++t)
    if (ActivityOf(targets_[t], busy[t], options_.hang_timeout) != ServerActivity::kIdle) return true;
  return false;
}

RunResult Executor::Run(const Tick& tick) {
  shared_->start_ns = NowNs();
  shared_->last_progress = shared_->start_ns;
  shared_->next_due = shared_->start_ns;
  shared_->arrivals.Seed(DeriveSeed(options_.seed, 0x61727269766573));  // the arrivals' own stream
  if (!options_.out_dir.empty()) std::filesystem::create_directories(options_.out_dir);
  json described = json::object();
  for (const Target& t : targets_) described[t.name] = t.description;
  shared_->findings =
      std::make_unique<FindingLog>(options_.out_dir, options_.known_bugs, described, options_.root_cause_key);
  StartWorkers();
  Supervise(tick);
  for (auto& w : workers_) w->thread.join();
  const double end = shared_->Since(NowNs());
  // The last, partial second counts in the totals but is no second of the
  // timeline: a rate over a fraction of a second is no rate.
  CloseSecond(end, /*whole=*/false);
  WatchOracles(end, /*last=*/true);  // what the last moments wrote to the error log
  JudgeUsefulness(end);
  RunResult result = Gather(end);
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    json j = {{"type", "end"}, {"seconds", end}, {"stop_reason", result.stop_reason},
              {"statements", result.statements}};
    shared_->Event(j);
  }
  workers_.clear();
  return result;
}

void Executor::StartWorkers() {
  for (int i = 0; i < options_.threads; ++i) {
    auto w = std::make_unique<Worker>();
    w->id = i + 1;
    w->session = std::make_unique<Session>(targets_);
    w->oracles.resize(oracles_.size());
    w->history.resize(options_.history + 1);  // the statement itself, and those before it
    if (options_.reach) w->reach = std::make_unique<ReachTally>(options_.reach);
    if (targets_.size() > 1)
      for (const Target& t : targets_) w->targets.push_back(TargetStats{t.name, {}, {}, {}});
    if (grammar_) {
      GeneratorOptions g;
      g.seed = options_.seed;
      g.thread_id = w->id;
      g.thread_count = options_.threads;
      g.max_depth = options_.max_depth;
      g.interrupt = &shared_->stop;
      w->generator = std::make_unique<Generator>(grammar_, schema_, g);
    }
    if (options_.statement_log && !options_.out_dir.empty()) {
      w->log_name = "statements-" + std::to_string(w->id) + ".jsonl";
      w->log.open(std::filesystem::path(options_.out_dir) / w->log_name);
      if (!w->log) throw OutputError(options_.out_dir + "/" + w->log_name, std::strerror(errno));
    }
    workers_.push_back(std::move(w));
  }
  if (!options_.out_dir.empty()) {
    shared_->events.open(std::filesystem::path(options_.out_dir) / "events.jsonl");
    json names = json::array();
    for (const Target& t : targets_) names.push_back(t.name);
    json oracle_names = json::array();
    for (const auto& o : oracles_) oracle_names.push_back(o->name());
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->Event({{"type", "start"}, {"format", FormatVersion("event")}, {"threads", options_.threads}, {"seed", options_.seed},
                    {"duration", options_.duration}, {"queries", options_.queries},
                    {"server", targets_[0].connection.ToString()}, {"targets", names}, {"oracles", oracle_names},
                    {"grammar", grammar_ ? json(grammar_->sources()) : json(nullptr)},
                    {"script_statements", script_ ? script_->size() : 0}});
  }
  for (auto& w : workers_) {
    try {
      w->thread = std::thread([this, &w] { WorkerLoop(*w); });
    } catch (const std::system_error& e) {
      // Out of threads or memory: end what started, then say so.
      Stop("error");
      for (auto& started : workers_)
        if (started->thread.joinable()) started->thread.join();
      throw Error("cannot start session thread " + std::to_string(w->id) + " of " +
                  std::to_string(options_.threads) + ": " + e.what());
    }
  }
}

void Executor::Supervise(const Tick& tick) {
  double next_second = 1.0;
  int64_t last_look = NowNs();
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // A look that comes a second late means Gauntlet itself stood still
    // (stopped, starved, swapped out): its sessions get the hang timeout
    // anew to read what the servers did meanwhile.
    const int64_t look = NowNs();
    if (look - last_look > 1'000'000'000) shared_->last_progress = look;
    last_look = look;
    const double elapsed = shared_->Since(NowNs());
    if (options_.duration > 0 && elapsed >= options_.duration) Stop("duration");
    if (options_.kill_at > 0 && elapsed >= options_.kill_at && Stop("killed")) {
      for (const Target& t : targets_)
        if (t.probe != nullptr) t.probe->Kill(options_.kill_signal);
    }
    bool all_done = true;
    for (auto& w : workers_) all_done &= w->done.load();
    if (all_done) {
      if (!shared_->stop) Stop(script_ ? "script" : "queries");
      return;
    }
    std::optional<SecondStats> closed;
    while (elapsed >= next_second) {
      closed = CloseSecond(next_second);
      next_second += 1.0;
    }
    if (closed) WatchOracles(elapsed);
    if (tick && tick(closed ? &*closed : nullptr)) Stop("interrupted");
    Watch(elapsed);
  }
}

void Executor::WatchOracles(double at, bool last) {
  watched_.resize(oracles_.size());
  for (size_t i = 0; i < oracles_.size(); ++i) {
    std::vector<Finding> found = last ? oracles_[i]->Finish() : oracles_[i]->Watch();
    if (oracles_[i]->Watches()) {
      watched_[i].passed += found.empty();
      watched_[i].fired += found.size();
    }
    for (Finding& f : found) {
      f.at = at;
      if (f.oracle.empty() || f.oracle == "crash") f.oracle = oracles_[i]->name();
      shared_->AddFinding(std::move(f));
    }
  }
}

// A run that reached its end having tested nothing fails (exit 2) rather
// than pass: too short for SyntaxShare's early verdict but all syntax errors,
// or not one query generated (a Perl block that never returns, in a run
// shorter than the generation timeout).
void Executor::JudgeUsefulness(double end) {
  std::string kind = "grammar", why = shared_->syntax.Final();
  if (why.empty() && grammar_ && !script_) {
    kind = "stuck";
    uint64_t queries = 0;
    for (auto& w : workers_) queries += w->queries;
    if (queries == 0)
      why = "no session's generation returned a query in the run's " + Seconds(end) +
            ": the grammar's start rule never finished (a Perl block or Python rule that does not return?)";
  }
  if (why.empty()) return;
  std::lock_guard<std::mutex> lock(shared_->mu);
  if (shared_->result.failure || (shared_->stop_reason != "duration" && shared_->stop_reason != "queries")) return;
  RunFailure f{kind, end, 0, why};
  json j = f.ToJson();
  j["type"] = "error";
  shared_->Event(j);
  shared_->result.failure = std::move(f);
  shared_->stop_reason = "error";
}

RunResult Executor::Gather(double end) {
  RunResult result;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    result = shared_->result;
    result.stop_reason = shared_->stop_reason;
    result.connect_errors = shared_->connect_errors;
  }
  shared_->findings->Flush();
  result.findings = shared_->findings->findings();
  result.seconds = end;
  result.threads = options_.threads;
  result.seed = options_.seed;
  result.rate = options_.rate;
  for (size_t i = 0; i < oracles_.size(); ++i) {
    OracleStats& stats = result.oracles[oracles_[i]->name()];
    if (i < watched_.size()) stats.Add(watched_[i]);
  }
  for (const Target& t : targets_) result.targets.push_back(TargetStats{t.name, {}, {}, {}});
  std::optional<ReachTally> reach;
  if (options_.reach) reach.emplace(options_.reach);
  for (auto& w : workers_) {
    if (reach && w->reach) reach->Merge(*w->reach);
    result.queries += w->queries;
    result.cancelled += w->cancelled;
    result.generate_seconds += w->generate_seconds;
    for (const auto& [code, n] : w->errors) result.errors[code] += n;
    for (const auto& [rule, c] : w->rules) {
      result.rules[rule].statements += c.statements;
      result.rules[rule].syntax_errors += c.syntax_errors;
    }
    for (auto& [code, examples] : w->error_examples) {
      auto& kept = result.error_examples[code];
      for (auto& e : examples)
        if (kept.size() < RunResult::kExamplesPerError) kept.push_back(std::move(e));
    }
    for (size_t i = 0; i < oracles_.size(); ++i) result.oracles[oracles_[i]->name()].Add(w->oracles[i]);
    for (size_t t = 0; t < w->targets.size(); ++t) {
      TargetStats& ts = result.targets[t];
      ts.latency.Merge(w->targets[t].latency);
      for (size_t k = 0; k < ts.kinds.size(); ++k) ts.kinds[k] += w->targets[t].kinds[k];
      for (const auto& [code, n] : w->targets[t].errors) ts.errors[code] += n;
    }
  }
  if (reach) result.reach = reach->ToJson();
  if (targets_.size() == 1) {  // one target: its totals are the run's
    result.targets[0].kinds = result.kinds;
    result.targets[0].errors = result.errors;
    result.targets[0].latency = result.latency;
  }
  return result;
}
}  // namespace gauntlet
