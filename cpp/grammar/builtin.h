// The built-in tokens of RQG's grammar language, plus our distributions.
//
// ResolveBuiltin maps a token as written (`_table`, `_varchar(32)`,
// `_int_unsigned`, `_english`, `_pareto(1, 1000)`) to a Builtin value that the
// generator evaluates. The table of names lives in builtin.cc.
#ifndef GAUNTLET_GRAMMAR_BUILTIN_H_
#define GAUNTLET_GRAMMAR_BUILTIN_H_

#include <optional>
#include <string>
#include <vector>

namespace gauntlet {

// The value families of `_expr(TYPE)`, which the query builder builds by.
enum class SqlType : uint8_t {
  kAny, kBool, kInt, kDecimal, kReal, kString, kBinary, kDate, kTime, kDatetime, kJson,
  kInet6, kUuid, kGeometry, kCount
};
const char* SqlTypeName(SqlType t);  // "int", "decimal", ...
// What `_query(FOCUS)` leans towards.
enum class QueryFocus : uint8_t { kGeneral, kWindow, kJson, kTemporal, kAggregate, kJoin, kCount };
const char* QueryFocusName(QueryFocus f);  // "general", "window", ...

enum class BuiltinKind : uint8_t {
  // Schema: names come from the Schema, backquoted like RQG does.
  kTable, kBaseTable, kView, kDatabase,
  kField, kFieldList, kFieldCount, kFieldNext, kFieldPk, kFieldNoPk,
  kFieldIndexed, kFieldUnindexed, kFieldInt, kFieldIntIndexed, kFieldChar,
  kFieldCharIndexed,
  kCollation, kCollationName, kCharset, kCharsetName,
  // Environment of the worker.
  kCwd, kTmpnam, kTmptable, kUnixTimestamp, kPid, kThreadId, kConnectionId,
  kCurrentUser, kThreadCount,
  // Values.
  kDigit, kPositiveDigit, kLetter, kHex, kBlob, kInteger, kDecimal, kFloat,
  kDouble, kString, kText, kDate, kTime, kDatetime, kTimestamp, kYear, kEnum,
  kSet, kBit, kNull, kEmpty, kQuid, kJson, kJsonPath, kJsonKey, kJsonValue,
  kJsonPair, kJsonArray, kJsonObject, kDictionary,
  // Our value distributions (sysbench's): integers in [lo, hi].
  kUniform, kGaussian, kPareto, kZipf,
  // The query builder (generate/query_builder.h): `a` holds the SqlType of
  // `_expr(TYPE)` or the QueryFocus of `_query(FOCUS)`.
  kQuery, kPredicate, kExpr, kDml, kDdl, kSetting,
};

struct Builtin {
  BuiltinKind kind;
  bool quoted = false;   // wrap the value in quotes as RQG does
  // Integer ranges, string lengths, decimal precision/scale, distribution
  // parameters, or the dictionary number; meaning depends on `kind`.
  double a = 0, b = 0, c = 0;
  bool has_a = false;
  std::string name;      // the token as written, for messages
  int max_args = 0;      // how many `(a, b, c)` arguments it takes
};

// Returns nullopt when `name` (with its arguments) is not a built-in.
// Throws InvalidInput-free std::invalid_argument for bad arguments, with a
// message the caller places at the token.
// `word` is a name given as the argument (`_expr(int)`), or "".
std::optional<Builtin> ResolveBuiltin(const std::string& name,
                                      const std::vector<double>& args,
                                      bool has_args, const std::string& word = "");

}  // namespace gauntlet

#endif  // GAUNTLET_GRAMMAR_BUILTIN_H_
