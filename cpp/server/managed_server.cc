#include "server/managed_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/process.h"
#include "server/datadir_template.h"
#include "server/server_tree.h"

namespace gauntlet {
namespace fs = std::filesystem;
namespace {

constexpr char kDefaultLogFileSize[] = "innodb_log_file_size=10M";

std::string ReadFrom(const std::string& path, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const size_t size = static_cast<size_t>(in.tellg());
  if (offset > size) offset = 0;  // the log was replaced
  in.seekg(static_cast<std::streamoff>(offset));
  std::string text(size - offset, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

unsigned FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    throw ServerError("cannot find a free TCP port on 127.0.0.1", {});
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool PortTaken(const std::vector<std::string>& log_errors) {
  for (const std::string& line : log_errors)
    if (line.find("Address already in use") != std::string::npos || line.find("Bind on TCP/IP port") != std::string::npos)
      return true;
  return false;
}

bool HasOption(const std::vector<std::string>& options, const std::string& name) {
  for (const std::string& o : options)
    if (OptionName(o) == name) return true;
  return false;
}

// Options that say where the server lives and listens: Gauntlet sets them,
// and a second value would leave it waiting on the wrong socket.
const char* const kManagedOptions[] = {"socket", "datadir", "pid_file", "log_error", "port",
                                       "bind_address", "skip_networking", "user", "no_defaults",
                                       "defaults_file", "defaults_extra_file", "basedir"};

// The process `pid` is the server of `datadir` (not another process that
// was given the pid since).
bool IsServerOf(pid_t pid, const std::string& datadir) {
  if (!ProcessExists(pid)) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find("--datadir=" + datadir + '\0') != std::string::npos;
}

}  // namespace

void CheckServerBinary(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, bool> checked;
  std::lock_guard<std::mutex> lock(mu);
  if (checked.count(path)) return;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InvalidInput({"server", 0, 0}, path + ": no such file");
  const std::string binary = FindServerTree(path).binary;
  if (access(binary.c_str(), X_OK) != 0) throw InvalidInput({"server", 0, 0}, binary + " is not executable");
  const CommandResult r = RunCommand({binary, "--version"}, 30);
  std::string lower = r.output;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find(" ver ") == std::string::npos ||
      (lower.find("mariadb") == std::string::npos && lower.find("mysql") == std::string::npos)) {
    std::string said = r.output.substr(0, 200);
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    throw InvalidInput({"server", 0, 0}, binary + " is not a MariaDB or MySQL server: `--version` printed " +
                                             (said.empty() ? "nothing" : "'" + said + "'"));
  }
  checked[path] = true;
}

namespace {

bool IsStopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_s, comm, state;
  return (stat >> pid_s >> comm >> state) && state == "T";
}

}  // namespace

ServerError::ServerError(const std::string& message, std::vector<std::string> log_errors)
    : Error([&] {
        std::string m = message;
        for (const auto& l : log_errors) m += "\n  " + l;
        return m;
      }()),
      log_errors_(std::move(log_errors)) {}

ManagedServer::ManagedServer(ServerOptions options) : options_(std::move(options)) {
  if (options_.dir.empty()) throw InvalidInput({"<server>", 0, 0}, "a managed server needs a run directory");
  options_.dir = fs::absolute(options_.dir).lexically_normal().string();
  std::error_code ec;
  if (fs::is_directory(options_.binary, ec)) options_.binary = FindServerTree(options_.binary).binary;
  for (const char* name : kManagedOptions) {
    if (HasOption(options_.mysqld, name))
      throw InvalidInput({"mysqld", 0, 0}, std::string("'") + name + "' is set by Gauntlet for a managed server "
                         "(it lives in " + options_.dir + "); leave it out");
  }
  if (!HasOption(options_.mysqld, "innodb_log_file_size")) options_.mysqld.push_back(kDefaultLogFileSize);
  // Unix socket paths are limited to 107 bytes.
  socket_ = (fs::path(options_.dir) / "mysqld.sock").string();
  if (socket_.size() > 100) {
    socket_ = "/tmp/gauntlet-" + std::to_string(std::hash<std::string>{}(options_.dir)) + ".sock";
  }
}

ManagedServer::ManagedServer(ManagedServer&& o) noexcept
    : options_(std::move(o.options_)), socket_(std::move(o.socket_)), port_(o.port_), pid_(o.pid_),
      child_(o.child_), running_(o.running_), exit_signal_(o.exit_signal_),
      ready_seconds_(o.ready_seconds_), log_offset_(o.log_offset_), stdout_offset_(o.stdout_offset_),
      lock_fd_(o.lock_fd_),
      command_line_(std::move(o.command_line_)) {
  o.running_ = false;
  o.child_ = false;
  o.lock_fd_ = -1;
}

ManagedServer ManagedServer::Attach(const std::string& dir) {
  const fs::path info_path = fs::path(dir) / "server.json";
  std::ifstream in(info_path);
  if (!in) throw InvalidInput({info_path.string(), 0, 0}, "no server was started in this directory");
  nlohmann::json info;
  try {
    info = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput({info_path.string(), 0, 0}, e.what());
  }
  ServerOptions o;
  o.dir = dir;
  o.binary = info.value("binary", o.binary);
  o.mysqld = info.value("mysqld", std::vector<std::string>{});
  ManagedServer s(o);
  s.socket_ = info.value("socket", s.socket_);
  s.port_ = info.value("port", 0u);
  s.pid_ = info.value("pid", -1);
  s.running_ = IsServerOf(s.pid_, s.datadir());
  s.log_offset_ = info.value("log_offset", size_t{0});
  return s;
}

ManagedServer::~ManagedServer() {
  if (running_ && child_) {
    try {
      Kill(SIGKILL);
    } catch (...) {
    }
  }
  Unlock();
}

void ManagedServer::Lock() {
  if (lock_fd_ >= 0) return;
  const std::string path = (fs::path(options_.dir) / ".server.lock").string();
  lock_fd_ = open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw InvalidInput({"server", 0, 0}, "cannot create " + path + ": " + std::strerror(errno));
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    Unlock();
    throw InvalidInput({"server", 0, 0}, options_.dir + " is in use: another Gauntlet process runs a server there");
  }
}

