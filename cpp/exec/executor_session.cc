// One session of a run: its queries, each statement sent to every target in
// lockstep, counted, logged and checked by the oracles; reconnection and the
// crashes and corruption it meets. The run around it is executor.cc.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exec/clock.h"
#include "exec/error_table.h"
#include "exec/executor.h"
#include "exec/executor_state.h"
#include "exec/statement_log.h"
#include "generate/statements.h"

namespace gauntlet {
namespace {

using executor_internal::DeadTarget;
using executor_internal::IsCommit;
using executor_internal::Seconds;
using executor_internal::SqlStartsWith;
using nlohmann::json;

// A crash this soon after the watchdog's KILL may be the KILL's doing.
constexpr int64_t kKillBeforeCrashNs = 5'000'000'000;

}  // namespace

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
      // A server that does not answer at all (a client-side error: the
      // handshake timed out) refuses nothing: that is the watchdog's, a hang.
      if (Clock::now() > deadline && error.error_code < 2000) {
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

void Executor::ReportCrash(Worker& w, std::string_view statement, size_t target) {
  // Stop first: collecting the report (gdb on a core) takes seconds, and the
  // other sessions must not carry on against a dead server meanwhile. The
  // session that stops the run reports; the others saw the same crash.
  if (!Stop("crash")) return;
  const int64_t noticed = NowNs();
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
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->last_kill_ns != 0 && noticed - shared_->last_kill_ns < kKillBeforeCrashNs)
      f.detail = "the watchdog killed a statement " +
                 Seconds(static_cast<double>(noticed - shared_->last_kill_ns) / 1e9) + " before the crash: " +
                 shared_->last_kill + "\n" + f.detail;
  }
  shared_->AddFinding(std::move(f));
}

void Executor::LogStatement(Worker& w, uint64_t seq, size_t piece, int64_t start_ns, int64_t end_ns,
                            const char* outcome, const Outcome& o, std::string_view sql, const json& key,
                            const std::vector<Outcome>* each) {
  StatementLogLine line;
  line.seq = seq;
  line.thread = w.id;
  line.query = w.queries - 1;
  line.piece = piece;
  line.start = static_cast<double>(start_ns) / 1e9;
  line.end = static_cast<double>(end_ns) / 1e9;
  line.outcome = outcome;
  line.error = o.error_code;
  line.sql = sql;
  if (each != nullptr)  // each target's time: what a query-level comparison of targets reads
    for (const Outcome& x : *each) line.target_ms.push_back(static_cast<double>(x.nanos) / 1e6);
  if (piece == 0) line.key = key;
  w.log << line.Serialize() << '\n';
  if (!w.log) LogFailed(w, seq);
}

