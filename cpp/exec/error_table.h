// ErrorTable: MySQL/MariaDB error code -> OutcomeKind, read from the data
// table data/mysql_errors.tsv (compiled in). Thread-safe after construction.
#ifndef GAUNTLET_EXEC_ERROR_TABLE_H_
#define GAUNTLET_EXEC_ERROR_TABLE_H_

#include <string>
#include <unordered_map>

#include "exec/outcome.h"

namespace gauntlet {

class ErrorTable {
 public:
  // The table shipped with Gauntlet.
  static const ErrorTable& Default();
  // Parses TSV text (`code<TAB>name<TAB>kind`, `#` comments, one header).
  // Throws InvalidInput naming the line of a malformed row.
  static ErrorTable Parse(const std::string& text, const std::string& file);

  OutcomeKind Classify(unsigned code) const;
  const std::string& Name(unsigned code) const;  // "" when unknown

 private:
  std::unordered_map<unsigned, std::pair<OutcomeKind, std::string>> codes_;
};

// The server refused the account, password, host or database at login
// (1045 access denied, 1049 unknown database, ...): a setup mistake that no
// retry mends, reported at once (exit 2), never waited out as "unreachable".
bool RefusesTheLogin(unsigned code);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_ERROR_TABLE_H_
