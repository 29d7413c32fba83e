#include "generate/query_builder.h"

#include <algorithm>
#include <cctype>

namespace gauntlet {
namespace {

using T = SqlType;

// Families that mix freely in comparisons, arithmetic and functions.
const T kScalar[] = {T::kInt, T::kInt, T::kDecimal, T::kReal, T::kString, T::kString, T::kBinary,
                     T::kDate, T::kTime, T::kDatetime, T::kJson};

// INET6, UUID and geometry refuse most operators with other types.
bool IsRestricted(T t) { return t == T::kInet6 || t == T::kUuid || t == T::kGeometry; }

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
const char* const kCompare[] = {"=", "<>", "<", "<=", ">", ">=", "<=>", "!="};

bool HasCi(const std::string& s, const char* needle) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(needle) != std::string::npos;
}

bool Generated(const Column& c) { return HasCi(c.type, " as (") || HasCi(c.type, "generated "); }

std::string Quote(const std::string& name) { return "`" + name + "`"; }

// Key names a table's CREATE TABLE gives ("PRIMARY" for its primary key).
std::vector<std::string> KeyNames(const Table& t) {
  std::vector<std::string> names;
  for (const std::string& k : t.keys) {
    if (k.rfind("PRIMARY", 0) == 0) {
      names.push_back("PRIMARY");
      continue;
    }
    const size_t key = k.find("KEY ");
    if (key == std::string::npos) continue;
    const size_t end = k.find(' ', key + 4);
    names.push_back(k.substr(key + 4, end - key - 4));
  }
  return names;
}

}  // namespace

SqlType SqlTypeOf(const Column& c) {
  const std::string b = c.base_type();
  const auto in = [&b](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (b == n) return true;
    return false;
  };
  if (in({"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bit", "year", "bool", "boolean",
          "serial"}))
    return T::kInt;
  if (in({"decimal", "numeric", "dec", "fixed"})) return T::kDecimal;
  if (in({"float", "double", "real"})) return T::kReal;
  if (in({"binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"})) return T::kBinary;
  if (b == "date") return T::kDate;
  if (b == "time") return T::kTime;
  if (in({"datetime", "timestamp"})) return T::kDatetime;
  if (b == "json") return T::kJson;
  if (in({"inet6", "inet4"})) return T::kInet6;
  if (b == "uuid") return T::kUuid;
  if (in({"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
          "geometrycollection"}))
    return T::kGeometry;
  return T::kString;
}

const std::vector<std::string>& OptimizerSwitchFlags() {
  static const std::vector<std::string> flags = {
      "index_merge", "index_merge_union", "index_merge_sort_union", "index_merge_intersection",
      "index_condition_pushdown", "derived_merge", "derived_with_keys", "firstmatch", "loosescan",
      "materialization", "in_to_exists", "semijoin", "partial_match_rowid_merge", "partial_match_table_scan",
      "subquery_cache", "mrr", "outer_join_with_cache", "semijoin_with_cache", "join_cache_incremental",
      "join_cache_hashed", "join_cache_bka", "table_elimination", "extended_keys", "exists_to_in",
      "orderby_uses_equalities", "condition_pushdown_for_derived", "split_materialized",
      "condition_pushdown_for_subquery", "rowid_filter", "condition_pushdown_from_having", "not_null_range_scan"};
  return flags;
}

QueryBuilder::QueryBuilder(const Schema& schema, Rng& rng) : schema_(schema), rng_(rng) {
  for (const Table& t : schema_.tables()) {
    TableInfo info;
    for (const Column& c : t.columns) info.cols.push_back({c.name, SqlTypeOf(c)});
    info.versioned = HasCi(t.options, "system versioning");
    info.partitioned = HasCi(t.options, "partition by");
    info.keys = KeyNames(t);
    info.rows = static_cast<double>(std::max<uint64_t>(t.rows, 1));
    max_table_rows_ = std::max(max_table_rows_, info.rows);
    tables_.push_back(std::move(info));
  }
}

void QueryBuilder::Reset() {
  alias_ = 0;
  relations_ = 0;
  cost_ = 1;
  scope_.clear();
  ctes_.clear();
}

std::string QueryBuilder::NewAlias(char prefix) { return std::string(1, prefix) + std::to_string(++alias_); }

QueryBuilder::Rel QueryBuilder::TableRel(int table, const std::string& alias) const {
  return Rel{alias, table, tables_[table].cols, tables_[table].rows};
}

int QueryBuilder::StartOnTable(std::string& out) {
  Reset();
  const int table = PickTable();
  if (table < 0) out += "DO 1";
  return table;
}

int QueryBuilder::PickTable() {
  const auto& tables = schema_.TablesIn(0, 0);
  return tables.empty() ? -1 : static_cast<int>(tables[Below(tables.size())]);
}

// ---- statements -------------------------------------------------------------

void QueryBuilder::Query(std::string& out, QueryFocus focus) {
  Reset();
  if (PickTable() < 0) {
    out += "SELECT 1";
    return;
  }
  if (Percent(4)) out += Pick({"EXPLAIN ", "EXPLAIN FORMAT=JSON ", "ANALYZE ", "ANALYZE FORMAT=JSON "});
  if (Percent(12)) Cte(out, 0);
  if (Percent(10)) {  // a set operation of two selects of the same width
    const int items = static_cast<int>(1 + Below(3));
    Select(out, 1, items, nullptr, focus);
    out += Pick({" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT ", " UNION DISTINCT ", " INTERSECT ALL ",
                 " EXCEPT ALL "});
    Select(out, 1, items, nullptr, focus);
    if (Percent(50)) {
      out += " ORDER BY ";
      for (int i = 1; i <= items; ++i) out += (i > 1 ? ", " : "") + std::to_string(i);
      if (Percent(50)) out += " LIMIT " + std::to_string(Below(10));
    }
    return;
  }
  Select(out, 0, 0, nullptr, focus);
}

