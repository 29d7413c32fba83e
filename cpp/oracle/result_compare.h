// Comparing two result sets under a relation, with a readable difference.
//
// Rows compare as multisets unless the relation is kExact (same rows in the
// same order; rows equal but for case and trailing spaces in string columns
// are ties to ORDER BY under a case-insensitive PAD SPACE collation, so a
// run of them may come in any order). Values compare as text, except: a BIT column against a binary
// one (views and UNION may turn BIT into VARBINARY) compares the bytes as a
// number; FLOAT and DOUBLE columns
// compare as numbers within a relative tolerance (1e-5 and 1e-9: the last
// digits of floating arithmetic depend on evaluation order), and, when
// `fold_strings`, string columns compare without case and trailing spaces
// (where GROUP BY, DISTINCT, UNION or MIN/MAX may return any one of values a
// case-insensitive collation calls equal).
#ifndef GAUNTLET_ORACLE_RESULT_COMPARE_H_
#define GAUNTLET_ORACLE_RESULT_COMPARE_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "exec/connection.h"

namespace gauntlet {

enum class Relation {
  kExact,      // the same rows in the same order
  kUnordered,  // the same rows as multisets
  kSuperset,   // every row of the second is in the first (multisets)
  kSubset,     // every row of the first is in the second
  kCount,      // as many rows
};
const char* RelationName(Relation r);

struct CompareRules {
  Relation relation = Relation::kUnordered;
  bool fold_strings = false;
  // kSuperset: the second has as many rows as LIMIT `limit` OFFSET `offset`
  // leaves of the first (-1: any number).
  int64_t limit = -1, offset = 0;
};

struct Comparison {
  bool holds = true;
  // When it fails because each differing value of one side is a proper prefix
  // of the other side's: "truncated" (a type too narrow for its values, the
  // usual cause when a query result is materialized); otherwise "".
  std::string kind;
  std::string diff;        // for people: counts and the first differing rows
  nlohmann::json evidence;  // the same as data
};

// `a_name`/`b_name` label the sides in the diff.
Comparison CompareResults(const ResultSet& a, const ResultSet& b, const CompareRules& rules,
                          const std::string& a_name, const std::string& b_name);

// A row as SQL-ish text: (1, 'x', NULL, X'00FF'): bytes that are not
// printable UTF-8 in hex.
std::string RowText(const std::vector<std::optional<std::string>>& row, size_t max_size = 300);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_RESULT_COMPARE_H_