void ManagedServer::Unlock() {
  if (lock_fd_ >= 0) close(lock_fd_);
  lock_fd_ = -1;
}

std::string ManagedServer::datadir() const { return (fs::path(options_.dir) / "data").string(); }
std::string ManagedServer::error_log() const { return (fs::path(options_.dir) / "error.log").string(); }

ConnectionParams ManagedServer::connection() const {
  ConnectionParams p;
  p.socket = socket_;
  p.port = port_;
  p.user = "root";
  return p;
}

void ManagedServer::Start() {
  if (running_ && Alive()) return;
  CheckServerBinary(options_.binary);
  fs::create_directories(options_.dir);
  Lock();
  std::ifstream info_file(fs::path(options_.dir) / "server.json");
  const nlohmann::json info = nlohmann::json::parse(info_file, nullptr, false);
  if (info.is_object() && IsServerOf(info.value("pid", -1), datadir())) {
    Unlock();
    throw InvalidInput({"server", 0, 0}, "a server (pid " + std::to_string(info.value("pid", -1)) +
                       ") already runs in " + options_.dir + "; stop it with: gauntlet server stop --dir " +
                       options_.dir);
  }
  if (!fs::exists(datadir())) {
    const std::string tpl = EnsureTemplate(options_.binary, options_.mysqld,
                                           TemplateCacheDir(options_.template_cache));
    CopyDatadir(tpl, datadir());
  }
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    Launch();
    WriteInfo();  // at once, so that `gauntlet server stop` finds even a server that never gets ready
    try {
      WaitReady();
      break;
    } catch (const ServerError& e) {
      // FreePort's port was free when it looked; a server starting beside this one may have
      // bound it since. Another port, then.
      if (!options_.tcp || attempt == 5 || !PortTaken(e.log_errors())) throw;
    }
  }
  ready_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WriteInfo();
}