void Executor::LogFailed(Worker& w, uint64_t seq) {
  const std::string reason = std::strerror(errno);
  w.log.close();
  std::lock_guard<std::mutex> lock(shared_->mu);
  const std::string lost = "session " + std::to_string(w.id) + "'s statement log ends before statement " +
                           std::to_string(seq) + " (its last line may be torn), so a replay stops there";
  if (!shared_->OutputFailed(OutputError(w.log_name, reason, lost).what(), w.id)) return;
  nlohmann::json j = shared_->result.failure->ToJson();
  j["type"] = "error";
  shared_->Event(j);
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

namespace {

// Why the grammar keeps oracle `name` from this statement: a rule it was
// made through says `==NO_ORACLES:name==` (or `all`, or `transforms` for a
// transform:*); "" when none does.
std::string KeptFrom(const std::string& name, const std::vector<const Rule*>* rules) {
  if (rules == nullptr) return "";
  for (const Rule* r : *rules)
    for (const std::string& n : r->no_oracles)
      if (n == name || n == "all" || (n == "transforms" && name.rfind("transform:", 0) == 0))
        return "the grammar keeps rule '" + r->name + "' from it (==NO_ORACLES==)";
  return "";
}

}  // namespace

void Executor::RunOracles(Worker& w, std::string_view sql, const std::vector<Outcome>& outcomes,
                          const std::vector<ResultSet>& results, const ReplayKey* key, bool others_wrote,
                          const std::vector<const Rule*>* keeping_oracles) {
  Observation o{w.id, sql, outcomes, results, *w.session, others_wrote, {}};
  o.number = w.observed++;
  if (options_.threads > 1) o.writes = {&shared_->write_epoch, &shared_->writes_in_flight};
  bool verified = false;  // an oracle checked the statement through (passed or fired)
  for (size_t i = 0; i < oracles_.size(); ++i) {
    if (shared_->stop) return;
    OracleStats& stats = w.oracles[i];
    if (std::string why = KeptFrom(oracles_[i]->name(), keeping_oracles); !why.empty()) {
      ++stats.skipped[why];
      continue;
    }
    Verdict v = oracles_[i]->Check(o);
    switch (v.kind) {
      case Verdict::kNotApplicable: break;
      case Verdict::kPassed:
        ++stats.passed;
        verified = true;
        break;
      case Verdict::kSkipped: ++stats.skipped[v.reason]; break;
      case Verdict::kFired:
        ++stats.fired;
        verified = true;
        if (const json& m = v.finding.minimal; m.is_object()) {
          ++stats.minimised;
          stats.minimise_checks += m.value("checks", 0);
          stats.minimise_seconds += m.value("seconds", 0.0);
          stats.minimise_exhausted += m.value("exhausted", false);
        }
        if (v.finding.oracle.empty() || v.finding.oracle == "crash") v.finding.oracle = oracles_[i]->name();
        AddSessionFinding(w, std::move(v.finding), sql, key);
        break;
    }
  }
  if (verified) {
    std::lock_guard<std::mutex> lock(w.mu);
    ++w.second_verified;
  }
}

// One query of a session: its statements and where they came from.
struct Executor::Query {
  const ScriptStatement* scripted = nullptr;  // executing a script: its statement
  ReplayKey replay_key;
  const ReplayKey* key = nullptr;  // the query's, when generated
  json key_json;                   // for the statement log
  int64_t due = 0;                 // open loop: when the query was due
  const std::string* rule = nullptr;  // generated: its top-level rule (the grammar's, stable)
  const std::vector<const Rule*>* keeping_oracles = nullptr;  // generated: rules with ==NO_ORACLES==
  std::vector<std::string_view> statements;
};

// One statement sent to every target.
struct Executor::Sent {
  uint64_t seq = 0;
  int64_t started = 0, ended = 0;  // ns
  size_t failed = 0;               // the target whose session was lost; the target count when none was
  bool others_wrote = false;       // other sessions wrote meanwhile
};

void Executor::RunSession(Worker& w) {
  if (!Connect(w)) {
    if (!shared_->stop) ReportCrash(w, "", DeadTarget(targets_, 0));
    return;
  }
  Query q;
  size_t cursor = 0;  // into the script session
  while (!shared_->stop && NextQuery(w, cursor, q)) {
    if (q.statements.empty()) shared_->last_progress = NowNs();  // an empty query is not a hang
    int64_t query_start = q.due;
    bool complete = !q.statements.empty();
    for (size_t piece = 0; piece < q.statements.size(); ++piece) {
      if (shared_->stop) {
        complete = false;
        break;
      }
      const After next = RunStatement(w, q, piece, query_start);
      if (next == After::kEndSession) return;
      if (next == After::kEndQuery) {
        complete = false;
        break;
      }
    }
    if (complete && !shared_->stop) {
      std::lock_guard<std::mutex> lock(w.mu);
      w.second_queries.Record(w.session->last_finished() - query_start);
    }
  }
}

bool Executor::NextQuery(Worker& w, size_t& cursor, Query& q) {
  if (options_.queries > 0 && w.queries >= options_.queries) return false;
  q.scripted = nullptr;
  q.key = nullptr;
  q.key_json = json();
  q.due = 0;
  q.rule = nullptr;
  q.keeping_oracles = nullptr;
  if (script_) {
    const auto& mine = script_->sessions[w.id - 1];
    if (cursor == mine.size()) return false;
    q.scripted = &mine[cursor++];
    q.statements.assign(1, q.scripted->sql);
  } else {
    if (options_.rate > 0 && (q.due = WaitDue(w)) == 0) return false;
    q.replay_key = w.generator->NextKey();
    q.key = &q.replay_key;
    if (w.log.is_open()) q.key_json = q.replay_key.ToJson();
    const int64_t gen_start = NowNs();
    w.generate_start.store(gen_start, std::memory_order_release);
    const std::string& query = w.generator->Next();
    q.rule = &w.generator->TopRule();
    q.keeping_oracles = &w.generator->RulesKeepingOracles();
    w.generate_start.store(0, std::memory_order_release);
    SplitStatements(query, &q.statements);
    w.generate_seconds += static_cast<double>(NowNs() - gen_start) / 1e9;
  }
  ++w.queries;
  return true;
}

Executor::After Executor::RunStatement(Worker& w, const Query& q, size_t piece, int64_t& query_start) {
  const std::string_view sql = q.statements[piece];
  const size_t n_targets = targets_.size();
  if (q.scripted != nullptr && shared_->turns && !shared_->turns->Wait(w.id - 1, *q.scripted))
    return After::kEndSession;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.current = sql;
  }
  w.Remember(sql);
  const bool check = q.scripted == nullptr || q.scripted->check;
  bool want_rows = false;
  if (check)
    for (const auto& oracle : oracles_) want_rows |= oracle->WantsRows(sql);
  if (want_rows) w.results.assign(n_targets, ResultSet());
  else w.results.clear();
  const Sent sent = Send(w, sql, q.scripted, want_rows);
  if (query_start == 0) query_start = sent.started;
  const int64_t start = shared_->start_ns;
  Outcome& o = w.outcomes[sent.failed == n_targets ? 0 : sent.failed];
  if (shared_->stop) {
    // In flight when the run ended (and cancelled by it): neither an
    // error nor a latency of the workload.
    ++w.cancelled;
    if (w.log.is_open())
      LogStatement(w, sent.seq, piece, sent.started - start, sent.ended - start, "cancelled", o, sql, q.key_json);
    return After::kEndSession;
  }
  const bool lost = sent.failed != n_targets;
  ServerProbe* probe = lost ? targets_[sent.failed].probe : nullptr;
  if (lost && probe != nullptr && !probe->Alive()) o.kind = OutcomeKind::kServerCrashed;
  const Outcome& counted = w.ran[0] ? w.outcomes[0] : o;  // the lost session's, when the first never ran
  Count(w, sql, counted, q.rule);
  if (q.rule != nullptr)
    if (std::string useless = shared_->syntax.Add(*q.rule, counted.kind == OutcomeKind::kSyntax); !useless.empty())
      ReportFailure("grammar", w.id, useless);
  if (w.log.is_open())
    LogStatement(w, sent.seq, piece, sent.started - start, sent.ended - start, OutcomeKindName(o.kind), o, sql,
                 q.key_json, n_targets > 1 && !lost ? &w.outcomes : nullptr);
  ReportCorruption(w, sql, q.key);
  if (o.kind == OutcomeKind::kServerCrashed) {
    ReportCrash(w, sql, sent.failed);
    return After::kEndSession;
  }
  if (lost) {
    if (shared_->stop) return After::kEndSession;
    // A killed session, or a server that died meanwhile.
    if (!Connect(w)) {
      if (!shared_->stop) ReportCrash(w, sql, DeadTarget(targets_, sent.failed));
      return After::kEndSession;
    }
    return After::kEndQuery;  // the rest of this query assumed the lost session's state
  }
  if (check && !oracles_.empty())
    RunOracles(w, sql, w.outcomes, w.results, q.key, sent.others_wrote, q.keeping_oracles);
  return After::kNext;
}

