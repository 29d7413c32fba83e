// StatementLogLine: one line of OUT/statements-N.jsonl, the one reader and
// writer of that file (the executor writes it, Script and Python read it).
//
// The first line of a file is a header naming the file and carrying its
// format version; every other line is one statement. SQL that is not UTF-8
// (binary values) is written as hex ("sql_hex") and read back exact.
#ifndef GAUNTLET_EXEC_STATEMENT_LOG_H_
#define GAUNTLET_EXEC_STATEMENT_LOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

struct StatementLogLine {
  uint64_t seq = 0;        // order of start over all sessions
  int thread = 0;          // the session
  uint64_t query = 0;      // the query's number in its session
  uint64_t piece = 0;      // the statement's number within its query
  double start = 0, end = 0;  // seconds on the run's clock
  std::string outcome;     // an outcome kind, or "cancelled"
  unsigned error = 0;      // the error code, 0 for none
  std::string sql;         // exact bytes
  std::vector<double> target_ms;  // with several targets: each target's time
  nlohmann::json key;             // the query's replay key (first piece only), or null

  // The line as written (without the newline).
  std::string Serialize() const;
  // The header line of session `thread`'s log.
};

// Every statement line of `file`, in file order. A torn last line (a run
// killed mid-write) is dropped; any other bad line throws InvalidInput naming
// the file and line, as does a file of a newer format.
std::vector<StatementLogLine> ReadStatementLog(const std::string& file);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_STATEMENT_LOG_H_
