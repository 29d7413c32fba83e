#include "oracle/root_cause_key.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <vector>

#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

const std::set<std::string> kWrongResults = {"tlp", "norec", "metamorphic", "divergence"};

// Operators that can be a cause: the key has them when no function or type
// is left (an ALL/ANY comparison, an ENUM in NOT IN). Everything else the
// query has (joins, clauses, comparisons, arithmetic, CASE, NULL) only
// carries the cause, and greedy minimisation leaves different ones behind
// from different queries.
const std::set<std::string> kOperators = {"ALL", "ANY", "SOME", "IN", "NOT", "IS", "LIKE", "REGEXP", "RLIKE",
                                          "BETWEEN", "<=>", "EXISTS", "LEFT", "RIGHT", "(SELECT)", "COLLATE",
                                          "SOUNDS", "<<", ">>", "&", "|", "^", "~"};
// Words that name a type (CAST(x AS DATE)): they say what a conversion is.
const std::set<std::string> kTypes = {"SIGNED", "UNSIGNED", "CHAR", "DATE", "DATETIME", "TIME", "TIMESTAMP",
                                      "DECIMAL", "DOUBLE", "INTEGER", "BINARY", "YEAR", "INTERVAL"};
// Calls that only say "convert": the type says to what.
const std::set<std::string> kConversions = {"CAST", "CONVERT"};

// A function or type of a family: the family's name, else "". Some are
// keywords too (TRUNCATE, DATE), so they count whether or not called.
std::string CallFamily(const std::string& name) {
  static const std::set<std::string> kRounding = {"ROUND", "FLOOR", "CEILING", "CEIL", "TRUNCATE"};
  static const std::set<std::string> kTemporal = {
      "DATE", "TIME", "DATETIME", "TIMESTAMP", "YEAR", "INTERVAL", "MAKEDATE", "MAKETIME", "STR_TO_DATE",
      "FROM_DAYS", "TO_DAYS", "TO_SECONDS", "DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE", "ADDTIME", "SUBTIME",
      "DATEDIFF", "TIMEDIFF", "TIMESTAMPADD", "TIMESTAMPDIFF", "FROM_UNIXTIME", "UNIX_TIMESTAMP", "LAST_DAY",
      "DAYNAME", "DAYOFWEEK", "DAYOFMONTH", "DAYOFYEAR", "WEEKDAY", "WEEK", "WEEKOFYEAR", "YEARWEEK", "MONTH",
      "MONTHNAME", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND", "QUARTER", "EXTRACT", "DATE_FORMAT",
      "TIME_FORMAT", "TIME_TO_SEC", "SEC_TO_TIME", "PERIOD_ADD", "PERIOD_DIFF", "CONVERT_TZ", "UTC_DATE"};
  // Functions that build JSON text from their arguments' values.
  static const std::set<std::string> kJsonBuilding = {
      "JSON_ARRAY", "JSON_OBJECT", "JSON_SET", "JSON_INSERT", "JSON_REPLACE", "JSON_ARRAY_APPEND",
      "JSON_ARRAY_INSERT", "JSON_MERGE", "JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE", "JSON_REMOVE", "JSON_ARRAYAGG",
      "JSON_OBJECTAGG"};
  if (kRounding.count(name)) return "rounding";
  if (kJsonBuilding.count(name)) return "JSON building";
  if (kTemporal.count(name)) return "temporal";
  return "";
}

std::string OperatorFamily(const std::string& c) {
  if (c == "ALL" || c == "ANY" || c == "SOME") return "ALL/ANY";
  if (c == "LEFT" || c == "RIGHT") return "outer join";
  if (c == "RLIKE") return "REGEXP";
  if (c == "(SELECT)") return "subquery";
  return c;
}

// "[truncated]" of "tlp [truncated] [warnings 1292]: SELECT ...": what the
// difference looks like. The warnings depend on what minimisation left.
std::string Tags(const std::string& signature) {
  const std::string head = signature.substr(0, signature.find(": "));
  return head.find("[truncated]") != std::string::npos ? " [truncated]" : "";
}

// TLP partitioned a condition of 1 (what minimisation leaves when the
// condition does not matter): the query filters by WHERE 1 or HAVING 1 and
// nothing else, or the partitions TLP compared are of 1 (an ON 1, say).
bool TrivialCondition(const SqlShape& s, const nlohmann::json& minimal) {
  const auto one = [&](const SqlSpan& span) { return span.present() && s.text(span) == "1"; };
  if ((one(s.where) && !s.having.present()) || (one(s.having) && !s.where.present()) || (one(s.where) && one(s.having)))
    return true;
  return minimal.is_object() && minimal.contains("right") && minimal["right"].is_string() &&
         minimal["right"].get_ref<const std::string&>().find(" NOT ( 1 )") != std::string::npos;
}