Executor::Sent Executor::Send(Worker& w, std::string_view sql, const ScriptStatement* scripted, bool want_rows) {
  const size_t n_targets = targets_.size();
  Sent sent;
  sent.seq = shared_->seq.fetch_add(1);
  if (scripted != nullptr && shared_->turns) shared_->turns->Start(w.id - 1, *scripted);
  // Whether other sessions write meanwhile (for the oracles, with more than one session).
  const bool track_writes = !oracles_.empty() && options_.threads > 1;
  const bool writes = track_writes && ChangesData(sql);
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
  const bool reverse = n_targets > 1 && (sent.seq * 0x9E3779B97F4A7C15ULL) >> 63;
  sent.failed = n_targets;
  w.outcomes.resize(n_targets);
  w.ran.assign(n_targets, false);
  for (size_t k = 0; k < n_targets; ++k) {
    const size_t t = reverse ? n_targets - 1 - k : k;
    w.outcomes[t] = w.session->Execute(t, sql, want_rows ? &w.results[t] : nullptr);
    if (k == 0) sent.started = w.session->last_started();
    w.ran[t] = true;
    if (w.outcomes[t].kind == OutcomeKind::kConnectionLost) {
      sent.failed = t;
      break;
    }
  }
  sent.others_wrote = track_writes && (writing0 > 0 || shared_->write_epoch != epoch0 + (writes ? 1 : 0));
  if (writes) {
    ++shared_->write_epoch;
    --shared_->writes_in_flight;
  }
  // Taken before the others learn it finished: a replay's log then shows
  // every statement that waited for it starting after its end.
  sent.ended = w.session->last_finished();
  if (scripted != nullptr && shared_->turns) shared_->turns->Finish(w.id - 1);
  return sent;  // progress: the session's last_finished(), which the watchdog reads
}

