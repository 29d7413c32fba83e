// WriteQueries: `gauntlet gensql`'s output, written by the engine.
//
// The next `n` queries of a Generator go to a file descriptor as RQG's
// gensql.pl prints them: each statement of a query on its own line (split as
// the executor splits, newlines inside a statement turned into spaces), with
// `;` appended when asked. Output is buffered in large writes, so the command
// runs at the engine's speed rather than at a scripting loop's.
#ifndef GAUNTLET_GENERATE_GENSQL_H_
#define GAUNTLET_GENERATE_GENSQL_H_

#include <cstdint>

#include "generate/generator.h"

namespace gauntlet {

// Returns the number of statements written. Throws Error when a write fails
// (a closed pipe included: the reader went away).
uint64_t WriteQueries(Generator& generator, uint64_t n, int fd, bool semicolons);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_GENSQL_H_
