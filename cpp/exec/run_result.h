// What a run did, as plain values: totals, the per-second timeline, outcomes
// and errors by kind and code, latency, findings, each oracle's and each
// target's counts, and why it stopped. ToJson() is summary.json.
#ifndef GAUNTLET_EXEC_RUN_RESULT_H_
#define GAUNTLET_EXEC_RUN_RESULT_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/finding.h"
#include "exec/histogram.h"
#include "exec/outcome.h"

namespace gauntlet {

// Why a run could not go on through no fault of the server: the grammar failed
// (a Perl block died, a Python rule raised, a statement over the size limit),
// generation got stuck, or Gauntlet itself failed. Ends the run like a
// finding does, but is not one.
struct RunFailure {
  std::string kind;       // "grammar", "stuck", "oracle", "output", "internal"
  double at = 0;
  int thread = 0;
  std::string message;

  nlohmann::json ToJson() const;
};

using KindCounts = std::array<uint64_t, static_cast<size_t>(OutcomeKind::kCount)>;

struct SecondStats {
  double t = 0;  // end of the second, from the start
  uint64_t statements = 0;
  uint64_t transactions = 0;
  uint64_t queries = 0;  // queries whose statements all finished (sysbench's events)
  uint64_t verified = 0;  // statements an oracle checked through (passed or fired)
  KindCounts kinds{};
  int64_t p50 = 0, p95 = 0, p99 = 0, max = 0;  // statements, nanoseconds
  int64_t query_p50 = 0, query_p95 = 0, query_p99 = 0, query_max = 0;  // queries

  nlohmann::json ToJson() const;
};

// What a run's oracle did: statements it judged, and how.
struct OracleStats {
  uint64_t passed = 0;
  uint64_t fired = 0;
  std::map<std::string, uint64_t> skipped;  // by reason
  // Findings it minimised on the live server, and what that took.
  uint64_t minimised = 0, minimise_checks = 0, minimise_exhausted = 0;
  double minimise_seconds = 0;

  void Add(const OracleStats& o);
  nlohmann::json ToJson() const;
};

// One target's totals (all targets run the same statements).
struct TargetStats {
  std::string name;
  KindCounts kinds{};
  std::map<unsigned, uint64_t> errors;
  LatencyHistogram latency;

  nlohmann::json ToJson() const;
};

// A top-level grammar rule's statements and how many were syntax errors.
struct RuleCounts {
  uint64_t statements = 0;
  uint64_t syntax_errors = 0;
};

struct RunResult {
  double seconds = 0;
  int threads = 0;
  uint64_t seed = 0;
  uint64_t queries = 0;       // grammar queries generated
  uint64_t statements = 0;    // statements that finished while the run went on
  uint64_t cancelled = 0;     // in flight when the run ended: not in statements, errors or latency
  uint64_t transactions = 0;  // COMMITs that succeeded
  uint64_t queries_done = 0;  // queries whose statements all finished
  uint64_t verified = 0;      // statements at least one oracle checked through (passed or fired)
  double rate = 0;            // the open-loop target rate, queries/s (0: closed loop)
  KindCounts kinds{};
  std::map<unsigned, uint64_t> errors;  // by code
  // The first few statements that met each error code, with the message.
  struct ErrorExample {
    std::string statement;
    std::string message;
  };
  static constexpr size_t kExamplesPerError = 3;
  std::map<unsigned, std::vector<ErrorExample>> error_examples;
  LatencyHistogram latency;
  // Per finished query, from its first statement's start (open loop: from
  // when it was due, so that queueing counts) to its last statement's end.
  LatencyHistogram query_latency;
  std::vector<SecondStats> timeline;  // whole seconds; the last partial one is in the totals only
  std::vector<Finding> findings;  // one per signature, with its occurrences
  std::map<std::string, OracleStats> oracles;
  std::vector<TargetStats> targets;
  std::optional<RunFailure> failure;
  std::map<unsigned, uint64_t> connect_errors;  // failed (re)connects by error code
  std::map<std::string, RuleCounts> rules;      // by top-level grammar rule (Generator::TopRule)
  // duration, queries, script (all executed), interrupted, stopped, error (see `failure`), or the
  // kind of the finding that ended the run: crash, shutdown, hang, unreachable
  std::string stop_reason;
  double generate_seconds = 0;  // CPU spent generating, all workers
  // Which of the server's names the statements used (ReachTally::ToJson); null when not counted.
  nlohmann::json reach;

  nlohmann::json ToJson() const;  // summary.json
};

// The summary's finding_counts of findings as written (Finding::ToJson):
// total, new, known, by_kind, and causes (total, known, new: the keys of the
// causes no known bug matched). Keep-going runs count their merged findings.
nlohmann::json FindingCounts(const nlohmann::json& findings);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_RUN_RESULT_H_
