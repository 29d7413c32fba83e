// RandomSchema: a seeded schema of edge cases, for `--data random[:SEED]`.
//
// 1 to 4 tables (or `tables`) on InnoDB, MyISAM, Aria and MEMORY, with
// columns of every type family MariaDB has (signed and unsigned integers,
// DECIMAL with edge precisions, FLOAT/DOUBLE, BIT, CHAR/VARCHAR/BINARY/
// VARBINARY from length 0, TEXT/BLOB, ENUM/SET, DATE, TIME/DATETIME/
// TIMESTAMP with fractions, YEAR, JSON, INET6, UUID, geometry), character
// sets and collations, NULL and NOT NULL, defaults, generated columns
// (VIRTUAL and PERSISTENT), COMPRESSED columns; keys of every kind (primary,
// unique, single, composite, prefix, descending, full-text, spatial); some
// tables partitioned, some system-versioned. Each column's values mix a pool
// of edge values for its type (zero, negative zero, +-1, the type's minimum
// and maximum and just outside them, fractions, long decimals, '' and long
// strings, trailing spaces, case and accent variants, zero and invalid dates,
// boundary years, NULL) with random ones; pools repeat values, so keys see
// duplicates. Often a view `view1` over one table too: filtered (some WITH
// CHECK OPTION), TEMPTABLE, DISTINCT or grouped. The same seed gives the same
// schema everywhere.
#ifndef GAUNTLET_GENERATE_RANDOM_SCHEMA_H_
#define GAUNTLET_GENERATE_RANDOM_SCHEMA_H_

#include <cstdint>

#include "generate/schema.h"

namespace gauntlet {

struct RandomSchemaOptions {
  int tables = 0;         // 0: 1 to 4
  uint64_t max_rows = 200;  // rows per table: 0, 1, a few, up to this
  std::string database = "test";
};

Schema RandomSchema(uint64_t seed, const RandomSchemaOptions& options = {});

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_RANDOM_SCHEMA_H_
