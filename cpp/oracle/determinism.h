// What makes a query's result depend on more than its data: functions like
// RAND() and NOW(), LIMIT without a total order, grouping that picks any row
// of a group, window functions over ties, server variables and metadata.
//
// Every check errs toward "nondeterministic": an oracle skips (and counts) a
// statement it cannot be sure of rather than raise a false alarm.
#ifndef GAUNTLET_ORACLE_DETERMINISM_H_
#define GAUNTLET_ORACLE_DETERMINISM_H_

#include <string>

#include "oracle/sql_shape.h"

namespace gauntlet {

// Why the rows of `s` (a query) may differ between two correct executions on
// the same data, in a few words; "" when they may not.
std::string Nondeterminism(const SqlShape& s);

// The first value that `s` reads that changes between executions
// (volatile_values.h), in a few words ("calls RAND()"); "" when none. The
// first reason Nondeterminism gives, and the one that matters for timing.
std::string ReadsVolatileValue(const SqlShape& s);

// The top-level ORDER BY sorts by every selected column, so that the order of
// the rows is determined (ties are equal rows).
bool TotallyOrdered(const SqlShape& s);

// GROUP BY, DISTINCT, set operations or MIN/MAX: where the server may return
// any one of values that a case-insensitive collation calls equal.
bool PicksAmongEquals(const SqlShape& s);

// The statement only reads (SELECT, SHOW, ...): it changes no data.
bool ReadOnly(const SqlShape& s);

// The statement returns rows that a query computes (SELECT, WITH, VALUES, TABLE).
bool ReturnsQueryRows(const SqlShape& s);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_DETERMINISM_H_