void ManagedServer::Launch() {
  std::error_code ec;
  log_offset_ = fs::exists(error_log()) ? fs::file_size(error_log(), ec) : 0;
  const fs::path stdout_log = fs::path(options_.dir) / "stdout.log";
  stdout_offset_ = fs::exists(stdout_log) ? fs::file_size(stdout_log, ec) : 0;
  fs::remove(socket_, ec);
  port_ = options_.tcp ? FreePort() : 0;
  std::vector<std::string> argv = options_.wrapper;
  argv.insert(argv.end(), {options_.binary, "--no-defaults", "--datadir=" + datadir(),
                           "--socket=" + socket_,
                           "--pid-file=" + (fs::path(options_.dir) / "mysqld.pid").string(),
                           "--log-error=" + error_log()});
  if (geteuid() == 0) argv.push_back("--user=root");
  for (const std::string& o : FindServerTree(options_.binary).Options())
    if (!HasOption(options_.mysqld, OptionName(o))) argv.push_back("--" + o);
  if (options_.tcp) {
    argv.push_back("--port=" + std::to_string(port_));
    argv.push_back("--bind-address=127.0.0.1");
  } else {
    argv.push_back("--skip-networking");
  }
  if (options_.core_file) argv.push_back("--core-file");
  // Its own temporary folder: servers sharing /tmp see each other's (and
  // other programs') clean-ups of it, and a full /tmp is not this run's.
  if (!HasOption(options_.mysqld, "tmpdir")) {
    const fs::path tmp = fs::path(options_.dir) / "tmp";
    fs::create_directories(tmp, ec);
    argv.push_back("--tmpdir=" + tmp.string());
  }
  for (const std::string& o : options_.mysqld) argv.push_back("--" + o);
  command_line_.assign(argv.begin() + static_cast<std::ptrdiff_t>(options_.wrapper.size()), argv.end());
  SpawnOptions so;
  so.cwd = datadir();
  so.output_file = (fs::path(options_.dir) / "stdout.log").string();
  so.unlimited_core = options_.core_file;
  so.die_with_parent = options_.die_with_parent;
  pid_ = Spawn(argv, so);
  child_ = true;
  running_ = true;
  exit_signal_ = 0;
}

std::vector<std::string> ManagedServer::StartupErrorLines() const {
  // Options are parsed before the error log opens: a refused value is said on stdout.
  std::vector<std::string> lines = ErrorLines(ReadFrom((fs::path(options_.dir) / "stdout.log").string(), stdout_offset_));
  for (std::string& line : ErrorLines(ReadFrom(error_log(), log_offset_))) lines.push_back(std::move(line));
  return lines;
}

std::string ManagedServer::StartupLogs() const {
  // A server that fails while parsing its options never opens its error log: name what exists.
  std::string logs;
  for (const fs::path& p : {fs::path(error_log()), fs::path(options_.dir) / "stdout.log"}) {
    std::error_code ec;
    if (fs::exists(p, ec) && fs::file_size(p, ec) > 0) logs += (logs.empty() ? "see " : " and ") + p.string();
  }
  return logs.empty() ? "it logged nothing" : logs;
}

