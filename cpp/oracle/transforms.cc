#include "oracle/transforms.h"

#include "oracle/determinism.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace gauntlet {
namespace {

// The query as it is, without the parentheses it may stand in.
std::string Bare(const SqlShape& s) {
  const auto& t = s.tokens();
  if (s.select_token == std::string::npos || s.select_token == 0 || !s.simple_select()) {  // (SELECT ...) UNION ...
    std::string_view all = s.text(SqlSpan{t.empty() ? 0 : t.front().begin, t.empty() ? 0 : t.back().end});
    return std::string(all);
  }
  // Up to the parenthesis that closes the SELECT.
  const int level = t[s.select_token].depth;
  size_t last = s.select_token;
  for (size_t i = s.select_token; i < t.size() && t[i].depth >= level; ++i) last = i;
  return std::string(s.text(SqlSpan{t[s.select_token].begin, t[last].end}));
}

// The text of the query's SELECT keyword and modifiers: "SELECT DISTINCT ".
std::string Head(const SqlShape& s) {
  return std::string(s.text(SqlSpan{s.tokens()[s.select_token].begin, s.select_list.begin}));
}

// An aggregate call among tokens [f, l), outside subqueries.
bool HasTopLevelAggregate(const SqlShape& s, size_t f, size_t l) {
  static const std::set<std::string> kAggregates = {"COUNT", "SUM", "MIN", "MAX", "AVG", "GROUP_CONCAT",
                                                     "BIT_AND", "BIT_OR", "BIT_XOR", "STD", "STDDEV",
                                                     "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP",
                                                     "VAR_SAMP", "JSON_ARRAYAGG", "JSON_OBJECTAGG"};
  for (size_t i = f; i < l; ++i) {
    if (s.text(s.tokens()[i]) == "(" && s.Is(i + 1, "SELECT")) {
      const int d = s.tokens()[i].depth;
      while (i + 1 < l && !(s.tokens()[i + 1].depth == d && s.text(s.tokens()[i + 1]) == ")")) ++i;
      continue;
    }
    if (s.IsCall(i) && kAggregates.count(Upper(s.text(s.tokens()[i])))) return true;
  }
  return false;
}

// Shared preconditions of TLP and NoREC: a plain SELECT with a WHERE.
bool Filtered(const SqlShape& s, std::string* why) {
  if (!s.simple_select()) {
    *why = "not a plain SELECT";
    return false;
  }
  if (!s.where.present() || !s.from.present()) {
    *why = "no WHERE";
    return false;
  }
  return true;
}

}  // namespace

std::string SqlString(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += c == '\'' ? '\'' : '\\';
    out += c;
  }
  return out + "'";
}

std::string AsDerivedTable(const SqlShape& s) { return "SELECT * FROM ( " + Bare(s) + " ) AS gauntlet_d"; }

std::string ColumnList(size_t n) {
  std::string out;
  for (size_t i = 1; i <= n; ++i) out += (i == 1 ? " (gauntlet_" : ", gauntlet_") + std::to_string(i);
  return n == 0 ? out : out + ")";
}

std::string AsCte(const SqlShape& s, size_t column_names) {
  return "WITH gauntlet_c" + ColumnList(column_names) + " AS ( " + Bare(s) + " ) SELECT * FROM gauntlet_c";
}

std::string WithSetStatement(const SqlShape& s, const std::string& assignment) {
  return "SET STATEMENT " + assignment + " FOR " + Bare(s);
}

std::string ReplaceLimit(const SqlShape& s, const std::string& clause, int64_t* limit, int64_t* offset) {
  *limit = -1;
  *offset = 0;
  if (!s.simple_select() || !s.limit.present()) return "";
  const auto& t = s.tokens();
  const auto range = s.TokenRange(s.limit);  // not a structured binding: the lambda below reads it
  const size_t first = range.first, last = range.second;
  if (first == 0 || first > last) return "";
  const size_t keyword = first - 1;  // LIMIT, OFFSET or FETCH
  const auto number = [&](size_t i, int64_t* out) {
    if (i >= last || t[i].kind != SqlToken::kNumber || s.text(t[i]).find_first_not_of("0123456789") != std::string::npos ||
        s.text(t[i]).size() > 18)
      return false;
    *out = std::stoll(std::string(s.text(t[i])));
    return true;
  };
  int64_t n = 0, m = 0;
  if (s.Is(keyword, "LIMIT") && number(first, &n)) {
    if (last == first + 1) {
      *limit = n;
    } else if (last == first + 3 && s.text(t[first + 1]) == "," && number(first + 2, &m)) {
      *limit = m, *offset = n;
    } else if (last == first + 3 && s.Is(first + 1, "OFFSET") && number(first + 2, &m)) {
      *limit = n, *offset = m;
    }
  }
  const std::string bare = Bare(s);
  const size_t base = t[s.select_token].begin;
  const size_t cut = t[keyword].begin - base, end = t[last - 1].end - base;
  std::string out = bare.substr(0, cut);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (!clause.empty()) out += " " + clause;
  return out + bare.substr(std::min(end, bare.size()));
}

