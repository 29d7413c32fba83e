// Target: one server a run sends its statements to, and what the executor
// needs to know about it.
//
// A run has one or more targets (a managed server or a DSN, each with its
// options); every session executes each statement on all of them in turn, so
// that writes keep their states equal and oracles can compare the outcomes.
#ifndef GAUNTLET_EXEC_TARGET_H_
#define GAUNTLET_EXEC_TARGET_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/connection.h"
#include "exec/crash_report.h"

namespace gauntlet {

// The server under test's life, as the executor sees it. Thread-safe.
class ServerProbe {
 public:
  virtual ~ServerProbe() = default;
  virtual bool Alive() = 0;
  virtual CrashReport Crash() = 0;
  // SIGKILL unblocks sessions stuck on a hung server; any signal kills on purpose (RunOptions::kill_at).
  virtual void Kill(int signal) = 0;
  // The server's error log, for the error-log oracle; "" when not readable.
  virtual std::string ErrorLog() { return ""; }
};

struct Target {
  std::string name = "default";
  ConnectionParams connection;
  ServerProbe* probe = nullptr;  // may be null: an external server with no lifecycle management
  // Statements every new session runs first (SET SESSION ... for a DSN's options).
  std::vector<std::string> session_setup;
  // What the target is, for findings and the summary: server, options, engine.
  nlohmann::json description = nlohmann::json::object();
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_TARGET_H_
