#include "oracle/root_cause_key.h"

#include <algorithm>
#include <regex>
#include <set>

#include "oracle/sql_shape.h"

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

// The query reads a FLOAT column, by the definitions of the data its minimal
// form came with (oracle/data_snapshot.h): a FLOAT is sent with 6 digits but
// kept with more where a value is materialized or converted (docs/findings.md
// item 5b), whatever function carries it.
bool ReadsFloatColumn(const SqlShape& shape, const nlohmann::json& minimal) {
  static const std::regex kFloatColumn(R"(^\s*`((?:[^`]|``)+)` float\b)", std::regex::icase);
  std::set<std::string> floats;
  if (!minimal.is_object() || !minimal.contains("data") || !minimal["data"].is_object()) return false;
  for (const auto& statement : minimal["data"].value("statements", nlohmann::json::array())) {
    const std::string& text = statement.get_ref<const std::string&>();
    if (text.rfind("CREATE", 0) != 0) continue;
    for (size_t begin = 0, end; begin < text.size(); begin = end + 1) {
      end = std::min(text.find('\n', begin), text.size());
      std::smatch m;
      const std::string line = text.substr(begin, end - begin);
      if (!std::regex_search(line, m, kFloatColumn)) continue;
      std::string name = m[1].str();
      for (size_t at = 0; (at = name.find("``", at)) != std::string::npos; ++at) name.erase(at, 1);
      floats.insert(name);
    }
  }
  for (const SqlToken& t : shape.tokens())
    if ((t.kind == SqlToken::kWord || t.kind == SqlToken::kQuotedName) && floats.count(shape.Name(t))) return true;
  return false;
}

std::string WrongResultKey(const nlohmann::json& f) {
  const nlohmann::json& minimal = f.contains("minimal") ? f["minimal"] : nlohmann::json();
  const std::string sql = minimal.is_object() ? minimal.value("sql", f.value("statement", ""))
                                              : f.value("statement", "");
  std::set<std::string> calls, operators;
  for (const std::string& c : SqlShape(sql).Constructs()) {
    const bool call = c.size() > 2 && c.compare(c.size() - 2, 2, "()") == 0;
    const std::string name = call ? c.substr(0, c.size() - 2) : c;
    const std::string family = CallFamily(name);
    if (kConversions.count(name)) continue;
    if (!family.empty()) calls.insert(family);
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
  if (!family && ReadsFloatColumn(SqlShape(sql), minimal)) calls = {"FLOAT column"};
  const std::set<std::string>& kept = calls.empty() ? operators : calls;
  // TLP and NoREC both check how a WHERE is evaluated: one cause shows in
  // both. But TLP on a condition of 1 compares the query with itself through
  // a UNION ALL, a rewrite like the transforms': its cause is theirs.
  std::string kind = f.value("kind", "");
  if (kind == "tlp" && TrivialCondition(SqlShape(sql), minimal)) kind = "metamorphic";
  if (kind == "tlp" || kind == "norec") kind = "tlp/norec";
  std::string key = kind + (NumericFamily(kept) ? "" : Tags(f.value("signature", ""))) + ":";
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
  for (const auto& frame : crash.value("frames", nlohmann::json::array())) {
    const std::string name = FrameName(frame.get<std::string>());
    if (LibcFrame(name)) continue;
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
