// ServerProbes for the executor: a ManagedServer (process state, error log,
// core) or an external server known only by its DSN (alive = accepts a
// connection). Both are thread-safe.
#ifndef GAUNTLET_SERVER_SERVER_PROBE_H_
#define GAUNTLET_SERVER_SERVER_PROBE_H_

#include <mutex>

#include "exec/target.h"
#include "server/managed_server.h"

namespace gauntlet {

class ManagedServerProbe : public ServerProbe {
 public:
  explicit ManagedServerProbe(ManagedServer* server) : server_(server) {}
  bool Alive() override;
  CrashReport Crash() override;
  void Kill(int signal) override;
  std::string ErrorLog() override;

 private:
  std::mutex mu_;
  ManagedServer* server_;
};

class ExternalServerProbe : public ServerProbe {
 public:
  explicit ExternalServerProbe(ConnectionParams params) : params_(std::move(params)) {}
  bool Alive() override;
  CrashReport Crash() override { return {}; }
  void Kill(int) override {}  // not ours to kill

 private:
  ConnectionParams params_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_SERVER_PROBE_H_
