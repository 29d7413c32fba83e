// Equivalent forms of a SELECT, as text: what the metamorphic and logic
// oracles compare a query with.
//
// Each works on the query's clauses (SqlShape) and returns "" when the query
// does not qualify, with the reason in *why.
#ifndef GAUNTLET_ORACLE_TRANSFORMS_H_
#define GAUNTLET_ORACLE_TRANSFORMS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "sql/sql_shape.h"

namespace gauntlet {

// 'text' as an SQL string literal.
std::string SqlString(std::string_view text);

// SELECT * FROM (q) AS gauntlet_d
std::string AsDerivedTable(const SqlShape& s);
// WITH gauntlet_c AS (q) SELECT * FROM gauntlet_c; with `column_names`,
// WITH gauntlet_c (gauntlet_1, ...) AS ...: a query whose columns share a
// name is no table otherwise.
std::string AsCte(const SqlShape& s, size_t column_names = 0);
// " (gauntlet_1, ..., gauntlet_n)": the column list of a view or CTE.
std::string ColumnList(size_t n);
// The query with USE INDEX () (no index) after every table of its FROM.
std::string WithoutIndexes(const SqlShape& s, std::string* why);
// SET STATEMENT assignment FOR q (MariaDB's per-statement variables).
std::string WithSetStatement(const SqlShape& s, const std::string& assignment);

// The query with `clause` ("" or "LIMIT 10001") instead of its top-level
// LIMIT (an OFFSET/FETCH too), which picks some of its rows; "" when it has
// none. *limit and *offset: its numbers when it is LIMIT n, LIMIT m, n or
// LIMIT n OFFSET m, else -1 and 0.
std::string ReplaceLimit(const SqlShape& s, const std::string& clause, int64_t* limit, int64_t* offset);

// A UNION or INTERSECT of parenthesized SELECTs without their LIMITs (whose
// rows are then among its rows); "" for anything else (EXCEPT: a row a
// LIMIT left out of its right side may be in the result).
std::string WithoutPartLimits(const SqlShape& s);

// Ternary logic partitioning: `unfiltered` must equal `partitioned` (WHERE p,
// WHERE NOT p and WHERE p IS NULL put together) as multisets; for a single
// MIN/MAX/SUM/COUNT, the aggregate of the partitions' aggregates. A query
// with HAVING q is partitioned on q instead (its WHERE and GROUP BY kept); one
// without WHERE on its first inner join's ON predicate (ON 1 unfiltered).
struct TlpQueries {
  std::string unfiltered, partitioned;
  // "rows", "distinct", the aggregate's name, each "on ..." for ON; "having", "having distinct"
  std::string variant;
};
bool Tlp(const SqlShape& s, TlpQueries* out, std::string* why);

// Non-optimizing reference engine construction: the count of rows WHERE p
// selects must equal the count of rows for which p IS TRUE, evaluated row
// by row in the select list (where the optimizer cannot use it).
struct NorecQueries {
  std::string optimized, unoptimized;
};
bool Norec(const SqlShape& s, NorecQueries* out, std::string* why);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_TRANSFORMS_H_
