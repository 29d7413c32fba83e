#include "oracle/determinism.h"

#include "generate/statements.h"
#include "oracle/volatile_values.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace gauntlet {
namespace {

// Schemas whose tables describe the server, not the data.
const std::set<std::string> kMetadataSchemas = {"INFORMATION_SCHEMA", "PERFORMANCE_SCHEMA", "SYS", "MYSQL"};
const std::set<std::string> kAggregates = {
    "COUNT", "SUM", "MIN", "MAX", "AVG", "GROUP_CONCAT", "BIT_AND", "BIT_OR", "BIT_XOR", "STD", "STDDEV",
    "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG", "JSON_OBJECTAGG"};
// Words that are not column names in a select list (a word not here counts
// as a column: erring toward "nondeterministic").
const std::set<std::string> kKeywords = {
    "AND", "OR", "NOT", "XOR", "NULL", "IS", "IN", "BETWEEN", "LIKE", "RLIKE", "REGEXP", "ESCAPE", "CASE", "WHEN",
    "THEN", "ELSE", "END", "AS", "ASC", "DESC", "TRUE", "FALSE", "UNKNOWN", "DISTINCT", "INTERVAL", "DIV", "MOD",
    "BINARY", "COLLATE", "SEPARATOR", "CHAR", "CHARACTER", "SIGNED", "UNSIGNED", "INTEGER", "INT", "DECIMAL",
    "DOUBLE", "FLOAT", "DATE", "DATETIME", "TIME", "TIMESTAMP", "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND",
    "MICROSECOND", "WEEK", "QUARTER", "DAY_HOUR", "DAY_MINUTE", "DAY_SECOND", "HOUR_MINUTE", "HOUR_SECOND",
    "MINUTE_SECOND", "USING", "SOUNDS", "ALL", "ANY", "SOME", "EXISTS", "SELECT", "FROM", "WHERE", "ROLLUP", "WITH",
    "CONVERT", "CAST", "JSON", "NCHAR", "VARCHAR", "TEXT", "BLOB", "LEADING", "TRAILING", "BOTH", "FOR", "UTF8",
    "UTF8MB4", "LATIN1", "ASCII", "UCS2", "UTF16", "UTF32", "NO", "ORDER", "BY", "OVER", "PARTITION", "ROWS",
    "RANGE", "UNBOUNDED", "PRECEDING", "FOLLOWING", "CURRENT", "ROW"};

}  // namespace

bool IsMetadataSchema(std::string_view name) { return kMetadataSchemas.count(Upper(name)) > 0; }

