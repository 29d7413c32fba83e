// SyntaxShare: the verdict on a run whose statements are (nearly) all syntax
// errors: it tests nothing but the parser, so it stops with exit 2 naming the
// rules that produce them, instead of passing. It counts the run's first
// statements by top-level rule; after its verdict Add() costs one atomic
// load (each session counts its own totals for the summary). Thread-safe.
#ifndef GAUNTLET_EXEC_SYNTAX_SHARE_H_
#define GAUNTLET_EXEC_SYNTAX_SHARE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "exec/run_result.h"

namespace gauntlet {

class SyntaxShare {
 public:
  static constexpr uint64_t kJudgedAfter = 300;  // the run's first statements, all sessions
  static constexpr uint64_t kFewest = 20;        // a shorter run is not judged
  static constexpr double kUseless = 0.95;       // this share of syntax errors or more

  // Counts one statement of `rule`. Returns, once, when the first
  // kJudgedAfter statements are in: why the run is useless, or "".
  std::string Add(const std::string& rule, bool syntax_error);
  // At the run's end, for a run that never reached kJudgedAfter: the same.
  std::string Final();

 private:
  std::string Verdict() const;  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  std::map<std::string, RuleCounts> first_;
  uint64_t first_total_ = 0;
  std::atomic<bool> judged_{false};
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_SYNTAX_SHARE_H_
