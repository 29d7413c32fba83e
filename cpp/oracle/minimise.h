// Minimise: shrinks a failing SELECT while it still fails, for a finding a
// person can read (issue 37's first part; the relation oracles will call it
// on the live server when they fire).
//
// Candidates() lists smaller forms of one query, most removed first: without
// a top-level clause (ORDER BY, LIMIT, HAVING, GROUP BY, WHERE), without one
// select item (ORDER BY 3 then says 2), one ORDER BY or GROUP BY item, one
// table or join (with its ON), DISTINCT, one WHERE conjunct or disjunct;
// with the WHERE or HAVING condition 1 (for TLP, which needs one); and
// in the WHERE, HAVING or select list with a scalar subquery replaced by
// NULL, and a function call (CAST's operand without its type) or a
// parenthesized group replaced by one of its operands.
// Minimise() takes the first candidate that `still_fails` and starts again
// from it, until none does or the budget is spent: greedy, like C-Reduce's
// passes, so each step is one query plan the server must still get wrong.
#ifndef GAUNTLET_ORACLE_MINIMISE_H_
#define GAUNTLET_ORACLE_MINIMISE_H_

#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

std::vector<std::string> Candidates(const std::string& sql);

struct MinimiseBudget {
  int checks = 200;      // calls of still_fails
  double seconds = 10;
};

struct Minimised {
  std::string sql;       // the smallest form that still failed (the input when none did)
  int checks = 0;        // still_fails calls made
  int steps = 0;         // candidates taken
  double seconds = 0;
  bool exhausted = false;  // the budget ran out before no candidate failed
};

Minimised Minimise(const std::string& sql, const std::function<bool(const std::string&)>& still_fails,
                   const MinimiseBudget& budget = {});

// For an oracle's finding: `sql` minimised with `fails_alike` (which also
// fills in what the failure showed: both sides, the difference), then the
// smallest form checked once more, since a form that failed only once is not
// worth a person's time. The value of Finding::minimal: sql, what the last
// check showed, repeated (when a smaller form was found), checks, steps,
// seconds, exhausted. With no smaller form that repeats, sql is the query.
using FailureCheck = std::function<bool(const std::string& sql, nlohmann::json* failure)>;
nlohmann::json MinimalFinding(const std::string& sql, const FailureCheck& fails_alike, const MinimiseBudget& budget);

// The signatures an oracle minimised already: only a signature's first
// finding is minimised. Thread-safe.
class FirstSignatures {
 public:
  bool Take(const std::string& signature) {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.insert(signature).second;
  }

 private:
  std::mutex mu_;
  std::set<std::string> seen_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_MINIMISE_H_
