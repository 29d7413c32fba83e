// VolatileValues: the one table of what a statement can read that changes
// between two executions on the same data: clocks, random numbers, a
// sequence's next value, locks, the session's last insert id, a user
// variable assigned inside the query, ...
//
// Every oracle asks Nondeterminism() (determinism.h), which reads this
// table: a statement that reads one of these is skipped with the entry's
// name as the reason, and counted. Reading a sequence advances it, so such a
// statement writes (ChangesData in generate/statements.h says the same for
// the executor's tracking of concurrent writes; a test ties the two).
#ifndef GAUNTLET_ORACLE_VOLATILE_VALUES_H_
#define GAUNTLET_ORACLE_VOLATILE_VALUES_H_

#include <string_view>
#include <vector>

#include "sql/sql_shape.h"

namespace gauntlet {

struct VolatileValue {
  enum Form {
    kCall,        // NAME( ... )
    kWord,        // NAME, with or without parentheses (CURRENT_TIMESTAMP)
    kPhrase,      // words in a row: NEXT VALUE FOR
    kPseudoColumn,  // qualifier.NAME (s.NEXTVAL in sql_mode=ORACLE)
    kAssignment,  // @variable := ...
  };
  std::string_view name;     // upper-case, as written: "RAND", "NEXT VALUE FOR", "NEXTVAL", ":="
  Form form;
  bool changes_data;         // reading it advances a sequence: the statement writes
  std::string_view example;  // a select-list item that reads it (for tests of every entry)
};

const std::vector<VolatileValue>& VolatileValues();

// The entries that statement `s` reads, in the order it reads them.
std::vector<const VolatileValue*> VolatileValuesRead(const SqlShape& s);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_VOLATILE_VALUES_H_
