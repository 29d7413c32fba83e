#include "common/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "common/error.h"

namespace gauntlet {
namespace {

// Runs in the forked child: only async-signal-safe calls until exec, since
// other threads of the parent may have held locks at fork time.
[[noreturn]] void ExecChild(char* const* args, const SpawnOptions& o, int out_fd, pid_t parent) {
  setpgid(0, 0);
  if (o.die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);  // the parent died before prctl took hold
  }
  if (o.unlimited_core) {
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_CORE, &unlimited);
  }
  if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, 0);
  if (out_fd >= 0) {
    dup2(out_fd, 1);
    dup2(out_fd, 2);
  }
  execvp(args[0], args);
  _exit(127);
}

pid_t Fork(const std::vector<std::string>& argv, const SpawnOptions& o, int out_fd) {
  if (argv.empty()) throw Error("empty command");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) ExecChild(args.data(), o, out_fd, parent);
  return pid;
}

}  // namespace

bool WaitChild(pid_t pid, double timeout, int* signal) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (signal != nullptr) *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      return true;
    }
    if (r < 0 && errno == ECHILD) {  // not ours (or already reaped): poll existence
      if (!ProcessExists(pid)) {
        if (signal != nullptr) *signal = 0;
        return true;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool ProcessExists(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie still "exists" for kill(); look at its state.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_s, comm, state;
  if (stat >> pid_s >> comm >> state) return state != "Z";
  return true;
}

CommandResult RunCommand(const std::vector<std::string>& argv, double timeout, const std::string& cwd) {
  CommandResult result;
  int fds[2];
  if (pipe(fds) != 0) throw Error(std::string("pipe failed: ") + std::strerror(errno));
  SpawnOptions o;
  o.cwd = cwd;
  pid_t pid;
  try {
    pid = Fork(argv, o, fds[1]);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  char buffer[4096];
  bool exited = false;
  int status = 0;
  while (!exited) {
    ssize_t n;
    while ((n = read(fds[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, n);
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, n);
  close(fds[0]);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  int out_fd = -1;
  if (!options.output_file.empty()) {
    out_fd = open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0)
      throw Error("cannot open " + options.output_file + ": " + std::strerror(errno));
  }
  pid_t pid;
  try {
    pid = Fork(argv, options, out_fd);
  } catch (...) {
    if (out_fd >= 0) close(out_fd);
    throw;
  }
  if (out_fd >= 0) close(out_fd);
  return pid;
}

}  // namespace gauntlet
