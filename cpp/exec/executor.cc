#include "exec/executor.h"

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
#include "exec/turns.h"
#include "generate/statements.h"

namespace gauntlet {
namespace {

using nlohmann::json;

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

bool SqlStartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && strncasecmp(s.data(), prefix.data(), prefix.size()) == 0;
}

bool IsCommit(std::string_view s) { return SqlStartsWith(s, "COMMIT"); }

// A statement log line; SQL that is not UTF-8 (binary values) is kept exact
// as "sql_hex" instead.
std::string DumpLogLine(json& line) {
  try {
    return line.dump();
  } catch (const json::type_error&) {
    static const char kHex[] = "0123456789abcdef";
    const std::string sql = line["sql"].get<std::string>();
    std::string hex;
    for (const unsigned char c : sql) {
      hex += kHex[c >> 4];
      hex += kHex[c & 15];
    }
    line.erase("sql");
    line["sql_hex"] = hex;
    return line.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

}  // namespace

// State shared by the workers and the watchdog.
struct Executor::Shared {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> stopped_at{0};  // when stop was set
  std::atomic<int64_t> last_progress{0};
  std::mutex mu;  // guards everything below
  std::string stop_reason;
  RunResult result;
  std::ofstream events;
  std::map<unsigned, uint64_t> connect_errors;
  std::unique_ptr<FindingLog> findings;
  int64_t start_ns = 0;
  std::atomic<uint64_t> seq{0};  // statements started, all sessions
  // Statements that change data: their starts and ends (an epoch), and how
  // many run now; a statement during which these moved saw other sessions write.
  std::atomic<uint64_t> write_epoch{0};
  std::atomic<int> writes_in_flight{0};

  std::unique_ptr<Turns> turns;  // a script's, when `ordered`

  // Open loop: when the next query is due, and the arrival gaps' source.
  std::mutex due_mu;
  int64_t next_due = 0;
  Rng arrivals;

  double Since(int64_t ns) const { return static_cast<double>(ns - start_ns) / 1e9; }

  // REQUIRES: mu held.
  void Event(const json& j) {
    if (events.is_open()) events << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
  }
  void AddFinding(Finding f) {
    json j = f.ToJson();
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

  std::mutex mu;  // guards the per-second block, errors, target totals and `current`
  LatencyHistogram second;
  LatencyHistogram second_queries;
  KindCounts second_kinds{};
  uint64_t second_commits = 0;
  std::map<unsigned, uint64_t> errors;
  std::map<unsigned, std::vector<RunResult::ErrorExample>> error_examples;
  std::vector<TargetStats> targets;  // only with more than one target
  std::string current;
  uint64_t queries = 0;
  uint64_t cancelled = 0;  // statements that returned after the run stopped
  double generate_seconds = 0;
  std::vector<OracleStats> oracles;  // per oracle of the run
  // The session's last statements, for findings: a ring.
  std::vector<std::string> history;
  size_t history_next = 0;
  // Its SET statements since it connected: a finding may need a setting made
  // long before the statements the ring still holds.
  std::vector<std::string> settings;

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
bool Executor::Connect(Worker& w) {
  const double patience = options_.hang_timeout > 0 ? options_.hang_timeout : 60;
  const auto deadline = Clock::now() + std::chrono::duration<double>(patience);
  for (size_t t = 0; t < targets_.size(); ++t) w.session->Close(t);
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.settings.clear();  // a new session starts from the server's defaults
  }
  for (size_t t = 0; t < targets_.size(); ++t) {
    ServerProbe* probe = targets_[t].probe;
    while (true) {
      if (shared_->stop) return false;
      if (probe != nullptr && !probe->Alive()) return false;
      Outcome error;
      if (w.session->Open(t, &error)) {
        if (options_.statement_timeout > 0)
          w.session->Execute(t, "SET SESSION max_statement_time = " + std::to_string(options_.statement_timeout));
        if (t == 0 && w.generator) w.generator->set_connection_id(w.session->connection_id(0));
        break;
      }
      {
        std::lock_guard<std::mutex> lock(shared_->mu);
        ++shared_->connect_errors[error.error_code];
      }
      if (Clock::now() > deadline) {
        if (probe != nullptr && !probe->Alive()) return false;
        Finding f;
        f.kind = "unreachable";
        f.at = shared_->Since(NowNs());
        f.thread = w.id;
        f.targets = {targets_[t].name};
        f.signature = "unreachable: error " + std::to_string(error.error_code);
        f.detail = "the server is alive but refused connections for " + Seconds(patience) + ": " + error.message;
        if (Stop("unreachable")) shared_->AddFinding(std::move(f));
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return true;
}

namespace {
// The first target whose server is gone, or `fallback`.
size_t DeadTarget(const std::vector<Target>& targets, size_t fallback) {
  for (size_t t = 0; t < targets.size(); ++t)
    if (targets[t].probe != nullptr && !targets[t].probe->Alive()) return t;
  return fallback;
}
}  // namespace

void Executor::ReportCrash(Worker& w, std::string_view statement, size_t target) {
  // Stop first: collecting the report (gdb on a core) takes seconds, and the
  // other sessions must not carry on against a dead server meanwhile. The
  // session that stops the run reports; the others saw the same crash.
  if (!Stop("crash")) return;
  Finding f = Stamped(w, Finding{}, statement);
  f.targets = {targets_[target].name};
  if (targets_[target].probe != nullptr) f.crash = targets_[target].probe->Crash();
  // The session that noticed first need not be the one that crashed it: the
  // server's own report names the statement and its session.
  if (!f.crash.query.empty()) {
    f.statement = f.crash.query;
    for (const auto& other : workers_)
      if (other->session->connection_id(target) == f.crash.connection_id && other.get() != &w) {
        f.thread = other->id;
        f.preceding.clear();  // that session's history is its own
        f.settings.clear();
      }
  }
  if (f.crash.shutdown) {
    f.kind = "shutdown";
    f.signature = "shutdown: the server shut down normally (a SHUTDOWN statement or a signal)";
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->stop_reason = "shutdown";
    }
  } else {
    f.kind = "crash";
    f.signature = f.crash.signature.empty() ? "crash: no report in the error log" : f.crash.signature;
  }
  f.detail = f.crash.log_excerpt.substr(0, 8000);
  shared_->AddFinding(std::move(f));
}

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
  if (w.log.is_open()) w.log.flush();
  w.done = true;
}

void Executor::LogStatement(Worker& w, uint64_t seq, size_t piece, int64_t start_ns, int64_t end_ns,
                            const char* outcome, const Outcome& o, std::string_view sql, const json& key,
                            const std::vector<Outcome>* each) {
  json line = {{"seq", seq}, {"thread", w.id}, {"query", w.queries - 1}, {"piece", piece},
               {"start", static_cast<double>(start_ns) / 1e9}, {"end", static_cast<double>(end_ns) / 1e9},
               {"outcome", outcome}, {"error", o.error_code}, {"sql", sql}};
  if (each != nullptr) {  // each target's time: what a query-level comparison of targets reads
    json ms = json::array();
    for (const Outcome& x : *each) ms.push_back(static_cast<double>(x.nanos) / 1e6);
    line["target_ms"] = std::move(ms);
  }
  if (piece == 0 && !key.is_null()) line["key"] = key;
  w.log << DumpLogLine(line) << '\n';
}

int64_t Executor::WaitDue(Worker& w) {
  int64_t due;
  {
    std::lock_guard<std::mutex> lock(shared_->due_mu);
    // Exponential gaps, -ln(1 - U) / rate, as sysbench's --rate draws them.
    shared_->next_due += static_cast<int64_t>(-std::log1p(-shared_->arrivals.Uniform01()) / options_.rate * 1e9);
    shared_->arrivals.ClearChoices();  // nothing replays arrivals: do not keep them
    due = shared_->next_due;
  }
  // A session waiting for work is not hung: the hang clock stands still
  // while it waits (Watch) and starts again when it wakes.
  if (due <= NowNs()) return due;
  w.waiting = true;
  const bool woke = SleepUntil(due, shared_->stop);
  shared_->last_progress = NowNs();
  w.waiting = false;
  return woke ? due : 0;
}

Finding Executor::Stamped(Worker& w, Finding f, std::string_view statement) const {
  f.at = shared_->Since(NowNs());
  f.thread = w.id;
  f.statement = statement;
  f.preceding = w.Preceding();
  std::lock_guard<std::mutex> lock(w.mu);
  f.settings = w.settings;
  return f;
}

void Executor::AddSessionFinding(Worker& w, Finding found, std::string_view statement, const ReplayKey* key) {
  Finding f = Stamped(w, std::move(found), statement);
  if (key != nullptr) f.key = key->ToJson();
  shared_->AddFinding(std::move(f));
}

void Executor::RunOracles(Worker& w, std::string_view sql, const std::vector<Outcome>& outcomes,
                          const std::vector<ResultSet>& results, const ReplayKey* key, bool others_wrote) {
  Observation o{w.id, sql, outcomes, results, *w.session, others_wrote, {}};
  if (options_.threads > 1) o.writes = {&shared_->write_epoch, &shared_->writes_in_flight};
  for (size_t i = 0; i < oracles_.size(); ++i) {
    if (shared_->stop) return;
    Verdict v = oracles_[i]->Check(o);
    OracleStats& stats = w.oracles[i];
    switch (v.kind) {
      case Verdict::kNotApplicable: break;
      case Verdict::kPassed: ++stats.passed; break;
      case Verdict::kSkipped: ++stats.skipped[v.reason]; break;
      case Verdict::kFired:
        ++stats.fired;
        if (v.finding.oracle.empty() || v.finding.oracle == "crash") v.finding.oracle = oracles_[i]->name();
        AddSessionFinding(w, std::move(v.finding), sql, key);
        break;
    }
  }
}

void Executor::RunSession(Worker& w) {
  const int64_t start = shared_->start_ns;
  const size_t n_targets = targets_.size();
  if (!Connect(w)) {
    if (!shared_->stop) ReportCrash(w, "", DeadTarget(targets_, 0));
    return;
  }
  std::vector<std::string_view> statements;
  std::vector<Outcome> outcomes(n_targets);
  std::vector<ResultSet> results;
  std::vector<bool> ran;  // the targets a statement ran on (all but after a lost session)
  size_t cursor = 0;  // into the script session
  while (!shared_->stop) {
    if (options_.queries > 0 && w.queries >= options_.queries) break;
    const ScriptStatement* scripted = nullptr;
    ReplayKey replay_key;
    const ReplayKey* key = nullptr;  // the query's, when generated
    json key_json;                   // for the statement log
    int64_t due = 0;                 // open loop: when the query was due
    if (script_) {
      const auto& mine = script_->sessions[w.id - 1];
      if (cursor == mine.size()) break;
      scripted = &mine[cursor++];
      statements.assign(1, scripted->sql);
    } else {
      if (options_.rate > 0 && (due = WaitDue(w)) == 0) break;
      replay_key = w.generator->NextKey();
      key = &replay_key;
      if (w.log.is_open()) key_json = replay_key.ToJson();
      const int64_t gen_start = NowNs();
      w.generate_start = gen_start;
      const std::string& query = w.generator->Next();
      w.generate_start = 0;
      SplitStatements(query, &statements);
      w.generate_seconds += static_cast<double>(NowNs() - gen_start) / 1e9;
    }
    ++w.queries;
    if (statements.empty()) shared_->last_progress = NowNs();  // an empty query is not a hang
    int64_t query_start = due;
    bool complete = !statements.empty();
    for (size_t piece = 0; piece < statements.size(); ++piece) {
      const std::string_view sql = statements[piece];
      if (shared_->stop) {
        complete = false;
        break;
      }
      if (scripted != nullptr && shared_->turns && !shared_->turns->Wait(w.id - 1, *scripted)) return;
      {
        std::lock_guard<std::mutex> lock(w.mu);
        w.current = sql;
      }
      w.Remember(sql);
      const bool check = scripted == nullptr || scripted->check;
      bool want_rows = false;
      if (check)
        for (const auto& oracle : oracles_) want_rows |= oracle->WantsRows(sql);
      if (want_rows) results.assign(n_targets, ResultSet());
      else results.clear();
      const uint64_t seq = shared_->seq.fetch_add(1);
      if (scripted != nullptr && shared_->turns) shared_->turns->Start(w.id - 1, *scripted);
      const int64_t started = NowNs();
      if (query_start == 0) query_start = started;
      // Whether other sessions write meanwhile (for the oracles, with more than one session).
      const bool track_writes = !oracles_.empty() && options_.threads > 1;
      const bool writes = track_writes && !VerbChangesNoData(Verb(sql));
      const int writing0 = track_writes ? shared_->writes_in_flight.load() : 0;
      const uint64_t epoch0 = track_writes ? shared_->write_epoch.load() : 0;
      if (writes) {
        ++shared_->writes_in_flight;
        ++shared_->write_epoch;
      }
      // Lockstep: the same statement on every target, in the targets' order or
      // the reverse (by a hash of its number, not its parity: a transaction's
      // statements come in fixed counts), so that no target is always first:
      // the first pays for waking the client's path, 5-15% of a 0.1 ms
      // statement in an A/A comparison of two equal servers.
      const bool reverse = n_targets > 1 && (seq * 0x9E3779B97F4A7C15ULL) >> 63;
      size_t failed = n_targets;  // the target whose session was lost, if any
      ran.assign(n_targets, false);
      for (size_t k = 0; k < n_targets; ++k) {
        const size_t t = reverse ? n_targets - 1 - k : k;
        outcomes[t] = w.session->Execute(t, sql, want_rows ? &results[t] : nullptr);
        ran[t] = true;
        if (outcomes[t].kind == OutcomeKind::kConnectionLost) {
          failed = t;
          break;
        }
      }
      const bool others_wrote = track_writes && (writing0 > 0 || shared_->write_epoch != epoch0 + (writes ? 1 : 0));
      if (writes) {
        ++shared_->write_epoch;
        --shared_->writes_in_flight;
      }
      // Taken before the others learn it finished: a replay's log then shows
      // every statement that waited for it starting after its end.
      const int64_t now = NowNs();
      if (scripted != nullptr && shared_->turns) shared_->turns->Finish(w.id - 1);
      shared_->last_progress = now;
      Outcome& o = outcomes[failed == n_targets ? 0 : failed];
      if (shared_->stop) {
        // In flight when the run ended (and cancelled by it): neither an
        // error nor a latency of the workload.
        ++w.cancelled;
        if (w.log.is_open()) LogStatement(w, seq, piece, started - start, now - start, "cancelled", o, sql, key_json);
        return;
      }
      const bool lost = failed != n_targets;
      ServerProbe* probe = lost ? targets_[failed].probe : nullptr;
      if (lost && probe != nullptr && !probe->Alive()) o.kind = OutcomeKind::kServerCrashed;
      const Outcome& first = ran[0] ? outcomes[0] : o;  // the lost session's, when the first never ran
      {
        std::lock_guard<std::mutex> lock(w.mu);
        w.second.Record(first.nanos);
        ++w.second_kinds[static_cast<size_t>(first.kind)];
        if (first.error_code != 0 && ++w.errors[first.error_code] <= RunResult::kExamplesPerError)
          w.error_examples[first.error_code].push_back({std::string(sql.substr(0, 2000)), first.message});
        if (first.ok() && IsCommit(sql)) ++w.second_commits;
        if (first.ok() && Verb(sql) == "SET" && !SqlStartsWith(sql, "SET STATEMENT")) w.RememberSetting(sql);
        if (n_targets > 1)
          for (size_t t = 0; t < n_targets; ++t) {
            if (!ran[t]) continue;
            TargetStats& ts = w.targets[t];
            ts.latency.Record(outcomes[t].nanos);
            ++ts.kinds[static_cast<size_t>(outcomes[t].kind)];
            if (outcomes[t].error_code != 0) ++ts.errors[outcomes[t].error_code];
          }
      }
      if (w.log.is_open())
        LogStatement(w, seq, piece, started - start, now - start, OutcomeKindName(o.kind), o, sql, key_json,
                     n_targets > 1 && !lost ? &outcomes : nullptr);
      for (size_t t = 0; t < n_targets; ++t) {
        if (!ran[t] || outcomes[t].kind != OutcomeKind::kCorruption) continue;
        Finding f;
        f.kind = "corruption";
        f.targets = {targets_[t].name};
        f.signature = "error " + std::to_string(outcomes[t].error_code) + " " +
                      ErrorTable::Default().Name(outcomes[t].error_code);
        f.detail = outcomes[t].message;
        AddSessionFinding(w, std::move(f), sql, key);
      }
      if (o.kind == OutcomeKind::kServerCrashed) {
        ReportCrash(w, sql, failed);
        return;
      }
      if (lost) {
        if (shared_->stop) return;
        // A killed session, or a server that died meanwhile.
        if (!Connect(w)) {
          if (!shared_->stop) ReportCrash(w, sql, DeadTarget(targets_, failed));
          return;
        }
        complete = false;
        break;  // the rest of this query assumed the lost session's state
      }
      if (check && !oracles_.empty()) RunOracles(w, sql, outcomes, results, key, others_wrote);
    }
    if (complete && !shared_->stop) {
      std::lock_guard<std::mutex> lock(w.mu);
      w.second_queries.Record(NowNs() - query_start);
    }
  }
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
  for (size_t k = 0; k < s.kinds.size(); ++k) r.kinds[k] += s.kinds[k];
  if (whole) {
    json j = s.ToJson();
    j["type"] = "second";
    shared_->Event(j);
    r.timeline.push_back(s);
  }
  return s;
}

void Executor::KillQuery(const Session::Busy& busy) {
  Outcome error;
  ConnectionParams p = targets_[busy.target].connection;
  p.connect_timeout = 2;
  p.read_timeout = 5;
  if (auto killer = Connection::Open(p, &error)) killer->Execute("KILL QUERY " + std::to_string(busy.connection));
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
        KillQuery(busy);
        w->session->RestartBusyClock(now);  // once per period
      }
    }
  }
  // Oracles' follow-ups past their own limit.
  for (auto& w : workers_) {
    const Session::Busy busy = w->session->busy();
    if (busy.target >= 0 && busy.deadline != 0 && now > busy.deadline) {
      KillQuery(busy);
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
      const int64_t started = w->generate_start;
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
      if (t.probe != nullptr) t.probe->Kill();  // a managed server: kill it
    for (auto& w : workers_) w->session->AbortAll();  // an external one: let go of it
  }
}

RunResult Executor::Run(const Tick& tick) {
  shared_->start_ns = NowNs();
  shared_->last_progress = shared_->start_ns;
  shared_->next_due = shared_->start_ns;
  shared_->arrivals.Seed(DeriveSeed(options_.seed, 0x61727269766573));  // the arrivals' own stream
  if (!options_.out_dir.empty()) std::filesystem::create_directories(options_.out_dir);
  json described = json::object();
  for (const Target& t : targets_) described[t.name] = t.description;
  shared_->findings = std::make_unique<FindingLog>(options_.out_dir, options_.known_bugs, described);
  for (int i = 0; i < options_.threads; ++i) {
    auto w = std::make_unique<Worker>();
    w->id = i + 1;
    w->session = std::make_unique<Session>(targets_);
    w->oracles.resize(oracles_.size());
    w->history.resize(options_.history + 1);  // the statement itself, and those before it
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
      w->log.open(std::filesystem::path(options_.out_dir) / ("statements-" + std::to_string(w->id) + ".jsonl"));
      w->log << json{{"header", "gauntlet statement log"}, {"thread", w->id},
                     {"time", "start and end in seconds since the run started, as the timeline's t"},
                     {"order", "seq: the order in which statements started, across all sessions"}}
                    .dump()
             << '\n';
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
    shared_->Event({{"type", "start"}, {"threads", options_.threads}, {"seed", options_.seed},
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

  double next_second = 1.0;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const double elapsed = shared_->Since(NowNs());
    if (options_.duration > 0 && elapsed >= options_.duration) Stop("duration");
    bool all_done = true;
    for (auto& w : workers_) all_done &= w->done.load();
    if (all_done) {
      if (!shared_->stop) Stop(script_ ? "script" : "queries");
      break;
    }
    std::optional<SecondStats> closed;
    while (elapsed >= next_second) {
      closed = CloseSecond(next_second);
      next_second += 1.0;
    }
    if (closed)
      for (const auto& oracle : oracles_)
        for (Finding& f : oracle->Watch()) {
          f.at = elapsed;
          if (f.oracle.empty() || f.oracle == "crash") f.oracle = oracle->name();
          shared_->AddFinding(std::move(f));
        }
    if (tick && tick(closed ? &*closed : nullptr)) Stop("interrupted");
    Watch(elapsed);
  }
  for (auto& w : workers_) w->thread.join();
  const double end = shared_->Since(NowNs());
  // The last, partial second counts in the totals but is no second of the
  // timeline: a rate over a fraction of a second is no rate.
  CloseSecond(end, /*whole=*/false);
  // What the last moments wrote to the error log.
  for (const auto& oracle : oracles_)
    for (Finding& f : oracle->Watch()) {
      f.at = end;
      if (f.oracle.empty() || f.oracle == "crash") f.oracle = oracle->name();
      shared_->AddFinding(std::move(f));
    }

  RunResult result;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    result = shared_->result;
    result.stop_reason = shared_->stop_reason;
    result.connect_errors = shared_->connect_errors;
  }
  result.findings = shared_->findings->findings();
  result.seconds = end;
  result.threads = options_.threads;
  result.seed = options_.seed;
  result.rate = options_.rate;
  for (const auto& o : oracles_) result.oracles[o->name()];
  for (const Target& t : targets_) result.targets.push_back(TargetStats{t.name, {}, {}, {}});
  for (auto& w : workers_) {
    result.queries += w->queries;
    result.cancelled += w->cancelled;
    result.generate_seconds += w->generate_seconds;
    for (const auto& [code, n] : w->errors) result.errors[code] += n;
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
  if (targets_.size() == 1) {  // one target: its totals are the run's
    result.targets[0].kinds = result.kinds;
    result.targets[0].errors = result.errors;
    result.targets[0].latency = result.latency;
  }
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    json j = {{"type", "end"}, {"seconds", end}, {"stop_reason", result.stop_reason},
              {"statements", result.statements}};
    shared_->Event(j);
  }
  workers_.clear();
  return result;
}

}  // namespace gauntlet
