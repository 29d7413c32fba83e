#include "oracle/minimise.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <set>

#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

// `sql` with bytes [begin, end) taken out (and the spaces that doubled).
std::string Without(const std::string& sql, size_t begin, size_t end) {
  std::string out = sql.substr(0, begin);
  std::string rest = sql.substr(end);
  while (!out.empty() && out.back() == ' ' && (rest.empty() || rest.front() == ' ')) out.pop_back();
  return out + rest;
}

std::string Replaced(const std::string& sql, size_t begin, size_t end, const std::string& with) {
  return sql.substr(0, begin) + with + sql.substr(end);
}

// The clause whose text is `span`, with its `keywords` keyword tokens before it.
void DropClause(const SqlShape& s, const std::string& sql, const SqlSpan& span, size_t keywords,
                std::vector<std::string>* out) {
  if (!span.present()) return;
  const auto [first, last] = s.TokenRange(span);
  if (first < keywords || first == last) return;
  out->push_back(Without(sql, s.tokens()[first - keywords].begin, span.end));
}

// Text edits applied from the last to the first, so that offsets hold.
struct Edit {
  size_t begin, end;
  std::string with;
};
std::string Edited(const std::string& sql, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out = sql;
  for (const Edit& e : edits) out = out.substr(0, e.begin) + e.with + out.substr(e.end);
  return out;
}

// ORDER BY or GROUP BY without the select item at `position` (1-based):
// positional references to it go, later ones count one less; the clause
// goes with its keywords when nothing is left of it.
void Renumbered(const SqlShape& s, const SqlSpan& clause, size_t keywords, size_t position,
                std::vector<Edit>* edits) {
  if (!clause.present()) return;
  std::vector<std::string> kept;
  bool changed = false;
  for (const SqlSpan& item : s.Items(clause)) {
    const auto [first, last] = s.TokenRange(item);
    const bool positional = first < last && s.tokens()[first].kind == SqlToken::kNumber &&
                            (last - first == 1 || (last - first == 2 && (s.Is(first + 1, "ASC") || s.Is(first + 1, "DESC"))));
    size_t n = 0;
    if (positional) n = std::strtoul(std::string(s.text(s.tokens()[first])).c_str(), nullptr, 10);
    if (!positional || n < position) {
      kept.emplace_back(s.text(item));
    } else if (n > position) {
      kept.push_back(std::to_string(n - 1) + std::string(s.text(SqlSpan{s.tokens()[first].end, item.end})));
      changed = true;
    } else {
      changed = true;
    }
  }
  if (!changed) return;
  if (kept.empty()) {
    // From the end of the token before its keywords: no space left doubled.
    const size_t first = s.TokenRange(clause).first;
    edits->push_back({s.tokens()[first - keywords - 1].end, clause.end, ""});
    return;
  }
  std::string text;
  for (const std::string& k : kept) text += (text.empty() ? "" : ", ") + k;
  edits->push_back({clause.begin, clause.end, text});
}

// Each select item taken out, with ORDER BY and GROUP BY's positions kept
// pointing at the items they meant.
void DropSelectItems(const SqlShape& s, const std::string& sql, std::vector<std::string>* out) {
  const std::vector<SqlSpan> items = s.Items(s.select_list);
  if (items.size() < 2) return;
  for (size_t k = 0; k < items.size(); ++k) {
    std::vector<Edit> edits;
    const size_t begin = k + 1 < items.size() ? items[k].begin : items[k - 1].end;
    const size_t end = k + 1 < items.size() ? items[k + 1].begin : items[k].end;
    edits.push_back({begin, end, ""});
    Renumbered(s, s.group_by, 2, k + 1, &edits);
    Renumbered(s, s.order_by, 2, k + 1, &edits);
    out->push_back(Edited(sql, edits));
  }
}

// The token of the ')' that closes the '(' at token `open`, before token
// `last`; `last` when there is none.
size_t Closing(const SqlShape& s, size_t open, size_t last) {
  const auto& t = s.tokens();
  size_t close = open + 1;
  while (close < last && !(t[close].depth == t[open].depth && s.text(t[close]) == ")")) ++close;
  return close;
}