// A number rounded or a FLOAT printed with fewer digits on one side is a
// prefix of the other by chance: "[truncated]" says nothing more of them.
bool NumericFamily(const std::set<std::string>& kept) {
  return kept.count("rounding") || kept.count("FLOAT column");
}

// The columns the data of a minimal query defines (oracle/data_snapshot.h),
// by name, with the first word of their type ("float", "date", ...).
std::map<std::string, std::string> ColumnTypes(const nlohmann::json& minimal) {
  static const std::regex kColumn(R"(^\s*`((?:[^`]|``)+)` (\w+))");
  std::map<std::string, std::string> types;
  if (!minimal.is_object() || !minimal.contains("data") || !minimal["data"].is_object()) return types;
  for (const auto& statement : minimal["data"].value("statements", nlohmann::json::array())) {
    const std::string& text = statement.get_ref<const std::string&>();
    if (text.rfind("CREATE", 0) != 0) continue;
    for (size_t begin = 0, end; begin < text.size(); begin = end + 1) {
      end = std::min(text.find('\n', begin), text.size());
      std::smatch m;
      const std::string line = text.substr(begin, end - begin);
      if (!std::regex_search(line, m, kColumn)) continue;
      std::string name = m[1].str(), type = m[2].str();
      for (size_t at = 0; (at = name.find("``", at)) != std::string::npos; ++at) name.erase(at, 1);
      std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
      types[name] = type;
    }
  }
  return types;
}

// Whether the query names a column whose type is one of `wanted`.
bool ReadsColumnOf(const SqlShape& shape, const std::map<std::string, std::string>& types,
                   const std::set<std::string>& wanted) {
  for (const SqlToken& t : shape.tokens()) {
    if (t.kind != SqlToken::kWord && t.kind != SqlToken::kQuotedName) continue;
    const auto it = types.find(shape.Name(t));
    if (it != types.end() && wanted.count(it->second)) return true;
  }
  return false;
}

// The numbers of rows a side has only (minimal.only_in: "('1.5', NULL)").
std::vector<std::string> Numbers(const nlohmann::json& rows) {
  static const std::regex kNumber(R"('(-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)')");
  std::vector<std::string> out;
  if (!rows.is_array()) return out;
  for (const auto& row : rows) {
    if (!row.is_string()) continue;
    const std::string& text = row.get_ref<const std::string&>();
    for (std::sregex_iterator it(text.begin(), text.end(), kNumber), end; it != end; ++it) out.push_back((*it)[1]);
  }
  return out;
}

// What the differing values of a minimal query look like, when that says
// more than the calls that made them: " [clipped]" when one side has a
// DECIMAL's largest value (15 nines and more) that the other lacks, or a
// smaller type's (99.9999) where the other has a number past it: a value past
// its column's type cut to the type's largest (docs/findings.md item 14);
// " [10^17]" when a value became 10^17 on one side only (a number's integer
// part cut so once materialized, item 5); " [infinity as 0]" when one side has 0 where the other has a DOUBLE past
// the largest finite one, an overflow sent as 0 (item 15); " [negative zero]"
// when the sides differ only in the sign of zeros.
std::string ValueTag(const nlohmann::json& minimal) {
  if (!minimal.is_object() || !minimal.contains("only_in") || !minimal["only_in"].is_object()) return "";
  const auto left = Numbers(minimal["only_in"].value("left", nlohmann::json())),
             right = Numbers(minimal["only_in"].value("right", nlohmann::json()));
  if (left.empty() || right.empty()) return "";
  static const std::regex kLargest(R"(-?9{15,}(\.9+)?)"), kZero(R"(-?0(\.0+)?)"),
      kTenToThe17(R"(-?100000000000000000(\.0+)?)");
  const auto has = [](const std::vector<std::string>& v, const std::regex& r) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return std::regex_match(x, r); });
  };
  const auto huge = [](const std::vector<std::string>& v) {
    return std::any_of(v.begin(), v.end(), [](const std::string& x) { return std::fabs(std::strtod(x.c_str(), nullptr)) >= 1e308; });
  };
  // A small DECIMAL's largest (99.9999 of DECIMAL(6,4)) tells less than 15
  // nines do: it counts where the other side has a number past it.
  static const std::regex kNines(R"(-?9+\.9+)");
  const auto cut_below = [&](const std::vector<std::string>& cut, const std::vector<std::string>& other) {
    return std::any_of(cut.begin(), cut.end(), [&](const std::string& x) {
      return std::regex_match(x, kNines) && std::any_of(other.begin(), other.end(), [&](const std::string& y) {
               return std::fabs(std::strtod(y.c_str(), nullptr)) > std::fabs(std::strtod(x.c_str(), nullptr));
             });
    });
  };
  if (has(left, kLargest) != has(right, kLargest) || cut_below(left, right) || cut_below(right, left))
    return " [clipped]";
  if (has(left, kTenToThe17) != has(right, kTenToThe17)) return " [10^17]";
  if ((has(left, kZero) && huge(right)) || (has(right, kZero) && huge(left))) return " [infinity as 0]";
  const auto unsigned_zeros = [&](std::vector<std::string> v) {
    for (std::string& x : v)
      if (std::regex_match(x, kZero) && x[0] == '-') x.erase(0, 1);
    std::sort(v.begin(), v.end());
    return v;
  };
  if (left != right && unsigned_zeros(left) == unsigned_zeros(right)) return " [negative zero]";
  return "";
}