void QueryBuilder::Cte(std::string& out, int depth) {
  Rel rel{NewAlias('q'), -1, {}};
  if (Percent(30)) {  // a recursive counter, from a small start: at most 20 rows
    rel.cols = {{"a1", T::kInt}};
    rel.rows = 20;
    out += "WITH RECURSIVE " + rel.alias + " (a1) AS (SELECT " + std::to_string(Below(3)) +
           " UNION ALL SELECT a1 + 1 FROM " + rel.alias + " WHERE a1 < " + std::to_string(Below(20)) + ") ";
  } else {
    out += "WITH " + rel.alias + " AS (";
    std::vector<Col> shape;
    const double outer_cost = cost_;
    cost_ = 1;
    Select(out, depth + 1, 0, &shape, QueryFocus::kGeneral);
    rel.rows = cost_;
    cost_ = outer_cost;
    out += ") ";
    rel.cols = std::move(shape);
  }
  ctes_.push_back(std::move(rel));
}

// SELECT items FROM ... [WHERE] [GROUP BY [HAVING]] [ORDER BY] [LIMIT]; the
// items are aliased a1..aN and their families go to `shape`. `depth` 0 is
// the top level; inside set operations (depth 1 with items given) there is
// no ORDER BY or LIMIT.
void QueryBuilder::Select(std::string& out, int depth, int items, std::vector<Col>* shape, QueryFocus focus) {
  const size_t outer_scope = scope_.size();
  const bool outer_aggregates = aggregates_, outer_grouped = grouped_;
  const auto* outer_groups = groups_;
  aggregates_ = grouped_ = false;
  groups_ = nullptr;

  std::string from;
  From(from, depth, focus);
  std::string where;
  if (Percent(75)) Cond(where, 0);

  const bool window_focus = focus == QueryFocus::kWindow;
  const bool grouped = focus == QueryFocus::kAggregate ? !Percent(20) : Percent(20);
  std::vector<Col> groups;
  if (grouped) {
    const int n = static_cast<int>(1 + Below(2));
    for (int i = 0; i < n; ++i) {
      std::string g;
      T type = kScalar[Below(std::size(kScalar))];
      if (ColumnRef(g, type, false, &type)) groups.push_back({g, type});
    }
  }
  const bool rollup = !groups.empty() && Percent(10);
  const int n = items > 0 ? items : static_cast<int>(1 + Below(4));
  std::string list;
  std::vector<Col> item_types;
  for (int i = 1; i <= n; ++i) {
    if (i > 1) list += ", ";
    T type = focus == QueryFocus::kJson      ? (Percent(60) ? T::kJson : kScalar[Below(std::size(kScalar))])
             : focus == QueryFocus::kTemporal ? (Percent(60) ? Pick({T::kDate, T::kTime, T::kDatetime})
                                                            : kScalar[Below(std::size(kScalar))])
                                              : kScalar[Below(std::size(kScalar))];
    if (!groups.empty()) {
      aggregates_ = grouped_ = true;
      groups_ = &groups;
      if (Percent(50)) Aggregate(list, &type);
      else E(list, type, 1);
      aggregates_ = grouped_ = false;
      groups_ = nullptr;
    } else if ((window_focus && Percent(70)) || Percent(6)) {
      Window(list, &type);
    } else {
      E(list, type, 0);
    }
    list += " AS a" + std::to_string(i);
    item_types.push_back({"a" + std::to_string(i), type});
  }
  out += "SELECT ";
  if (Percent(15)) out += "DISTINCT ";
  if (depth == 0 && Percent(3)) out += "STRAIGHT_JOIN ";
  if (depth == 0 && Percent(3)) out += Pick({"SQL_NO_CACHE ", "SQL_BIG_RESULT ", "SQL_SMALL_RESULT "});
  out += list;
  out += " FROM ";
  out += from;
  if (!where.empty()) out += " WHERE " + where;
  if (!groups.empty()) {
    out += " GROUP BY ";
    for (size_t i = 0; i < groups.size(); ++i) out += (i ? ", " : "") + groups[i].name;
    if (rollup) out += " WITH ROLLUP";
    if (Percent(30)) {
      aggregates_ = grouped_ = true;
      groups_ = &groups;
      out += " HAVING ";
      Cond(out, 1);
      aggregates_ = grouped_ = false;
      groups_ = nullptr;
    }
  }
  if (items == 0 && !rollup) {
    const bool ordered = Percent(40);
    if (ordered) {  // by every item: a total order, so LIMIT is deterministic
      out += " ORDER BY ";
      for (int i = 1; i <= n; ++i) out += (i > 1 ? ", " : "") + std::to_string(i) + (Percent(30) ? " DESC" : "");
    }
    if (Percent(20)) {
      if (ordered && Percent(30)) {
        // The standard's form (MariaDB 10.6), after an ORDER BY.
        if (Percent(50)) out += " OFFSET " + std::to_string(Below(5)) + " ROWS";
        out += std::string(Pick({" FETCH FIRST ", " FETCH NEXT "})) + std::to_string(1 + Below(10)) +
               Pick({" ROWS ONLY", " ROWS WITH TIES", " ROW ONLY"});
      } else {
        out += " LIMIT " + std::to_string(Below(20));
        if (Percent(30)) out += " OFFSET " + std::to_string(Below(5));
      }
    } else if (depth == 0 && Percent(3)) {
      out += Pick({" FOR UPDATE", " LOCK IN SHARE MODE", " FOR UPDATE SKIP LOCKED"});
    }
  }
  if (shape) *shape = std::move(item_types);
  scope_.resize(outer_scope);
  aggregates_ = outer_aggregates;
  grouped_ = outer_grouped;
  groups_ = outer_groups;
}