// The '(' at token `open` follows IN, ANY, ALL, SOME or EXISTS: what it holds
// is their list or subquery, not an expression of its own.
bool ReadByAQuantifier(const SqlShape& s, size_t open, size_t first) {
  return open > first && (s.Is(open - 1, "IN") || s.Is(open - 1, "ANY") || s.Is(open - 1, "ALL") ||
                          s.Is(open - 1, "SOME") || s.Is(open - 1, "EXISTS"));
}

// A scalar subquery in `span` replaced by NULL.
void SubqueriesAsNull(const SqlShape& s, const std::string& sql, const SqlSpan& span, std::vector<std::string>* out) {
  if (!span.present()) return;
  const auto [first, last] = s.TokenRange(span);
  const auto& t = s.tokens();
  for (size_t i = first; i + 1 < last; ++i) {
    if (s.text(t[i]) != "(" || !s.Is(i + 1, "SELECT") || ReadByAQuantifier(s, i, first)) continue;
    const size_t close = Closing(s, i, last);
    if (close < last) out->push_back(Replaced(sql, t[i].begin, t[close].end, "NULL"));
  }
}

// A WHERE or HAVING condition replaced by 1, unless it is a bare literal.
void ConditionAsOne(const SqlShape& s, const std::string& sql, const SqlSpan& span, std::vector<std::string>* out) {
  if (!span.present()) return;
  const auto [first, last] = s.TokenRange(span);
  if (last - first == 1 && s.tokens()[first].kind == SqlToken::kNumber) return;
  out->push_back(Replaced(sql, span.begin, span.end, "1"));
}

// Each item of a comma list taken out, when there are several.
void DropItems(const std::string& sql, const std::vector<SqlSpan>& items, std::vector<std::string>* out) {
  if (items.size() < 2) return;
  for (size_t k = 0; k < items.size(); ++k) {
    // With the comma after it (or, for the last, the one before it).
    const size_t begin = k + 1 < items.size() ? items[k].begin : items[k - 1].end;
    const size_t end = k + 1 < items.size() ? items[k + 1].begin : items[k].end;
    out->push_back(Without(sql, begin, end));
  }
}

// The WHERE's top-level operands of AND/OR (BETWEEN's AND is no separator).
std::vector<SqlSpan> Junctions(const SqlShape& s, const SqlSpan& where) {
  std::vector<SqlSpan> parts;
  const auto [first, last] = s.TokenRange(where);
  if (first == last) return parts;
  const auto& t = s.tokens();
  const int level = t[first].depth;
  size_t start = first;
  bool between = false;
  for (size_t i = first; i < last; ++i) {
    if (t[i].depth != level) continue;
    if (s.Is(i, "BETWEEN")) between = true;
    const bool junction = s.Is(i, "OR") || s.Is(i, "XOR") || s.text(t[i]) == "||" || s.text(t[i]) == "&&" ||
                          (s.Is(i, "AND") && !between);
    if (s.Is(i, "AND") && between) between = false;
    if (!junction) continue;
    if (i > start) parts.push_back({t[start].begin, t[i - 1].end});
    start = i + 1;
  }
  if (start < last) parts.push_back({t[start].begin, t[last - 1].end});
  return parts.size() > 1 ? parts : std::vector<SqlSpan>{};
}

// Words before '(' that are operators, not functions: `AND (a OR b)` is a group.
const std::set<std::string> kOperatorWords = {"AND", "OR", "XOR", "NOT", "WHERE", "ON", "HAVING", "WHEN",
                                              "THEN", "ELSE", "BETWEEN", "LIKE", "IS", "CASE", "DIV", "MOD"};

// The text before a top-level AS in `arg`: CAST(x AS CHAR)'s operand is x.
SqlSpan BeforeAs(const SqlShape& s, const SqlSpan& arg) {
  const auto [first, last] = s.TokenRange(arg);
  for (size_t i = first + 1; i < last; ++i)
    if (s.tokens()[i].depth == s.tokens()[first].depth && s.Is(i, "AS"))
      return {s.tokens()[first].begin, s.tokens()[i - 1].end};
  return arg;
}

