// A seeded random source that records every decision it makes.
//
// Rng is xoshiro256** seeded through splitmix64 and reduces to ranges with
// Lemire's method, so a seed yields the same numbers on every platform and
// compiler. Every draw is appended to a ChoiceSeq (value and bound); a recorded
// sequence can be fed back with Replay() to reproduce a statement exactly, or
// edited (values lowered, spans deleted) to shrink it. During replay a draw
// past the end of the sequence yields 0, the simplest choice.
//
// Not thread-safe: one Rng per worker.
#ifndef GAUNTLET_COMMON_RNG_H_
#define GAUNTLET_COMMON_RNG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gauntlet {

struct Choice {
  uint64_t value;
  uint64_t bound;  // exclusive upper bound; 0 means the full 64-bit range
  // What the draw decided, in the drawer's own numbering (the generator's:
  // which rule or built-in); -1 when unlabelled. Not part of equality.
  int32_t label = -1;
  bool operator==(const Choice& o) const {
    return value == o.value && bound == o.bound;
  }
};
using ChoiceSeq = std::vector<Choice>;

// Mixes a campaign seed and a stream number (worker, statement kind, ...)
// into an independent seed.
uint64_t DeriveSeed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  void Seed(uint64_t seed);

  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n);
  // Uniform in [lo, hi], both inclusive; the whole 64-bit range is allowed.
  int64_t Range(int64_t lo, int64_t hi);
  uint64_t RangeU(uint64_t lo, uint64_t hi);
  // Uniform in [0, 1) with 53 bits of precision.
  double Uniform01();

  // Labels the draws that follow (see Choice::label).
  void set_label(int32_t label) { label_ = label; }

  // The draws made since the last ClearChoices().
  const ChoiceSeq& choices() const { return choices_; }
  void ClearChoices() { choices_.clear(); }

  // Following draws come from `prefix`. Lenient (for shrinking): values are
  // clamped to their bounds, then 0 once `prefix` runs out. Strict: a value
  // out of its bound, a bound other than the recorded one, or running out
  // throws InvalidInput, and so does StopReplay() when choices are left over.
  void Replay(const ChoiceSeq& prefix, bool strict = false);
  void StopReplay();
  void CheckReplayUsed() const;  // strict: every choice was drawn
  bool replaying() const { return replay_ != nullptr; }

 private:
  uint64_t Next64();
  uint64_t Record(uint64_t value, uint64_t bound) {
    choices_.push_back({value, bound, label_});
    return value;
  }
  // Returns the replayed value for a draw under `bound`, or false.
  bool FromReplay(uint64_t bound, uint64_t* value);

  uint64_t s_[4];
  ChoiceSeq choices_;
  const ChoiceSeq* replay_ = nullptr;
  ChoiceSeq replay_copy_;
  size_t replay_pos_ = 0;
  bool replay_strict_ = false;
  int32_t label_ = -1;
};

}  // namespace gauntlet

#endif  // GAUNTLET_COMMON_RNG_H_