void QueryBuilder::From(std::string& out, int depth, QueryFocus focus) {
  const size_t first = scope_.size();
  int refs = static_cast<int>(1 + (Percent(45) ? 1 + Below(2) : 0));
  if (focus == QueryFocus::kJoin) refs = static_cast<int>(2 + Below(3));
  // Relations multiply: a statement joins at most kMaxRelations of them.
  refs = std::max(1, std::min(refs, kMaxRelations - relations_));
  for (int i = 0; i < refs; ++i) {
    ++relations_;
    Rel rel;
    std::string ref;
    TableRef(ref, depth, &rel);
    if (i > 0 && cost_ * rel.rows > kMaxCost) break;
    cost_ *= rel.rows;
    if (i == 0) {
      out += ref;
      scope_.push_back(std::move(rel));
      continue;
    }
    // NATURAL and USING join on names; with one relation on the left they
    // cannot be ambiguous.
    std::string common;
    if (scope_.size() - first == 1)
      for (const Col& a : scope_.back().cols)
        for (const Col& b : rel.cols)
          if (a.name == b.name && common.empty()) common = a.name;
    const uint64_t kind = Below(8);
    scope_.push_back(std::move(rel));
    if (kind == 6 && !common.empty()) {
      out += std::string(Pick({" NATURAL JOIN ", " NATURAL LEFT JOIN ", " NATURAL RIGHT JOIN "})) + ref;
    } else if (kind == 7 && !common.empty()) {
      out += std::string(Pick({" JOIN ", " LEFT JOIN "})) + ref + " USING (" + Quote(common) + ")";
    } else if (kind == 5) {
      out += " CROSS JOIN " + ref;  // not ',': it binds looser than JOIN, hiding the left from ON
    } else {
      out += Pick({" JOIN ", " LEFT JOIN ", " RIGHT JOIN ", " STRAIGHT_JOIN ", " INNER JOIN ",
                   " LEFT OUTER JOIN "});
      out += ref + " ON ";
      // Mostly an equi-join between the new relation and an earlier one.
      const Rel& right = scope_.back();
      const Rel& left = scope_[first + Below(scope_.size() - first - 1)];
      if (Percent(70) && !left.cols.empty() && !right.cols.empty()) {
        const Col& a = left.cols[Below(left.cols.size())];
        const Col& b = right.cols[Below(right.cols.size())];
        if (IsRestricted(a.type) || IsRestricted(b.type)) {
          Cond(out, 1);
        } else {
          out += Quote(left.alias) + "." + Quote(a.name) + " " + Pick(kCompare) + " " + Quote(right.alias) + "." +
                 Quote(b.name);
          if (Percent(30)) {
            out += Pick({" AND ", " OR "});
            Cond(out, 2);
          }
        }
      } else {
        Cond(out, 1);
      }
    }
  }
}

void QueryBuilder::TableRef(std::string& out, int depth, Rel* rel) {
  const uint64_t kind = Below(100);
  if (kind >= 88 && depth < 2 && relations_ < kMaxRelations) {  // a derived table
    const std::string alias = NewAlias('d');
    std::vector<Col> shape;
    // Its FROM must not see our relations (no LATERAL in MariaDB).
    std::vector<Rel> saved;
    saved.swap(scope_);
    const double outer_cost = cost_;
    cost_ = 1;
    out += "(";
    Select(out, depth + 1, 0, &shape, QueryFocus::kGeneral);
    out += ") AS " + alias;
    scope_.swap(saved);
    *rel = Rel{alias, -1, std::move(shape), cost_};
    cost_ = outer_cost;
    return;
  }
  if (kind >= 80 && !ctes_.empty()) {
    const Rel& cte = ctes_[Below(ctes_.size())];
    const std::string alias = NewAlias('s');
    out += cte.alias + " AS " + alias;
    *rel = Rel{alias, -1, cte.cols, cte.rows};
    return;
  }
  const int table = PickTable();
  const Table& t = schema_.tables()[table];
  const std::string alias = NewAlias('s');
  out += Quote(t.name);
  if (tables_[table].versioned && Percent(30))
    out += Pick({" FOR SYSTEM_TIME ALL", " FOR SYSTEM_TIME AS OF TIMESTAMP'2038-01-01 00:00:00'",
                 " FOR SYSTEM_TIME FROM '1970-01-01 00:00:01' TO '2038-01-01 00:00:00'"});
  if (tables_[table].partitioned && Percent(20)) out += Pick({" PARTITION (p0)", " PARTITION (p0, p1)"});
  out += " AS " + alias;
  if (Percent(8)) {
    const std::vector<std::string>& keys = tables_[table].keys;
    if (keys.empty() || Percent(30)) {
      out += " USE INDEX ()";
    } else {
      out += std::string(Pick({" FORCE INDEX (", " USE INDEX (", " IGNORE INDEX (", " FORCE INDEX FOR JOIN (",
                               " IGNORE INDEX FOR ORDER BY ("})) +
             keys[Below(keys.size())] + ")";
    }
  }
  *rel = TableRel(table, alias);
}

