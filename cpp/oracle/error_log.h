// ErrorLogOracle: lines in a server's error log that say something is wrong
// (assertions, [ERROR] lines, InnoDB corruption messages) are findings even
// when the server does not crash.
//
// Reads what each target's log gained since the oracle was made, about once
// a second. A crash's own report (from "got signal" on) belongs to the crash
// finding and is not repeated here. Patterns are ECMAScript regular
// expressions; `ignore` ones veto a match. A line that holds the message of
// an error a statement received in the last minute only echoes that error
// (the server logs some of the errors it returns: Out of sort memory, a
// temporary table full) and is no finding; a line that no statement's error
// explains still is, once its statement had kGraceNs to return (the server
// logs before the statement ends), or at Finish().
#ifndef GAUNTLET_ORACLE_ERROR_LOG_H_
#define GAUNTLET_ORACLE_ERROR_LOG_H_

#include <mutex>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/oracle.h"

namespace gauntlet {

class ErrorLogOracle : public Oracle {
 public:
  struct Log {
    std::string target;
    std::string path;
  };
  static std::vector<std::string> DefaultPatterns();
  // Lines that match a pattern but tell of a statement's ordinary error, not
  // the server's: a deadlock or lock wait timeout the server also logged, InnoDB's
  // reason for a row size it refused.
  static std::vector<std::string> DefaultIgnore();
  // Why `pattern` is no regular expression the oracle reads (ECMAScript); "" when it is one.
  static std::string PatternError(const std::string& pattern);
  // Throws InvalidInput naming a pattern that is no regular expression.
  ErrorLogOracle(std::vector<Log> logs, const std::vector<std::string>& patterns = DefaultPatterns(),
                 const std::vector<std::string>& ignore = DefaultIgnore());
  std::string name() const override { return "errorlog"; }
  // Notes the statement's errors, for the lines that echo them.
  Verdict Check(const Observation& o) override;
  std::vector<Finding> Watch() override;
  std::vector<Finding> Finish() override;
  bool Watches() const override { return true; }

 private:
  struct Tail {
    Log log;
    uint64_t offset = 0;
    std::string partial;  // a line not yet ended
    bool crashed = false;
  };
  static constexpr size_t kShortestEcho = 12;        // shorter messages explain too much
  static constexpr size_t kRecentErrors = 4096;  // distinct messages, before the old ones are dropped
  static constexpr int64_t kEchoWindowNs = 60'000'000'000;
  static constexpr int64_t kGraceNs = 3'000'000'000;
  bool EchoesAStatementsError(const std::string& line);
  // The held-back lines no statement explains (by then): those seen before `before`.
  std::vector<Finding> Unexplained(int64_t before);

  std::mutex mu_;
  std::vector<Tail> tails_;
  std::mutex echo_mu_;  // guards recent_errors_ (Check runs in every session)
  std::unordered_map<std::string, int64_t> recent_errors_;  // message -> when a statement last received it
  std::vector<std::regex> patterns_, ignore_;
  std::vector<std::pair<int64_t, Finding>> held_;  // (when read, its finding), REQUIRES: mu_
  std::vector<std::string> pattern_texts_;
};

// A log line without its timestamp and with numbers as N: the same message
// at another time, thread or address gives the same text.
std::string NormalizedLogLine(const std::string& line);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_ERROR_LOG_H_
