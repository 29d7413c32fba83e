// CheckTurns: the relation oracles of a run (TLP, NoREC, the transforms) share out
// the statements, so that a statement costs one check's follow-ups and the
// run checks more distinct statements per second.
//
// Statement n of a session (Observation::number) goes to one family in turn
// (tlp, norec, transforms: equal shares of the families the run has), and
// within a family to its members in turn. When that oracle does not apply to
// the statement (NoREC without a WHERE), a later family's member in turn
// takes it (else the next oracle in the run's order). The same seed gives
// the same turns.
#ifndef GAUNTLET_ORACLE_CHECK_TURNS_H_
#define GAUNTLET_ORACLE_CHECK_TURNS_H_

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace gauntlet {

class CheckTurns {
 public:
  // Each family: its members' positions in the run's order (0, 1, ...).
  explicit CheckTurns(std::vector<std::vector<size_t>> families);
  // The oracle at `position` checks statement `number` of session `thread`.
  bool Mine(int thread, uint64_t number, size_t position);
  // It did not apply: the next oracle in the run's order may take it.
  void Declined(int thread, uint64_t number, size_t position);

 private:
  struct Slot {
    uint64_t number = UINT64_MAX;
    size_t family = 0, holder = 0;
  };
  Slot& SlotFor(int thread, uint64_t number);  // under mu_
  size_t Member(size_t family, uint64_t number) const;  // whose turn in the family
  std::vector<std::vector<size_t>> families_;
  std::mutex mu_;
  std::unordered_map<int, Slot> slots_;
};

}  // namespace gauntlet

#endif  // GAUNTLET_ORACLE_CHECK_TURNS_H_
