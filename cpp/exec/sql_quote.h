// SQL quoting for MySQL-family servers: a name in backticks, a string in
// single quotes, so that any table, column or value text can be put into a
// statement Gauntlet writes (the data loader's, the statistics', a finding's
// data snapshot).
#ifndef GAUNTLET_EXEC_SQL_QUOTE_H_
#define GAUNTLET_EXEC_SQL_QUOTE_H_

#include <string>
#include <string_view>

namespace gauntlet {

// `name`, with a backtick inside doubled.
inline std::string QuotedName(std::string_view name) {
  std::string q = "`";
  for (char c : name) q += c == '`' ? std::string("``") : std::string(1, c);
  return q + "`";
}

// 'text', with a quote doubled and a backslash escaped (the default sql_mode
// reads backslash escapes).
inline std::string QuotedString(std::string_view text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("''") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  return q + "'";
}

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_SQL_QUOTE_H_