void ManagedServer::WaitReady() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(options_.start_timeout);
  ConnectionParams params = connection();
  params.connect_timeout = 2;
  while (true) {
    if (!Alive()) {
      const std::string how = exit_signal_ ? "was killed by signal " + std::to_string(exit_signal_)
                                           : "exited";
      throw ServerError("server " + options_.binary + " " + how + " during startup; " + StartupLogs(),
                        StartupErrorLines());
    }
    if (fs::exists(socket_)) {
      Outcome error;
      if (Connection::Open(params, &error)) return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      Kill(SIGKILL);
      throw ServerError("server " + options_.binary + " not ready after " +
                            std::to_string(static_cast<int>(options_.start_timeout)) + " s; " + StartupLogs(),
                        StartupErrorLines());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ManagedServer::WriteInfo() const {
  nlohmann::json info = {{"pid", pid_},           {"binary", options_.binary},
                         {"dir", options_.dir},   {"socket", socket_},
                         {"port", port_},         {"dsn", dsn()},
                         {"error_log", error_log()}, {"mysqld", options_.mysqld},
                         {"log_offset", log_offset_}};
  // Replaced whole: another process attaching (gauntlet server, a test)
  // never reads half a file.
  const fs::path path = fs::path(options_.dir) / "server.json", tmp = fs::path(options_.dir) / "server.json.tmp";
  std::ofstream(tmp) << info.dump(2) << "\n";
  std::error_code ec;
  fs::rename(tmp, path, ec);
}

bool ManagedServer::Alive() {
  if (!running_) return false;
  int signal = 0;
  if (child_ ? WaitChild(pid_, 0, &signal) : !ProcessExists(pid_)) {
    running_ = false;
    exit_signal_ = signal;
  }
  return running_;
}

bool ManagedServer::WaitExit(double timeout) {
  int signal = 0;
  if (!WaitChild(pid_, timeout, &signal)) return false;
  running_ = false;
  exit_signal_ = signal;
  return true;
}

void ManagedServer::Kill(int signal) {
  if (!Alive()) return;
  if (signal == SIGKILL) {
    kill(pid_, SIGCONT);  // a stopped process dies only once continued
    if (child_) kill(-pid_, SIGKILL);  // and its group: a wrapper script's children too
  }
  kill(pid_, signal);
  if (signal == SIGKILL) WaitExit(30);
}

void ManagedServer::Stop(double timeout) {
  struct Release {
    ManagedServer* s;
    ~Release() { s->Unlock(); }
  } release{this};
  if (!Alive()) return;
  if (IsStopped(pid_)) return Kill(SIGKILL);
  ConnectionParams params = connection();
  params.connect_timeout = 5;
  params.read_timeout = static_cast<unsigned>(timeout) + 1;
  Outcome error;
  if (auto c = Connection::Open(params, &error)) {
    c->Execute("SHUTDOWN");
  } else {
    kill(pid_, SIGTERM);
  }
  if (!WaitExit(timeout)) Kill(SIGKILL);
}

void ManagedServer::Restart() {
  Stop();
  Start();
}

CrashReport ManagedServer::Crash() const {
  const std::string log = ReadFrom(error_log(), log_offset_);
  CrashReport r = ParseCrashReport(log);
  // A SHUTDOWN statement (or SIGTERM) ends the server with this line and no
  // crash section: the process is gone, but nothing crashed.
  if (r.empty() && exit_signal_ == 0 && log.find("Shutdown complete") != std::string::npos) {
    r.shutdown = true;
    r.log_excerpt = log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
    return r;
  }
  if (r.signal == 0 && exit_signal_ != 0) {
    r.signal = exit_signal_;
    if (r.signature.empty()) r.signature = "signal " + std::to_string(exit_signal_) + ": (no backtrace in the error log)";
  }
  for (const std::string& name : {std::string("core"), "core." + std::to_string(pid_)}) {
    const fs::path core = fs::path(datadir()) / name;
    if (fs::exists(core)) {
      r.gdb_backtrace = GdbBacktrace(options_.binary, core.string(), 120);
      // A stripped server's log has addresses only; the core names the frames.
      if (r.frames.empty() && r.assertion.empty()) {
        r.frames = GdbCrashFrames(r.gdb_backtrace);
        if (!r.frames.empty()) r.signature = CrashSignature(r);
      }
      break;
    }
  }
  return r;
}

}  // namespace gauntlet
