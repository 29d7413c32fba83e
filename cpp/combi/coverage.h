// CheckCoverage: what rows cover of a CoveringModel, counted independently of
// the generator (its own enumeration and feasibility test), for tests and
// reports: every value tuple of every interaction, whether some valid row can
// hold it, and whether some row does.
#ifndef GAUNTLET_COMBI_COVERAGE_H_
#define GAUNTLET_COMBI_COVERAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "combi/covering_array.h"

namespace gauntlet {

struct CoverageReport {
  uint64_t tuples = 0;        // value tuples of all interactions
  uint64_t feasible = 0;      // those a valid row can hold
  uint64_t covered = 0;       // feasible tuples some row holds
  uint64_t invalid_rows = 0;  // rows that match a forbidden combination
  std::vector<std::string> missing;  // the first uncovered feasible tuples, as "p3=1 p7=0"
};

CoverageReport CheckCoverage(const CoveringModel& model, const Rows& rows);

}  // namespace gauntlet

#endif  // GAUNTLET_COMBI_COVERAGE_H_
