// Minimise: shrinks a failing SELECT while it still fails, for a finding a
// person can read (issue 37's first part; the relation oracles will call it
// on the live server when they fire).
//
// Candidates() lists smaller forms of one query, most removed first: without
// a top-level clause (ORDER BY, LIMIT, HAVING, GROUP BY, WHERE), without one
// select item, without one WHERE conjunct or disjunct, and with a function
// call or a parenthesized group in the WHERE replaced by one of its operands.
// Minimise() takes the first candidate that `still_fails` and starts again
// from it, until none does or the budget is spent: greedy, like C-Reduce's
// passes, so each step is one query plan the server must still get wrong.
#ifndef GAUNTLET_ORACLE_MINIMISE_H_
#define GAUNTLET_ORACLE_MINIMISE_H_

#include <functional>
#include <string>
#include <vector>

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

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_MINIMISE_H_