std::string WithoutPartLimits(const SqlShape& s) {
  if (!s.set_operation()) return "";
  const auto& t = s.tokens();
  std::vector<std::pair<size_t, size_t>> cuts;  // byte ranges: " LIMIT ..." up to the part's ')'
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].depth == 0 && (s.Is(i, "EXCEPT") || s.Is(i, "MINUS") || s.Is(i, "LIMIT") || s.Is(i, "ORDER"))) return "";
    if (t[i].depth != 1 || !s.Is(i, "LIMIT")) continue;
    size_t close = i + 1;
    while (close < t.size() && !(t[close].depth == 0 && s.text(t[close]) == ")")) ++close;
    const size_t args = close - i - 1;  // n | m , n | n OFFSET m
    const bool plain = (args == 1 || (args == 3 && (s.text(t[i + 2]) == "," || s.Is(i + 2, "OFFSET")))) &&
                       t[i + 1].kind == SqlToken::kNumber && t[i + args].kind == SqlToken::kNumber;
    if (close == t.size() || !plain) return "";
    cuts.emplace_back(t[i - 1].end, t[close - 1].end);
  }
  if (cuts.empty()) return "";
  std::string out(s.text(SqlSpan{t.front().begin, t.back().end}));
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it)
    out.erase(it->first - t.front().begin, it->second - it->first);
  return out;
}

namespace {

// Each parenthesized SELECT of a UNION, INTERSECT or EXCEPT without indexes.
std::string PartsWithoutIndexes(const SqlShape& s, std::string* why) {
  const auto& t = s.tokens();
  std::string out;
  size_t copied = t.front().begin;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].depth != 0) continue;
    if (s.Is(i, "SELECT")) {
      *why = "a set operation of SELECTs without parentheses";
      return "";
    }
    if (s.text(t[i]) != "(" || !s.Is(i + 1, "SELECT")) continue;
    size_t close = i + 1;
    while (close < t.size() && !(t[close].depth == 0 && s.text(t[close]) == ")")) ++close;
    if (close == t.size()) return "";
    const std::string part(s.text(SqlSpan{t[i + 1].begin, t[close - 1].end}));
    const std::string changed = WithoutIndexes(SqlShape(part), why);
    if (changed.empty()) return "";
    out += std::string(s.text(SqlSpan{copied, t[i + 1].begin})) + changed;
    copied = t[close - 1].end;
    i = close;
  }
  return out + std::string(s.text(SqlSpan{copied, t.back().end}));
}

}  // namespace

std::string WithoutIndexes(const SqlShape& s, std::string* why) {
  if (s.set_operation() && !s.tokens().empty()) return PartsWithoutIndexes(s, why);
  if (!s.simple_select() || !s.from.present()) {
    *why = "not a plain SELECT with FROM";
    return "";
  }
  const std::vector<TableRef> tables = s.FromTables();
  for (const TableRef& t : tables) {
    if (t.partitions) {
      *why = "selects partitions";
      return "";
    }
    if (t.hinted) {
      *why = "has index hints";
      return "";
    }
  }
  if (tables.empty()) {
    *why = "no base table in FROM";
    return "";
  }
  std::string out = Bare(s);
  const size_t base = s.tokens()[s.select_token].begin;
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) out.insert(it->end - base, " USE INDEX ()");
  return out;
}

namespace {

// The three partitions of predicate p: exactly one holds for any row or group.
std::array<std::string, 3> Partitions(std::string_view p) {
  const std::string q(p);
  return {"( " + q + " )", "NOT ( " + q + " )", "( " + q + " ) IS NULL"};
}

// TLP on HAVING (SQLancer's TLP-HAVING): each group lands in exactly one of
// the three HAVING partitions, so together they are the query without HAVING.
bool TlpHaving(const SqlShape& s, TlpQueries* out, std::string* why) {
  if (!s.from.present()) {
    *why = "no FROM";
    return false;
  }
  std::string base = Head(s) + std::string(s.text(s.select_list)) + " FROM " + std::string(s.text(s.from));
  if (s.where.present()) base += " WHERE " + std::string(s.text(s.where));
  if (s.group_by.present()) base += " GROUP BY " + std::string(s.text(s.group_by));
  const auto parts = Partitions(s.text(s.having));
  const std::string joiner = s.distinct() ? " UNION " : " UNION ALL ";
  out->unfiltered = base;
  out->partitioned = base + " HAVING " + parts[0] + joiner + base + " HAVING " + parts[1] + joiner + base +
                     " HAVING " + parts[2];
  out->variant = s.distinct() ? "having distinct" : "having";
  return true;
}

}  // namespace

