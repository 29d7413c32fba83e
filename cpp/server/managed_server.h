// ManagedServer: a mariadbd/mysqld that Gauntlet starts, watches and stops.
//
// Each server lives in a private run directory: data/ (copied from a cached,
// bootstrapped template, see DatadirTemplate), mysqld.sock, error.log,
// mysqld.pid and server.json (what `gauntlet server stop` and other processes
// need to find it). The server runs with --no-defaults, so no configuration of
// the machine leaks in, and without TCP unless asked (then 127.0.0.1 on a free
// port). A server that refuses to start raises ServerError carrying the error
// log's [ERROR] lines; a server that dies is described by Crash(). Usage
// mistakes are InvalidInput instead: a binary that is no server, an option
// Gauntlet sets itself (socket, datadir, port ...), or a directory where
// another server of ours runs (a lock, and the pid in server.json).
//
// Not thread-safe; the executor reads pid() and Alive() from its watchdog
// thread only after Start() returned.
#ifndef GAUNTLET_SERVER_MANAGED_SERVER_H_
#define GAUNTLET_SERVER_MANAGED_SERVER_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "exec/connection.h"
#include "server/crash_log.h"

namespace gauntlet {

struct ServerOptions {
  std::string binary = "/usr/sbin/mariadbd";  // or a folder holding a server (ServerTree)
  std::string dir;                   // run directory; created if missing
  std::vector<std::string> mysqld;   // "option=value" or "option", without "--"
  std::vector<std::string> wrapper;  // put in front of the binary: valgrind, rr, taskset ...
  bool tcp = false;                  // also listen on 127.0.0.1:<free port>
  double start_timeout = 60;         // seconds until ready, else ServerError
  std::string template_cache;        // "" = $GAUNTLET_CACHE or ~/.cache/gauntlet
  bool core_file = true;             // --core-file and an unlimited core size
  bool die_with_parent = false;      // killed when the starting thread ends (see SpawnOptions)
};

class ServerError : public Error {
 public:
  ServerError(const std::string& message, std::vector<std::string> log_errors);
  const std::vector<std::string>& log_errors() const { return log_errors_; }

 private:
  std::vector<std::string> log_errors_;
};

// Throws InvalidInput ("server: ...") unless `path` is an executable MariaDB
// or MySQL server (by its `--version`) or a folder holding one (ServerTree);
// checked once per path.
void CheckServerBinary(const std::string& path);

class ManagedServer {
 public:
  explicit ManagedServer(ServerOptions options);
  // A server started earlier (by this or another process) in `dir`, found
  // through its server.json; Stop() and Alive() work on it.
  static ManagedServer Attach(const std::string& dir);
  ~ManagedServer();  // kills a server this object started and did not stop
  ManagedServer(ManagedServer&&) noexcept;
  ManagedServer(const ManagedServer&) = delete;

  void Start();
  // SHUTDOWN, then SIGKILL when it takes longer than `timeout` seconds.
  void Stop(double timeout = 60);
  void Kill(int signal);             // any signal: SIGKILL, SIGSEGV, SIGSTOP ...
  void Restart();                    // Stop + Start, keeping the datadir
  // Leaves the server running when this object is destroyed (`server start`).
  void Detach() { child_ = false; }
  bool Alive();                      // false once the process is gone
  // How the process ended: the signal that killed it, or 0.
  int exit_signal() const { return exit_signal_; }
  // The crash report from the error log (and a core, when gdb is there).
  CrashReport Crash() const;

  ConnectionParams connection() const;
  std::string dsn() const { return connection().ToString(); }
  pid_t pid() const { return pid_; }
  const ServerOptions& options() const { return options_; }
  std::string error_log() const;
  std::string datadir() const;
  std::string socket() const { return socket_; }
  unsigned port() const { return port_; }
  double ready_seconds() const { return ready_seconds_; }  // last Start() only
  // The server's command line as last launched (binary and every option,
  // Gauntlet's own included; a wrapper is left out); empty before Start().
  const std::vector<std::string>& command_line() const { return command_line_; }

 private:
  void Launch();
  void WaitReady();
  // The [ERROR] lines of this start: stdout's, then the error log's.
  std::vector<std::string> StartupErrorLines() const;
  // "see DIR/error.log and DIR/stdout.log": the startup logs that exist.
  std::string StartupLogs() const;
  void WriteInfo() const;
  bool WaitExit(double timeout);
  void Lock();
  void Unlock();

  ServerOptions options_;
  std::string socket_;
  unsigned port_ = 0;
  pid_t pid_ = -1;
  bool child_ = false;     // we forked it, so we reap it
  bool running_ = false;
  int exit_signal_ = 0;
  double ready_seconds_ = 0;
  size_t log_offset_ = 0;  // where this start's part of the error log begins
  size_t stdout_offset_ = 0;  // and of stdout.log
  int lock_fd_ = -1;       // DIR/.server.lock, held from Start() to Stop()
  std::vector<std::string> command_line_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_MANAGED_SERVER_H_
