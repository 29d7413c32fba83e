#include "server/datadir_template.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/process.h"
#include "server/crash_log.h"
#include "server/managed_server.h"
#include "server/server_tree.h"

namespace gauntlet {
namespace fs = std::filesystem;
namespace {

uint64_t Fnv1a(const std::string& s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// One file, link or folder, made again while a signal the process handles (Python's Ctrl-C
// handler, installed without SA_RESTART) interrupts its system calls: acting on the signal is the
// caller's business. Per entry, since a whole tree of small files rarely copies between signals.
void CopyEntry(const fs::path& from, const fs::path& to) {
  for (int attempt = 1;; ++attempt) {
    try {
      if (fs::is_directory(fs::symlink_status(from))) {
        fs::create_directory(to);
      } else {
        fs::copy(from, to, fs::copy_options::copy_symlinks | fs::copy_options::overwrite_existing);
      }
      return;
    } catch (const fs::filesystem_error& e) {
      if (e.code() != std::errc::interrupted || attempt == 100) throw;
    }
  }
}

}  // namespace

std::string OptionName(const std::string& option) {
  std::string name = option.substr(0, option.find('='));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::vector<std::string> BootstrapOptions(const std::vector<std::string>& mysqld) {
  static const char* const kBootstrap[] = {
      "innodb_page_size", "lower_case_table_names", "innodb_data_file_path",
      "innodb_undo_tablespaces", "innodb_checksum_algorithm", "innodb_log_file_size",
      "innodb_undo_directory", "innodb_data_home_dir"};
  std::vector<std::string> out;
  for (const std::string& o : mysqld) {
    const std::string name = OptionName(o);
    for (const char* b : kBootstrap)
      if (name == b) out.push_back(o);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string TemplateCacheDir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* env = std::getenv("GAUNTLET_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "gauntlet").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "gauntlet").string();
  return "/tmp/gauntlet-cache";
}

bool IsMariaDB(const std::string& binary) {
  const CommandResult r = RunCommand({binary, "--version"}, 30);
  return r.output.find("MariaDB") != std::string::npos;
}

std::string EnsureTemplate(const std::string& binary, const std::vector<std::string>& mysqld,
                           const std::string& cache_dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(binary, ec);
  if (ec) throw ServerError("server binary not found: " + binary, {});
  const std::vector<std::string> options = BootstrapOptions(mysqld);
  // Bump the version when the way templates are made changes.
  std::string key_text = "v2|" + real.string() + "|" + std::to_string(fs::file_size(real)) + "|" +
                         std::to_string(fs::last_write_time(real).time_since_epoch().count());
  for (const auto& o : options) key_text += "|" + o;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(Fnv1a(key_text)));

  const fs::path root = fs::path(cache_dir) / "templates";
  const fs::path done = root / key;
  const fs::path data = done / "data";
  // A use stamp: the cache is trimmed least recently used first (gauntlet/runs/templates.py).
  const auto used = [&] { std::ofstream(done / "used").flush(); };
  if (fs::exists(done / "READY")) {
    used();
    return data.string();
  }

  fs::create_directories(root);
  const std::string lock_path = (root / (std::string(key) + ".lock")).string();
  const int lock = open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock < 0) throw ServerError("cannot create " + lock_path, {});
  flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() { close(fd); }
  } unlock{lock};
  if (fs::exists(done / "READY")) return data.string();

  const fs::path tmp = root / (std::string(key) + ".tmp." + std::to_string(getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  std::vector<std::string> argv;
  const bool as_root = geteuid() == 0;
  const ServerTree tree = FindServerTree(binary);
  if (IsMariaDB(binary)) {
    if (tree.install_db.empty()) throw ServerError("cannot bootstrap " + binary + ": mariadb-install-db not found", {});
    // With the `test` database: RQG grammars and most QA scripts expect it.
    argv = {tree.install_db, "--no-defaults", "--datadir=" + (tmp / "data").string(),
            "--auth-root-authentication-method=normal"};
    // mariadb-install-db takes --basedir and hands the rest to the server.
    for (const std::string& o : tree.Options()) argv.push_back("--" + o);
  } else {
    argv = {real.string(), "--no-defaults", "--initialize-insecure",
            "--datadir=" + (tmp / "data").string()};
    for (const std::string& o : tree.Options()) argv.push_back("--" + o);
    // MySQL makes no `test` database here; the data loader creates it.
  }
  if (as_root) argv.push_back("--user=root");
  for (const auto& o : options) argv.push_back("--" + o);
  CommandResult r = RunCommand(argv, 600);
  if (r.exit_code != 0) {
    // Once in a few hundred bootstraps under load, mariadb-install-db fails in its own SQL ("Unknown
    // table 'mysql.tmp_db'", seen in make check): a second try on an empty datadir succeeds.
    fs::remove_all(tmp / "data");
    r = RunCommand(argv, 600);
  }
  std::ofstream(tmp / "bootstrap.log") << r.output;
  if (r.exit_code != 0) {
    std::vector<std::string> errors = ErrorLines(r.output);
    if (errors.empty() && !r.output.empty()) errors.push_back(r.output.substr(0, 2000));
    fs::remove_all(tmp);
    throw ServerError("bootstrap of " + binary + " failed (exit " + std::to_string(r.exit_code) + ")",
                      errors);
  }
  fs::remove_all(done);
  fs::rename(tmp, done);
  std::ofstream(done / "READY") << key_text << "\n";
  return data.string();
}

void CopyDatadir(const std::string& from, const std::string& target) {
  try {
    fs::create_directories(fs::path(target).parent_path());
    CopyEntry(from, target);
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(from)) {
      CopyEntry(entry.path(), fs::path(target) / fs::relative(entry.path(), from));
    }
  } catch (const fs::filesystem_error& e) {
    // Most often a full disk under the run's folder: said as that, not as a library's message,
    // and the part copied removed, so that what the run writes next has room.
    std::error_code ignored;
    fs::remove_all(target, ignored);
    throw OutputError(e.path2().empty() ? e.path1().string() : e.path2().string(), e.code().message(),
                      "the server's datadir (a copy of " + from + ") was not made");
  }
}

}  // namespace gauntlet
