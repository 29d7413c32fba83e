#include "oracle/check_turns.h"

#include <algorithm>

namespace gauntlet {

CheckTurns::CheckTurns(std::vector<std::vector<size_t>> families) : families_(std::move(families)) {
  families_.erase(std::remove_if(families_.begin(), families_.end(), [](const auto& f) { return f.empty(); }),
                  families_.end());
}

CheckTurns::Slot& CheckTurns::SlotFor(int thread, uint64_t number) {
  Slot& slot = slots_[thread];
  if (slot.number != number && !families_.empty()) {
    slot.number = number;
    slot.family = number % families_.size();
    slot.holder = Member(slot.family, number);
  }
  return slot;
}

bool CheckTurns::Mine(int thread, uint64_t number, size_t position) {
  std::lock_guard<std::mutex> lock(mu_);
  return SlotFor(thread, number).holder == position;
}

void CheckTurns::Declined(int thread, uint64_t number, size_t position) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& slot = SlotFor(thread, number);
  if (slot.holder != position) return;
  // A later family's member in turn (the families' statements stay spread
  // over their members), else the next oracle.
  for (size_t f = slot.family + 1; f < families_.size(); ++f)
    if (const size_t m = Member(f, number); m > position) {
      slot.family = f;
      slot.holder = m;
      return;
    }
  slot.holder = position + 1;
}

size_t CheckTurns::Member(size_t family, uint64_t number) const {
  const auto& members = families_[family];
  return members[(number / families_.size()) % members.size()];
}

}  // namespace gauntlet
