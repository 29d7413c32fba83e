#include "server/server_probe.h"

#include <signal.h>

namespace gauntlet {

bool ManagedServerProbe::Alive() {
  std::lock_guard<std::mutex> lock(mu_);
  return server_->Alive();
}

CrashReport ManagedServerProbe::Crash() {
  std::lock_guard<std::mutex> lock(mu_);
  return server_->Crash();
}

void ManagedServerProbe::Kill() {
  std::lock_guard<std::mutex> lock(mu_);
  server_->Kill(SIGKILL);
}

bool ExternalServerProbe::Alive() {
  ConnectionParams p = params_;
  p.connect_timeout = 5;
  Outcome error;
  return Connection::Open(p, &error) != nullptr;
}

}  // namespace gauntlet
