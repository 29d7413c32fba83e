#include "data/statistics.h"

#include <chrono>

#include "exec/sql_quote.h"

namespace gauntlet {
namespace {

// Every page of any table Gauntlet loads (InnoDB caps it at 2^32-1).
constexpr const char* kSampleEverything = "4294967295";

// A value for SET: a number as it is, anything else quoted.
std::string Value(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) return text;
  return QuotedString(text);
}

}  // namespace

nlohmann::json SettledStatistics::ToJson() const {
  nlohmann::json t = nlohmann::json::array();
  for (const Table& x : tables)
    t.push_back({{"database", x.database}, {"table", x.table}, {"rows_estimate", x.rows_estimate}});
  return {{"tables", t}, {"seconds", seconds}, {"warnings", warnings}};
}

HeldStatistics HoldStatistics(Connection& connection) {
  HeldStatistics held;
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"innodb_stats_auto_recalc", "OFF"},
                                    {"innodb_stats_persistent_sample_pages", kSampleEverything}}) {
    ResultSet r;
    if (!connection.Execute(std::string("SELECT @@GLOBAL.") + name, &r).ok() || r.rows.empty() || !r.rows[0][0])
      continue;  // not InnoDB's server
    if (connection.Execute(std::string("SET GLOBAL ") + name + " = " + value).ok()) held[name] = *r.rows[0][0];
  }
  return held;
}

SettledStatistics SettleStatistics(Connection& connection, const std::vector<std::string>& databases,
                                   const HeldStatistics& held) {
  const auto start = std::chrono::steady_clock::now();
  SettledStatistics s;
  std::string in;
  for (const std::string& d : databases) in += (in.empty() ? "" : ", ") + QuotedString(d);
  const std::string where = "TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN (" + (in.empty() ? "''" : in) + ")";
  ResultSet tables;
  connection.Execute("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE " + where +
                         " ORDER BY TABLE_SCHEMA, TABLE_NAME",
                     &tables);
  for (const auto& row : tables.rows) {
    const std::string name = QuotedName(row[0].value_or("")) + "." + QuotedName(row[1].value_or(""));
    // PERSISTENT FOR ALL: MariaDB's engine-independent statistics too; plain ANALYZE elsewhere.
    Outcome o = connection.Execute("ANALYZE TABLE " + name + " PERSISTENT FOR ALL");
    if (!o.ok()) o = connection.Execute("ANALYZE TABLE " + name);
    if (!o.ok()) s.warnings.push_back("ANALYZE TABLE " + name + ": " + o.message);
  }
  // Purge of the load's undo logs, which would run (and use I/O) in the run.
  if (Outcome o = connection.Execute("SET GLOBAL innodb_max_purge_lag_wait = 0"); !o.ok() && o.error_code != 1193)
    s.warnings.push_back("waiting for purge: " + o.message);
  for (const auto& [name, value] : held)
    if (Outcome o = connection.Execute("SET GLOBAL " + name + " = " + Value(value)); !o.ok())
      s.warnings.push_back("restoring " + name + ": " + o.message);
  ResultSet estimates;
  connection.Execute("SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE " + where +
                         " ORDER BY TABLE_SCHEMA, TABLE_NAME",
                     &estimates);
  for (const auto& row : estimates.rows)
    s.tables.push_back({row[0].value_or(""), row[1].value_or(""), row[2] ? std::stoull(*row[2]) : 0});
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace gauntlet
