#include "oracle/result_compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace gauntlet {
namespace {

using Row = std::vector<std::optional<std::string>>;
constexpr size_t kShown = 5;         // differing rows in the diff
constexpr size_t kTolerantMax = 2000;  // leftover rows paired one by one

// kRetyped: the two sides have different types (a UNION or view changed
// YEAR into INT, DECIMAL(5,1) into DECIMAL(6,2)): numbers compare by value.
// kString: text that may hold printed DOUBLEs (JSON_OBJECT('a', AVG(d)),
// CONCAT(d)), whose last digits depend on the order of a sum.
// kCollated (ties to ORDER BY only): text equal under a case- and
// accent-insensitive PAD SPACE collation ('a', 'A ' and 'Ä').
enum class ColumnKind { kText, kString, kFloat, kDouble, kFoldable, kRetyped, kCollated };

ColumnKind KindOf(const ResultColumn& c, bool fold) {
  if (c.type == "FLOAT") return ColumnKind::kFloat;
  if (c.type == "DOUBLE") return ColumnKind::kDouble;
  const bool text = c.type == "CHAR" || c.type == "VARCHAR" || c.type == "BLOB";
  if (fold && !c.binary && (text || c.type == "ENUM" || c.type == "SET")) return ColumnKind::kFoldable;
  return text || c.type == "JSON" ? ColumnKind::kString : ColumnKind::kText;
}

bool Near(double x, double y, double tolerance) {
  return x == y || std::fabs(x - y) <= tolerance * std::max(std::fabs(x), std::fabs(y));
}

// Where a number may start: a digit, or a minus before one, not inside a word.
size_t NumberAt(const std::string& s, size_t i) {
  if (i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.' || s[i - 1] == '_')) return 0;
  const size_t d = s[i] == '-' ? i + 1 : i;
  if (d >= s.size() || !std::isdigit(static_cast<unsigned char>(s[d]))) return 0;
  size_t end = d;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
  if (end < s.size() && (s[end] == 'e' || s[end] == 'E')) {
    size_t e = end + 1;
    if (e < s.size() && (s[e] == '-' || s[e] == '+')) ++e;
    if (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) {
      while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
      end = e;
    }
  }
  return end - i;
}

// A DOUBLE as the server prints one: with an exponent, or 15 and more digits.
bool PrintedDouble(const std::string& t) {
  if (t.find_first_of("eE") != std::string::npos) return true;
  return std::count_if(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) >= 15;
}

// The same text but for printed DOUBLEs within the tolerance of DOUBLE
// columns; every other character, and every other number, exact.
bool SameButDoubles(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const size_t n = NumberAt(a, i), m = NumberAt(b, j);
    if (n == 0 || m == 0) {
      if (a[i++] != b[j++]) return false;
      continue;
    }
    const std::string x = a.substr(i, n), y = b.substr(j, m);
    if (x != y && !(PrintedDouble(x) && PrintedDouble(y) &&
                    Near(std::strtod(x.c_str(), nullptr), std::strtod(y.c_str(), nullptr), 1e-9)))
      return false;
    i += n;
    j += m;
  }
  return i == a.size() && j == b.size();
}

// A column of exact numbers (YEAR counts: a UNION may make it INT).
bool Exact(const ResultColumn& c) {
  for (const char* t : {"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "YEAR"})
    if (c.type == t) return true;
  return false;
}

// A decimal number's canonical text ("0007.50" -> "7.5", "-0.0" -> "0"), or
// the text itself when it is not one.
std::string CanonicalNumber(const std::string& s) {
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  const size_t digits = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  size_t end = s.size();
  if (i < s.size() && s[i] == '.') {
    for (size_t k = i + 1; k < s.size(); ++k)
      if (!std::isdigit(static_cast<unsigned char>(s[k]))) return s;
    while (end > i + 1 && s[end - 1] == '0') --end;
    if (end == i + 1) end = i;  // "7." -> "7"
  } else if (i != s.size()) {
    return s;
  }
  if (i == digits) return s;
  std::string whole = s.substr(digits, i - digits);
  whole.erase(0, std::min(whole.find_first_not_of('0'), whole.size() - 1));
  std::string out = whole + s.substr(i, end - i);
  if (out != "0" && s[0] == '-') out = "-" + out;
  return out;
}

std::string Fold(const std::string& s) {
  std::string f = s.substr(0, s.find_last_not_of(' ') + 1);
  for (char& c : f) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return f;
}

// Fold() and the accents of Latin-1's letters (U+00C0-U+00FF, as UTF-8)
// and combining marks (U+0300-U+036F) taken off: what a case- and
// accent-insensitive collation such as utf8mb4_general_ci compares.
std::string FoldAccents(const std::string& s) {
  static const char* const kBase[64] = {
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o", "\xc3\x97", "o", "u", "u", "u", "u", "y", "th", "ss",
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o", "\xc3\xb7", "o", "u", "u", "u", "u", "y", "th", "y"};
  const std::string f = Fold(s);
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    const unsigned char c = f[i], next = i + 1 < f.size() ? f[i + 1] : 0;
    if (c == 0xC3 && next >= 0x80 && next <= 0xBF) {
      out += kBase[next - 0x80];
      ++i;
    } else if ((c == 0xCC && next >= 0x80) || (c == 0xCD && next >= 0x80 && next <= 0xAF)) {
      ++i;  // a combining mark
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The value as a sort key: floating values rounded to fewer digits than the
// tolerance, so that nearly equal ones usually sort together.
std::string Key(const std::optional<std::string>& v, ColumnKind k) {
  if (!v) return std::string("\0N", 2);
  switch (k) {
    case ColumnKind::kFloat:
    case ColumnKind::kDouble: {
      char buf[40];
      std::snprintf(buf, sizeof buf, k == ColumnKind::kFloat ? "%.3g" : "%.7g", std::strtod(v->c_str(), nullptr));
      return buf;
    }
    case ColumnKind::kFoldable: return Fold(*v);
    case ColumnKind::kCollated: return FoldAccents(*v);
    case ColumnKind::kRetyped: return v->empty() ? *v : CanonicalNumber(*v);
    case ColumnKind::kText:
    case ColumnKind::kString: return *v;
  }
  return *v;
}

bool Same(const std::optional<std::string>& a, const std::optional<std::string>& b, ColumnKind k) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;
  if (k == ColumnKind::kFloat || k == ColumnKind::kDouble) {
    const double x = std::strtod(a->c_str(), nullptr), y = std::strtod(b->c_str(), nullptr);
    return Near(x, y, k == ColumnKind::kFloat ? 1e-5 : 1e-9);
  }
  if (k == ColumnKind::kString) return SameButDoubles(*a, *b);
  if (k == ColumnKind::kRetyped) return !a->empty() && !b->empty() && CanonicalNumber(*a) == CanonicalNumber(*b);
  if (k == ColumnKind::kCollated) return FoldAccents(*a) == FoldAccents(*b);
  if (k != ColumnKind::kFoldable) return false;
  const std::string x = Fold(*a), y = Fold(*b);
  return x == y || SameButDoubles(x, y);
}

bool SameRow(const Row& a, const Row& b, const std::vector<ColumnKind>& kinds) {
  for (size_t i = 0; i < kinds.size(); ++i)
    if (!Same(a[i], b[i], kinds[i])) return false;
  return true;
}

// The run of rows from `at` that are ties on both sides (equal to the
// first under `tied`), as many on each side and the same under `kinds` as
// multisets; *last is then the run's last row.
bool TiesInAnyOrder(const std::vector<Row>& a, const std::vector<Row>& b, size_t at, const std::vector<ColumnKind>& kinds,
                    const std::vector<ColumnKind>& tied, size_t* last) {
  if (!SameRow(a[at], b[at], tied)) return false;
  size_t end = at + 1;
  while (end < a.size() && end < b.size() && SameRow(a[end], a[at], tied) && SameRow(b[end], a[at], tied)) ++end;
  if ((end < a.size() && SameRow(a[end], a[at], tied)) || (end < b.size() && SameRow(b[end], a[at], tied)))
    return false;  // more ties on one side than on the other
  std::vector<bool> used(end - at, false);
  for (size_t i = at; i < end; ++i) {
    bool found = false;
    for (size_t j = at; j < end && !found; ++j)
      if (!used[j - at] && SameRow(a[i], b[j], kinds)) found = used[j - at] = true;
    if (!found) return false;
  }
  *last = end - 1;
  return true;
}

nlohmann::json RowsJson(const ResultSet& r, const std::vector<size_t>& which) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < which.size() && i < kShown; ++i) rows.push_back(RowText(r.rows[which[i]]));
  return rows;
}

std::string Listed(const std::string& label, const ResultSet& r, const std::vector<size_t>& which) {
  std::string s = "only in " + label + " (" + std::to_string(which.size()) + " rows):";
  for (size_t i = 0; i < which.size() && i < kShown; ++i) s += "\n  " + RowText(r.rows[which[i]]);
  if (which.size() > kShown) s += "\n  ...";
  return s;
}

// BIT values arrive three ways: as the column's own bytes (ceil(M/8) of them,
// big-endian, below 2^M); for some expressions and for columns that went
// through a temporary table, as the number in decimal, typed BIT or BIGINT
// UNSIGNED (SELECT DISTINCT); and as a VARBINARY that a view or UNION made of
// a BIT column, carrying the bytes. All become the decimal number. A BIT
// column whose values could be either (BIT(8) holding only 0..9) is taken as
// bytes.
ResultSet BitsAsNumbers(const ResultSet& r, const ResultSet& other) {
  ResultSet out = r;
  for (size_t i = 0; i < r.columns.size() && i < other.columns.size(); ++i) {
    const ResultColumn& c = r.columns[i];
    if (c.type != "BIT" && other.columns[i].type != "BIT") continue;
    out.columns[i].type = "BIT";
    bool bytes = c.type == "BIT" || c.type == "VARCHAR" || c.type == "CHAR" || c.type == "BLOB";
    if (c.type == "BIT") {
      const size_t n = (c.length + 7) / 8;
      for (const auto& row : r.rows) {
        if (!row[i]) continue;
        uint64_t v = 0;
        for (const unsigned char byte : *row[i]) v = v << 8 | byte;
        if (row[i]->size() != n || n > 8 || (c.length < 64 && v >> c.length != 0)) bytes = false;
      }
    }
    if (!bytes) continue;
    for (auto& row : out.rows) {
      if (!row[i] || row[i]->size() > 8) continue;
      uint64_t v = 0;
      for (const unsigned char byte : *row[i]) v = v << 8 | byte;
      row[i] = std::to_string(v);
    }
  }
  return out;
}

bool ProperPrefix(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  return a && b && a->size() < b->size() && b->compare(0, a->size(), *a) == 0;
}

// Rows that differ only in values one side cut short, pairwise in order.
bool Truncated(const ResultSet& a, const std::vector<size_t>& only_a, const ResultSet& b,
               const std::vector<size_t>& only_b) {
  if (only_a.empty() || only_a.size() != only_b.size()) return false;
  for (size_t r = 0; r < only_a.size(); ++r) {
    const Row &x = a.rows[only_a[r]], &y = b.rows[only_b[r]];
    bool cut = false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == y[i]) continue;
      if (!ProperPrefix(x[i], y[i]) && !ProperPrefix(y[i], x[i])) return false;
      cut = true;
    }
    if (!cut) return false;
  }
  return true;
}

// The relation holds because the rows are the same text (in the same order,
// or for multisets in any): equal under every rule, and found without
// building keys (most checks pass, and results may be large).
bool SameText(const ResultSet& a, const ResultSet& b, const CompareRules& rules) {
  if (a.rows.size() != b.rows.size() || rules.relation == Relation::kCount ||
      (rules.relation == Relation::kSuperset && rules.limit >= 0))
    return false;
  if (a.rows == b.rows) return true;
  if (rules.relation == Relation::kExact) return false;
  const auto sorted = [](const ResultSet& r) {
    std::vector<const std::vector<std::optional<std::string>>*> rows;
    rows.reserve(r.rows.size());
    for (const auto& row : r.rows) rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const auto* x, const auto* y) { return *x < *y; });
    return rows;
  };
  const auto x = sorted(a), y = sorted(b);
  for (size_t i = 0; i < x.size(); ++i)
    if (*x[i] != *y[i]) return false;
  return true;
}

