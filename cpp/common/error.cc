#include "common/error.h"

namespace gauntlet {

std::string SourceLocation::ToString() const {
  if (line == 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

OutputError::OutputError(const std::string& file, const std::string& reason, const std::string& lost)
    : Error("cannot write " + file + ": " + reason + (lost.empty() ? "" : "; " + lost)) {}

InvalidInput::InvalidInput(const SourceLocation& where,
                           const std::string& message)
    : Error(where.ToString() + ": " + message),
      where_(where),
      message_(message) {}

SourceLocation LocationOf(const std::string& file, const std::string& text,
                          size_t offset) {
  SourceLocation loc{file, 1, 1};
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace gauntlet