// A call F(a, b) or a group (a) in `span` replaced by each of its operands.
void Operands(const SqlShape& s, const std::string& sql, const SqlSpan& span, std::vector<std::string>* out) {
  if (!span.present()) return;
  const auto [first, last] = s.TokenRange(span);
  const auto& t = s.tokens();
  for (size_t i = first; i < last; ++i) {
    if (s.text(t[i]) != "(" || (i + 1 < last && s.Is(i + 1, "SELECT")) || ReadByAQuantifier(s, i, first)) continue;
    const size_t close = Closing(s, i, last);
    if (close >= last || close == i + 1) continue;
    const bool call = i > first && t[i - 1].kind == SqlToken::kWord && !kOperatorWords.count(Upper(s.text(t[i - 1])));
    const size_t from = call ? i - 1 : i;
    const std::vector<SqlSpan> args = s.Items(SqlSpan{t[i + 1].begin, t[close - 1].end});
    for (const SqlSpan& a : args)
      out->push_back(Replaced(sql, t[from].begin, t[close].end, std::string(s.text(BeforeAs(s, a)))));
  }
}

// Words that start a join in the FROM clause (LEFT OUTER JOIN, STRAIGHT_JOIN, ...).
const std::set<std::string> kJoinWords = {"JOIN", "STRAIGHT_JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "NATURAL",
                                          "OUTER", "FULL"};

// Each joined table of the FROM taken out with its ON or USING: from a join
// word at the clause's own depth to the next one.
void DropJoins(const SqlShape& s, const std::string& sql, std::vector<std::string>* out) {
  if (!s.from.present()) return;
  const auto [first, last] = s.TokenRange(s.from);
  if (first == last) return;
  const auto& t = s.tokens();
  const int level = t[first].depth;
  std::vector<size_t> starts;
  for (size_t i = first + 1; i < last; ++i)
    if (t[i].depth == level && kJoinWords.count(Upper(s.text(t[i]))) && !kJoinWords.count(Upper(s.text(t[i - 1]))))
      starts.push_back(i);
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t end = k + 1 < starts.size() ? t[starts[k + 1]].begin : t[last - 1].end;
    out->push_back(Without(sql, t[starts[k]].begin, end));
  }
}

// SELECT DISTINCT as SELECT.
void DropDistinct(const SqlShape& s, const std::string& sql, std::vector<std::string>* out) {
  if (!s.distinct() || s.select_token == std::string::npos) return;
  // Among the modifiers, before the select list.
  for (size_t i = s.select_token + 1; i < s.tokens().size() && s.tokens()[i].begin < s.select_list.begin; ++i)
    if (s.Is(i, "DISTINCT") || s.Is(i, "DISTINCTROW"))
      out->push_back(Without(sql, s.tokens()[i].begin, s.tokens()[i].end));
}

// The conditions after ON in the FROM clause: to the next join word at the
// clause's own depth.
std::vector<SqlSpan> OnConditions(const SqlShape& s) {
  std::vector<SqlSpan> out;
  if (!s.from.present()) return out;
  const auto [first, last] = s.TokenRange(s.from);
  if (first == last) return out;
  const auto& t = s.tokens();
  const int level = t[first].depth;
  for (size_t i = first; i < last; ++i) {
    if (t[i].depth != level || !s.Is(i, "ON") || i + 1 >= last) continue;
    size_t end = i + 1;
    while (end < last && !(t[end].depth == level && (kJoinWords.count(Upper(s.text(t[end]))) || s.text(t[end]) == ",")))
      ++end;
    if (end > i + 1) out.push_back({t[i + 1].begin, t[end - 1].end});
  }
  return out;
}

// Each top-level operand of AND/OR in `span` taken out, with its junction word.
void DropJunctions(const SqlShape& s, const std::string& sql, const SqlSpan& span, std::vector<std::string>* out) {
  if (!span.present()) return;
  const size_t span_last = s.TokenRange(span).second;
  for (const SqlSpan& part : Junctions(s, span)) {
    // The part with the junction word after it, or for the last, before it.
    const auto [pf, pl] = s.TokenRange(part);
    const bool last_part = pl >= span_last;
    const size_t begin = last_part ? s.tokens()[pf - 1].begin : part.begin;
    const size_t end = last_part ? part.end : s.tokens()[pl + 1].begin;
    out->push_back(Without(sql, begin, end));
  }
}

