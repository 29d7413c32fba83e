#include "oracle/registry.h"

#include <algorithm>

#include "common/error.h"
#include "oracle/differential.h"
#include "oracle/error_log.h"
#include "oracle/metamorphic.h"
#include "oracle/timing.h"

namespace gauntlet {

std::vector<std::pair<std::string, std::string>> KnownOracles() {
  return {{"crash", "crashes, hangs, corruption errors, unreachable servers (always on)"},
          {"errorlog", "assertions, [ERROR] and corruption lines in the servers' error logs"},
          {"differential", "the same statement's status, affected rows and rows on every target"},
          {"tlp", "ternary logic partitioning: WHERE p, NOT p, p IS NULL add up to no WHERE (rows, DISTINCT, "
                  "MIN/MAX/SUM/COUNT)"},
          {"norec", "COUNT(*) WHERE p equals SUM(p IS TRUE) over all rows"},
          {"transform:view", "the SELECT as a MERGE view"},
          {"transform:view_temptable", "the SELECT as a TEMPTABLE view"},
          {"transform:derived", "the SELECT as a derived table"},
          {"transform:cte", "the SELECT as a CTE"},
          {"transform:prepared", "the SELECT prepared, executed twice"},
          {"transform:ignore_index", "the SELECT with USE INDEX () on its tables"},
          {"transform:optimizer_switch", "the SELECT with an optimizer_switch flag off"},
          {"transform:join_cache", "the SELECT with join_cache_level=0"},
          {"transforms", "all transform:* oracles"},
          {"timing", "a SELECT slower on a target than on the first, confirmed by repeats and a rank test"},
          {"recovery", "the server killed under load and restarted (--crash-every): it recovers, its InnoDB tables "
                       "check clean, its table files agree with information_schema, every commit Gauntlet saw "
                       "acknowledged is there, whole"},
          {"replication", "replicas follow the server by GTID (--replicas N): at each checkpoint they catch up and "
                          "hold the same rows in every table"}};
}

std::vector<std::shared_ptr<Oracle>> MakeOracles(const std::vector<std::string>& names,
                                                 const std::vector<Target>& targets, const OracleSettings& settings) {
  std::vector<std::shared_ptr<Oracle>> oracles;
  for (const std::string& name : names) {
    // recovery, replication: checks around the run (gauntlet/runs/recovery.py, replication.py), none per
    // statement.
    if (name == "crash" || name == "recovery" || name == "replication") continue;
    if (name == "errorlog") {
      std::vector<ErrorLogOracle::Log> logs;
      for (const Target& t : targets)
        if (t.probe != nullptr && !t.probe->ErrorLog().empty()) logs.push_back({t.name, t.probe->ErrorLog()});
      std::vector<std::string> ignore = ErrorLogOracle::DefaultIgnore();
      ignore.insert(ignore.end(), settings.error_log_ignore.begin(), settings.error_log_ignore.end());
      oracles.push_back(std::make_shared<ErrorLogOracle>(
          std::move(logs),
          settings.error_log_patterns.empty() ? ErrorLogOracle::DefaultPatterns() : settings.error_log_patterns,
          ignore));
    } else if (name == "tlp") {
      oracles.push_back(std::make_shared<TlpOracle>());
    } else if (name == "norec") {
      oracles.push_back(std::make_shared<NorecOracle>());
    } else if (name == "transforms" || name.rfind("transform:", 0) == 0) {
      bool known = false;
      for (const auto& [n, kind] : TransformOracle::Names())
        if (name == "transforms" || n == name) {
          oracles.push_back(std::make_shared<TransformOracle>(kind));
          known = true;
        }
      if (!known) {
        std::string all;
        for (const auto& [n, kind] : TransformOracle::Names()) all += (all.empty() ? "" : ", ") + n;
        throw InvalidInput({"--oracle", 0, 0}, "unknown transform '" + name + "'; known: " + all);
      }
    } else if (name == "differential" || name == "timing") {
      if (targets.size() < 2)
        throw InvalidInput({"--oracle", 0, 0}, name + " compares targets: give two or more (--target)");
      if (name == "timing") oracles.push_back(std::make_shared<TimingOracle>());
      else oracles.push_back(std::make_shared<DifferentialOracle>());
    } else {
      std::string known;
      for (const auto& [n, what] : KnownOracles()) known += (known.empty() ? "" : ", ") + n;
      throw InvalidInput({"--oracle", 0, 0}, "unknown oracle '" + name + "'; known: " + known);
    }
  }
  // The relation oracles share out the statements, family by family.
  std::vector<RelationOracle*> relations;
  std::vector<std::string> family_names;
  std::vector<std::vector<size_t>> families;
  for (const auto& o : oracles) {
    auto* r = dynamic_cast<RelationOracle*>(o.get());
    if (r == nullptr) continue;
    const size_t f = std::find(family_names.begin(), family_names.end(), r->family()) - family_names.begin();
    if (f == family_names.size()) {
      family_names.push_back(r->family());
      families.emplace_back();
    }
    families[f].push_back(relations.size());
    relations.push_back(r);
  }
  auto turns = std::make_shared<CheckTurns>(families);
  for (size_t i = 0; i < relations.size(); ++i) relations[i]->set_turns(turns, i);
  return oracles;
}

}  // namespace gauntlet
