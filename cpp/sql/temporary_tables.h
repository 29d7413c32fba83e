// The temporary tables a statement creates or drops: what a session holds
// that another connection does not see (an oracle's view, made on a second
// connection, would read the base table of that name instead).
#ifndef GAUNTLET_SQL_TEMPORARY_TABLES_H_
#define GAUNTLET_SQL_TEMPORARY_TABLES_H_

#include <string>
#include <string_view>
#include <vector>

namespace gauntlet {

struct TemporaryTableChange {
  std::vector<std::string> created;  // CREATE [OR REPLACE] TEMPORARY TABLE [IF NOT EXISTS] name
  std::vector<std::string> dropped;  // DROP [TEMPORARY] TABLE [IF EXISTS] name, ...: a temporary one goes first
};

// By name as the server reads it (unquoted, without its database).
TemporaryTableChange TemporaryTables(std::string_view sql);

}  // namespace gauntlet

#endif  // GAUNTLET_SQL_TEMPORARY_TABLES_H_
