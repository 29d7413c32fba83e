#include "oracle/minimise.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>

#include "oracle/sql_shape.h"

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

std::string Upper(std::string_view w) {
  std::string u(w);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

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
    if (s.text(t[i]) != "(" || (i + 1 < last && s.Is(i + 1, "SELECT"))) continue;
    size_t close = i + 1;
    while (close < last && !(t[close].depth == t[i].depth && s.text(t[close]) == ")")) ++close;
    if (close >= last || close == i + 1) continue;
    // After IN, ANY, ... the parentheses hold a list, not an expression.
    if (i > first && (s.Is(i - 1, "IN") || s.Is(i - 1, "ANY") || s.Is(i - 1, "ALL") || s.Is(i - 1, "SOME") ||
                      s.Is(i - 1, "EXISTS")))
      continue;
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
  DropItems(sql, s.Items(s.select_list), &out);
  DropItems(sql, s.Items(s.from), &out);
  DropJoins(s, sql, &out);
  DropDistinct(s, sql, &out);
  for (const SqlSpan& part : Junctions(s, s.where)) {
    // The part with the junction word after it, or for the last, before it.
    const auto [pf, pl] = s.TokenRange(part);
    const bool last_part = pl >= s.TokenRange(s.where).second;
    const size_t begin = last_part ? s.tokens()[pf - 1].begin : part.begin;
    const size_t end = last_part ? part.end : s.tokens()[pl + 1].begin;
    out.push_back(Without(sql, begin, end));
  }
  for (const SqlSpan* span : {&s.where, &s.having, &s.select_list}) Operands(s, sql, *span, &out);
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
