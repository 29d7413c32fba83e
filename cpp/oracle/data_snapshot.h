// DataSnapshot: the statements that recreate the data a query reads, so that
// a finding's minimal query runs alone on a fresh server (a bug report's
// reproducer, and what `gauntlet triage --verify` hands mariadb-test-run).
//
// The tables and views the query names in the current database are read in
// the session that ran it (its temporary tables and its transaction's writes
// included): SHOW CREATE for the definitions (a view after what it reads),
// and the rows formatted by the server as literals that give the same stored
// value back (a FLOAT through DOUBLE, BIT as b'..', binary strings and
// geometry as hex, TIMESTAMP as seconds since the epoch). Generated columns
// are left to the server; the base tables are analyzed after (persistent
// statistics, as a run's load leaves them). Bounded: a query over more than `max_rows` rows
// gets no snapshot, and `missing` says why; so does a name in another
// database or a sequence.
#ifndef GAUNTLET_ORACLE_DATA_SNAPSHOT_H_
#define GAUNTLET_ORACLE_DATA_SNAPSHOT_H_

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/connection.h"

namespace gauntlet {

struct DataSnapshot {
  std::vector<std::string> statements;  // run in order in an empty database
  int tables = 0, views = 0, rows = 0;
  std::string missing;                  // why there is none ("" when there is)

  bool complete() const { return missing.empty(); }
  nlohmann::json ToJson() const;
};

struct SnapshotLimits {
  int max_objects = 8;
  int max_rows = 2000;
  size_t max_bytes = 512 * 1024;
};

// Runs one statement in the session that ran the query, and keeps its rows.
using SnapshotRunner = std::function<Outcome(const std::string& sql, ResultSet* rows)>;

DataSnapshot SnapshotData(const std::string& sql, const SnapshotRunner& run, const SnapshotLimits& limits = {});

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_DATA_SNAPSHOT_H_
