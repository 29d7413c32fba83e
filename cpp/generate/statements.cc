#include "generate/statements.h"

#include <cctype>
#include <cstdint>
#include <cstring>

namespace gauntlet {
namespace {

// Bit 7 of each byte of the result is set where `word` holds `byte`; bytes
// above the lowest such one may be set wrongly, so only the lowest counts.
constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline uint64_t BytesEqual(uint64_t word, unsigned char byte) {
  const uint64_t x = word ^ (kOnes * byte);
  return (x - kOnes) & ~x & (kOnes << 7);
}

// The first position from `i` holding one of `stops` (at most four bytes;
// unused ones repeat a used one), or the end. Eight bytes at a time: splitting
// is most of gensql's work past generation.
inline size_t Find(std::string_view q, size_t i, const unsigned char (&stops)[4]) {
  for (; i + 8 <= q.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, q.data() + i, 8);
    const uint64_t hits = BytesEqual(word, stops[0]) | BytesEqual(word, stops[1]) |
                          BytesEqual(word, stops[2]) | BytesEqual(word, stops[3]);
    if (hits != 0) return i + static_cast<size_t>(__builtin_ctzll(hits)) / 8;
  }
  for (; i < q.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(q[i]);
    if (c == stops[0] || c == stops[1] || c == stops[2] || c == stops[3]) return i;
  }
  return q.size();
}

bool Has(std::string_view s, const char* word) {
  const size_t n = std::strlen(word);
  const unsigned char first[4] = {static_cast<unsigned char>(word[0]), static_cast<unsigned char>(word[0]),
                                  static_cast<unsigned char>(word[0]), static_cast<unsigned char>(word[0])};
  for (size_t i = Find(s, 0, first); i + n <= s.size(); i = Find(s, i + 1, first))
    if (std::memcmp(s.data() + i, word, n) == 0) return true;
  return false;
}

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

constexpr unsigned char kOutside[4] = {';', '\'', '"', '`'};

}  // namespace

std::vector<std::string_view> SplitStatements(std::string_view query) {
  std::vector<std::string_view> out;
  SplitStatements(query, &out);
  return out;
}

void SplitStatements(std::string_view query, std::vector<std::string_view>* pieces) {
  std::vector<std::string_view>& out = *pieces;
  out.clear();
  size_t start = 0;
  bool checked_compound = false;
  for (size_t i = Find(query, 0, kOutside); i < query.size(); i = Find(query, i, kOutside)) {
    const char c = query[i++];
    if (c == ';') {
      // Only a query with a `;` can need splitting; a compound one is sent whole.
      if (!checked_compound) {
        checked_compound = true;
        if (IsCompound(query)) break;
      }
      Push(out, query, start, i - 1);
      start = i;
      continue;
    }
    const unsigned char quote[4] = {static_cast<unsigned char>(c), '\\', '\\', '\\'};
    while ((i = Find(query, i, quote)) < query.size()) {
      if (query[i++] == c) break;
      ++i;  // the character after a backslash
    }
  }
  Push(out, query, start, query.size());
}

std::string Verb(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '(') {
      ++i;
    } else if (s.compare(i, 2, "/*") == 0 && s.compare(i, 3, "/*!") != 0) {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (s.compare(i, 3, "/*!") == 0) {  // an executable comment: its body counts
      i += 3;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    } else if (c == '#' || s.compare(i, 3, "-- ") == 0) {
      const size_t end = s.find('\n', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
    } else {
      break;
    }
  }
  std::string verb;
  for (; i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_'); ++i)
    verb += static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
  return verb;
}

bool VerbChangesNoData(std::string_view verb) {
  static const char* const kReads[] = {"SELECT", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "HELP", "VALUES", "TABLE",
                                       "WITH", "SET", "BEGIN", "START", "USE", "DO"};
  for (const char* r : kReads)
    if (verb == r) return true;
  return false;
}

}  // namespace gauntlet
