#include "generate/statements.h"

namespace gauntlet {
namespace {

bool Has(std::string_view s, const char* word) { return s.find(word) != std::string_view::npos; }

bool IsCompound(std::string_view q) {
  if (!Has(q, "END")) return false;
  return (Has(q, "CREATE") && Has(q, "BEGIN")) || (Has(q, "BEGIN") && Has(q, "ATOMIC")) ||
         (Has(q, "IF") && Has(q, "THEN")) || (Has(q, "CASE") && Has(q, "WHEN") && Has(q, "THEN")) ||
         Has(q, "LOOP") || (Has(q, "REPEAT") && Has(q, "UNTIL")) ||
         (Has(q, "WHILE") && Has(q, "DO"));
}

void Push(std::vector<std::string_view>& out, std::string_view q, size_t begin, size_t end) {
  while (begin < end && (q[begin] == ' ' || q[begin] == '\n' || q[begin] == '\t')) ++begin;
  while (end > begin && (q[end - 1] == ' ' || q[end - 1] == '\n' || q[end - 1] == '\t')) --end;
  if (end > begin) out.push_back(q.substr(begin, end - begin));
}

}  // namespace

std::vector<std::string_view> SplitStatements(std::string_view query) {
  std::vector<std::string_view> out;
  SplitStatements(query, &out);
  return out;
}

void SplitStatements(std::string_view query, std::vector<std::string_view>* pieces) {
  std::vector<std::string_view>& out = *pieces;
  out.clear();
  if (query.find(';') == std::string_view::npos || IsCompound(query)) {
    Push(out, query, 0, query.size());
    return;
  }
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < query.size(); ++i) {
    const char c = query[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
    } else if (c == ';') {
      Push(out, query, start, i);
      start = i + 1;
    }
  }
  Push(out, query, start, query.size());
}

}  // namespace gauntlet