void QueryBuilder::Aggregate(std::string& out, SqlType* type) {
  const auto* groups = groups_;
  const bool aggregates = aggregates_;
  groups_ = nullptr;
  aggregates_ = false;
  switch (Below(10)) {
    case 0: out += "COUNT(*)"; *type = T::kInt; break;
    case 1:
      out += Percent(30) ? "COUNT(DISTINCT " : "COUNT(";
      E(out, kScalar[Below(std::size(kScalar))], 1);
      out += ")";
      *type = T::kInt;
      break;
    case 2: case 3: {
      out += Pick({"SUM(", "AVG(", "SUM(DISTINCT ", "STD(", "VARIANCE(", "VAR_SAMP("});
      E(out, Pick({T::kInt, T::kDecimal, T::kReal, T::kString}), 1);
      out += ")";
      *type = T::kDecimal;
      break;
    }
    case 4: case 5:
      out += Pick({"MIN(", "MAX(", "MIN(DISTINCT ", "MAX(DISTINCT "});
      E(out, *type, 1);
      out += ")";
      break;
    case 6:
      out += Pick({"BIT_AND(", "BIT_OR(", "BIT_XOR("});
      E(out, T::kInt, 1);
      out += ")";
      *type = T::kInt;
      break;
    case 7: {
      out += Percent(30) ? "GROUP_CONCAT(DISTINCT " : "GROUP_CONCAT(";
      E(out, T::kString, 1);
      out += " ORDER BY ";
      E(out, T::kString, 1);
      out += Pick({"", " DESC"});
      out += Pick({")", " SEPARATOR '|')", " LIMIT 2)"});
      *type = T::kString;
      break;
    }
    case 8:
      out += "JSON_ARRAYAGG(";
      E(out, kScalar[Below(std::size(kScalar))], 1);
      out += ")";
      *type = T::kJson;
      break;
    default:
      out += "COUNT(";
      Cond(out, 1);
      out += ")";
      *type = T::kInt;
  }
  groups_ = groups;
  aggregates_ = aggregates;
}