namespace {

// What an oracle's summary says of a statement that reads `v`.
std::string VolatileReason(const VolatileValue& v) {
  switch (v.form) {
    case VolatileValue::kCall: return "calls " + std::string(v.name) + "()";
    case VolatileValue::kPseudoColumn: return "reads a sequence's ." + std::string(v.name);
    case VolatileValue::kAssignment: return "assigns a user variable (:=)";
    default: return "uses " + std::string(v.name);
  }
}

// The name a column token stands for: upper-cased, without backticks.
std::string Name(const SqlShape& s, const SqlToken& t) {
  std::string_view v = s.text(t);
  if (t.kind == SqlToken::kQuotedName && v.size() >= 2) v = v.substr(1, v.size() - 2);
  return Upper(v);
}

// The matching ')' of the '(' at token i (or the last token).
size_t Closing(const SqlShape& s, size_t open) {
  const auto& t = s.tokens();
  for (size_t j = open + 1; j < t.size(); ++j)
    if (t[j].depth == t[open].depth && s.text(t[j]) == ")") return j;
  return t.size() - 1;
}

// Where tokens [first, last) end without a trailing WITH ROLLUP (the last GROUP BY item carries it).
size_t WithoutRollup(const SqlShape& s, size_t first, size_t last) {
  return last >= first + 2 && s.Is(last - 2, "WITH") && s.Is(last - 1, "ROLLUP") ? last - 2 : last;
}

// A span's tokens, upper-cased words, single spaces: for comparing expressions.
std::string Normalized(const SqlShape& s, const SqlSpan& span) {
  const auto [first, last] = s.TokenRange(span);
  std::string out;
  // Without a trailing ASC/DESC (ORDER BY items) or WITH ROLLUP (the last GROUP BY item).
  size_t end = WithoutRollup(s, first, last);
  if (end > first && (s.Is(end - 1, "ASC") || s.Is(end - 1, "DESC"))) --end;
  for (size_t i = first; i < end; ++i) {
    if (!out.empty()) out += ' ';
    out += s.tokens()[i].kind == SqlToken::kWord ? Upper(s.text(s.tokens()[i])) : std::string(s.text(s.tokens()[i]));
  }
  return out;
}

// A select item's alias ("expr AS x", "expr x"), upper-cased, or "".
std::string Alias(const SqlShape& s, const SqlSpan& item) {
  const auto [first, last] = s.TokenRange(item);
  if (last - first < 2 || !IsName(s.tokens()[last - 1])) return "";
  const SqlToken& before = s.tokens()[last - 2];
  if (s.Is(last - 2, "AS")) return Name(s, s.tokens()[last - 1]);
  const bool ends_expression = before.kind == SqlToken::kNumber || before.kind == SqlToken::kString ||
                               s.text(before) == ")" ||
                               (IsName(before) && !kKeywords.count(Name(s, before)) && s.text(before) != ".");
  if (ends_expression && s.text(s.tokens()[last - 2]) != "." && !kKeywords.count(Name(s, s.tokens()[last - 1])))
    return Name(s, s.tokens()[last - 1]);
  return "";
}

// The column names in tokens [first, last) outside aggregate calls and
// subqueries; "*" for a star. The alias at the end of an item is no column.
std::vector<std::string> ColumnsOutsideAggregates(const SqlShape& s, size_t first, size_t last, size_t alias_at) {
  std::vector<std::string> names;
  const auto& t = s.tokens();
  for (size_t i = first; i < last; ++i) {
    if (s.IsCall(i) && (kAggregates.count(Upper(s.text(t[i]))) || s.Is(i + 2, "SELECT"))) {
      i = Closing(s, i + 1);
      continue;
    }
    if (s.text(t[i]) == "(" && s.Is(i + 1, "SELECT")) {
      i = Closing(s, i);
      continue;
    }
    if (t[i].kind == SqlToken::kPunct && s.text(t[i]) == "*" &&
        (i == first || s.text(t[i - 1]) == "." || s.text(t[i - 1]) == ",")) {
      names.push_back("*");
      continue;
    }
    if (!IsName(t[i]) || i == alias_at || s.IsCall(i)) continue;
    if (i + 1 < last && s.text(t[i + 1]) == ".") continue;  // a qualifier
    if (t[i].kind == SqlToken::kWord && (kKeywords.count(Upper(s.text(t[i]))) || s.Is(i - 1, "INTERVAL"))) continue;
    names.push_back(Name(s, t[i]));
  }
  return names;
}

bool HasAggregate(const SqlShape& s, size_t first, size_t last) {
  for (size_t i = first; i < last; ++i) {
    if (s.text(s.tokens()[i]) == "(" && s.Is(i + 1, "SELECT")) {
      i = Closing(s, i);
      continue;
    }
    if (s.IsCall(i) && kAggregates.count(Upper(s.text(s.tokens()[i])))) return true;
  }
  return false;
}

// A grouped SELECT that shows a column that is neither grouped nor
// aggregated returns any row's value of each group.
std::string GroupingReason(const SqlShape& s) {
  if (s.select_token == std::string::npos) return "";
  const auto [sf, sl] = s.TokenRange(s.select_list);
  const auto [hf, hl] = s.TokenRange(s.having);
  if (!s.group_by.present() && !HasAggregate(s, sf, sl) && !s.having.present()) return "";
  std::set<std::string> grouped_names, grouped_exprs, aliases;
  for (const SqlSpan& g : s.Items(s.group_by)) {
    grouped_exprs.insert(Normalized(s, g));
    const auto [gf, with_rollup] = s.TokenRange(g);
    const size_t gl = WithoutRollup(s, gf, with_rollup);
    // A column (perhaps qualified) or a position.
    if (gl > gf && IsName(s.tokens()[gl - 1]) && (gl - gf == 1 || s.text(s.tokens()[gl - 2]) == "."))
      grouped_names.insert(Name(s, s.tokens()[gl - 1]));
  }
  const auto items = s.Items(s.select_list);
  // Items grouped by their expression, position or alias: their columns are grouped too.
  std::vector<bool> grouped(items.size());
  for (size_t n = 0; n < items.size(); ++n) {
    const std::string alias = Alias(s, items[n]);
    if (!alias.empty()) aliases.insert(alias);
    grouped[n] = grouped_exprs.count(Normalized(s, items[n])) || grouped_exprs.count(std::to_string(n + 1)) ||
                 (!alias.empty() && grouped_names.count(alias));
    if (!grouped[n]) continue;
    if (!alias.empty()) grouped_names.insert(alias);
    const auto [f, l] = s.TokenRange(items[n]);
    for (const std::string& c : ColumnsOutsideAggregates(s, f, l, alias.empty() ? l : l - 1)) grouped_names.insert(c);
  }
  for (size_t n = 0; n < items.size(); ++n) {
    if (grouped[n]) continue;
    const std::string alias = Alias(s, items[n]);
    const auto [f, l] = s.TokenRange(items[n]);
    for (const std::string& c : ColumnsOutsideAggregates(s, f, l, alias.empty() ? l : l - 1))
      if (!grouped_names.count(c)) return "GROUP BY shows a column that is neither grouped nor aggregated";
  }
  for (const std::string& c : ColumnsOutsideAggregates(s, hf, hl, hl))
    if (!grouped_names.count(c) && !aliases.count(c))
      return "HAVING uses a column that is neither grouped nor aggregated";
  return "";
}

}  // namespace