// Each subquery and derived table minimised in its place: its candidates,
// put back into the query.
void Nested(const SqlShape& s, const std::string& sql, std::vector<std::string>* out) {
  const auto& t = s.tokens();
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (s.text(t[i]) != "(" || !s.Is(i + 1, "SELECT")) continue;
    const size_t close = Closing(s, i, t.size());
    if (close >= t.size()) break;
    const size_t begin = t[i].end, end = t[close].begin;
    for (const std::string& c : Candidates(sql.substr(begin, end - begin)))
      out->push_back(sql.substr(0, begin) + c + sql.substr(end));
    i = close;  // the ones inside are the nested query's
  }
}

}  // namespace

std::vector<std::string> Candidates(const std::string& sql) {
  const SqlShape s(sql);
  std::vector<std::string> out;
  if (!s.simple_select()) return out;
  DropClause(s, sql, s.order_by, 2, &out);
  DropClause(s, sql, s.limit, 1, &out);
  DropClause(s, sql, s.having, 1, &out);
  DropClause(s, sql, s.group_by, 2, &out);
  DropClause(s, sql, s.where, 1, &out);
  // A condition that TLP needs as such, made trivial: the cause may be in
  // what is selected, not in what is filtered.
  ConditionAsOne(s, sql, s.where, &out);
  ConditionAsOne(s, sql, s.having, &out);
  DropSelectItems(s, sql, &out);
  DropItems(sql, s.Items(s.order_by), &out);
  DropItems(sql, s.Items(s.group_by), &out);
  DropItems(sql, s.Items(s.from), &out);
  DropJoins(s, sql, &out);
  DropDistinct(s, sql, &out);
  const std::vector<SqlSpan> on = OnConditions(s);
  for (const SqlSpan& span : on) ConditionAsOne(s, sql, span, &out);
  DropJunctions(s, sql, s.where, &out);
  DropJunctions(s, sql, s.having, &out);
  for (const SqlSpan& span : on) DropJunctions(s, sql, span, &out);
  std::vector<SqlSpan> expressions = {s.where, s.having, s.select_list};
  expressions.insert(expressions.end(), on.begin(), on.end());
  for (const SqlSpan& span : expressions) {
    SubqueriesAsNull(s, sql, span, &out);
    Operands(s, sql, span, &out);
  }
  Nested(s, sql, &out);
  // Distinct, shorter than the query.
  std::vector<std::string> kept;
  std::set<std::string> seen;
  for (std::string& c : out)
    if (c.size() < sql.size() && seen.insert(c).second) kept.push_back(std::move(c));
  return kept;
}

Minimised Minimise(const std::string& sql, const std::function<bool(const std::string&)>& still_fails,
                   const MinimiseBudget& budget) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Minimised m;
  m.sql = sql;
  bool progress = true;
  while (progress) {
    progress = false;
    for (const std::string& c : Candidates(m.sql)) {
      if (m.checks >= budget.checks || elapsed() >= budget.seconds) {
        m.exhausted = true;
        m.seconds = elapsed();
        return m;
      }
      ++m.checks;
      if (still_fails(c)) {
        m.sql = c;
        ++m.steps;
        progress = true;
        break;
      }
    }
  }
  m.seconds = elapsed();
  return m;
}

nlohmann::json MinimalFinding(const std::string& sql, const FailureCheck& fails_alike, const MinimiseBudget& budget) {
  const Minimised m = Minimise(sql, [&](const std::string& candidate) {
    nlohmann::json ignored;
    return fails_alike(candidate, &ignored);
  }, budget);
  nlohmann::json minimal;
  if (m.steps > 0 && fails_alike(m.sql, &minimal)) {
    minimal["sql"] = m.sql;
    minimal["repeated"] = true;
  } else {
    minimal = {{"sql", sql}};
    if (m.steps > 0) minimal["repeated"] = false;
  }
  minimal.update({{"checks", m.checks}, {"steps", m.steps}, {"seconds", m.seconds}, {"exhausted", m.exhausted}});
  return minimal;
}

}  // namespace gauntlet
