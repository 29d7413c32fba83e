// Oracle: a check that decides whether what a statement did is wrong.
//
// The executor calls every oracle of a run on every statement, after the
// statement ran on all targets and before it is recorded. An oracle answers
// with a Verdict: not applicable, passed, skipped (with the reason, counted
// in the summary: e.g. a nondeterministic statement), or fired (with a
// Finding; the executor adds the session, statement history, targets and
// replay key). Oracles may run follow-up statements in the session
// (Observation::session), e.g. a transformed query. One oracle object serves
// all sessions, so Check() must be thread-safe; Watch() is called about once
// a second by the watchdog for checks that do not follow statements (the
// error log).
#ifndef GAUNTLET_EXEC_ORACLE_H_
#define GAUNTLET_EXEC_ORACLE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "exec/connection.h"
#include "exec/finding.h"
#include "exec/outcome.h"
#include "exec/session.h"

namespace gauntlet {

// A check that failed in itself (a custom oracle that raised): ends the run
// with an error, as a failing grammar does.
class OracleError : public Error {
 public:
  explicit OracleError(const std::string& message) : Error(message) {}
};

// Other sessions' writes as an oracle sees them, to tell a bug from a
// concurrent change: the run counts a write when it starts and when it ends.
// Unset (one session, or no oracle watching): nothing to watch.
struct WriteWatch {
  static constexpr uint64_t kBusy = UINT64_MAX;
  const std::atomic<uint64_t>* epoch = nullptr;
  const std::atomic<int>* in_flight = nullptr;
  // Taken before a check; Quiet(mark) after it: no write ran in between.
  uint64_t Mark() const { return epoch == nullptr ? 0 : in_flight->load() > 0 ? kBusy : epoch->load(); }
  bool Quiet(uint64_t mark) const {
    return epoch == nullptr || (mark != kBusy && in_flight->load() == 0 && epoch->load() == mark);
  }
};

// How long an oracle's follow-up of a query that took `query_nanos` may run
// before it is killed (Session::Execute's limit): far heavier than the query
// (no WHERE, no index) is fine, without bound is not.
inline double FollowUpLimit(int64_t query_nanos) {
  return std::max(2.0, 20.0 * static_cast<double>(query_nanos) / 1e9);
}

struct Observation {
  int thread = 0;
  std::string_view sql;
  const std::vector<Outcome>& outcomes;   // one per target, in the run's target order
  const std::vector<ResultSet>& results;  // one per target when rows were fetched, else empty
  Session& session;
  // Another session wrote (or committed) while this statement ran on the
  // targets: the targets, or two statements in a row, may have seen different data.
  bool others_wrote = false;
  WriteWatch writes;  // for checks that run more statements after this one
  // The statement's number among those its session showed the oracles (0,
  // 1, ...): for oracles that take turns, the same on every replay of a seed.
  uint64_t number = 0;
};

struct Verdict {
  enum Kind { kNotApplicable, kPassed, kSkipped, kFired };
  Kind kind = kNotApplicable;
  std::string reason;  // kSkipped: why, in a few words (counted by reason)
  Finding finding;     // kFired: kind, signature, detail, evidence, targets

  static Verdict NotApplicable() { return {}; }
  static Verdict Passed() { return {kPassed, "", {}}; }
  static Verdict Skipped(std::string why) { return {kSkipped, std::move(why), {}}; }
  static Verdict Fired(Finding f) { return {kFired, "", std::move(f)}; }
};

class Oracle {
 public:
  virtual ~Oracle() = default;
  virtual std::string name() const = 0;
  // True when Check() needs the statement's rows: they are then fetched on
  // every target (otherwise only counted).
  virtual bool WantsRows(std::string_view /*sql*/) const { return false; }
  virtual Verdict Check(const Observation& o) = 0;
  // Findings that do not follow a statement; from the watchdog thread.
  virtual std::vector<Finding> Watch() { return {}; }
  // The last Watch(), when every statement has been checked: what a Watch()
  // held back for a statement to explain is decided now.
  virtual std::vector<Finding> Finish() { return Watch(); }
  // True when Watch() is its check (the error log, read each second): each
  // read counts in its stats as checked, passed or fired.
  virtual bool Watches() const { return false; }
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_ORACLE_H_
