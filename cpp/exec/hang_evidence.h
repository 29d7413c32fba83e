// What the stuck targets of a hang are doing, for a developer to tell a
// server hang from a lock wait: each one's process list (statements cut at
// 300 bytes) and InnoDB's status (whole), read on a connection of our own
// that waits 5 s at most. {target: {processlist, innodb_status} or {error}}.
#ifndef GAUNTLET_EXEC_HANG_EVIDENCE_H_
#define GAUNTLET_EXEC_HANG_EVIDENCE_H_

#include <vector>

#include <nlohmann/json.hpp>

#include "exec/target.h"

namespace gauntlet {

nlohmann::json HangEvidence(const std::vector<Target>& targets, const std::vector<bool>& stuck);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_HANG_EVIDENCE_H_
