#include "generate/gensql.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"
#include "generate/statements.h"

namespace gauntlet {
namespace {

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw Error(std::string("writing the statements failed: ") + std::strerror(errno));
    done += static_cast<size_t>(w);
  }
}

}  // namespace

uint64_t WriteQueries(Generator& generator, uint64_t n, int fd, bool semicolons) {
  constexpr size_t kFlushBytes = 1 << 20;
  std::string out;
  out.reserve(kFlushBytes + 4096);
  uint64_t statements = 0;
  std::vector<std::string_view> pieces;
  for (uint64_t i = 0; i < n; ++i) {
    SplitStatements(generator.Next(), &pieces);
    for (const std::string_view s : pieces) {
      const size_t start = out.size();
      out.append(s);
      for (char* p = out.data() + start; (p = static_cast<char*>(std::memchr(p, '\n', out.data() + out.size() - p)));)
        *p = ' ';
      if (semicolons) out += ';';
      out += '\n';
      ++statements;
    }
    if (out.size() >= kFlushBytes) {
      WriteAll(fd, out);
      out.clear();
    }
  }
  WriteAll(fd, out);
  return statements;
}

}  // namespace gauntlet
