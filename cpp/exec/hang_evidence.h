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

// Whether a target's server is still working on any of `connections` (its
// ids of our sessions): kBusy when one of them runs a statement there;
// kIdle when none does (they finished, or wait for us to read their rows:
// what stood still was Gauntlet, paused or starved, not the server);
// kNoAnswer when the server does not answer a new connection and a
// process-list query within `timeout` seconds (1 to 5). A hang is decided on
// this, never on Gauntlet's own clock alone.
enum class ServerActivity { kBusy, kIdle, kNoAnswer };
ServerActivity ActivityOf(const Target& target, const std::vector<uint64_t>& connections, double timeout);

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_HANG_EVIDENCE_H_
