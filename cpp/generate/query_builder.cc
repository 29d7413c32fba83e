#include "generate/query_builder.h"

#include <algorithm>

#include "generate/query_builder_parts.h"

// The builder itself and its queries; expressions are in
// query_builder_expressions.cc, statements beyond SELECT in
// query_builder_statements.cc.

namespace gauntlet {

using namespace builder;  // NOLINT(build/namespaces): the builder's own helpers

namespace {

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
    info.versioned = !t.view && HasCi(t.options, "system versioning");
    info.partitioned = !t.view && HasCi(t.options, "partition by");
    info.view = t.view;
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

int QueryBuilder::StartOnTable(std::string& out, bool base_only) {
  Reset();
  const int table = PickTable(base_only ? 1 : 0);
  if (table < 0) out += "DO 1";
  return table;
}

int QueryBuilder::PickTable(int which) {
  const auto& tables = schema_.TablesIn(0, which);
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
    const uint64_t last = Below(20);  // drawn apart from the +: see Cond's quantifier
    out += "WITH RECURSIVE " + rel.alias + " (a1) AS (SELECT " + std::to_string(Below(3)) +
           " UNION ALL SELECT a1 + 1 FROM " + rel.alias + " WHERE a1 < " + std::to_string(last) + ") ";
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
        const char* rows = Pick({" ROWS ONLY", " ROWS WITH TIES", " ROW ONLY"});
        const uint64_t count = 1 + Below(10);
        out += std::string(Pick({" FETCH FIRST ", " FETCH NEXT "})) + std::to_string(count) + rows;
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
  if (Percent(8) && !tables_[table].view) {  // a view has no indexes to hint
    const std::vector<std::string>& keys = tables_[table].keys;
    if (keys.empty() || Percent(30)) {
      out += " USE INDEX ()";
    } else {
      const std::string& key = keys[Below(keys.size())];
      out += std::string(Pick({" FORCE INDEX (", " USE INDEX (", " IGNORE INDEX (", " FORCE INDEX FOR JOIN (",
                               " IGNORE INDEX FOR ORDER BY ("})) + key + ")";
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


}  // namespace gauntlet
