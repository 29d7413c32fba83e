// DatadirTemplate: bootstrapped data directories, made once and copied.
//
// Bootstrapping a datadir takes seconds; copying a cached one takes
// milliseconds. Templates are keyed by the server binary (path, size, mtime)
// and the options that only take effect at bootstrap (innodb_page_size,
// lower_case_table_names, ...). Creation is safe across processes: it builds
// in a temporary directory under a lock and renames into place.
#ifndef GAUNTLET_SERVER_DATADIR_TEMPLATE_H_
#define GAUNTLET_SERVER_DATADIR_TEMPLATE_H_

#include <string>
#include <vector>

namespace gauntlet {

// The name of a server option ("innodb-page-size=8k" -> "innodb_page_size").
std::string OptionName(const std::string& option);

// Options (without "--", "name=value") that must be given at bootstrap and
// therefore select the template; the others do not matter for it.
std::vector<std::string> BootstrapOptions(const std::vector<std::string>& mysqld);

// The cache directory: `configured`, else $GAUNTLET_CACHE, else
// $XDG_CACHE_HOME/gauntlet, else ~/.cache/gauntlet (or /tmp/gauntlet-cache
// without a home). Its size bound and listing: python/gauntlet/runs/templates.py.
std::string TemplateCacheDir(const std::string& configured);

// Returns the template's path, bootstrapping it first when missing. Throws
// ServerError (with the bootstrap log's errors) when bootstrap fails.
std::string EnsureTemplate(const std::string& binary, const std::vector<std::string>& mysqld,
                           const std::string& cache_dir);

// Copies a template (or any datadir) to `target`, which must not exist. A copy that a
// handled signal interrupts (EINTR) starts again: the signal is the caller's to act on.
void CopyDatadir(const std::string& from, const std::string& target);

// True for MariaDB binaries (`--version` says so); MySQL and Percona otherwise.
bool IsMariaDB(const std::string& binary);

}  // namespace gauntlet

#endif  // GAUNTLET_SERVER_DATADIR_TEMPLATE_H_
