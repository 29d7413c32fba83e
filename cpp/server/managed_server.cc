#include "server/managed_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/process.h"
#include "server/datadir_template.h"

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

bool HasOption(const std::vector<std::string>& options, const std::string& name) {
  for (const std::string& o : options)
    if (OptionName(o) == name) return true;
  return false;
}

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
      ready_seconds_(o.ready_seconds_), log_offset_(o.log_offset_) {
  o.running_ = false;
  o.child_ = false;
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
  s.running_ = ProcessExists(s.pid_);
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
  fs::create_directories(options_.dir);
  if (!fs::exists(datadir())) {
    const std::string tpl = EnsureTemplate(options_.binary, options_.mysqld,
                                           TemplateCacheDir(options_.template_cache));
    CopyDatadir(tpl, datadir());
  }
  const auto start = std::chrono::steady_clock::now();
  Launch();
  WaitReady();
  ready_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WriteInfo();
}

void ManagedServer::Launch() {
  std::error_code ec;
  log_offset_ = fs::exists(error_log()) ? fs::file_size(error_log(), ec) : 0;
  fs::remove(socket_, ec);
  port_ = options_.tcp ? FreePort() : 0;
  std::vector<std::string> argv = options_.wrapper;
  argv.insert(argv.end(), {options_.binary, "--no-defaults", "--datadir=" + datadir(),
                           "--socket=" + socket_,
                           "--pid-file=" + (fs::path(options_.dir) / "mysqld.pid").string(),
                           "--log-error=" + error_log()});
  if (geteuid() == 0) argv.push_back("--user=root");
  if (options_.tcp) {
    argv.push_back("--port=" + std::to_string(port_));
    argv.push_back("--bind-address=127.0.0.1");
  } else {
    argv.push_back("--skip-networking");
  }
  if (options_.core_file) argv.push_back("--core-file");
  for (const std::string& o : options_.mysqld) argv.push_back("--" + o);
  SpawnOptions so;
  so.cwd = datadir();
  so.output_file = (fs::path(options_.dir) / "stdout.log").string();
  so.unlimited_core = options_.core_file;
  pid_ = Spawn(argv, so);
  child_ = true;
  running_ = true;
  exit_signal_ = 0;
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
      throw ServerError("server " + options_.binary + " " + how + " during startup; see " + error_log(),
                        ErrorLines(ReadFrom(error_log(), log_offset_)));
    }
    if (fs::exists(socket_)) {
      Outcome error;
      if (Connection::Open(params, &error)) return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      Kill(SIGKILL);
      throw ServerError("server " + options_.binary + " not ready after " +
                            std::to_string(static_cast<int>(options_.start_timeout)) + " s; see " + error_log(),
                        ErrorLines(ReadFrom(error_log(), log_offset_)));
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
  std::ofstream(fs::path(options_.dir) / "server.json") << info.dump(2) << "\n";
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
  if (signal == SIGKILL) kill(pid_, SIGCONT);  // a stopped process dies only once continued
  kill(pid_, signal);
  if (signal == SIGKILL) WaitExit(30);
}

void ManagedServer::Stop(double timeout) {
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
  CrashReport r = ParseCrashReport(ReadFrom(error_log(), log_offset_));
  if (r.signal == 0 && exit_signal_ != 0) {
    r.signal = exit_signal_;
    if (r.signature.empty()) r.signature = "signal " + std::to_string(exit_signal_) + ": (no backtrace in the error log)";
  }
  for (const std::string& name : {std::string("core"), "core." + std::to_string(pid_)}) {
    const fs::path core = fs::path(datadir()) / name;
    if (fs::exists(core)) {
      r.gdb_backtrace = GdbBacktrace(options_.binary, core.string(), 120);
      break;
    }
  }
  return r;
}

}  // namespace gauntlet
