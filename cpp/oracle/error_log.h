// ErrorLogOracle: lines in a server's error log that say something is wrong
// (assertions, [ERROR] lines, InnoDB corruption messages) are findings even
// when the server does not crash.
//
// Reads what each target's log gained since the oracle was made, about once
// a second. A crash's own report (from "got signal" on) belongs to the crash
// finding and is not repeated here. Patterns are ECMAScript regular
// expressions; `ignore` ones veto a match.
#ifndef GAUNTLET_ORACLE_ERROR_LOG_H_
#define GAUNTLET_ORACLE_ERROR_LOG_H_

#include <mutex>
#include <regex>
#include <string>
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
  // the server's: a deadlock, lock wait timeout or sort out of memory the server also logged.
  static std::vector<std::string> DefaultIgnore();
  // Throws InvalidInput naming a pattern that is no regular expression.
  ErrorLogOracle(std::vector<Log> logs, const std::vector<std::string>& patterns = DefaultPatterns(),
                 const std::vector<std::string>& ignore = DefaultIgnore());
  std::string name() const override { return "errorlog"; }
  Verdict Check(const Observation&) override { return Verdict::NotApplicable(); }
  std::vector<Finding> Watch() override;
  bool Watches() const override { return true; }

 private:
  struct Tail {
    Log log;
    uint64_t offset = 0;
    std::string partial;  // a line not yet ended
    bool crashed = false;
  };
  std::mutex mu_;
  std::vector<Tail> tails_;
  std::vector<std::regex> patterns_, ignore_;
  std::vector<std::string> pattern_texts_;
};

// A log line without its timestamp and with numbers as N: the same message
// at another time, thread or address gives the same text.
std::string NormalizedLogLine(const std::string& line);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_ERROR_LOG_H_
