#include "grammar/builtin.h"

#include <cmath>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

namespace gauntlet {
namespace {

using K = BuiltinKind;

struct Entry {
  K kind;
  bool quoted;
  double a, b, c;     // defaults for the arguments
  int max_args;       // how many `(N, M, ...)` arguments it takes
};

const char* const kTypeNames[] = {"any", "bool", "int", "decimal", "real", "string", "binary", "date",
                                  "time", "datetime", "json", "inet6", "uuid", "geometry"};
const char* const kFocusNames[] = {"general", "window", "json", "temporal", "aggregate", "join"};
static_assert(std::size(kTypeNames) == static_cast<size_t>(SqlType::kCount));
static_assert(std::size(kFocusNames) == static_cast<size_t>(QueryFocus::kCount));

// The index of `word` among `names` (a `_expr(TYPE)` or `_query(FOCUS)`
// argument), or an error listing the names there are.
template <size_t N>
double NamedArgument(const char* const (&names)[N], const std::string& word, const std::string& token,
                     const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (word == names[i]) return static_cast<double>(i);
  std::string known;
  for (size_t i = 0; i < N; ++i) known += std::string(i ? ", " : "") + names[i];
  throw std::invalid_argument(token + ": unknown " + what + " '" + word + "' (known: " + known + ")");
}

// Name without the leading underscore -> entry. Quoting follows RQG: numbers
// and blobs bare, every other value type in quotes.
const std::unordered_map<std::string, Entry>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, Entry>{
        {"table", {K::kTable, false, 0, 0, 0, 0}},
        {"basetable", {K::kBaseTable, false, 0, 0, 0, 0}},
        {"view", {K::kView, false, 0, 0, 0, 0}},
        {"database", {K::kDatabase, false, 0, 0, 0, 0}},
        {"db", {K::kDatabase, false, 0, 0, 0, 0}},
        {"schema", {K::kDatabase, false, 0, 0, 0, 0}},
        {"field", {K::kField, false, 0, 0, 0, 0}},
        {"field_list", {K::kFieldList, false, 0, 0, 0, 0}},
        {"field_count", {K::kFieldCount, false, 0, 0, 0, 0}},
        {"field_next", {K::kFieldNext, false, 0, 0, 0, 0}},
        {"field_pk", {K::kFieldPk, false, 0, 0, 0, 0}},
        {"field_no_pk", {K::kFieldNoPk, false, 0, 0, 0, 0}},
        {"field_indexed", {K::kFieldIndexed, false, 0, 0, 0, 0}},
        {"field_key", {K::kFieldIndexed, false, 0, 0, 0, 0}},
        {"field_unindexed", {K::kFieldUnindexed, false, 0, 0, 0, 0}},
        {"field_nokey", {K::kFieldUnindexed, false, 0, 0, 0, 0}},
        {"field_int", {K::kFieldInt, false, 0, 0, 0, 0}},
        {"field_int_indexed", {K::kFieldIntIndexed, false, 0, 0, 0, 0}},
        {"field_int_key", {K::kFieldIntIndexed, false, 0, 0, 0, 0}},
        {"field_char", {K::kFieldChar, false, 0, 0, 0, 0}},
        {"field_char_indexed", {K::kFieldCharIndexed, false, 0, 0, 0, 0}},
        {"field_char_key", {K::kFieldCharIndexed, false, 0, 0, 0, 0}},
        {"collation", {K::kCollation, false, 0, 0, 0, 0}},
        {"collation_name", {K::kCollationName, false, 0, 0, 0, 0}},
        {"charset", {K::kCharset, false, 0, 0, 0, 0}},
        {"charset_name", {K::kCharsetName, false, 0, 0, 0, 0}},
        {"cwd", {K::kCwd, false, 0, 0, 0, 0}},
        {"tmpnam", {K::kTmpnam, false, 0, 0, 0, 0}},
        {"tmpfile", {K::kTmpnam, false, 0, 0, 0, 0}},
        {"tmptable", {K::kTmptable, false, 0, 0, 0, 0}},
        {"unix_timestamp", {K::kUnixTimestamp, false, 0, 0, 0, 0}},
        {"pid", {K::kPid, false, 0, 0, 0, 0}},
        {"thread_id", {K::kThreadId, false, 0, 0, 0, 0}},
        {"connection_id", {K::kConnectionId, false, 0, 0, 0, 0}},
        {"current_user", {K::kCurrentUser, false, 0, 0, 0, 0}},
        {"thread_count", {K::kThreadCount, false, 0, 0, 0, 0}},
        {"digit", {K::kDigit, false, 0, 0, 0, 0}},
        {"positive_digit", {K::kPositiveDigit, false, 0, 0, 0, 0}},
        {"letter", {K::kLetter, false, 0, 0, 0, 0}},
        {"hex", {K::kHex, false, 4, 0, 0, 1}},
        {"bool", {K::kInteger, false, 0, 1, 0, 0}},
        {"boolean", {K::kInteger, false, 0, 1, 0, 0}},
        {"decimal", {K::kDecimal, false, 10, 0, 0, 2}},
        {"dec", {K::kDecimal, false, 10, 0, 0, 2}},
        {"numeric", {K::kDecimal, false, 10, 0, 0, 2}},
        {"fixed", {K::kDecimal, false, 10, 0, 0, 2}},
        {"float", {K::kFloat, true, 0, 0, 0, 0}},
        {"double", {K::kDouble, true, 0, 0, 0, 0}},
        {"char", {K::kString, true, 1, 0, 0, 1}},
        {"varchar", {K::kString, true, 1, 0, 0, 1}},
        {"string", {K::kString, true, 1, 0, 0, 1}},
        {"ascii", {K::kString, true, 1, 0, 0, 1}},
        {"tinytext", {K::kText, true, 255, 0, 0, 1}},
        {"text", {K::kText, true, 255, 0, 0, 1}},
        {"mediumtext", {K::kText, true, 255, 0, 0, 1}},
        {"longtext", {K::kText, true, 255, 0, 0, 1}},
        {"data", {K::kBlob, false, 0, 0, 0, 0}},
        {"binary", {K::kBlob, false, 0, 0, 0, 1}},
        {"varbinary", {K::kBlob, false, 0, 0, 0, 1}},
        {"tinyblob", {K::kBlob, false, 0, 0, 0, 1}},
        {"blob", {K::kBlob, false, 0, 0, 0, 1}},
        {"mediumblob", {K::kBlob, false, 0, 0, 0, 1}},
        {"longblob", {K::kBlob, false, 0, 0, 0, 1}},
        {"date", {K::kDate, true, 0, 0, 0, 0}},
        {"time", {K::kTime, true, 0, 0, 0, 0}},
        {"datetime", {K::kDatetime, true, 0, 0, 0, 0}},
        {"timestamp", {K::kTimestamp, true, 0, 0, 0, 0}},
        {"year", {K::kYear, true, 0, 0, 0, 0}},
        {"enum", {K::kEnum, true, 0, 0, 0, 0}},
        {"set", {K::kSet, true, 0, 0, 0, 0}},
        {"bit", {K::kBit, false, 1, 0, 0, 1}},
        {"null", {K::kNull, false, 0, 0, 0, 0}},
        {"empty", {K::kEmpty, false, 0, 0, 0, 0}},
        {"quid", {K::kQuid, true, 0, 0, 0, 0}},
        {"json", {K::kJson, true, -1, 0, 0, 1}},
        {"jsonpath", {K::kJsonPath, true, 0, 0, 0, 0}},
        {"jsonkey", {K::kJsonKey, true, 0, 0, 0, 0}},
        {"jsonvalue", {K::kJsonValue, true, 0, 0, 0, 0}},
        {"jsonpair", {K::kJsonPair, true, 0, 0, 0, 0}},
        {"jsonarray", {K::kJsonArray, true, 0, 0, 0, 0}},
        {"jsonobject", {K::kJsonObject, true, 0, 0, 0, 0}},
        {"english", {K::kDictionary, true, 0, 0, 0, 0}},
        {"english_short", {K::kDictionary, true, 1, 0, 0, 0}},
        {"states", {K::kDictionary, true, 2, 0, 0, 0}},
        {"uniform", {K::kUniform, false, 1, 100, 0, 2}},
        {"gaussian", {K::kGaussian, false, 1, 100, 0, 2}},
        {"pareto", {K::kPareto, false, 1, 100, 0.2, 3}},
        {"zipf", {K::kZipf, false, 1, 100, 0.8, 3}},
        {"query", {K::kQuery, false, 0, 0, 0, 0}},
        {"predicate", {K::kPredicate, false, 0, 0, 0, 0}},
        {"expr", {K::kExpr, false, 0, 0, 0, 0}},
        {"dml", {K::kDml, false, 0, 0, 0, 0}},
        {"ddl", {K::kDdl, false, 0, 0, 0, 0}},
        {"setting", {K::kSetting, false, 0, 0, 0, 0}},
    };
    // Integer types: signed, _unsigned and _positive ranges, as MySQL's.
    const struct {
      const char* name;
      double lo, hi, uhi;
    } ints[] = {
        {"tinyint", -128, 127, 255},
        {"smallint", -32768, 32767, 65535},
        {"mediumint", -8388608, 8388607, 16777215},
        {"int", -2147483648.0, 2147483647.0, 4294967295.0},
        {"integer", -2147483648.0, 2147483647.0, 4294967295.0},
        {"bigint", -9223372036854775808.0, 9223372036854775807.0,
         18446744073709551615.0},
    };
    for (const auto& i : ints) {
      (*t)[i.name] = {K::kInteger, false, i.lo, i.hi, 0, 0};
      (*t)[std::string(i.name) + "_unsigned"] = {K::kInteger, false, 0, i.uhi, 0, 0};
      (*t)[std::string(i.name) + "_positive"] = {K::kInteger, false, 1, i.uhi, 0, 0};
    }
    return t;
  }();
  return *table;
}

}  // namespace

