#include "generate/statements.h"

#include <strings.h>

#include <algorithm>
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

// A piece that starts a compound statement: IF/CASE/LOOP/REPEAT/WHILE/
// DECLARE as a statement (not IF() or CASE inside one), CREATE ... BEGIN,
// BEGIN NOT ATOMIC, or a label (`lbl: LOOP`).
bool StartsCompound(std::string_view piece) {
  const std::string verb = Verb(piece);
  if (verb == "IF" || verb == "CASE" || verb == "LOOP" || verb == "REPEAT" || verb == "WHILE" || verb == "DECLARE")
    return true;
  if (verb == "CREATE") return Has(piece, "BEGIN");
  const size_t at = piece.find_first_not_of(" \t\r\n(");
  if (at == std::string_view::npos) return false;
  std::string_view rest = piece.substr(at + verb.size());
  if (!rest.empty() && rest[0] == ':') return true;
  if (verb == "BEGIN") {
    rest.remove_prefix(std::min(rest.find_first_not_of(" \t\r\n"), rest.size()));
    return rest.size() >= 3 && (rest.substr(0, 3) == "NOT" || rest.substr(0, 3) == "not");
  }
  return false;
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
  for (size_t i = Find(query, 0, kOutside); i < query.size(); i = Find(query, i, kOutside)) {
    const char c = query[i++];
    if (c == ';') {
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
  // A compound statement is sent whole.
  if (out.size() > 1 && Has(query, "END")) {
    for (std::string_view piece : out)
      if (StartsCompound(piece)) {
        out.clear();
        Push(out, query, 0, query.size());
        break;
      }
  }
}

namespace {
// The statement's first word as written (see Verb).
std::string_view VerbAsWritten(std::string_view s) {
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
  size_t end = i;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
  return s.substr(i, end - i);
}
}  // namespace

std::string Verb(std::string_view s) {
  std::string verb(VerbAsWritten(s));
  for (char& c : verb) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return verb;
}

bool VerbIs(std::string_view s, std::string_view upper) {
  const std::string_view verb = VerbAsWritten(s);
  return verb.size() == upper.size() && strncasecmp(verb.data(), upper.data(), upper.size()) == 0;
}

bool VerbChangesNoData(std::string_view verb) {
  static const char* const kReads[] = {"SELECT", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "HELP", "VALUES", "TABLE",
                                       "WITH", "SET", "BEGIN", "START", "USE", "DO"};
  for (const char* r : kReads)
    if (verb == r) return true;
  return false;
}

std::string_view SetStatementBody(std::string_view s) {
  if (!VerbIs(s, "SET")) return {};
  size_t i = VerbAsWritten(s).data() - s.data() + 3;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (s.size() - i < 9 || strncasecmp(s.data() + i, "STATEMENT", 9) != 0) return {};
  const auto word_char = [&](size_t k) {
    return k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_' || s[k] == '$');
  };
  int depth = 0;
  for (i += 9; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\'' || c == '"' || c == '`') {  // past the quoted text (a doubled quote or \ escapes)
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\' && c != '`') ++i;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (depth == 0 && !word_char(i - 1) && s.size() - i > 3 && strncasecmp(s.data() + i, "FOR", 3) == 0 &&
               !word_char(i + 3)) {
      return s.substr(i + 3);
    }
  }
  return {};
}

bool ChangesData(std::string_view statement) {
  // SET STATEMENT ... FOR INSERT ...: the statement it sets for is what runs.
  const std::string_view body = SetStatementBody(statement);
  if (!body.empty()) return ChangesData(body);
  if (!VerbChangesNoData(Verb(statement))) return true;
  const auto contains = [&](std::string_view word) {
    for (size_t i = 0; i + word.size() <= statement.size(); ++i)
      if (strncasecmp(statement.data() + i, word.data(), word.size()) == 0) return true;
    return false;
  };
  // NEXTVAL(s), s.NEXTVAL, SETVAL(s, n), NEXT VALUE FOR s (with any spaces).
  return contains("NEXTVAL") || contains("SETVAL") || (contains("NEXT") && contains("VALUE"));
}

}  // namespace gauntlet