std::string ItemAlias(const SqlShape& s, const SqlSpan& item) { return Alias(s, item); }

bool TotallyOrdered(const SqlShape& s) {
  if (!s.simple_select() || !s.order_by.present()) return false;
  std::set<std::string> keys;
  for (const SqlSpan& o : s.Items(s.order_by)) keys.insert(Normalized(s, o));
  const auto items = s.Items(s.select_list);
  // Grouped rows are unique by the GROUP BY items: sorting by all of them (or
  // their aliases) is total.
  if (s.group_by.present()) {
    bool all = true;
    for (const SqlSpan& g : s.Items(s.group_by)) {
      const std::string key = Normalized(s, g);
      bool sorted = keys.count(key) > 0;
      for (size_t n = 0; n < items.size() && !sorted; ++n)
        sorted = (Normalized(s, items[n]) == key || Alias(s, items[n]) == key || std::to_string(n + 1) == key) &&
                 (keys.count(std::to_string(n + 1)) || keys.count(Alias(s, items[n])) ||
                  keys.count(Normalized(s, items[n])));
      all &= sorted;
    }
    if (all && !s.text(s.group_by).empty() && s.text(s.group_by).find("ROLLUP") == std::string::npos &&
        s.text(s.group_by).find("rollup") == std::string::npos)
      return true;
  }
  for (size_t n = 0; n < items.size(); ++n) {
    const std::string expr = Normalized(s, items[n]);
    if (expr == "*" || (expr.size() >= 2 && expr.substr(expr.size() - 2) == ".*")) return false;
    const std::string alias = Alias(s, items[n]);
    if (keys.count(expr) || keys.count(std::to_string(n + 1)) || (!alias.empty() && keys.count(alias))) continue;
    // "expr AS x" sorted by expr.
    if (!alias.empty()) {
      const auto [f, l] = s.TokenRange(items[n]);
      SqlSpan bare{items[n].begin, s.tokens()[l - (s.Is(l - 2, "AS") ? 3 : 2)].end};
      if (f + 1 < l && keys.count(Normalized(s, bare))) continue;
    }
    return false;
  }
  return true;
}

