// QueryBuilder: type-aware random SQL over a Schema, for `builtin:select`
// and the grammar rules `_query`, `_predicate`, `_expr(TYPE)`, `_dml`,
// `_ddl` and `_setting`.
//
// Expressions are built from the columns in scope by type: comparisons
// across types, arithmetic and bit operators mixing signed and unsigned,
// casts, control-flow functions, subqueries (IN, EXISTS, ANY/ALL, scalar),
// LIKE/REGEXP, and the numeric, string, temporal, JSON, XML and spatial
// function families, over edge-value literals. Queries have joins of every
// kind, derived tables, CTEs, grouping, window functions, set operations,
// hints and EXPLAIN. Every draw goes through the caller's Rng, so a
// statement is replayed from its recorded choices; draw 0 is always the
// simpler option, so shrinking (all-zero tails) simplifies. Aliases are
// unique within a statement, which keeps correlated subqueries and joins
// unambiguous. Nondeterministic functions appear rarely; the oracles
// recognise and skip them.
#ifndef GAUNTLET_GENERATE_QUERY_BUILDER_H_
#define GAUNTLET_GENERATE_QUERY_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/rng.h"
#include "generate/schema.h"
#include "grammar/builtin.h"

namespace gauntlet {

// The family of a column type as written ("int(11) unsigned", "varchar(5)").
SqlType SqlTypeOf(const Column& c);

// MariaDB 10.11's optimizer_switch flags (settings and the oracles' transforms).
const std::vector<std::string>& OptimizerSwitchFlags();

class QueryBuilder {
 public:
  // `schema` and `rng` must outlive the builder, which is cheap to keep: it
  // holds no state from one statement to the next.
  QueryBuilder(const Schema& schema, Rng& rng);

  // A SELECT (perhaps a set operation, with CTEs, or under EXPLAIN).
  void Query(std::string& out, QueryFocus focus = QueryFocus::kGeneral);
  // A condition / expression over table `table`'s columns, unqualified.
  void Predicate(std::string& out, int table);
  void Expr(std::string& out, SqlType type, int table);
  // INSERT, REPLACE, UPDATE, DELETE (single and multi-table).
  void Dml(std::string& out);
  // Schema evolution: ALTER TABLE (columns, keys, engine), statistics,
  // table maintenance, views and temporary tables of our own names.
  void Ddl(std::string& out);
  // SET SESSION of a variable that changes plans or semantics.
  void Setting(std::string& out);

 private:
  struct Col { std::string name; SqlType type; };
  struct Rel {
    std::string alias;
    int table;
    std::vector<Col> cols;
    double rows = 1;  // at most, for the cost bound
  };

  uint64_t Below(uint64_t n) { return rng_.Below(n); }
  bool Percent(int p) { return rng_.Below(100) >= static_cast<uint64_t>(100 - p); }  // draw 0: no
  template <class T, size_t N> const T& Pick(const T (&a)[N]) { return a[Below(N)]; }

  void Reset();  // a new statement
  std::string NewAlias(char prefix);
  Rel TableRel(int table, const std::string& alias) const;
  int PickTable(int which = 0);  // Schema::TablesIn's `which`: 0 any, 1 base tables
  // A new statement about a random table (a base table when `base_only`); -1
  // (with "DO 1" written) when the schema has none.
  int StartOnTable(std::string& out, bool base_only = false);
  void Select(std::string& out, int depth, int items, std::vector<Col>* shape, QueryFocus focus);
  void From(std::string& out, int depth, QueryFocus focus);
  void TableRef(std::string& out, int depth, Rel* rel);
  void Cte(std::string& out, int depth);
  void Window(std::string& out, SqlType* type);
  void Aggregate(std::string& out, SqlType* type);

  // An expression of family `t`: a leaf, control flow, or a function or operator of the family
  // (IntExpr ... JsonExpr) whose operands are of their own families or of `any`, one family drawn
  // per expression.
  void E(std::string& out, SqlType t, int depth);
  void ControlFlow(std::string& out, SqlType t, int depth);
  void IntExpr(std::string& out, SqlType any, int depth);
  void DecimalExpr(std::string& out, SqlType any, int depth);
  void RealExpr(std::string& out, SqlType any, int depth);
  void StringExpr(std::string& out, SqlType any, int depth);
  void BinaryExpr(std::string& out, SqlType any, int depth);
  void DateExpr(std::string& out, SqlType any, int depth);
  void TimeExpr(std::string& out, SqlType any, int depth);
  void DatetimeExpr(std::string& out, SqlType any, int depth);
  void JsonExpr(std::string& out, SqlType any, int depth);
  // f(a, b, ...), each argument an expression of its family.
  void Call(std::string& out, const char* f, std::initializer_list<SqlType> args, int depth);
  // CAST(expression of `from` AS one of `to`), `to` holding the text from " AS" on.
  void CastTo(std::string& out, SqlType from, std::initializer_list<const char*> to, int depth);
  // (a OP b), each side of its family `percent`% of the time, else of `any`.
  void BinaryOp(std::string& out, SqlType left, SqlType right, SqlType any, int percent,
                std::initializer_list<const char*> ops, int depth);
  void Cond(std::string& out, int depth);
  void Compare(std::string& out, int depth);
  void Leaf(std::string& out, SqlType t);
  // A column of family `t` in scope (any scalar family unless `exact`).
  bool ColumnRef(std::string& out, SqlType t, bool exact, SqlType* found = nullptr);
  void Literal(std::string& out, SqlType t);
  void Subquery(std::string& out, int depth, SqlType t, bool scalar);
  SqlType Comparable(SqlType t);
  void Assignment(std::string& out, const Rel& rel, const Col& col);

  struct TableInfo {
    std::vector<Col> cols;
    bool versioned = false, partitioned = false, view = false;
    std::vector<std::string> keys;  // index names, "PRIMARY" for the primary key
    double rows = 1;
  };

  const Schema& schema_;
  Rng& rng_;
  std::vector<TableInfo> tables_;  // per schema table
  std::vector<Rel> scope_;       // visible relations, innermost last
  std::vector<Rel> ctes_;        // CTEs the current query may name
  bool aggregates_ = false;      // aggregates allowed here (items, HAVING)
  bool grouped_ = false;         // in a grouped query's items or HAVING
  const std::vector<Col>* groups_ = nullptr;  // grouped: the grouping columns, which items may use
  int alias_ = 0;
  int relations_ = 0;            // in FROM clauses so far
  static constexpr int kMaxRelations = 4;
  // Rows a nested-loop plan may visit: the product of the relations' rows in
  // FROM clauses, times a subquery's table when it is evaluated per row. A
  // statement stays under kMaxCost, so that queries take milliseconds, not
  // minutes, on any schema (a hang finding should be a hang).
  double cost_ = 1;
  double max_table_rows_ = 1;
  static constexpr double kMaxCost = 5e4;
  bool SubqueryAffordable() const { return cost_ * max_table_rows_ <= kMaxCost; }
  int sub_depth_ = 0;
};

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_QUERY_BUILDER_H_
