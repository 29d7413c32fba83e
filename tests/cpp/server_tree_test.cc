// ServerTree on the layouts a server unpacks to, made of empty files (no server runs).
#include "server/server_tree.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace gauntlet {
namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path root;
  Tree() {
    char tmpl[] = "/tmp/gauntlet-tree-XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~Tree() { fs::remove_all(root); }
  void File(const std::string& rel, bool executable = false) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "";
    if (executable) chmod((root / rel).c_str(), 0755);
  }
  void Dir(const std::string& rel) const { fs::create_directories(root / rel); }
  std::string operator/(const std::string& rel) const { return rel.empty() ? root.string() : (root / rel).string(); }
};

TEST(ServerTree, DebianPackagesUnpackedWithDpkgX) {
  Tree t;
  t.File("usr/sbin/mariadbd", true);
  t.File("usr/bin/mariadb-install-db", true);
  t.File("usr/share/mysql/english/errmsg.sys");
  t.File("usr/share/mysql/charsets/Index.xml");
  t.Dir("usr/lib/mysql/plugin");
  for (const std::string& given : {t / "", t / "usr/sbin/mariadbd"}) {
    const ServerTree s = FindServerTree(given);
    EXPECT_EQ(s.binary, t / "usr/sbin/mariadbd");
    EXPECT_EQ(s.basedir, t / "usr");
    EXPECT_FALSE(s.system);
    EXPECT_EQ(s.install_db, t / "usr/bin/mariadb-install-db");
    EXPECT_EQ(s.Options(), (std::vector<std::string>{
                               "basedir=" + t / "usr", "lc_messages_dir=" + t / "usr/share/mysql",
                               "character_sets_dir=" + t / "usr/share/mysql/charsets",
                               "plugin_dir=" + t / "usr/lib/mysql/plugin"}));
  }
}

TEST(ServerTree, AReleaseTarballOneFolderDown) {
  Tree t;
  const std::string top = "mariadb-10.11.18-linux-systemd-x86_64/";
  t.File(top + "bin/mariadbd", true);
  t.File(top + "scripts/mariadb-install-db", true);
  t.File(top + "share/english/errmsg.sys");
  t.File(top + "share/charsets/Index.xml");
  t.Dir(top + "lib/plugin");
  const ServerTree s = FindServerTree(t / "");
  EXPECT_EQ(s.binary, t / (top + "bin/mariadbd"));
  EXPECT_EQ(s.basedir, t / (top.substr(0, top.size() - 1)));
  EXPECT_EQ(s.messages_dir, t / (top + "share"));
  EXPECT_EQ(s.charsets_dir, t / (top + "share/charsets"));
  EXPECT_EQ(s.plugin_dir, t / (top + "lib/plugin"));
  EXPECT_EQ(s.install_db, t / (top + "scripts/mariadb-install-db"));
}

TEST(ServerTree, ABuildTreeAndWhatIsMissingIsLeftOut) {
  Tree t;
  t.File("sql/mariadbd", true);
  t.File("sql/share/english/errmsg.sys");
  const ServerTree s = FindServerTree(t / "");
  EXPECT_EQ(s.binary, t / "sql/mariadbd");
  EXPECT_EQ(s.Options(), (std::vector<std::string>{"basedir=" + t / "", "lc_messages_dir=" + t / "sql/share"}));
}

TEST(ServerTree, TheSystemsOwnServerNeedsNoOptions) {
  const ServerTree s = FindServerTree("/usr/sbin/mariadbd");
  EXPECT_EQ(FindServerTree("/usr/sbin").binary, "/usr/sbin/mariadbd");  // the binary's folder will do
  EXPECT_TRUE(s.system);
  EXPECT_TRUE(s.Options().empty());
  EXPECT_EQ(s.install_db, "/usr/bin/mariadb-install-db");
}

TEST(ServerTree, AFolderWithoutAServerSaysWhereItLooked) {
  Tree t;
  t.File("bin/mariadbd");  // not executable
  try {
    FindServerTree(t / "");
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("holds no server binary (looked for usr/sbin/mariadbd"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(FindServerTree(t / "nothing-here"), InvalidInput);
}

}  // namespace
}  // namespace gauntlet