bool OrderedByUniqueKeys(const SqlShape& s, const UniqueKeys& keys) {
  if (!s.simple_select() || !s.order_by.present() || s.group_by.present() || s.having.present() || s.distinct() ||
      s.window.present())
    return false;
  const auto [sf, sl] = s.TokenRange(s.select_list);
  if (HasAggregate(s, sf, sl)) return false;
  size_t others = 0;
  const std::vector<TableRef> tables = s.FromTables(&others);
  if (tables.empty() || others > 0) return false;
  std::set<std::string> aliases;
  for (const SqlSpan& item : s.Items(s.select_list)) aliases.insert(Alias(s, item));
  // The columns ORDER BY sorts by, per table.
  std::vector<std::set<std::string>> sorted(tables.size());
  const auto& t = s.tokens();
  for (const SqlSpan& item : s.Items(s.order_by)) {
    auto [f, l] = s.TokenRange(item);
    if (l > f && (s.Is(l - 1, "ASC") || s.Is(l - 1, "DESC"))) --l;
    if (l - f == 1 && IsName(t[f]) && tables.size() == 1 && !aliases.count(Name(s, t[f]))) {
      sorted[0].insert(Name(s, t[f]));
    } else if (l - f == 3 && IsName(t[f]) && s.text(t[f + 1]) == "." && IsName(t[f + 2])) {
      for (size_t n = 0; n < tables.size(); ++n)
        if (tables[n].qualifier == s.Name(t[f])) sorted[n].insert(Name(s, t[f + 2]));
    }
  }
  for (size_t n = 0; n < tables.size(); ++n) {
    bool keyed = false;
    for (const std::vector<std::string>& key : keys(tables[n]))
      keyed |= !key.empty() && std::all_of(key.begin(), key.end(), [&](const std::string& c) { return sorted[n].count(c); });
    if (!keyed) return false;
  }
  return true;
}

UniqueKeys SessionKeys(Session& session, size_t t, double limit) {
  return [&session, t, limit](const TableRef& table) {
    std::vector<std::vector<std::string>> keys;
    ResultSet columns;
    if (!session.Execute(t, "SHOW COLUMNS FROM " + table.written, &columns, limit).ok()) return keys;
    static const char* kExactSort[] = {"tinyint", "smallint", "mediumint", "int", "bigint", "decimal",
                                       "date", "datetime", "timestamp", "time", "year"};
    const auto exact = [](const std::string& type) {
      const std::string base = type.substr(0, type.find_first_of("( "));
      return std::any_of(std::begin(kExactSort), std::end(kExactSort), [&](const char* k) { return base == k; });
    };
    std::vector<std::string> primary;
    bool primary_exact = true;
    for (const auto& row : columns.rows) {  // Field, Type, Null, Key, Default, Extra
      if (row.size() < 4 || !row[0] || !row[1] || !row[2] || !row[3]) continue;
      if (*row[3] == "PRI") {
        primary.push_back(Upper(*row[0]));
        primary_exact &= exact(*row[1]);
      } else if (*row[3] == "UNI" && *row[2] == "NO" && exact(*row[1])) {
        keys.push_back({Upper(*row[0])});
      }
    }
    if (!primary.empty() && primary_exact) keys.push_back(std::move(primary));
    return keys;
  };
}

bool PicksAmongEquals(const SqlShape& s) {
  for (size_t i = 0; i < s.tokens().size(); ++i)
    if (s.Is(i, "GROUP") || s.Is(i, "DISTINCT") || s.Is(i, "DISTINCTROW") || s.Is(i, "UNION") ||
        s.Is(i, "INTERSECT") || s.Is(i, "EXCEPT") || (s.IsCall(i) && (s.Is(i, "MIN") || s.Is(i, "MAX"))))
      return true;
  return false;
}

bool ReadOnly(const SqlShape& s) {
  const std::string verb = s.verb();
  if (verb == "ANALYZE") return s.Is(1, "SELECT") || s.Is(1, "FORMAT");  // ANALYZE TABLE writes statistics
  if (verb == "WITH") {  // WITH ... UPDATE/DELETE/INSERT (MySQL)
    for (size_t i = 0; i < s.tokens().size(); ++i)
      if (s.tokens()[i].depth == 0 && (s.Is(i, "UPDATE") || s.Is(i, "DELETE") || s.Is(i, "INSERT"))) return false;
  }
  if (verb == "SELECT") {  // SELECT ... INTO a file writes
    for (size_t i = 0; i < s.tokens().size(); ++i)
      if (s.Is(i, "INTO") && (s.Is(i + 1, "OUTFILE") || s.Is(i + 1, "DUMPFILE"))) return false;
  }
  for (const VolatileValue* v : VolatileValuesRead(s))
    if (v->changes_data) return false;  // SELECT NEXTVAL(s) advances the sequence
  return VerbChangesNoData(verb);
}

