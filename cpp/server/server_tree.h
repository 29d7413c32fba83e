// ServerTree: a server binary and the files it needs beside it, found from the
// binary's path or from a folder that holds an unpacked server.
//
// Layouts: `dpkg -x` of Debian's packages (usr/sbin/mariadbd, usr/share/mysql,
// usr/lib/mysql/plugin, usr/bin/mariadb-install-db), a release tarball
// (bin/mariadbd, share, lib/plugin, scripts/mariadb-install-db; also one folder
// down, as tarballs unpack) and a build tree (sql/mariadbd, sql/share). A
// server outside /usr is told where its files are (Options()): its compiled-in
// paths name /usr, where another version's files may lie, or nothing at all.
#ifndef GAUNTLET_SERVER_SERVER_TREE_H_
#define GAUNTLET_SERVER_SERVER_TREE_H_

#include <string>
#include <vector>

namespace gauntlet {

struct ServerTree {
  std::string binary;        // the server executable (mariadbd or mysqld)
  std::string basedir;       // the folder above the binary's (usr of a dpkg -x tree)
  std::string messages_dir;  // holds english/errmsg.sys; "" when not found
  std::string charsets_dir;  // holds Index.xml; "" when not found
  std::string plugin_dir;    // "" when not found
  std::string install_db;    // mariadb-install-db of the tree (else the system's); "" when none
  bool system = false;       // the machine's own install under /usr: compiled-in paths hold

  // --basedir, --lc-messages-dir, --character-sets-dir and --plugin-dir (those
  // found) for a server outside /usr; none for the system's.
  std::vector<std::string> Options() const;
};

// The tree of `path`: a server binary or a folder holding one. Throws
// InvalidInput ("server: ...") naming what it looked for when there is none.
ServerTree FindServerTree(const std::string& path);

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_SERVER_TREE_H_
