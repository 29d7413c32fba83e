// CoveringArray: rows that cover every feasible tuple of a CoveringModel.
//
// Rows are built one at a time (after the seeds): each starts from an
// uncovered tuple of the interaction with the most left, then gives every
// other parameter the value with the most uncovered tuples it completes or
// may still complete (the density greedy of Bryce and Colbourn), and the best
// of a few such candidates is kept. The smallest of `tries` greedy arrays
// (seeds derived from `seed`) is then shortened: a row is dropped and a tabu
// search moves uncovered tuples into rows (Nurmela) until all are covered
// again, for as long as `effort` allows. For a model with no constraints and
// one strength, algebraic constructions compete (Kleitman-Spencer for binary
// pairs, orthogonal arrays over prime powers for t = 2 and 3, doubling for
// binary t = 3), and the smallest array wins.
//
// Deterministic: the same model and options give the same rows on every
// machine (effort counts work, not time).
#ifndef GAUNTLET_COMBI_COVERING_ARRAY_H_
#define GAUNTLET_COMBI_COVERING_ARRAY_H_

#include <cstdint>
#include <vector>

#include "combi/covering_model.h"

namespace gauntlet {

struct CoveringOptions {
  uint64_t seed = 1;
  int tries = 0;        // greedy arrays to start from (0: by the model's size)
  int candidates = 3;   // rows built per row kept
  double effort = 1.0;  // the shortening search's work, in units of about 0.1 s here (0: none)
  bool constructions = true;
};

using Rows = std::vector<std::vector<int>>;

// Throws InvalidInput when the model is malformed or a seed is not valid.
Rows GenerateCoveringArray(const CoveringModel& model, const CoveringOptions& options = {});

}  // namespace gauntlet

#endif  // GAUNTLET_COMBI_COVERING_ARRAY_H_
