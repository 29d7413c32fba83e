#include "server/server_tree.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"

namespace gauntlet {
namespace fs = std::filesystem;
namespace {

// Where an unpacked server keeps its binary, below the folder given: dpkg -x, a
// release tarball or install prefix, a build tree; or the binary's own folder.
const char* const kBinaryFolders[] = {"usr/sbin", "sbin", "bin", "libexec", "usr/libexec", "usr/bin", "sql", "."};
const char* const kBinaryNames[] = {"mariadbd", "mysqld"};

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The first of `folders` below `base` that holds the file `holds` ("": that exists).
std::string FirstWith(const fs::path& base, std::initializer_list<const char*> folders, const char* holds) {
  std::error_code ec;
  for (const char* f : folders) {
    const fs::path dir = base / f;
    if (*holds ? IsFile(dir / holds) : fs::is_directory(dir, ec)) return dir.string();
  }
  return "";
}

std::string BinaryIn(const fs::path& dir) {
  for (const char* folder : kBinaryFolders)
    for (const char* name : kBinaryNames)
      if (IsFile(dir / folder / name) && access((dir / folder / name).c_str(), X_OK) == 0)
        return (dir / folder / name).lexically_normal().string();
  return "";
}

// The binary below `dir`, or below the first of its subfolders that has one (where a tarball
// unpacks: mariadb-10.11.18-linux-systemd-x86_64/).
std::string FindBinary(const fs::path& dir) {
  if (std::string b = BinaryIn(dir); !b.empty()) return b;
  std::vector<fs::path> subfolders;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec)) subfolders.push_back(e.path());
  std::sort(subfolders.begin(), subfolders.end());
  for (const fs::path& sub : subfolders)
    if (std::string b = BinaryIn(sub); !b.empty()) return b;
  std::string looked;
  for (const char* folder : kBinaryFolders) looked += std::string(looked.empty() ? "" : ", ") + folder + "/mariadbd";
  throw InvalidInput({"server", 0, 0}, dir.string() + " holds no server binary (looked for " + looked +
                                           " and mysqld, there and one folder down)");
}

}  // namespace

std::vector<std::string> ServerTree::Options() const {
  if (system) return {};
  std::vector<std::string> out = {"basedir=" + basedir};
  if (!messages_dir.empty()) out.push_back("lc_messages_dir=" + messages_dir);
  if (!charsets_dir.empty()) out.push_back("character_sets_dir=" + charsets_dir);
  if (!plugin_dir.empty()) out.push_back("plugin_dir=" + plugin_dir);
  return out;
}

ServerTree FindServerTree(const std::string& path) {
  std::error_code ec;
  const fs::path given = fs::absolute(path, ec).lexically_normal();
  if (!fs::exists(given, ec)) throw InvalidInput({"server", 0, 0}, path + ": no such file or folder");
  ServerTree t;
  t.binary = fs::is_directory(given, ec) ? FindBinary(given) : given.string();
  const fs::path bindir = fs::path(t.binary).parent_path();
  const fs::path base = bindir.parent_path();
  t.basedir = base.string();
  t.system = fs::equivalent(base, "/usr", ec);
  t.messages_dir = FirstWith(base, {"share/mysql", "share/mariadb", "share", "sql/share"}, "english/errmsg.sys");
  if (!t.messages_dir.empty() && IsFile(fs::path(t.messages_dir) / "charsets/Index.xml"))
    t.charsets_dir = (fs::path(t.messages_dir) / "charsets").string();
  t.plugin_dir = FirstWith(base, {"lib/mysql/plugin", "lib/mariadb/plugin", "lib/plugin", "lib64/mysql/plugin",
                                  "lib64/plugin"}, "");
  for (const fs::path& p : {bindir / "mariadb-install-db", base / "bin" / "mariadb-install-db",
                            base / "scripts" / "mariadb-install-db", fs::path("/usr/bin/mariadb-install-db")}) {
    if (IsFile(p)) {
      t.install_db = p.string();
      break;
    }
  }
  return t;
}

}  // namespace gauntlet