namespace {

// An inner join's ON predicate at the top of FROM, split out: FROM is
// before + " ON " + predicate + after. None when FROM has an outer or natural
// join (there ON is no filter), or no ON.
struct OnPredicate {
  std::string before, predicate, after;
};

std::optional<OnPredicate> InnerJoinOn(const SqlShape& s) {
  if (!s.from.present()) return std::nullopt;
  const auto& t = s.tokens();
  const auto [first, last] = s.TokenRange(s.from);
  if (first == last) return std::nullopt;
  const int level = t[first].depth;
  size_t on = last;
  for (size_t i = first; i < last; ++i) {
    if (t[i].depth != level || t[i].kind != SqlToken::kWord) continue;
    const std::string w = Upper(s.text(t[i]));
    if (w == "LEFT" || w == "RIGHT" || w == "NATURAL" || w == "OUTER" || w == "FULL") return std::nullopt;
    if (w == "ON" && on == last) on = i;
  }
  if (on == last || on == first || on + 1 == last) return std::nullopt;
  size_t end = on + 1;
  while (end < last && !(t[end].depth == level && (s.text(t[end]) == "," || s.Is(end, "JOIN") || s.Is(end, "INNER") ||
                                                   s.Is(end, "CROSS") || s.Is(end, "STRAIGHT_JOIN"))))
    ++end;
  const std::string_view sql = s.text(SqlSpan{0, s.from.end});
  return OnPredicate{std::string(sql.substr(s.from.begin, t[on - 1].end - s.from.begin)),
                     std::string(s.text(SqlSpan{t[on + 1].begin, t[end - 1].end})),
                     std::string(sql.substr(t[end - 1].end, s.from.end - t[end - 1].end))};
}

}  // namespace

// A grouped query's partitions merged again: `inner` is its select list
// with a name for each item (and each GROUP BY expression that is no item's
// alias or position), `outer` each item of the merged groups (MIN of MINs,
// SUM of SUMs and COUNTs; an item grouped by, which is one value per group
// but for a collation's equals), `keys` what the merged groups group by.
struct GroupedParts {
  std::string inner, outer, keys;
};

std::string Quoted(const std::string& name) {
  std::string out = "`";
  for (const char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

bool Regrouped(const SqlShape& s, GroupedParts* out, std::string* why) {
  if (s.distinct() || Upper(s.text(s.group_by)).find("ROLLUP") != std::string::npos) {
    *why = "GROUP BY with DISTINCT or ROLLUP";
    return false;
  }
  const auto& t = s.tokens();
  const auto items = s.Items(s.select_list);
  std::vector<std::string> names;
  std::map<std::string, std::string> by_alias;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string alias = ItemAlias(s, items[i]);
    auto [f, l] = s.TokenRange(items[i]);
    if (!alias.empty()) l -= s.Is(l - 2, "AS") ? 2 : 1;
    const std::string name = alias.empty() ? "gauntlet_" + std::to_string(i) : Quoted(alias);
    names.push_back(name);
    if (!alias.empty()) by_alias[alias] = name;
    out->inner += (i ? ", " : "") + std::string(s.text(items[i])) + (alias.empty() ? " AS " + name : "");
    const std::string call = f < l ? Upper(s.text(t[f])) : "";
    const bool one_call = s.IsCall(f) && s.text(t[l - 1]) == ")" && t[l - 1].depth == t[f].depth;
    const bool partitionable = call == "MIN" || call == "MAX" || call == "SUM" || call == "COUNT";
    if (one_call && partitionable) {
      if (s.Is(f + 2, "DISTINCT") && (call == "SUM" || call == "COUNT")) {
        *why = "SUM or COUNT of DISTINCT values";
        return false;
      }
      out->outer += (i ? ", " : "") + std::string(call == "COUNT" ? "SUM" : call) + "(" + name + ")";
    } else if (HasTopLevelAggregate(s, f, l)) {
      *why = "aggregates other than MIN, MAX, SUM or COUNT";
      return false;
    } else {
      out->outer += (i ? ", " : "") + std::string("MIN(") + name + ")";
    }
  }
  const auto groups = s.Items(s.group_by);
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [f, l] = s.TokenRange(groups[g]);
    std::string key;
    if (l == f + 1 && t[f].kind == SqlToken::kNumber) {
      const size_t n = std::stoul(std::string(s.text(t[f])));
      if (n >= 1 && n <= names.size()) key = names[n - 1];
    } else if (l == f + 1 && IsName(t[f]) && by_alias.count(Upper(s.Name(t[f])))) {
      key = by_alias[Upper(s.Name(t[f]))];
    }
    if (key.empty()) {
      key = "gauntlet_g" + std::to_string(g);
      out->inner += ", " + std::string(s.text(groups[g])) + " AS " + key;
    }
    out->keys += (g ? ", " : "") + key;
  }
  return true;
}

