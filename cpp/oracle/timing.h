// TimingOracle: a query that runs slower on a target than on the first (the
// baseline), beyond the noise.
//
// A query is a candidate when its lockstep run took at least `ratio` times as
// long, and `min_ms` longer, on a target than on the baseline. The candidate
// is then run `repeats` times on each side, alternately (a b a b ...), and it
// fires only when the one-sided Mann-Whitney rank test says the target is
// slower (p < alpha, exact for these sample sizes) and the medians still
// differ by the ratio and the minimum. RQG's ExecutionTimeComparator used a
// bare ratio of two single runs. The finding states the medians, the p-value
// and both plans (EXPLAIN on each side).
#ifndef GAUNTLET_ORACLE_TIMING_H_
#define GAUNTLET_ORACLE_TIMING_H_

#include <vector>

#include "exec/oracle.h"

namespace gauntlet {

class TimingOracle : public Oracle {
 public:
  struct Settings {
    double ratio = 2.0;    // medians at least this far apart
    double min_ms = 5.0;   // and at least this many milliseconds
    int repeats = 7;       // runs per side when a query is a candidate
    double alpha = 0.01;   // the rank test's significance level
  };
  explicit TimingOracle(Settings s) : settings_(s) {}
  TimingOracle() : TimingOracle(Settings()) {}
  std::string name() const override { return "timing"; }
  Verdict Check(const Observation& o) override;

 private:
  Settings settings_;
};

// P(U >= u) for the Mann-Whitney statistic U = #{(x, y): y > x} (+1/2 for
// ties) of samples of sizes n and m with no difference, exactly.
double MannWhitneyUpperTail(size_t n, size_t m, double u);
// U for "ys are larger than xs".
double MannWhitneyU(const std::vector<double>& xs, const std::vector<double>& ys);

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_TIMING_H_
