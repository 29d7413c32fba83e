// Settled statistics: freshly loaded data's optimizer statistics brought to
// one defined state before a template is saved or a run starts.
//
// InnoDB computes persistent statistics in the background, from a sample of
// pages, whenever a tenth of a table changed: a template saved right after a
// load kept whatever that background work had reached (n_rows 48 or 94 for a
// 10,000-row table), so plans, and speeds, depended on its timing. Here the
// background recalculation is held off during the load (HoldStatistics),
// then every base table is analyzed reading every page (exact: the same data
// gives the same numbers), engine-independent statistics included where the
// server collects them, purge is drained, and each table's row estimate is
// read back (SettleStatistics). Server variables the server refuses to set
// (no privilege, another engine) are skipped with a warning.
#ifndef GAUNTLET_DATA_STATISTICS_H_
#define GAUNTLET_DATA_STATISTICS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/connection.h"

namespace gauntlet {

// The global variables changed while statistics are held, with their values before.
using HeldStatistics = std::map<std::string, std::string>;

struct SettledStatistics {
  struct Table {
    std::string database, table;
    uint64_t rows_estimate = 0;  // information_schema.TABLES.TABLE_ROWS after ANALYZE
  };
  std::vector<Table> tables;
  double seconds = 0;
  std::vector<std::string> warnings;

  nlohmann::json ToJson() const;
};

// Before a load: InnoDB's automatic recalculation off, and a persistent
// sample that reads every page.
HeldStatistics HoldStatistics(Connection& connection);

// After it: ANALYZE TABLE every base table of `databases`, purge drained,
// the estimates read, and the variables `held` restored.
SettledStatistics SettleStatistics(Connection& connection, const std::vector<std::string>& databases,
                                   const HeldStatistics& held);

}  // namespace gauntlet

#endif  // GAUNTLET_DATA_STATISTICS_H_
