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
#include <functional>
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

// What each session runs first for the schema's temporary tables: one
// compound statement per table that copies the base table's rows into a
// TEMPORARY TABLE of the same name and definition. A table that cannot be
// copied (a run's DDL changed it) is left alone: the statement never fails.
std::vector<std::string> TemporaryTwinSql(const Schema& schema);

struct LoadOptions {
  uint64_t seed = 1;
  // A table or batch the server refuses throws InvalidInput (a spec written
  // for Gauntlet); otherwise it is a warning and the load goes on (RQG's
  // gendata does that for .zz files, e.g. ROW_FORMAT=FIXED on InnoDB).
  bool strict = true;
  std::function<bool()> cancelled;  // asked between batches; true ends the load
};

struct LoadStats {
  uint64_t tables = 0;     // tables created
  uint64_t rows = 0;       // rows the server took (INSERT IGNORE drops duplicate keys)
  double seconds = 0;
  std::vector<std::string> warnings;  // refused tables and batches (not strict)
  bool cancelled = false;
};

// Replaces the databases `schema` names with new ones holding its tables,
// then loads their rows. Throws Error when a database cannot be created.
LoadStats LoadSchema(Connection& connection, const Schema& schema, const LoadOptions& options);

// Reads tables, columns and indexes of `databases` (when empty, all but the
// system ones and Gauntlet's gauntlet_ledger) from information_schema.
Schema IntrospectSchema(Connection& connection, const std::vector<std::string>& databases = {});

}  // namespace gauntlet

#endif  // GAUNTLET_DATA_LOADER_H_
