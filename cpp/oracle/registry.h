// The oracles a run can name (`--oracle crash,errorlog,differential`), made
// for its targets.
#ifndef GAUNTLET_ORACLE_REGISTRY_H_
#define GAUNTLET_ORACLE_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "exec/oracle.h"
#include "exec/target.h"

namespace gauntlet {

struct OracleSettings {
  std::vector<std::string> error_log_patterns;  // empty: ErrorLogOracle's defaults
  std::vector<std::string> error_log_ignore;
};

// Name and one line on what it checks, for --help and error messages.
std::vector<std::pair<std::string, std::string>> KnownOracles();

// "crash" is built into the executor (always on) and makes no object.
// Throws InvalidInput naming an unknown oracle (with the known ones) or one
// that cannot apply to these targets (differential with one target).
std::vector<std::shared_ptr<Oracle>> MakeOracles(const std::vector<std::string>& names,
                                                 const std::vector<Target>& targets, const OracleSettings& settings);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_REGISTRY_H_
