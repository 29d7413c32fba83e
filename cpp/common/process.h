// Child processes: run a command to completion, or spawn a long-lived one.
//
// Commands are argv vectors, never shell strings, so paths with spaces or
// quotes are safe. Spawned children get their own process group, so a Ctrl-C
// at the terminal reaches Gauntlet, which then stops them in order.
#ifndef GAUNTLET_COMMON_PROCESS_H_
#define GAUNTLET_COMMON_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace gauntlet {

struct CommandResult {
  int exit_code = -1;   // -1 when killed by a signal or not started
  int signal = 0;       // the signal that ended it, or 0
  bool timed_out = false;
  std::string output;   // stdout and stderr, interleaved
};

// Runs `argv` and waits at most `timeout` seconds (then kills it).
CommandResult RunCommand(const std::vector<std::string>& argv, double timeout,
                         const std::string& cwd = "");

struct SpawnOptions {
  std::string cwd;          // "" keeps ours
  std::string output_file;  // stdout and stderr go here ("" = /dev/null)
  bool unlimited_core = false;
  // SIGKILL the child when the thread that spawned it ends, so that a
  // Gauntlet killed outright leaves no server behind (Linux's PDEATHSIG; the
  // spawning thread must outlive the child's use).
  bool die_with_parent = false;
};

// Starts `argv` in a new process group and returns its pid; throws Error
// when it cannot be started.
pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& options);

// Waits for `pid` (our child) for at most `timeout` seconds. Returns true
// once it exited, setting *signal to the signal that ended it (or 0).
bool WaitChild(pid_t pid, double timeout, int* signal);

// True when a process with this pid exists (and is not a zombie of ours).
bool ProcessExists(pid_t pid);

}  // namespace gauntlet

#endif  // GAUNTLET_COMMON_PROCESS_H_
