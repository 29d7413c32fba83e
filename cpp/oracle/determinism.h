// What makes a query's result depend on more than its data: functions like
// RAND() and NOW(), LIMIT without a total order, grouping that picks any row
// of a group, window functions over ties, server variables and metadata.
//
// Every check errs toward "nondeterministic": an oracle skips (and counts) a
// statement it cannot be sure of rather than raise a false alarm.
#ifndef GAUNTLET_ORACLE_DETERMINISM_H_
#define GAUNTLET_ORACLE_DETERMINISM_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/session.h"
#include "sql/sql_shape.h"

namespace gauntlet {

// The unique keys of a table that order its rows totally: each key its
// columns' names, upper-cased; none when unknown.
using UniqueKeys = std::function<std::vector<std::vector<std::string>>(const TableRef&)>;

// Why the rows of `s` (a query) may differ between two correct executions on
// the same data, in a few words; "" when they may not. With `keys`, a LIMIT
// is deterministic also when OrderedByUniqueKeys says so.
std::string Nondeterminism(const SqlShape& s, const UniqueKeys* keys = nullptr);
// Whether `name` is a schema whose tables describe the server (INFORMATION_SCHEMA, ...), any case.
bool IsMetadataSchema(std::string_view name);

// The first value that `s` reads that changes between executions
// (volatile_values.h), in a few words ("calls RAND()"); "" when none. The
// first reason Nondeterminism gives, and the one that matters for timing.
std::string ReadsVolatileValue(const SqlShape& s);

// The top-level ORDER BY sorts by every selected column, so that the order of
// the rows is determined (ties are equal rows).
bool TotallyOrdered(const SqlShape& s);

// The top-level ORDER BY sorts by a unique key of every table of FROM (their
// columns, qualified when it joins): each row is one combination of those
// tables' rows (an outer join's missing side included), so the order of the
// rows is determined though the ORDER BY leaves out selected columns. Not for
// grouped, aggregated or DISTINCT queries, derived tables, or an ORDER BY
// name that a select item's alias could mean.
bool OrderedByUniqueKeys(const SqlShape& s, const UniqueKeys& keys);

// The keys as target t of the session sees them (SHOW COLUMNS: its primary
// key, each unique NOT NULL column), only of integer, decimal and temporal
// columns: a string key may sort by a prefix (max_sort_length) and tie.
UniqueKeys SessionKeys(Session& session, size_t t, double limit);

// A select item's alias ("expr AS x", "expr x"), upper-cased and unquoted,
// or "".
std::string ItemAlias(const SqlShape& s, const SqlSpan& item);

// GROUP BY, DISTINCT, set operations or MIN/MAX: where the server may return
// any one of values that a case-insensitive collation calls equal.
bool PicksAmongEquals(const SqlShape& s);

// The statement only reads (SELECT, SHOW, ...): it changes no data.
bool ReadOnly(const SqlShape& s);

// The statement returns rows that a query computes (SELECT, WITH, VALUES, TABLE).
bool ReturnsQueryRows(const SqlShape& s);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_DETERMINISM_H_