bool Tlp(const SqlShape& s, TlpQueries* out, std::string* why) {
  if (s.simple_select() && !s.window.present() && !s.limit.present() && s.having.present())
    return TlpHaving(s, out, why);
  // The predicate partitioned: WHERE's, else an inner join's ON (the same filter there).
  std::optional<OnPredicate> on;
  if (s.simple_select() && !s.where.present()) on = InnerJoinOn(s);
  if (!on && !Filtered(s, why)) return false;
  if (s.window.present() || s.limit.present()) {
    *why = "WINDOW or LIMIT";
    return false;
  }
  const std::string list(s.text(s.select_list)), from(s.text(s.from));
  const std::string head = Head(s);
  // The query with `p` in the predicate's place; "" for none.
  const auto part = [&](const std::string& select, const std::string& p) {
    if (on) return select + " FROM " + on->before + " ON " + (p.empty() ? "1" : p) + on->after;
    return select + " FROM " + from + (p.empty() ? "" : " WHERE " + p);
  };
  const auto wheres = Partitions(on ? on->predicate : s.text(s.where));
  const std::string where = on ? "on " : "";
  if (s.group_by.present()) {
    const std::string group_by = " GROUP BY " + std::string(s.text(s.group_by));
    GroupedParts grouped;
    if (!Regrouped(s, &grouped, why)) return false;
    out->unfiltered = part(head + list, "") + group_by;
    out->partitioned = "SELECT " + grouped.outer + " FROM ( " + part(head + grouped.inner, wheres[0]) + group_by +
                       " UNION ALL " + part(head + grouped.inner, wheres[1]) + group_by + " UNION ALL " +
                       part(head + grouped.inner, wheres[2]) + group_by + " ) AS gauntlet_tlp GROUP BY " +
                       grouped.keys;
    out->variant = where + "group by";
    return true;
  }
  if (const auto [f, l] = s.TokenRange(s.select_list); HasTopLevelAggregate(s, f, l)) {
    const auto items = s.Items(s.select_list);
    const std::string agg = Upper(s.text(s.tokens()[f]));
    const bool one_call = items.size() == 1 && s.IsCall(f) && s.text(s.tokens()[l - 1]) == ")" &&
                          s.tokens()[l - 1].depth == s.tokens()[f].depth;
    if (!one_call || (agg != "MIN" && agg != "MAX" && agg != "SUM" && agg != "COUNT")) {
      *why = "aggregates other than one MIN, MAX, SUM or COUNT";
      return false;
    }
    if (s.Is(f + 2, "DISTINCT") && (agg == "SUM" || agg == "COUNT")) {
      *why = "SUM or COUNT of DISTINCT values";
      return false;
    }
    const std::string outer = agg == "COUNT" ? "SUM" : agg;
    out->unfiltered = part(head + list, "");
    out->partitioned = "SELECT " + outer + "(gauntlet_a) FROM ( " + part(head + list + " AS gauntlet_a", wheres[0]) +
                       " UNION ALL " + part(head + list + " AS gauntlet_a", wheres[1]) + " UNION ALL " +
                       part(head + list + " AS gauntlet_a", wheres[2]) + " ) AS gauntlet_tlp";
    out->variant = where + agg;
    return true;
  }
  const std::string joiner = s.distinct() ? " UNION " : " UNION ALL ";
  out->unfiltered = part(head + list, "");
  out->partitioned = part(head + list, wheres[0]) + joiner + part(head + list, wheres[1]) + joiner +
                     part(head + list, wheres[2]);
  out->variant = where + (s.distinct() ? "distinct" : "rows");
  return true;
}

bool Norec(const SqlShape& s, NorecQueries* out, std::string* why) {
  // WHERE p, else an inner join's ON p (as TLP takes them).
  std::optional<OnPredicate> on;
  if (s.simple_select() && !s.where.present()) on = InnerJoinOn(s);
  if (!on && !Filtered(s, why)) return false;
  const std::string p = on ? on->predicate : std::string(s.text(s.where));
  const std::string filtered = on ? on->before + " ON " + p + on->after : std::string(s.text(s.from)) + " WHERE " + p;
  const std::string all = on ? on->before + " ON 1" + on->after : std::string(s.text(s.from));
  out->optimized = "SELECT COUNT(*) FROM " + filtered;
  out->unoptimized = "SELECT COALESCE(SUM(gauntlet_t), 0) FROM ( SELECT ( " + p + " ) IS TRUE AS gauntlet_t FROM " +
                     all + " ) AS gauntlet_norec";
  return true;
}

}  // namespace gauntlet