void Executor::Count(Worker& w, std::string_view sql, const Outcome& first, const std::string* rule) {
  const size_t n_targets = targets_.size();
  // What the parser refused used nothing of the server's but its parser.
  if (w.reach && first.kind != OutcomeKind::kSyntax) w.reach->Add(sql);
  std::lock_guard<std::mutex> lock(w.mu);
  if (rule != nullptr) {
    if (rule != w.last_rule) {
      w.last_rule = rule;
      w.last_rule_counts = &w.rules[*rule];
    }
    RuleCounts& c = *w.last_rule_counts;
    ++c.statements;
    c.syntax_errors += first.kind == OutcomeKind::kSyntax;
  }
  w.second.Record(first.nanos);
  ++w.second_kinds[static_cast<size_t>(first.kind)];
  if (first.error_code != 0 && ++w.errors[first.error_code] <= RunResult::kExamplesPerError)
    w.error_examples[first.error_code].push_back({std::string(sql.substr(0, 2000)), first.message});
  if (first.ok() && IsCommit(sql)) ++w.second_commits;
  if (first.ok() && VerbIs(sql, "SET") && !SqlStartsWith(sql, "SET STATEMENT")) w.RememberSetting(sql);
  if (n_targets > 1)
    for (size_t t = 0; t < n_targets; ++t) {
      if (!w.ran[t]) continue;
      TargetStats& ts = w.targets[t];
      ts.latency.Record(w.outcomes[t].nanos);
      ++ts.kinds[static_cast<size_t>(w.outcomes[t].kind)];
      if (w.outcomes[t].error_code != 0) ++ts.errors[w.outcomes[t].error_code];
    }
}

void Executor::ReportCorruption(Worker& w, std::string_view sql, const ReplayKey* key) {
  for (size_t t = 0; t < targets_.size(); ++t) {
    if (!w.ran[t] || w.outcomes[t].kind != OutcomeKind::kCorruption) continue;
    Finding f;
    f.kind = "corruption";
    f.targets = {targets_[t].name};
    f.signature = "error " + std::to_string(w.outcomes[t].error_code) + " " +
                  ErrorTable::Default().Name(w.outcomes[t].error_code);
    f.detail = w.outcomes[t].message;
    AddSessionFinding(w, std::move(f), sql, key);
  }
}

}  // namespace gauntlet
