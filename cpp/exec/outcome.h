// Outcome: what one statement did, as a value.
//
// Every statement the executor sends ends in an Outcome; errors are data, not
// exceptions. The kind of a server error comes from data/mysql_errors.tsv
// (see ErrorTable), so reclassifying a code is an edit of that table.
#ifndef GAUNTLET_EXEC_OUTCOME_H_
#define GAUNTLET_EXEC_OUTCOME_H_

#include <cstdint>
#include <string>

namespace gauntlet {

enum class OutcomeKind : uint8_t {
  kOk,
  kSyntax,          // the server could not parse it
  kSemantic,        // parsed, but refused: unknown column, duplicate key, ...
  kDeadlock,        // deadlock or lock wait timeout: retryable
  kResource,        // a limit was hit: memory, disk, connections, sizes
  kTimeout,         // the statement timeout or a KILL QUERY stopped it
  kConnectionLost,  // the session is gone but the server is alive
  kCorruption,      // the server reports damaged data or an internal error
  kServerCrashed,   // the session is gone and so is the server
  kCount
};

const char* OutcomeKindName(OutcomeKind kind);  // "ok", "syntax", ...
// Throws std::invalid_argument for an unknown name.
OutcomeKind OutcomeKindFromName(const std::string& name);

struct Outcome {
  OutcomeKind kind = OutcomeKind::kOk;
  unsigned error_code = 0;
  std::string sqlstate;
  std::string message;
  uint64_t rows = 0;           // rows returned
  uint64_t affected_rows = 0;  // rows changed
  int64_t nanos = 0;           // wall time from send to last row

  bool ok() const { return kind == OutcomeKind::kOk; }
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_OUTCOME_H_