// How many of `rows` rows LIMIT/OFFSET leave: all without a limit.
size_t LimitedCount(size_t rows, const CompareRules& rules) {
  if (rules.limit < 0) return rows;
  const size_t after = rows > static_cast<size_t>(rules.offset) ? rows - static_cast<size_t>(rules.offset) : 0;
  return std::min(after, static_cast<size_t>(rules.limit));
}

}  // namespace

const char* RelationName(Relation r) {
  switch (r) {
    case Relation::kExact: return "exact";
    case Relation::kUnordered: return "unordered";
    case Relation::kSuperset: return "superset";
    case Relation::kSubset: return "subset";
    case Relation::kCount: return "count";
  }
  return "?";
}

// A value as SQL text: 'text', or X'hex' for bytes that are not printable UTF-8.
std::string ValueText(const std::string& v) {
  bool printable = true;
  for (size_t i = 0; i < v.size() && printable;) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    printable = n > 0 && i + n <= v.size() && (c >= 0x20 || c == '\t') && c != 0x7f;
    for (size_t k = 1; k < n && printable; ++k) printable = (static_cast<unsigned char>(v[i + k]) >> 6) == 2;
    i += n;
  }
  if (printable) return "'" + v + "'";
  static const char kHex[] = "0123456789ABCDEF";
  std::string hex = "X'";
  for (const unsigned char c : v) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex + "'";
}

