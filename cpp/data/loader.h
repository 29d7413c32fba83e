// Creates a Schema's tables on a server and fills them with generated rows.
//
// Each column's values come from its grammar expression (Column::values, or
// DefaultValues(type)), drawn by a Generator seeded from the load seed, the
// table and the column, so the same seed loads the same data. Rows go in as
// multi-row INSERT IGNORE batches (RQG's gendata uses IGNORE too: random keys
// collide).
#ifndef GAUNTLET_DATA_LOADER_H_
#define GAUNTLET_DATA_LOADER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "exec/connection.h"
#include "generate/schema.h"

namespace gauntlet {

// A value expression for a column type: `_int`, `_varchar(10)`, `_date` ...
// with 10% NULL for nullable columns.
std::string DefaultValues(const Column& column);

// CREATE TABLE text for one table (with its keys, engine and options).
std::string CreateTableSql(const Table& table, const std::string& database);

struct LoadStats {
  uint64_t tables = 0;     // tables created
  uint64_t rows = 0;       // rows sent (INSERT IGNORE may drop duplicates)
  double seconds = 0;
  // Tables the server refused and batches it rejected, with its message;
  // RQG's gendata goes on after those too (e.g. ROW_FORMAT=FIXED on InnoDB).
  std::vector<std::string> warnings;
};

// Replaces the databases `schema` names with new ones holding its tables,
// then loads their rows. Throws
// Error when a database cannot be created; a table or batch the server
// refuses becomes a warning and the load goes on.
LoadStats LoadSchema(Connection& connection, const Schema& schema, uint64_t seed);

// Reads tables, columns and indexes of `databases` (all but the system ones
// when empty) from information_schema.
Schema IntrospectSchema(Connection& connection, const std::vector<std::string>& databases = {});

}  // namespace gauntlet

#endif  // GAUNTLET_DATA_LOADER_H_
