// DifferentialOracle: the same statement on two or more targets must have
// the same outcome (RQG's ResultsetComparator, grown up).
//
// Compared with the first target: the status (ok, or the error's kind: an
// error against success, or errors of different kinds, is an error-mismatch
// finding), affected rows of DML (not of DDL, whose count depends on the
// algorithm the server picked), and the rows of queries as multisets
// (in order only where ORDER BY determines it; see result_compare.h for
// floats and strings). Skipped, and counted by reason: nondeterministic
// statements (determinism.h; a write of a volatile value also ends the
// comparison of later results, as the targets' data may differ), deadlocks, timeouts and resource errors on one
// side, statements during which another session wrote (the targets may then
// have run them on different data), and everything after a write diverged or
// after a write ran while another session wrote (the targets' data may differ
// from then on, and so would every later result: lockstep keeps targets equal
// only with one writing session at a time). The first divergence in rows of
// a signature is minimised (minimise.h) on the live targets: Finding::minimal.
#ifndef GAUNTLET_ORACLE_DIFFERENTIAL_H_
#define GAUNTLET_ORACLE_DIFFERENTIAL_H_

#include <atomic>

#include "exec/oracle.h"
#include "oracle/minimise.h"

namespace gauntlet {

class DifferentialOracle : public Oracle {
 public:
  std::string name() const override { return "differential"; }
  bool WantsRows(std::string_view sql) const override;
  Verdict Check(const Observation& o) override;

 private:
  bool DiffersAlike(const Observation& o, size_t t, const std::string& sql, const std::string& kind, double limit,
                    nlohmann::json* failure) const;

  MinimiseBudget budget_{200, 5};
  FirstSignatures minimised_;
  std::atomic<bool> data_diverged_{false};
  std::atomic<bool> data_uncertain_{false};
};

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_DIFFERENTIAL_H_