// `sql` with the select list of each ALL/ANY/SOME subquery as NULL: what it
// calls there only made the values compared (item 11's NULL came from
// JSON_VALUE('{}', '$') and UNHEX('NULL') in a hunt); the comparison is the
// cause. A call in the subquery's WHERE, or beside the comparison, stays, and
// so does a family (a DATE there converts what it is compared with, item 6).
std::string WithoutAllAnyValues(const std::string& sql) {
  const SqlShape s(sql);
  const std::vector<SqlToken>& t = s.tokens();
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (!(s.Is(i, "ALL") || s.Is(i, "ANY") || s.Is(i, "SOME")) || s.text(t[i + 1]) != "(" || !s.Is(i + 2, "SELECT"))
      continue;
    const int depth = t[i + 2].depth;  // the subquery's closing parenthesis is outside it
    size_t end = i + 3;
    while (end < t.size() && t[end].depth >= depth && !(t[end].depth == depth && s.Is(end, "FROM"))) ++end;
    const size_t stop = end < t.size() ? t[end].begin : sql.size();
    out += sql.substr(copied, t[i + 3].begin - copied) + "NULL ";
    copied = stop;
    i = end > i ? end - 1 : i;
  }
  return out + sql.substr(copied);
}

// The LIMIT relation failed (its signature's family: "limit: SELECT ..."):
// the LIMIT's rows were not among the query's rows without it, or not as
// many as LIMIT n OFFSET m leaves. The cause is in how the LIMIT is applied,
// which an OFFSET, DISTINCT, GROUP BY and ORDER BY change; the functions only
// made the values (item 25: a DISTINCT constant keeps its row past OFFSET).
std::string LimitKey(const std::string& sql) {
  const SqlShape s(sql);
  const std::string limit(s.limit.present() ? s.text(s.limit) : "");
  std::string key = "metamorphic: LIMIT";
  if (std::regex_search(limit, std::regex(R"(\bOFFSET\b|,)", std::regex::icase))) key += " OFFSET";
  if (s.distinct()) key += " DISTINCT";
  if (s.group_by.present()) key += " GROUP BY";
  if (s.order_by.present()) key += " ORDER BY";
  return key;
}