void QueryBuilder::Window(std::string& out, SqlType* type) {
  std::string over = " OVER (";
  const bool partition = Percent(60);
  if (partition) {
    over += "PARTITION BY ";
    E(over, kScalar[Below(std::size(kScalar))], 2);
  }
  std::string order = std::string(partition ? " " : "") + "ORDER BY ";
  E(order, kScalar[Below(std::size(kScalar))], 2);
  if (Percent(50)) {
    order += ", ";
    E(order, kScalar[Below(std::size(kScalar))], 2);
  }
  switch (Below(7)) {
    case 0:
      out += Pick({"ROW_NUMBER()", "RANK()", "DENSE_RANK()", "CUME_DIST()", "PERCENT_RANK()", "NTILE(3)"});
      out += over + order + ")";
      *type = T::kInt;
      break;
    case 1:
      out += Pick({"LAG(", "LEAD(", "FIRST_VALUE(", "LAST_VALUE("});
      E(out, *type, 2);
      out += ")" + over + order + ")";
      break;
    case 2: case 3: {
      out += Pick({"SUM(", "COUNT(", "AVG(", "MIN(", "MAX(", "BIT_OR("});
      E(out, Pick({T::kInt, T::kDecimal, T::kReal}), 2);
      out += ")" + over + (Percent(70) ? order : std::string()) + ")";
      *type = T::kDecimal;
      break;
    }
    case 4: {
      out += Pick({"SUM(", "COUNT(", "MAX("});
      E(out, T::kInt, 2);
      out += ")" + over + order + " " +
             Pick({"ROWS BETWEEN 1 PRECEDING AND CURRENT ROW", "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                   "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", "ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING",
                   "ROWS UNBOUNDED PRECEDING"}) +
             ")";
      *type = T::kDecimal;
      break;
    }
    case 5: {  // percentiles take PARTITION BY only
      out += Pick({"PERCENTILE_CONT(", "PERCENTILE_DISC("});
      out += Pick({"0.5", "0", "1", "0.25"});
      out += ") WITHIN GROUP (ORDER BY (";  // `+ 0`: a number whatever the family
      E(out, Pick({T::kInt, T::kDecimal, T::kReal}), 2);
      out += ") + 0)" + over + ")";
      *type = T::kDecimal;
      break;
    }
    default:
      out += "MEDIAN((";
      E(out, Pick({T::kInt, T::kDecimal, T::kReal}), 2);
      out += ") + 0)" + over + ")";
      *type = T::kDecimal;
  }
}

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
      else out += std::string(" ") + Pick({"=", "<>", "<", "<=", ">", ">="}) + Pick({" ANY ", " ALL ", " SOME "});
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
  const auto arg = [&](T type) { E(out, type, depth + 1); };
  const auto call = [&](const char* f, std::initializer_list<T> args) {
    out += f;
    out += '(';
    bool first = true;
    for (T a : args) {
      if (!first) out += ", ";
      first = false;
      arg(a);
    }
    out += ')';
  };
  if (k == 3 && !IsRestricted(t)) {  // control flow, any family
    switch (Below(7)) {
      case 0: return call("IF", {T::kBool, t, t});
      case 1: case 2: return call(Pick({"IFNULL", "COALESCE", "NULLIF", "GREATEST", "LEAST"}), {t, t});
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
  const T any = kScalar[Below(std::size(kScalar))];
  // CAST of an expression of any family to one of `to` (" AS SIGNED)", ...).
  const auto cast = [&](std::initializer_list<const char*> to) {
    out += "CAST(";
    arg(any);
    out += *(to.begin() + Below(to.size()));
  };
  // (a OP b), each side of its family `percent`% of the time, else of `any`.
  const auto binary = [&](T left, T right, int percent, std::initializer_list<const char*> ops) {
    out += '(';
    arg(Percent(percent) ? left : any);
    out += *(ops.begin() + Below(ops.size()));
    arg(Percent(percent) ? right : any);
    out += ')';
  };
  switch (t) {
    case T::kInt:
      switch (Below(9)) {
        case 0: case 1:
          return binary(T::kInt, T::kInt, 70,
                        {" + ", " - ", " * ", " DIV ", " MOD ", " % ", " & ", " | ", " ^ ", " << ", " >> "});
        case 2:
          if (Percent(50)) return call(Pick({"-", "~", "ABS", "SIGN"}), {T::kInt});
          return cast({" AS SIGNED)", " AS UNSIGNED)", " AS INTEGER)"});
        case 3:
          return call(Pick({"LENGTH", "CHAR_LENGTH", "ASCII", "CRC32", "BIT_LENGTH", "ORD", "OCTET_LENGTH"}),
                      {T::kString});
        case 4:
          return call(Pick({"LOCATE", "STRCMP", "INSTR", "FIND_IN_SET", "FIELD"}), {T::kString, T::kString});
        case 5:
          if (Percent(50))
            return call(Pick({"YEAR", "MONTH", "DAYOFWEEK", "TO_DAYS", "DAYOFYEAR", "QUARTER", "WEEKDAY"}),
                        {T::kDate});
          if (Percent(50)) return call(Pick({"HOUR", "MINUTE", "TIME_TO_SEC", "MICROSECOND"}), {T::kTime});
          if (Percent(50)) return call("DATEDIFF", {T::kDatetime, T::kDate});
          out += std::string("TIMESTAMPDIFF(") + Pick({"SECOND", "DAY", "MONTH", "MICROSECOND"}) + ", ";
          arg(T::kDatetime);
          out += ", ";
          arg(T::kDatetime);
          out += ')';
          return;
        case 6:
          return call(Pick({"FLOOR", "CEILING", "ROUND", "BIT_COUNT", "SIGN"}),
                      {Pick({T::kDecimal, T::kReal, T::kInt})});
        case 7:
          return call(Pick({"JSON_LENGTH", "JSON_DEPTH", "JSON_VALID"}), {T::kJson});
        default:
          if (Percent(50)) return call("INTERVAL", {T::kInt, T::kInt, T::kInt});
          out += '(';
          Cond(out, depth + 1);
          out += ')';
          return;
      }
    case T::kDecimal:
      switch (Below(4)) {
        case 0: case 1:
          out += '(';
          arg(Percent(60) ? T::kDecimal : any);
          out += Pick({" + ", " - ", " * ", " / ", " MOD "});
          arg(Percent(60) ? Pick({T::kDecimal, T::kInt}) : any);
          out += ')';
          return;
        case 2:
          return cast({" AS DECIMAL(10,2))", " AS DECIMAL(65,30))", " AS DECIMAL(1,1))", " AS DECIMAL(38,0))", " AS DECIMAL)"});
        default:
          out += Pick({"ROUND(", "TRUNCATE("});
          arg(Pick({T::kDecimal, T::kReal}));
          out += Pick({", 0)", ", 2)", ", -1)", ", 30)"});
          return;
      }
    case T::kReal:
      switch (Below(4)) {
        case 0:
          return cast({" AS DOUBLE)", " AS FLOAT)"});
        case 1:
          return binary(T::kReal, T::kReal, 60, {" + ", " - ", " * ", " / "});
        case 2:
          return call(Pick({"SQRT", "LN", "LOG10", "SIN", "ATAN", "DEGREES", "RADIANS", "COS"}), {T::kReal});
        default:
          // Now and then nondeterministic: the oracles must recognise it.
          if (Percent(10)) return void(out += Pick({"RAND()", "RAND() * 0", "UNIX_TIMESTAMP(NOW(6))"}));
          if (Percent(50)) return call("ATAN2", {T::kReal, T::kInt});
          out += "POW(";
          arg(T::kReal);
          out += Pick({", 2)", ", 0.5)", ", -1)", ", 3)"});
          return;
      }
    case T::kString:
      switch (Below(10)) {
        case 0:
          return call("CONCAT", {any, any});
        case 1:
          out += "CONCAT_WS(',', ";
          arg(any);
          out += ", ";
          arg(any);
          out += ')';
          return;
        case 2: {
          static const char* const kCuts[] = {"SUBSTRING(", "LEFT(", "RIGHT(", "REPEAT(", "LPAD(", "RPAD("};
          const size_t f = Below(std::size(kCuts));
          out += kCuts[f];
          arg(T::kString);
          out += Pick({", 0", ", 1", ", 2", ", 3", ", -1"});
          out += f >= 4 ? ", 'x')" : ")";  // the pads take a padding
          return;
        }
        case 3:
          return call(Pick({"UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REVERSE", "HEX", "QUOTE", "SOUNDEX",
                            "TO_BASE64", "MD5"}),
                      {any});
        case 4:
          return cast({" AS CHAR)", " AS CHAR(3))", " AS CHAR(0))", " AS CHAR CHARACTER SET latin1)", " AS NCHAR(5))"});
        case 5:
          out += "CONVERT(";
          arg(T::kString);
          out += Pick({" USING utf8mb4)", " USING latin1)", " USING utf8mb4) COLLATE utf8mb4_bin",
                       " USING utf8mb4) COLLATE utf8mb4_unicode_ci"});
          return;
        case 6:
          out += "DATE_FORMAT(";
          arg(Pick({T::kDatetime, T::kDate}));
          out += Pick({", '%Y-%m-%d')", ", '%H:%i:%s.%f')", ", '%W %M %D')", ", '%j %U %x')"});
          return;
        case 7: {
          const bool value = Percent(35);
          out += value ? "JSON_VALUE(" : Pick({"JSON_UNQUOTE(JSON_EXTRACT(", "JSON_UNQUOTE(JSON_QUERY("});
          arg(T::kJson);
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
            arg(T::kInt);
            out += ", 'a', 'b', 'c')";
            return;
          }
          if (Percent(50)) {
            out += "SUBSTRING_INDEX(";
            arg(T::kString);
            out += Pick({", 'a', 1)", ", ',', -1)", ", '', 2)"});
            return;
          }
          out += "REPLACE(";
          arg(T::kString);
          out += ", 'a', 'xy')";
          return;
      }
    case T::kBinary:
      switch (Below(3)) {
        case 0:
          return cast({" AS BINARY)", " AS BINARY(4))", " AS BINARY(0))"});
        case 1: return call("UNHEX", {T::kString});
        default:
          out += "UNHEX(HEX(";
          arg(any);
          out += "))";
          return;
      }
    case T::kDate:
      switch (Below(4)) {
        case 0:
          return cast({" AS DATE)"});
        case 1:
          out += Pick({"DATE_ADD(", "DATE_SUB(", "ADDDATE("});
          arg(T::kDate);
          out += Pick({", INTERVAL 1 DAY)", ", INTERVAL 1 MONTH)", ", INTERVAL -1 YEAR)", ", INTERVAL 10000 DAY)",
                       ", INTERVAL 1 QUARTER)"});
          return;
        case 2:
          if (Percent(50)) return call("FROM_DAYS", {T::kInt});
          return call("MAKEDATE", {T::kInt, T::kInt});
        default: return call(Pick({"LAST_DAY", "DATE"}), {Pick({T::kDate, T::kDatetime, T::kString})});
      }
    case T::kTime:
      switch (Below(3)) {
        case 0:
          return cast({" AS TIME)", " AS TIME(6))"});
        case 1:
          if (Percent(50)) return call("SEC_TO_TIME", {T::kInt});
          return call("MAKETIME", {T::kInt, T::kInt, T::kDecimal});
        default: return call(Pick({"TIMEDIFF", "ADDTIME", "SUBTIME"}), {T::kTime, T::kTime});
      }
    case T::kDatetime:
      switch (Below(4)) {
        case 0:
          return cast({" AS DATETIME)", " AS DATETIME(6))", " AS DATETIME(3))"});
        case 1:
          out += Pick({"DATE_ADD(", "DATE_SUB("});
          arg(T::kDatetime);
          out += Pick({", INTERVAL 1 SECOND)", ", INTERVAL 1 MICROSECOND)", ", INTERVAL '1:1' MINUTE_SECOND)",
                       ", INTERVAL 25 HOUR)"});
          return;
        case 2: return call(Pick({"TIMESTAMP", "ADDTIME"}), {T::kDate, T::kTime});
        default: return call("TIMESTAMP", {Pick({T::kDatetime, T::kString, T::kDate})});
      }
    case T::kJson:
      switch (Below(5)) {
        case 0:
          out += "JSON_OBJECT('a', ";
          arg(any);
          out += ", 'b', ";
          arg(any);
          out += ')';
          return;
        case 1: return call("JSON_ARRAY", {any, any});
        case 2:
          out += Pick({"JSON_EXTRACT(", "JSON_QUERY(", "JSON_KEYS(", "JSON_REMOVE("});
          arg(T::kJson);
          out += std::string(", ") + Pick(kJsonPaths) + ")";
          return;
        case 3:
          out += Pick({"JSON_SET(", "JSON_INSERT(", "JSON_REPLACE(", "JSON_ARRAY_APPEND("});
          arg(T::kJson);
          out += std::string(", ") + Pick(kJsonPaths) + ", ";
          arg(any);
          out += ')';
          return;
        default: return call(Pick({"JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE"}), {T::kJson, T::kJson});
      }
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
      if (Percent(30)) return call("POINT", {T::kInt, T::kReal});
      return call(Pick({"ST_Centroid", "ST_Envelope", "ST_Boundary", "ST_ConvexHull"}), {T::kGeometry});
    default:
      return Leaf(out, t);
  }
}

// ---- statements beyond SELECT -------------------------------------------------

void QueryBuilder::Assignment(std::string& out, const Rel& rel, const Col& col) {
  if (!rel.alias.empty()) out += Quote(rel.alias) + ".";
  out += Quote(col.name) + " = ";
  if (Percent(35)) E(out, col.type, 1);
  else Literal(out, col.type);
}

void QueryBuilder::Dml(std::string& out) {
  const int table = StartOnTable(out);
  if (table < 0) return;
  const Table& t = schema_.tables()[table];
  std::vector<Col> writable;
  for (const Column& c : t.columns)
    if (!Generated(c)) writable.push_back({c.name, SqlTypeOf(c)});
  if (writable.empty()) {
    out += "DO 1";
    return;
  }
  const uint64_t kind = Below(8);
  if (kind <= 2) {  // INSERT / REPLACE: some columns, 1 to 3 rows or a SELECT
    const bool replace = kind == 2;
    // Edge values overflow small types: IGNORE clips them (and keeps the
    // rows); without it they exercise the strict error paths.
    out += replace ? "REPLACE INTO " : Percent(60) ? "INSERT IGNORE INTO " : "INSERT INTO ";
    out += Quote(t.name) + " (";
    // Every column strict mode needs a value for, and some others.
    std::vector<Col> cols;
    for (const Column& c : t.columns) {
      if (Generated(c)) continue;
      const bool needed = !c.nullable && !c.auto_increment && !HasCi(c.type, "default");
      if (needed || Percent(60)) cols.push_back({c.name, SqlTypeOf(c)});
    }
    if (cols.empty()) cols.push_back(writable[0]);
    for (size_t i = 0; i < cols.size(); ++i) out += (i ? ", " : "") + Quote(cols[i].name);
    out += ")";
    if (kind == 1) {
      const int source = PickTable();
      Rel rel = TableRel(source, NewAlias('s'));
      out += " SELECT ";
      scope_.push_back(rel);
      for (size_t i = 0; i < cols.size(); ++i) {
        if (i) out += ", ";
        E(out, cols[i].type, 1);
      }
      out += " FROM " + Quote(schema_.tables()[source].name) + " AS " + rel.alias;
      if (Percent(60)) {
        out += " WHERE ";
        Cond(out, 1);
      }
      out += " LIMIT " + std::to_string(1 + Below(10));
      scope_.clear();
    } else {
      out += " VALUES ";
      const int rows = static_cast<int>(1 + Below(3));
      for (int r = 0; r < rows; ++r) {
        out += r ? ", (" : "(";
        for (size_t i = 0; i < cols.size(); ++i) {
          if (i) out += ", ";
          if (Percent(10)) out += "DEFAULT";
          else Literal(out, cols[i].type);
        }
        out += ")";
      }
    }
    if (!replace && Percent(30)) {
      out += " ON DUPLICATE KEY UPDATE ";
      // Qualified: after INSERT ... SELECT a bare name may be the source's too.
      Rel self{t.name, table, writable};
      scope_.push_back(self);
      Assignment(out, self, writable[Below(writable.size())]);
      scope_.clear();
    }
    return;
  }
  Rel self = TableRel(table, "");
  if (kind <= 4 || kind == 7) {
    const bool multi = kind == 4;
    if (multi) {
      sub_depth_ = 2;  // no subqueries: they may read a target table (error 1093)
      self.alias = NewAlias('s');
      const int other = PickTable();
      Rel rel = TableRel(other, NewAlias('s'));
      out += kind == 7 ? "DELETE " + self.alias + " FROM " : "UPDATE ";
      out += Quote(t.name) + " AS " + self.alias + " JOIN " + Quote(schema_.tables()[other].name) + " AS " +
             rel.alias + " ON ";
      scope_.push_back(self);
      scope_.push_back(rel);
      Compare(out, 1);
    } else {
      out += Percent(60) ? "UPDATE IGNORE " : "UPDATE ";
      out += Quote(t.name);
      scope_.push_back(self);
    }
    out += " SET ";
    Rel target = self;
    target.cols = writable;
    Assignment(out, target, writable[Below(writable.size())]);
    if (Percent(30)) {
      out += ", ";
      Assignment(out, target, writable[Below(writable.size())]);
    }
  } else {
    const bool multi = kind == 6;
    if (multi) {
      sub_depth_ = 2;  // no subqueries: they may read a target table (error 1093)
      self.alias = NewAlias('s');
      const int other = PickTable();
      Rel rel = TableRel(other, NewAlias('s'));
      out += "DELETE " + self.alias + " FROM " + Quote(t.name) + " AS " + self.alias + " JOIN " +
             Quote(schema_.tables()[other].name) + " AS " + rel.alias + " ON ";
      scope_.push_back(self);
      scope_.push_back(rel);
      Compare(out, 1);
    } else {
      out += "DELETE FROM " + Quote(t.name);
      scope_.push_back(self);
    }
  }
  const bool single = scope_.size() == 1;
  if (Percent(85)) {
    out += " WHERE ";
    Cond(out, 1);
  }
  if (single && Percent(25)) {
    out += " ORDER BY ";
    for (size_t i = 0; i < self.cols.size(); ++i) out += (i ? ", " : "") + Quote(self.cols[i].name);
    out += " LIMIT " + std::to_string(1 + Below(5));
  }
  scope_.clear();
  sub_depth_ = 0;
}

void QueryBuilder::Ddl(std::string& out) {
  const int table = StartOnTable(out);
  if (table < 0) return;
  const Table& t = schema_.tables()[table];
  if (t.columns.empty()) {
    out += "ANALYZE TABLE " + Quote(t.name);
    return;
  }
  const std::string name = Quote(t.name);
  // Versioned tables refuse column changes unless history may be altered.
  if (tables_[table].versioned && Percent(80))
    out += "SET STATEMENT system_versioning_alter_history=KEEP FOR ";
  const std::string extra = "`x" + std::to_string(1 + Below(3)) + "`";
  switch (Below(12)) {
    case 0:
      out += "ALTER TABLE " + name + " ADD COLUMN IF NOT EXISTS " + extra + " " +
             Pick({"INT", "INT UNSIGNED NOT NULL DEFAULT 7", "VARCHAR(0)", "VARCHAR(20) CHARACTER SET latin1",
                   "DECIMAL(65,30)", "DATETIME(6) NULL", "TEXT", "BIT(1)", "DOUBLE AS (1 / 3) VIRTUAL",
                   "CHAR(5) NOT NULL DEFAULT 'ab'"}) +
             (Percent(50) ? "" : Percent(50) ? " FIRST" : " AFTER " + Quote(t.columns[0].name));
      return;
    case 1:
      out += "ALTER TABLE " + name + " DROP COLUMN IF EXISTS " + extra;
      return;
    case 2: case 3: {  // a column to another type of its family
      const Column& c = t.columns[Below(t.columns.size())];
      if (Generated(c) || c.auto_increment) {
        out += "ANALYZE TABLE " + name;
        return;
      }
      const T type = SqlTypeOf(c);
      const char* to;
      switch (type) {
        case T::kInt: to = Pick({"TINYINT", "SMALLINT UNSIGNED", "INT", "BIGINT", "MEDIUMINT", "BIGINT UNSIGNED"}); break;
        case T::kDecimal: to = Pick({"DECIMAL(5,2)", "DECIMAL(65,0)", "DECIMAL(30,30)"}); break;
        case T::kReal: to = Pick({"FLOAT", "DOUBLE"}); break;
        case T::kString: to = Pick({"VARCHAR(1)", "VARCHAR(255)", "CHAR(10)", "TEXT", "VARCHAR(64) CHARACTER SET latin1",
                                    "VARCHAR(64) COLLATE utf8mb4_bin"}); break;
        case T::kBinary: to = Pick({"VARBINARY(8)", "BLOB", "BINARY(16)"}); break;
        case T::kDate: to = "DATE"; break;
        case T::kTime: to = Pick({"TIME", "TIME(6)"}); break;
        case T::kDatetime: to = Pick({"DATETIME", "DATETIME(6)", "TIMESTAMP(3) NULL"}); break;
        default:
          out += "ANALYZE TABLE " + name + " PERSISTENT FOR ALL";
          return;
      }
      out += "ALTER TABLE " + name + " MODIFY COLUMN " + Quote(c.name) + " " + to +
             (c.nullable && !c.primary ? "" : " NOT NULL");
      if (Percent(20)) out += Pick({", ALGORITHM=COPY", ", ALGORITHM=INPLACE", ", LOCK=NONE"});
      return;
    }
    case 4: {
      const Column& c = t.columns[Below(t.columns.size())];
      const T type = SqlTypeOf(c);
      const std::string base = c.base_type();
      const bool prefix = (type == T::kString || type == T::kBinary || type == T::kJson) && base != "enum" &&
                          base != "set";
      out += "ALTER TABLE " + name + " ADD INDEX IF NOT EXISTS `ix" + std::to_string(1 + Below(2)) + "` (" +
             Quote(c.name) + (prefix ? "(8)" : "") + (Percent(30) ? " DESC" : "") + ")";
      return;
    }
    case 5:
      out += "ALTER TABLE " + name + " DROP INDEX IF EXISTS `ix" + std::to_string(1 + Below(2)) + "`";
      return;
    case 6:
      out += "ALTER TABLE " + name + Pick({" ENGINE=InnoDB", " ENGINE=MyISAM", " ENGINE=Aria", " FORCE",
                                           " ENGINE=InnoDB ROW_FORMAT=COMPRESSED", " ENGINE=Aria TRANSACTIONAL=0"});
      return;
    case 7:
      out += Pick({"ANALYZE TABLE ", "ANALYZE TABLE ", "OPTIMIZE TABLE ", "CHECK TABLE ", "CHECKSUM TABLE ",
                   "REPAIR TABLE ", "CHECK TABLE "});
      out += name;
      if (out.rfind("ANALYZE", 0) == 0 && Percent(50)) out += " PERSISTENT FOR ALL";
      return;
    case 8: {
      out += "CREATE OR REPLACE VIEW `v" + std::to_string(1 + Below(3)) + "` AS ";
      Select(out, 1, 0, nullptr, QueryFocus::kGeneral);
      return;
    }
    case 9:
      out += "DROP VIEW IF EXISTS `v" + std::to_string(1 + Below(3)) + "`";
      return;
    case 10:
      if (Percent(50)) {
        out += "CREATE TEMPORARY TABLE IF NOT EXISTS `tmp" + std::to_string(1 + Below(2)) + "` AS SELECT * FROM " + name;
      } else {
        out += "DROP TEMPORARY TABLE IF EXISTS `tmp" + std::to_string(1 + Below(2)) + "`";
      }
      return;
    default:
      out += "ALTER TABLE " + name + Pick({" ADD CONSTRAINT `cx1` CHECK (1 = 1)", " DROP CONSTRAINT IF EXISTS `cx1`",
                                           " AUTO_INCREMENT = 1000", " COMMENT = 'gauntlet'"});
      return;
  }
}

void QueryBuilder::Setting(std::string& out) {
  out += "SET SESSION ";
  switch (Below(10)) {
    case 0:
      out += std::string("sql_mode = ") +
             Pick({"DEFAULT", "''", "'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'",
                   "'TRADITIONAL'", "'PAD_CHAR_TO_FULL_LENGTH'", "'NO_BACKSLASH_ESCAPES'", "'HIGH_NOT_PRECEDENCE'",
                   "'ONLY_FULL_GROUP_BY'", "'EMPTY_STRING_IS_NULL'", "'ANSI'", "'ORACLE'"});
      return;
    case 1: case 2: {
      const auto& flags = OptimizerSwitchFlags();
      out += "optimizer_switch = '" + flags[Below(flags.size())] + (Percent(50) ? "=on'" : "=off'");
      return;
    }
    case 3: out += "join_cache_level = " + std::to_string(Below(9)); return;
    case 4: out += "optimizer_use_condition_selectivity = " + std::to_string(1 + Below(5)); return;
    case 5:
      out += Pick({"tmp_memory_table_size = 16384", "max_heap_table_size = 16384", "sort_buffer_size = 32768",
                   "join_buffer_size = 128", "tmp_table_size = DEFAULT", "big_tables = ON", "max_sort_length = 64",
                   "group_concat_max_len = 4"});
      return;
    case 6:
      out += Pick({"optimizer_search_depth = 0", "optimizer_search_depth = 1", "optimizer_prune_level = 0",
                   "in_predicate_conversion_threshold = 2", "div_precision_increment = 0",
                   "div_precision_increment = 30", "use_stat_tables = 'NEVER'",
                   "use_stat_tables = 'PREFERABLY_FOR_QUERIES'", "histogram_size = 0", "optimizer_max_sel_arg_weight = 1"});
      return;
    case 7:
      out += Pick({"optimizer_trace = 'enabled=on'", "optimizer_trace = 'enabled=off'", "time_zone = '+05:30'",
                   "time_zone = DEFAULT", "character_set_connection = latin1", "collation_connection = DEFAULT",
                   "collation_connection = utf8mb4_bin"});
      return;
    case 8: out += Pick({"tx_isolation = 'READ-COMMITTED'", "tx_isolation = 'SERIALIZABLE'",
                         "tx_isolation = 'REPEATABLE-READ'", "tx_isolation = 'READ-UNCOMMITTED'"});
      return;
    default:
      out += Pick({"optimizer_switch = DEFAULT", "join_cache_level = DEFAULT", "sql_mode = DEFAULT",
                   "optimizer_use_condition_selectivity = DEFAULT"});
      return;
  }
}

}  // namespace gauntlet