std::string RowText(const Row& row, size_t max_size) {
  std::string s = "(";
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0) s += ", ";
    s += row[i] ? ValueText(*row[i]) : "NULL";
    if (s.size() > max_size) return s.substr(0, max_size) + "...)";
  }
  return s + ")";
}

Comparison CompareResults(const ResultSet& a_in, const ResultSet& b_in, const CompareRules& rules,
                          const std::string& a_name, const std::string& b_name) {
  bool bits = false;  // and not yet numbers: BitsAsNumbers marks both sides BIT
  for (size_t i = 0; i < a_in.columns.size() && i < b_in.columns.size(); ++i)
    bits = bits || ((a_in.columns[i].type == "BIT") != (b_in.columns[i].type == "BIT")) ||
           (a_in.columns[i].type == "BIT" && a_in.columns[i].length != 0) ||
           (b_in.columns[i].type == "BIT" && b_in.columns[i].length != 0);
  if (bits) {
    ResultSet a = BitsAsNumbers(a_in, b_in), b = BitsAsNumbers(b_in, a_in);
    for (ResultSet* r : {&a, &b})
      for (ResultColumn& c : r->columns) c.length = 0;
    return CompareResults(a, b, rules, a_name, b_name);
  }
  const ResultSet& a = a_in;
  const ResultSet& b = b_in;
  Comparison c;
  const std::string counts = a_name + ": " + std::to_string(a.rows.size()) + " rows, " + b_name + ": " +
                             std::to_string(b.rows.size()) + " rows";
  c.evidence = {{"relation", RelationName(rules.relation)}, {"rows", {{a_name, a.rows.size()}, {b_name, b.rows.size()}}}};
  if (rules.relation == Relation::kCount) {
    c.holds = a.rows.size() == b.rows.size();
    if (!c.holds) c.diff = counts;
    return c;
  }
  if (a.columns.size() != b.columns.size()) {
    c.holds = false;
    c.diff = a_name + " has " + std::to_string(a.columns.size()) + " columns, " + b_name + " has " +
             std::to_string(b.columns.size());
    return c;
  }
  if (SameText(a, b, rules)) return c;
  std::vector<ColumnKind> kinds;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    ColumnKind k = KindOf(a.columns[i], rules.fold_strings);
    // Either side floating: compare as floating (a DOUBLE against a DECIMAL).
    if (k == ColumnKind::kText || k == ColumnKind::kString) {
      const ColumnKind other = KindOf(b.columns[i], rules.fold_strings);
      if (other != ColumnKind::kText) k = other;
    }
    const ResultColumn &x = a.columns[i], &y = b.columns[i];
    if (k == ColumnKind::kText && (x.type != y.type || x.decimals != y.decimals) && Exact(x) && Exact(y))
      k = ColumnKind::kRetyped;
    kinds.push_back(k);
  }
  if (rules.relation == Relation::kExact) {
    // Rows equal but for case, accents and trailing spaces are ties to ORDER
    // BY under a case- and accent-insensitive PAD SPACE collation ('a ', 'A'
    // and 'Ä'): a run of them may come in any order, so it compares as a
    // multiset (whose values must still be the same).
    std::vector<ColumnKind> tied = kinds;
    for (size_t k = 0; k < tied.size(); ++k)
      if (KindOf(a.columns[k], true) == ColumnKind::kFoldable && KindOf(b.columns[k], true) == ColumnKind::kFoldable)
        tied[k] = ColumnKind::kCollated;
    for (size_t i = 0; i < std::min(a.rows.size(), b.rows.size()); ++i)
      if (!SameRow(a.rows[i], b.rows[i], kinds) && !TiesInAnyOrder(a.rows, b.rows, i, kinds, tied, &i)) {
        c.holds = false;
        c.diff = counts + "\nfirst difference at row " + std::to_string(i + 1) + ":\n  " + a_name + ": " +
                 RowText(a.rows[i]) + "\n  " + b_name + ": " + RowText(b.rows[i]);
        c.evidence["first_difference"] = {{"row", i + 1}, {a_name, RowText(a.rows[i])}, {b_name, RowText(b.rows[i])}};
        return c;
      }
    c.holds = a.rows.size() == b.rows.size();
    if (!c.holds) c.diff = counts;
    return c;
  }
  // Multisets: sort both by key, take what only one side has, then pair the
  // leftovers within the tolerance.
  const auto keyed = [&](const ResultSet& r) {
    std::vector<std::pair<std::vector<std::string>, size_t>> out;
    out.reserve(r.rows.size());
    for (size_t i = 0; i < r.rows.size(); ++i) {
      std::vector<std::string> key;
      for (size_t j = 0; j < kinds.size(); ++j) key.push_back(Key(r.rows[i][j], kinds[j]));
      out.emplace_back(std::move(key), i);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto ka = keyed(a), kb = keyed(b);
  std::vector<size_t> only_a, only_b;
  size_t i = 0, j = 0;
  while (i < ka.size() || j < kb.size()) {
    if (j == kb.size() || (i < ka.size() && ka[i].first < kb[j].first)) only_a.push_back(ka[i++].second);
    else if (i == ka.size() || kb[j].first < ka[i].first) only_b.push_back(kb[j++].second);
    else ++i, ++j;
  }
  if (!only_a.empty() && !only_b.empty() && only_a.size() <= kTolerantMax && only_b.size() <= kTolerantMax) {
    std::vector<bool> taken(only_b.size());
    std::vector<size_t> left_a;
    for (size_t x : only_a) {
      bool paired = false;
      for (size_t y = 0; y < only_b.size() && !paired; ++y)
        if (!taken[y] && SameRow(a.rows[x], b.rows[only_b[y]], kinds)) taken[y] = paired = true;
      if (!paired) left_a.push_back(x);
    }
    std::vector<size_t> left_b;
    for (size_t y = 0; y < only_b.size(); ++y)
      if (!taken[y]) left_b.push_back(only_b[y]);
    only_a.swap(left_a);
    only_b.swap(left_b);
  }
  switch (rules.relation) {
    case Relation::kSuperset:
      c.holds = only_b.empty() && (rules.limit < 0 || b.rows.size() == LimitedCount(a.rows.size(), rules));
      break;
    case Relation::kSubset: c.holds = only_a.empty(); break;
    default: c.holds = only_a.empty() && only_b.empty();
  }
  if (!c.holds) {
    c.diff = counts;
    if (rules.limit >= 0) {
      c.diff += " (LIMIT " + std::to_string(rules.limit) + " OFFSET " + std::to_string(rules.offset) + " of " + a_name +
                ": " + std::to_string(LimitedCount(a.rows.size(), rules)) + ")";
      c.evidence["limit"] = {{"limit", rules.limit}, {"offset", rules.offset}};
    }
    if (!only_a.empty() && rules.relation != Relation::kSuperset) c.diff += "\n" + Listed(a_name, a, only_a);
    if (!only_b.empty() && rules.relation != Relation::kSubset) c.diff += "\n" + Listed(b_name, b, only_b);
    c.evidence["only_in"] = {{a_name, RowsJson(a, only_a)}, {b_name, RowsJson(b, only_b)}};
    c.evidence["only_in_counts"] = {{a_name, only_a.size()}, {b_name, only_b.size()}};
    if (Truncated(a, only_a, b, only_b)) c.kind = "truncated";
  }
  return c;
}

}  // namespace gauntlet