bool ReturnsQueryRows(const SqlShape& s) {
  const std::string verb = s.verb();
  return verb == "SELECT" || verb == "WITH" || verb == "VALUES" || verb == "TABLE";
}

// GROUP_CONCAT/JSON_ARRAYAGG at token `call` lists its values in one order
// only when its ORDER BY sorts by each of them: ORDER BY a constant, or by
// another column, leaves ties in any order.
bool OrderedAggregate(const SqlShape& s, size_t call) {
  const auto& t = s.tokens();
  const size_t open = call + 1, close = Closing(s, open);
  const int inside = t[open].depth + 1;
  size_t order = close, separator = close;
  for (size_t j = open + 1; j < close; ++j) {
    if (t[j].depth != inside) continue;
    if (order == close && s.Is(j, "ORDER") && s.Is(j + 1, "BY")) order = j;
    if (s.Is(j, "SEPARATOR") || s.Is(j, "LIMIT")) separator = std::min(separator, j);
  }
  if (order == close) return false;
  size_t first = open + 1;
  if (s.Is(first, "DISTINCT")) ++first;
  const auto items = [&](size_t from, size_t to) {  // comma-separated, normalized
    std::vector<std::string> out;
    size_t begin = from;
    for (size_t j = from; j <= to; ++j)
      if (j == to || (t[j].depth == inside && s.text(t[j]) == ",")) {
        if (j > begin) out.push_back(Normalized(s, SqlSpan{t[begin].begin, t[j - 1].end}));
        begin = j + 1;
      }
    return out;
  };
  const std::vector<std::string> keys = items(order + 2, std::min(separator, close));
  for (const std::string& value : items(first, order))
    if (std::find(keys.begin(), keys.end(), value) == keys.end()) return false;
  return true;
}

std::string ReadsVolatileValue(const SqlShape& s) {
  const auto read = VolatileValuesRead(s);
  return read.empty() ? "" : VolatileReason(*read.front());
}

std::string Nondeterminism(const SqlShape& s, const UniqueKeys* keys) {
  if (std::string why = ReadsVolatileValue(s); !why.empty()) return why;
  const auto& t = s.tokens();
  int total = -1;  // the rows' order is total: unknown yet (LIMIT n OFFSET m asks twice)
  const auto ordered = [&] {
    if (total < 0) total = TotallyOrdered(s) || (keys != nullptr && OrderedByUniqueKeys(s, *keys));
    return total == 1;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == SqlToken::kVariable && s.text(t[i]).substr(0, 2) == "@@") return "reads a server variable";
    if (t[i].kind != SqlToken::kWord) continue;
    const std::string w = Upper(s.text(t[i]));
    if (kMetadataSchemas.count(w) && i + 1 < t.size() && s.text(t[i + 1]) == ".")
      return "reads server metadata (" + w + ")";
    if (w == "OVER" && i + 1 < t.size() && (s.text(t[i + 1]) == "(" || IsName(t[i + 1])))
      return "a window function (ties in any order)";
    if ((w == "LIMIT" || w == "FETCH" || w == "OFFSET") &&
        (s.select_token == std::string::npos || t[i].depth > t[s.select_token].depth || !ordered()))
      return "LIMIT without a total ORDER BY";
    if ((w == "GROUP_CONCAT" || w == "JSON_ARRAYAGG") && s.IsCall(i) && !OrderedAggregate(s, i))
      return w + " without an ORDER BY of its values (any order)";
    if (w == "SKIP" && s.Is(i + 1, "LOCKED")) return "SKIP LOCKED";
  }
  if (std::string why = GroupingReason(s); !why.empty()) return why;
  // Subqueries: each its own SELECT.
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (s.text(t[i]) == "(" && s.Is(i + 1, "SELECT")) {
      const size_t close = Closing(s, i);
      const SqlShape sub(s.text(SqlSpan{t[i].begin, t[close].end}));
      if (std::string why = GroupingReason(sub); !why.empty()) return why + " (in a subquery)";
    }
  return "";
}

}  // namespace gauntlet
