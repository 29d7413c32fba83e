// ErrorTable: MySQL/MariaDB error code -> OutcomeKind, read from the data
// table data/mysql_errors.tsv (compiled in). Thread-safe after construction.
#ifndef GAUNTLET_EXEC_ERROR_TABLE_H_
#define GAUNTLET_EXEC_ERROR_TABLE_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exec/outcome.h"

namespace gauntlet {

class ErrorTable {
 public:
  // The table shipped with Gauntlet.
  static const ErrorTable& Default();
  // Parses TSV text (`code<TAB>name<TAB>kind[<TAB>message]`, `#` comments,
  // one header); a row with a message classifies that code's errors whose
  // message starts so. Throws InvalidInput naming the line of a malformed row.
  static ErrorTable Parse(const std::string& text, const std::string& file);

  // The kind of error `code`, with `message` when the server sent one.
  OutcomeKind Classify(unsigned code, std::string_view message = {}) const;
  const std::string& Name(unsigned code) const;  // "" when unknown

 private:
  std::unordered_map<unsigned, std::pair<OutcomeKind, std::string>> codes_;
  struct ByMessage {
    unsigned code;
    std::string prefix;
    OutcomeKind kind;
  };
  std::vector<ByMessage> by_message_;  // a few: looked through in order
};

// The server refused the account, password, host or database at login
// (1045 access denied, 1049 unknown database, ...): a setup mistake that no
// retry mends, reported at once (exit 2), never waited out as "unreachable".
bool RefusesTheLogin(unsigned code);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_ERROR_TABLE_H_