std::string WrongResultKey(const nlohmann::json& f) {
  const nlohmann::json& minimal = f.contains("minimal") ? f["minimal"] : nlohmann::json();
  const std::string sql = minimal.is_object() ? minimal.value("sql", f.value("statement", ""))
                                              : f.value("statement", "");
  if (std::regex_search(f.value("signature", ""), std::regex(R"(^limit[ :])"))) return LimitKey(sql);
  std::set<std::string> calls, operators;
  const std::vector<std::string> beside = SqlShape(WithoutAllAnyValues(sql)).Constructs();
  for (const std::string& c : SqlShape(sql).Constructs()) {
    const bool call = c.size() > 2 && c.compare(c.size() - 2, 2, "()") == 0;
    const std::string name = call ? c.substr(0, c.size() - 2) : c;
    const std::string family = CallFamily(name);
    if (kConversions.count(name)) continue;
    // A family counts wherever it is: a DATE compared by ALL/ANY is a temporal conversion.
    if (!family.empty()) calls.insert(family);
    else if (std::find(beside.begin(), beside.end(), c) == beside.end()) continue;
    else if (call || kTypes.count(name)) calls.insert(name);
    else if (kOperators.count(name)) operators.insert(OperatorFamily(name));
  }
  // A family says more than any other call beside it: the rest is usually
  // where a value came from. Of two, the one a value goes through last.
  bool family = false;
  for (const char* name : {"rounding", "JSON building", "temporal"})
    if (calls.count(name)) {
      calls = {name};
      family = true;
      break;
    }
  const auto columns = ColumnTypes(minimal);
  std::string kind = f.value("kind", "");
  if (kind == "tlp" && TrivialCondition(SqlShape(sql), minimal)) kind = "metamorphic";
  // A FLOAT is sent with 6 digits but kept with more where a value is
  // materialized or converted (docs/findings.md item 5b), whatever function
  // carries it: a rewrite's cause (how a condition is evaluated is not a
  // FLOAT's). A NOT NULL DATE's zero date is NULL to IS NULL in a WHERE
  // (documented, for ODBC) but no NULL as a value: temporal, as item 6.
  if (!family && kind != "tlp" && kind != "norec" && ReadsColumnOf(SqlShape(sql), columns, {"float"}))
    calls = {"FLOAT column"};
  if (calls.empty() && operators.count("IS") && ReadsColumnOf(SqlShape(sql), columns, {"date", "datetime"}))
    calls = {"temporal"};
  // A clipped or negative zero value is the cause, whatever computed it.
  const std::string value_tag = ValueTag(minimal);
  if (!value_tag.empty()) calls = operators = {};
  // An ALL/ANY comparison says more than the operators around it (item 11's
  // NULL, under NOT or beside a bit operator, is one cause).
  if (operators.count("ALL/ANY")) operators = {"ALL/ANY", "subquery"};
  const std::set<std::string>& kept = calls.empty() ? operators : calls;
  // TLP and NoREC both check how a WHERE is evaluated: one cause shows in
  // both. (TLP on a condition of 1 compares the query with itself through a
  // UNION ALL, a rewrite like the transforms': its cause is theirs, above.)
  if (kind == "tlp" || kind == "norec") kind = "tlp/norec";
  std::string key = kind + (NumericFamily(kept) || !value_tag.empty() ? value_tag : Tags(f.value("signature", ""))) + ":";
  for (const std::string& c : kept) key += " " + c;
  return key;
}

// A frame's function without its arguments, offset or address:
// "Item_func::val_int(String*) const+0x1a" -> "Item_func::val_int".
std::string FrameName(const std::string& frame) {
  static const std::regex kAddress(R"(\s*(\+0x[0-9a-f]+|\[0x[0-9a-f]+\]|0x[0-9a-f]+))");
  std::string f = std::regex_replace(frame, kAddress, "");
  // The argument list: the last '(' at depth 0 that is not "(anonymous namespace)".
  int depth = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '(' && depth == 0 && f.compare(i, 21, "(anonymous namespace)") != 0) return f.substr(0, i);
    if (f[i] == '(') ++depth;
    if (f[i] == ')') --depth;
  }
  return f;
}

// libc's own functions (memcpy's variants, __strlen_avx2): not where a bug is.
bool LibcFrame(const std::string& name) {
  static const std::regex kLibc(R"(^(__\w+|mem(cpy|move|set|cmp)\w*|str\w+|(_IO_|_dl_)\w+|(malloc|free|calloc|realloc)\w*)$)");
  return name.empty() || std::regex_match(name, kLibc);
}

std::string CrashKey(const nlohmann::json& f) {
  const nlohmann::json& crash = f.contains("crash") ? f["crash"] : f.value("evidence", nlohmann::json::object()).value("crash", nlohmann::json());
  if (!crash.is_object()) return f.value("signature", "");
  if (const std::string assertion = crash.value("assertion", ""); !assertion.empty())
    return "crash: assertion: " + assertion;
  std::string key = "crash: signal " + std::to_string(crash.value("signal", 0)) + ":";
  int kept = 0;
  std::string last;
  for (const auto& frame : crash.value("frames", nlohmann::json::array())) {
    const std::string name = FrameName(frame.get<std::string>());
    // A recursion's depth depends on the query, not on the bug.
    if (LibcFrame(name) || name == last) continue;
    last = name;
    key += (kept ? " | " : " ") + name;
    if (++kept == 3) break;
  }
  return kept ? key : f.value("signature", "");
}

}  // namespace

std::string RootCauseKey(const nlohmann::json& finding) {
  const std::string kind = finding.value("kind", "");
  if (kWrongResults.count(kind)) return WrongResultKey(finding);
  if (kind == "crash") return CrashKey(finding);
  return finding.value("signature", "");
}

}  // namespace gauntlet
