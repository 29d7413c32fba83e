// RootCauseKey: findings that likely share a cause share a key, so that a
// hunt's hundreds of findings become a short list a person reads (issue 37).
//
// A wrong result (tlp, norec, metamorphic, divergence): its kind (tlp and
// norec as one, `tlp/norec`: both check how a WHERE is evaluated; TLP on a
// condition of 1, which compares the query with itself through a UNION ALL,
// as `metamorphic`, the transforms' kind), whether
// the difference is a truncation ([truncated] in its signature) and what is
// left in its minimal query (Finding::minimal, the statement when there is
// none). That is the family of the functions it calls and the types it
// converts to, when one is there: `rounding` (ROUND, FLOOR, CEILING,
// TRUNCATE), else `JSON building` (JSON_ARRAY, JSON_OBJECT, JSON_SET and the
// others that build JSON text), else `temporal` (DATE, TIMESTAMP, DATE_ADD,
// INTERVAL, CAST(x AS DATE), ...): a family says more than the calls beside
// it, which are usually where a value came from. Else the functions and types
// themselves (CAST and CONVERT only by their type), each once and sorted;
// else the operators that can be a cause (ALL/ANY, IN, NOT, IS, LIKE,
// BETWEEN, <=>, EXISTS, outer join, subquery); what an ALL/ANY subquery
// selects counts only by its family. By the minimal query's data: a
// rewrite reading a FLOAT column is `FLOAT column`, IS NULL of a DATE column
// `temporal`. Before all of it, what the differing values look like when it
// names a mechanism: `[clipped]` (a DECIMAL cut to its type's largest),
// `[10^17]` (a number become 10^17 once materialized),
// `[infinity as 0]`, `[negative zero]`, with nothing after the colon. The
// LIMIT relation (signature "limit: ...") by how the LIMIT is applied instead:
// `metamorphic: LIMIT OFFSET DISTINCT`. Joins, clauses, comparisons,
// arithmetic, CASE and NULL only carry a cause, and greedy minimisation
// leaves different ones behind from different queries:
//   tlp/norec: temporal          SELECT * FROM t4 WHERE '1.5' <= CAST(c3 AS DATE)
//   metamorphic: rounding        SELECT ROUND(1e308, 30) AS a1 FROM t1
//   tlp/norec: ALL/ANY subquery  SELECT a FROM t2 WHERE 2 > ALL (SELECT b FROM n)
// A crash: its assertion, or its signal and the first three frames of the
// server's own code (libc's and the signal handler's left out) without
// arguments, offsets or addresses. Anything else: its signature.
#ifndef GAUNTLET_ORACLE_ROOT_CAUSE_KEY_H_
#define GAUNTLET_ORACLE_ROOT_CAUSE_KEY_H_

#include <string>

#include <nlohmann/json.hpp>

namespace gauntlet {

// `finding` as finding.json has it (Finding::ToJson).
std::string RootCauseKey(const nlohmann::json& finding);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_ROOT_CAUSE_KEY_H_