const char* SqlTypeName(SqlType t) { return kTypeNames[static_cast<int>(t)]; }

const char* QueryFocusName(QueryFocus f) { return kFocusNames[static_cast<int>(f)]; }

std::optional<Builtin> ResolveBuiltin(const std::string& name,
                                      const std::vector<double>& args,
                                      bool has_args, const std::string& word) {
  std::string key;
  if (!name.empty() && name[0] == '_') {
    key = name.substr(1);
  } else if (name == "digit" || name == "letter" || name == "tmpnam") {
    key = name;  // RQG accepts these three without the underscore
  } else {
    return std::nullopt;
  }
  auto it = Table().find(key);
  if (it == Table().end()) return std::nullopt;
  const Entry& e = it->second;
  if (has_args && static_cast<int>(args.size()) > e.max_args) {
    throw std::invalid_argument(name + " takes at most " +
                                std::to_string(e.max_args) + " argument(s)");
  }
  Builtin b{e.kind, e.quoted, e.a, e.b, e.c, false, name, e.max_args};
  if (args.size() > 0) { b.a = args[0]; b.has_a = true; }
  if (args.size() > 1) b.b = args[1];
  if (args.size() > 2) b.c = args[2];
  if (!word.empty()) {
    if (b.kind == K::kExpr) b.a = NamedArgument(kTypeNames, word, name, "type");
    else if (b.kind == K::kQuery) b.a = NamedArgument(kFocusNames, word, name, "focus");
    else throw std::invalid_argument(name + " takes no name as its argument");
    b.name += "(" + word + ")";
  }
  switch (b.kind) {
    case K::kUniform: case K::kGaussian: case K::kPareto: case K::kZipf:
      if (has_args && args.size() < 2)
        throw std::invalid_argument(name + " needs a lower and an upper bound: " + name + "(lo, hi)");
      if (b.a > b.b) throw std::invalid_argument(name + ": lower bound above upper bound");
      if (b.kind == K::kPareto && !(b.c > 0 && b.c < 1))
        throw std::invalid_argument(name + ": the Pareto parameter h must be in (0, 1)");
      if (b.kind == K::kZipf && !(b.c > 0))
        throw std::invalid_argument(name + ": the Zipf exponent must be positive");
      break;
    case K::kDecimal:
      if (b.a < 1 || b.a > 65 || b.b < 0 || b.b > b.a)
        throw std::invalid_argument(name + ": precision must be 1..65 and scale 0..precision");
      break;
    case K::kString: case K::kText: case K::kHex: case K::kBit:
      if (b.a < 0 || b.a != std::floor(b.a))
        throw std::invalid_argument(name + ": the length must be a whole number >= 0");
      break;
    default:
      break;
  }
  return b;
}

}  // namespace gauntlet
