#include "generate/query_builder.h"

#include "generate/query_builder_parts.h"

// QueryBuilder's expressions and conditions.

namespace gauntlet {

using namespace builder;  // NOLINT(build/namespaces): the builder's own helpers

namespace {

// Edge values per family: zero, signs, bounds and just past them, fractions,
// empty and padded strings, case and accent variants, zero and invalid dates.
const char* const kInts[] = {"0", "1", "-1", "2", "127", "-128", "255", "256", "32767", "-32768", "65535",
                             "2147483647", "-2147483648", "4294967295", "9223372036854775807",
                             "-9223372036854775808", "18446744073709551615", "3", "10", "100"};
const char* const kDecimals[] = {"0.0", "0.5", "-0.5", "1.5", "-1.5", "-0.00", "0.000001", "99999.99999",
                                 "1.0000000000000000000000000001", "12345678901234567890.12345678", "0.1",
                                 "-9999999999.9999999999"};
const char* const kReals[] = {"0e0", "-0e0", "1e0", "1.5e0", "-2.5e0", "1e308", "-1e308",
                              "2.2250738585072014e-308", "1.7976931348623157e308", "0.1e0", "3.4028234e38",
                              "1e-7"};
const char* const kStrings[] = {"''", "' '", "'a'", "'A'", "'a '", "'\xc3\xa4'", "'\xc3\x84'", "'abc'", "'ABC'",
                                "'0'", "'1'", "'-1'", "'1e3'", "'0x10'", "' 1'", "'1a'", "'2000-01-01'",
                                "'12:30:00'", "'{\"a\": 1}'", "'%'", "'_'", "'NULL'", "_latin1 X'E9'",
                                "_utf8mb4'\xc3\x9f'", "'z'", "'ab'"};
const char* const kBinaries[] = {"X''", "X'00'", "X'FF'", "0x61", "b'1'", "b'11111111'", "_binary'abc'",
                                 "_binary'A '", "X'0000'", "X'61'"};
const char* const kDates[] = {"DATE'2000-01-01'", "'0000-00-00'", "DATE'9999-12-31'", "DATE'1000-01-01'",
                              "DATE'2000-02-29'", "DATE'1970-01-01'", "'2001-02-30'", "DATE'2038-01-19'",
                              "DATE'2024-06-15'"};
const char* const kTimes[] = {"TIME'00:00:00'", "TIME'838:59:59'", "TIME'-838:59:59'", "TIME'00:00:00.000001'",
                              "TIME'23:59:59.999999'", "TIME'12:00:00'", "'-00:00:01'", "TIME'24:00:00'"};
const char* const kDatetimes[] = {"TIMESTAMP'2000-01-01 00:00:00'", "TIMESTAMP'1970-01-01 00:00:01'",
                                  "TIMESTAMP'2038-01-19 03:14:07'", "TIMESTAMP'9999-12-31 23:59:59.999999'",
                                  "'0000-00-00 00:00:00'", "TIMESTAMP'2000-02-29 23:59:59.5'",
                                  "TIMESTAMP'1000-01-01 00:00:00'", "TIMESTAMP'2024-06-15 12:30:45.123'"};
const char* const kJsons[] = {"'{}'", "'[]'", "'null'", "'{\"a\": 1, \"b\": [1, 2]}'", "'[1, \"a\", null, true]'",
                              "'1.5'", "'\"x\"'", "'{\"a\": {\"b\": null}}'", "'[[1], [2, 3]]'"};
const char* const kInet6s[] = {"'::'", "'::1'", "'::ffff:1.2.3.4'", "'ffff::ffff'", "'2001:db8::1'"};
const char* const kUuids[] = {"'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
                              "'123e4567-e89b-12d3-a456-426655440000'"};
const char* const kGeometries[] = {"ST_GeomFromText('POINT(0 0)')", "POINT(1, 1)",
                                   "ST_GeomFromText('LINESTRING(0 0,1 1,2 0)')",
                                   "ST_GeomFromText('POLYGON((0 0,2 0,2 2,0 2,0 0))')"};
const char* const kJsonPaths[] = {"'$'", "'$.a'", "'$[0]'", "'$.b[1]'", "'$.a.b'", "'$[1]'"};

}  // namespace

// ---- expressions ------------------------------------------------------------

void QueryBuilder::Predicate(std::string& out, int table) {
  Reset();
  if (table >= 0) scope_.push_back(TableRel(table, ""));
  Cond(out, 0);
  scope_.clear();
}

void QueryBuilder::Expr(std::string& out, SqlType type, int table) {
  Reset();
  if (table >= 0) scope_.push_back(TableRel(table, ""));
  E(out, type == T::kAny ? kScalar[Below(std::size(kScalar))] : type, 0);
  scope_.clear();
}

SqlType QueryBuilder::Comparable(SqlType t) {
  if (IsRestricted(t) || Percent(65)) return t;
  return kScalar[Below(std::size(kScalar))];
}

bool QueryBuilder::ColumnRef(std::string& out, SqlType t, bool exact, SqlType* found) {
  if (groups_ != nullptr) {  // grouped: only the grouping expressions
    std::vector<const Col*> fit;
    for (const Col& g : *groups_)
      if (g.type == t || (!exact && !IsRestricted(g.type) && !IsRestricted(t))) fit.push_back(&g);
    if (fit.empty()) return false;
    const Col& g = *fit[Below(fit.size())];
    out += g.name;
    if (found) *found = g.type;
    return true;
  }
  // Columns of this family anywhere in scope; inner relations count twice.
  size_t count = 0;
  for (const Rel& r : scope_)
    for (const Col& c : r.cols)
      if (c.type == t || (!exact && !IsRestricted(c.type) && !IsRestricted(t))) ++count;
  if (count == 0) return false;
  size_t pick = Below(count);
  for (const Rel& r : scope_)
    for (const Col& c : r.cols)
      if (c.type == t || (!exact && !IsRestricted(c.type) && !IsRestricted(t))) {
        if (pick-- == 0) {
          if (!r.alias.empty()) out += Quote(r.alias) + ".";
          out += Quote(c.name);
          if (found) *found = c.type;
          return true;
        }
      }
  return false;
}

void QueryBuilder::Literal(std::string& out, SqlType t) {
  if (t != T::kBool && Percent(7)) {
    out += "NULL";
    return;
  }
  switch (t) {
    case T::kAny: return Literal(out, kScalar[Below(std::size(kScalar))]);
    case T::kBool: out += Pick({"TRUE", "FALSE", "NULL"}); return;
    case T::kInt:
      if (Percent(30)) out += std::to_string(Below(50));
      else out += Pick(kInts);
      return;
    case T::kDecimal: out += Pick(kDecimals); return;
    case T::kReal: out += Pick(kReals); return;
    case T::kString: out += Pick(kStrings); return;
    case T::kBinary: out += Pick(kBinaries); return;
    case T::kDate: out += Pick(kDates); return;
    case T::kTime: out += Pick(kTimes); return;
    case T::kDatetime: out += Pick(kDatetimes); return;
    case T::kJson: out += Pick(kJsons); return;
    case T::kInet6: out += Pick(kInet6s); return;
    case T::kUuid: out += Pick(kUuids); return;
    case T::kGeometry: out += Pick(kGeometries); return;
    case T::kCount: return;
  }
}

void QueryBuilder::Leaf(std::string& out, SqlType t) {
  if (t == T::kBool) return Cond(out, 3);
  if (Below(100) < 62 && (ColumnRef(out, t, true) || (Percent(40) && ColumnRef(out, t, false)))) return;
  Literal(out, t);
}

void QueryBuilder::Subquery(std::string& out, int depth, SqlType t, bool scalar) {
  const int table = PickTable();
  const auto* groups = groups_;
  const bool aggregates = aggregates_;
  groups_ = nullptr;
  aggregates_ = false;
  ++sub_depth_;
  Rel rel = TableRel(table, NewAlias('s'));
  const std::string from = " FROM " + Quote(schema_.tables()[table].name) + " AS " + rel.alias;
  // Under GROUP BY an outer column would have to be a grouping one (even
  // inside an aggregate): such a subquery is not correlated at all.
  std::vector<Rel> hidden;
  if (grouped_) hidden.swap(scope_);
  scope_.push_back(std::move(rel));
  out += "(SELECT ";
  if (scalar) {  // an aggregate: one row whatever the data
    // Of the inner relation only: an aggregate of outer columns would
    // aggregate the outer query.
    std::vector<Rel> outer(scope_.begin(), scope_.end() - 1);
    scope_.erase(scope_.begin(), scope_.end() - 1);
    out += Pick({"MIN(", "MAX(", "MAX(DISTINCT "});
    E(out, t, depth + 1);
    out += ")";
    scope_.insert(scope_.begin(), outer.begin(), outer.end());
  } else {
    if (Percent(20)) out += "DISTINCT ";
    E(out, t, depth + 1);
  }
  out += from;
  if (Percent(70)) {
    out += " WHERE ";
    Cond(out, depth + 1);
  }
  if (!scalar && Percent(10)) {
    out += " GROUP BY 1";
  }
  out += ")";
  scope_.pop_back();
  if (grouped_) scope_.swap(hidden);
  --sub_depth_;
  groups_ = groups;
  aggregates_ = aggregates;
}

void QueryBuilder::Cond(std::string& out, int depth) {
  const uint64_t k = depth >= 4 ? 0 : Below(depth >= 2 ? 6 : 16);
  switch (k) {
    case 0: case 1: case 2:
      return Compare(out, depth);
    case 3:
      out += "(";
      Cond(out, depth + 1);
      out += Pick({" AND ", " OR ", " XOR ", " AND ", " OR ", " && "});
      Cond(out, depth + 1);
      out += ")";
      return;
    case 4:
      out += "NOT (";
      Cond(out, depth + 1);
      out += ")";
      return;
    case 5: {
      const T t = Percent(20) ? Pick({T::kInet6, T::kUuid, T::kGeometry}) : kScalar[Below(std::size(kScalar))];
      E(out, t, depth + 1);
      out += Pick({" IS NULL", " IS NOT NULL"});
      return;
    }
    case 6:
      out += "(";
      Cond(out, depth + 1);
      out += Pick({") IS TRUE", ") IS NOT TRUE", ") IS FALSE", ") IS NOT FALSE", ") IS UNKNOWN", ") IS NOT UNKNOWN"});
      return;
    case 7: {
      const T t = kScalar[Below(std::size(kScalar))];
      E(out, t, depth + 1);
      out += Pick({" BETWEEN ", " NOT BETWEEN "});
      E(out, Comparable(t), depth + 1);
      out += " AND ";
      E(out, Comparable(t), depth + 1);
      return;
    }
    case 8: {
      const T t = kScalar[Below(std::size(kScalar))];
      E(out, t, depth + 1);
      out += Pick({" IN (", " NOT IN ("});
      const int n = static_cast<int>(1 + Below(4));
      for (int i = 0; i < n; ++i) {
        if (i) out += ", ";
        if (Percent(70)) Literal(out, Comparable(t));
        else E(out, Comparable(t), depth + 2);
      }
      out += ")";
      return;
    }
    case 9: case 10: {
      if (sub_depth_ >= 2 || !SubqueryAffordable()) return Compare(out, depth);
      const T t = kScalar[Below(std::size(kScalar))];
      const uint64_t form = Below(3);
      if (form == 0) {
        out += Pick({"EXISTS ", "NOT EXISTS "});
        Subquery(out, depth, t, false);
        return;
      }
      E(out, t, depth + 1);
      if (form == 1) out += Pick({" IN ", " NOT IN "});
      else {
        // Draws in statements of their own: the operands of + run in any order (GCC's and
        // Clang's differ), and the same seed must give the same SQL from every compiler.
        const char* quantifier = Pick({" ANY ", " ALL ", " SOME "});
        out += std::string(" ") + Pick({"=", "<>", "<", "<=", ">", ">="}) + quantifier;
      }
      Subquery(out, depth, Comparable(t), false);
      return;
    }
    case 11: {
      E(out, Pick({T::kString, T::kString, T::kInt, T::kDate}), depth + 1);
      out += Pick({" LIKE ", " NOT LIKE ", " LIKE ", " LIKE BINARY "});
      out += Pick({"'%'", "'a%'", "'%a'", "'_'", "'%\\_%'", "'A_C'", "''", "'%1%'", "'2000%'", "'\xc3\xa4%'"});
      if (Percent(15)) out += " ESCAPE '!'";
      return;
    }
    case 12: {
      E(out, T::kString, depth + 1);
      out += Pick({" REGEXP ", " NOT REGEXP ", " RLIKE "});
      out += Pick({"'^a'", "'b$'", "'[0-9]+'", "'^$'", "'(?i)ABC'", "'.'", "'^[[:space:]]'", "'a|b'"});
      return;
    }
    case 13:
      if (Percent(50)) {  // a number as a truth value
        E(out, Pick({T::kInt, T::kDecimal, T::kString}), depth + 1);
        return;
      }
      out += Pick({"ST_Contains(", "ST_Intersects(", "ST_Within(", "ST_Equals(", "ST_Disjoint("});
      E(out, T::kGeometry, depth + 2);
      out += ", ";
      E(out, T::kGeometry, depth + 2);
      out += ")";
      return;
    case 14:
      out += Pick({"JSON_CONTAINS(", "JSON_OVERLAPS("});
      E(out, T::kJson, depth + 1);
      out += ", ";
      E(out, T::kJson, depth + 1);
      out += ")";
      return;
    default:
      return Compare(out, depth);
  }
}

void QueryBuilder::Compare(std::string& out, int depth) {
  T t = Percent(8) ? Pick({T::kInet6, T::kUuid}) : kScalar[Below(std::size(kScalar))];
  E(out, t, depth + 1);
  out += ' ';
  out += Pick(kCompare);
  out += ' ';
  // INET6 and UUID compare with their own type or a string literal only.
  if (IsRestricted(t) && Percent(40)) return Literal(out, t);
  E(out, t == T::kInet6 || t == T::kUuid ? t : Comparable(t), depth + 1);
}

// An expression of family `t`. Alternative 0 is a leaf, the simplest.
void QueryBuilder::E(std::string& out, SqlType t, int depth) {
  if (t == T::kBool) return Cond(out, depth);
  const uint64_t k = depth >= 3 ? 0 : Below(depth >= 2 ? 4 : 10);
  if (k <= 2) return Leaf(out, t);
  if (k == 3 && !IsRestricted(t)) return ControlFlow(out, t, depth);
  const T any = kScalar[Below(std::size(kScalar))];
  switch (t) {
    case T::kInt: return IntExpr(out, any, depth);
    case T::kDecimal: return DecimalExpr(out, any, depth);
    case T::kReal: return RealExpr(out, any, depth);
    case T::kString: return StringExpr(out, any, depth);
    case T::kBinary: return BinaryExpr(out, any, depth);
    case T::kDate: return DateExpr(out, any, depth);
    case T::kTime: return TimeExpr(out, any, depth);
    case T::kDatetime: return DatetimeExpr(out, any, depth);
    case T::kJson: return JsonExpr(out, any, depth);
    case T::kInet6:
      out += "CAST(";
      Literal(out, T::kInet6);
      out += " AS INET6)";
      return;
    case T::kUuid:
      out += "CAST(";
      Literal(out, T::kUuid);
      out += " AS UUID)";
      return;
    case T::kGeometry:
      if (Percent(30)) return Call(out, "POINT", {T::kInt, T::kReal}, depth);
      return Call(out, Pick({"ST_Centroid", "ST_Envelope", "ST_Boundary", "ST_ConvexHull"}),
                 {T::kGeometry}, depth);
    default:
      return Leaf(out, t);
  }
}

void QueryBuilder::Call(std::string& out, const char* f, std::initializer_list<SqlType> args, int depth) {
  out += f;
  out += '(';
  bool first = true;
  for (T a : args) {
    if (!first) out += ", ";
    first = false;
    E(out, a, depth + 1);
  }
  out += ')';
}

void QueryBuilder::CastTo(std::string& out, SqlType from, std::initializer_list<const char*> to, int depth) {
  out += "CAST(";
  E(out, from, depth + 1);
  out += *(to.begin() + Below(to.size()));
}

void QueryBuilder::BinaryOp(std::string& out, SqlType left, SqlType right, SqlType any, int percent,
                            std::initializer_list<const char*> ops, int depth) {
  out += '(';
  E(out, Percent(percent) ? left : any, depth + 1);
  out += *(ops.begin() + Below(ops.size()));
  E(out, Percent(percent) ? right : any, depth + 1);
  out += ')';
}

void QueryBuilder::ControlFlow(std::string& out, SqlType t, int depth) {
  switch (Below(7)) {
    case 0: return Call(out, "IF", {T::kBool, t, t}, depth);
    case 1: case 2: return Call(out, Pick({"IFNULL", "COALESCE", "NULLIF", "GREATEST", "LEAST"}),
               {t, t}, depth);
    case 3:
      out += "CASE WHEN ";
      Cond(out, depth + 1);
      out += " THEN ";
      E(out, t, depth + 1);
      out += " ELSE ";
      E(out, t, depth + 1);
      out += " END";
      return;
    case 4: {
      out += "CASE ";
      const T key = kScalar[Below(std::size(kScalar))];
      E(out, key, depth + 1);
      out += " WHEN ";
      Literal(out, Comparable(key));
      out += " THEN ";
      E(out, t, depth + 1);
      out += " END";
      return;
    }
    case 5:
      if (aggregates_) {
        const bool numeric = t == T::kInt || t == T::kDecimal || t == T::kReal;
        out += numeric ? Pick({"SUM(", "MIN(", "MAX(", "AVG("}) : Pick({"MIN(", "MAX("});
        const auto* groups = groups_;
        groups_ = nullptr;
        aggregates_ = false;
        E(out, t, depth + 1);
        groups_ = groups;
        aggregates_ = true;
        out += ')';
        return;
      }
      [[fallthrough]];
    default:
      if (sub_depth_ < 2 && !aggregates_ && SubqueryAffordable()) return Subquery(out, depth, t, true);
      return Leaf(out, t);
  }
}

void QueryBuilder::IntExpr(std::string& out, SqlType any, int depth) {
  switch (Below(9)) {
    case 0: case 1:
      return BinaryOp(out, T::kInt, T::kInt, any, 70,
          {" + ", " - ", " * ", " DIV ", " MOD ", " % ", " & ", " | ", " ^ ", " << ", " >> "}, depth);
    case 2:
      if (Percent(50)) return Call(out, Pick({"-", "~", "ABS", "SIGN"}), {T::kInt}, depth);
      return CastTo(out, any, {" AS SIGNED)", " AS UNSIGNED)", " AS INTEGER)"}, depth);
    case 3:
      return Call(out, Pick({"LENGTH", "CHAR_LENGTH", "ASCII", "CRC32", "BIT_LENGTH", "ORD", "OCTET_LENGTH"}),
                 {T::kString}, depth);
    case 4:
      return Call(out, Pick({"LOCATE", "STRCMP", "INSTR", "FIND_IN_SET", "FIELD"}),
                 {T::kString, T::kString}, depth);
    case 5:
      if (Percent(50))
        return Call(out, Pick({"YEAR", "MONTH", "DAYOFWEEK", "TO_DAYS", "DAYOFYEAR", "QUARTER", "WEEKDAY"}),
                   {T::kDate}, depth);
      if (Percent(50)) return Call(out, Pick({"HOUR", "MINUTE", "TIME_TO_SEC", "MICROSECOND"}),
                 {T::kTime}, depth);
      if (Percent(50)) return Call(out, "DATEDIFF", {T::kDatetime, T::kDate}, depth);
      out += std::string("TIMESTAMPDIFF(") + Pick({"SECOND", "DAY", "MONTH", "MICROSECOND"}) + ", ";
      E(out, T::kDatetime, depth + 1);
      out += ", ";
      E(out, T::kDatetime, depth + 1);
      out += ')';
      return;
    case 6: {
      // The operand's family is drawn first, as a statement of its own: a call's arguments are
      // evaluated in no set order, and a seed gives the same statements with any compiler.
      const T operand = Pick({T::kDecimal, T::kReal, T::kInt});
      return Call(out, Pick({"FLOOR", "CEILING", "ROUND", "BIT_COUNT", "SIGN"}), {operand}, depth);
    }
    case 7:
      return Call(out, Pick({"JSON_LENGTH", "JSON_DEPTH", "JSON_VALID"}), {T::kJson}, depth);
    default:
      if (Percent(50)) return Call(out, "INTERVAL", {T::kInt, T::kInt, T::kInt}, depth);
      out += '(';
      Cond(out, depth + 1);
      out += ')';
      return;
  }
}

void QueryBuilder::DecimalExpr(std::string& out, SqlType any, int depth) {
  switch (Below(4)) {
    case 0: case 1:
      out += '(';
      E(out, Percent(60) ? T::kDecimal : any, depth + 1);
      out += Pick({" + ", " - ", " * ", " / ", " MOD "});
      E(out, Percent(60) ? Pick({T::kDecimal, T::kInt}) : any, depth + 1);
      out += ')';
      return;
    case 2:
      return CastTo(out, any, {" AS DECIMAL(10,2))", " AS DECIMAL(65,30))", " AS DECIMAL(1,1))",
                               " AS DECIMAL(38,0))", " AS DECIMAL)"}, depth);
    default:
      out += Pick({"ROUND(", "TRUNCATE("});
      E(out, Pick({T::kDecimal, T::kReal}), depth + 1);
      out += Pick({", 0)", ", 2)", ", -1)", ", 30)"});
      return;
  }
}

void QueryBuilder::RealExpr(std::string& out, SqlType any, int depth) {
  switch (Below(4)) {
    case 0:
      return CastTo(out, any, {" AS DOUBLE)", " AS FLOAT)"}, depth);
    case 1:
      return BinaryOp(out, T::kReal, T::kReal, any, 60, {" + ", " - ", " * ", " / "}, depth);
    case 2:
      return Call(out, Pick({"SQRT", "LN", "LOG10", "SIN", "ATAN", "DEGREES", "RADIANS", "COS"}),
                 {T::kReal}, depth);
    default:
      // Now and then nondeterministic: the oracles must recognise it.
      if (Percent(10)) return void(out += Pick({"RAND()", "RAND() * 0", "UNIX_TIMESTAMP(NOW(6))"}));
      if (Percent(50)) return Call(out, "ATAN2", {T::kReal, T::kInt}, depth);
      out += "POW(";
      E(out, T::kReal, depth + 1);
      out += Pick({", 2)", ", 0.5)", ", -1)", ", 3)"});
      return;
  }
}

void QueryBuilder::StringExpr(std::string& out, SqlType any, int depth) {
  switch (Below(10)) {
    case 0:
      return Call(out, "CONCAT", {any, any}, depth);
    case 1:
      out += "CONCAT_WS(',', ";
      E(out, any, depth + 1);
      out += ", ";
      E(out, any, depth + 1);
      out += ')';
      return;
    case 2: {
      static const char* const kCuts[] = {"SUBSTRING(", "LEFT(", "RIGHT(", "REPEAT(", "LPAD(", "RPAD("};
      const size_t f = Below(std::size(kCuts));
      out += kCuts[f];
      E(out, T::kString, depth + 1);
      out += Pick({", 0", ", 1", ", 2", ", 3", ", -1"});
      out += f >= 4 ? ", 'x')" : ")";  // the pads take a padding
      return;
    }
    case 3:
      return Call(out, Pick({"UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REVERSE", "HEX", "QUOTE", "SOUNDEX",
                        "TO_BASE64", "MD5"}), {any}, depth);
    case 4:
      return CastTo(out, any,
          {" AS CHAR)", " AS CHAR(3))", " AS CHAR(0))", " AS CHAR CHARACTER SET latin1)", " AS NCHAR(5))"}, depth);
    case 5:
      out += "CONVERT(";
      E(out, T::kString, depth + 1);
      out += Pick({" USING utf8mb4)", " USING latin1)", " USING utf8mb4) COLLATE utf8mb4_bin",
                   " USING utf8mb4) COLLATE utf8mb4_unicode_ci"});
      return;
    case 6:
      out += "DATE_FORMAT(";
      E(out, Pick({T::kDatetime, T::kDate}), depth + 1);
      out += Pick({", '%Y-%m-%d')", ", '%H:%i:%s.%f')", ", '%W %M %D')", ", '%j %U %x')"});
      return;
    case 7: {
      const bool value = Percent(35);
      out += value ? "JSON_VALUE(" : Pick({"JSON_UNQUOTE(JSON_EXTRACT(", "JSON_UNQUOTE(JSON_QUERY("});
      E(out, T::kJson, depth + 1);
      out += ", ";
      out += Pick(kJsonPaths);
      out += value ? ")" : "))";
      return;
    }
    case 8:
      out += Pick({"ExtractValue('<a><b>x</b><b>y</b><c id=\"1\">z</c></a>', ",
                   "ExtractValue('<r><n>1</n><n>2</n></r>', "});
      out += Pick({"'/a/b'", "'//b[1]'", "'/a/c/@id'", "'count(//n)'", "'//n[. > 1]'", "'/a/b[last()]'"});
      out += ')';
      return;
    default:
      if (Percent(50)) {
        out += "ELT(";
        E(out, T::kInt, depth + 1);
        out += ", 'a', 'b', 'c')";
        return;
      }
      if (Percent(50)) {
        out += "SUBSTRING_INDEX(";
        E(out, T::kString, depth + 1);
        out += Pick({", 'a', 1)", ", ',', -1)", ", '', 2)"});
        return;
      }
      out += "REPLACE(";
      E(out, T::kString, depth + 1);
      out += ", 'a', 'xy')";
      return;
  }
}

void QueryBuilder::BinaryExpr(std::string& out, SqlType any, int depth) {
  switch (Below(3)) {
    case 0:
      return CastTo(out, any, {" AS BINARY)", " AS BINARY(4))", " AS BINARY(0))"}, depth);
    case 1: return Call(out, "UNHEX", {T::kString}, depth);
    default:
      out += "UNHEX(HEX(";
      E(out, any, depth + 1);
      out += "))";
      return;
  }
}

void QueryBuilder::DateExpr(std::string& out, SqlType any, int depth) {
  switch (Below(4)) {
    case 0:
      return CastTo(out, any, {" AS DATE)"}, depth);
    case 1:
      out += Pick({"DATE_ADD(", "DATE_SUB(", "ADDDATE("});
      E(out, T::kDate, depth + 1);
      out += Pick({", INTERVAL 1 DAY)", ", INTERVAL 1 MONTH)", ", INTERVAL -1 YEAR)", ", INTERVAL 10000 DAY)",
                   ", INTERVAL 1 QUARTER)"});
      return;
    case 2:
      if (Percent(50)) return Call(out, "FROM_DAYS", {T::kInt}, depth);
      return Call(out, "MAKEDATE", {T::kInt, T::kInt}, depth);
    default: {
      const T operand = Pick({T::kDate, T::kDatetime, T::kString});  // first: see IntExpr
      return Call(out, Pick({"LAST_DAY", "DATE"}), {operand}, depth);
    }
  }
}

void QueryBuilder::TimeExpr(std::string& out, SqlType any, int depth) {
  switch (Below(3)) {
    case 0:
      return CastTo(out, any, {" AS TIME)", " AS TIME(6))"}, depth);
    case 1:
      if (Percent(50)) return Call(out, "SEC_TO_TIME", {T::kInt}, depth);
      return Call(out, "MAKETIME", {T::kInt, T::kInt, T::kDecimal}, depth);
    default: return Call(out, Pick({"TIMEDIFF", "ADDTIME", "SUBTIME"}), {T::kTime, T::kTime}, depth);
  }
}

void QueryBuilder::DatetimeExpr(std::string& out, SqlType any, int depth) {
  switch (Below(4)) {
    case 0:
      return CastTo(out, any, {" AS DATETIME)", " AS DATETIME(6))", " AS DATETIME(3))"}, depth);
    case 1:
      out += Pick({"DATE_ADD(", "DATE_SUB("});
      E(out, T::kDatetime, depth + 1);
      out += Pick({", INTERVAL 1 SECOND)", ", INTERVAL 1 MICROSECOND)", ", INTERVAL '1:1' MINUTE_SECOND)",
                   ", INTERVAL 25 HOUR)"});
      return;
    case 2: return Call(out, Pick({"TIMESTAMP", "ADDTIME"}), {T::kDate, T::kTime}, depth);
    default: return Call(out, "TIMESTAMP", {Pick({T::kDatetime, T::kString, T::kDate})}, depth);
  }
}

void QueryBuilder::JsonExpr(std::string& out, SqlType any, int depth) {
  switch (Below(5)) {
    case 0:
      out += "JSON_OBJECT('a', ";
      E(out, any, depth + 1);
      out += ", 'b', ";
      E(out, any, depth + 1);
      out += ')';
      return;
    case 1: return Call(out, "JSON_ARRAY", {any, any}, depth);
    case 2:
      out += Pick({"JSON_EXTRACT(", "JSON_QUERY(", "JSON_KEYS(", "JSON_REMOVE("});
      E(out, T::kJson, depth + 1);
      out += std::string(", ") + Pick(kJsonPaths) + ")";
      return;
    case 3:
      out += Pick({"JSON_SET(", "JSON_INSERT(", "JSON_REPLACE(", "JSON_ARRAY_APPEND("});
      E(out, T::kJson, depth + 1);
      out += std::string(", ") + Pick(kJsonPaths) + ", ";
      E(out, any, depth + 1);
      out += ')';
      return;
    default: return Call(out, Pick({"JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE"}), {T::kJson, T::kJson}, depth);
  }
}



}  // namespace gauntlet
