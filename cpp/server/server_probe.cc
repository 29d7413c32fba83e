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

void ManagedServerProbe::Kill(int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  server_->Kill(signal);
}

std::string ManagedServerProbe::ErrorLog() { return server_->error_log(); }

bool ExternalServerProbe::Alive() {
  ConnectionParams p = params_;
  p.connect_timeout = 5;
  Outcome error;
  if (Connection::Open(p, &error)) return true;
  // A server that answers with an error of its own (1040 too many
  // connections, 1045 access denied ...) is alive; client errors (2000 and
  // up: cannot connect, lost) say it is not.
  return error.error_code != 0 && error.error_code < 2000;
}

}  // namespace gauntlet
