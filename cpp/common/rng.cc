#include "common/rng.h"

#include <cassert>

#include "common/error.h"

namespace gauntlet {
namespace {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t DeriveSeed(uint64_t seed, uint64_t stream) {
  uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ULL);
  SplitMix64(&state);
  return SplitMix64(&state);
}

void Rng::Seed(uint64_t seed) {
  uint64_t state = seed;
  for (auto& word : s_) word = SplitMix64(&state);
}

uint64_t Rng::Next64() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

bool Rng::FromReplay(uint64_t bound, uint64_t* value) {
  if (replay_ == nullptr) return false;
  uint64_t v = 0;
  if (replay_strict_) {
    const size_t k = replay_pos_;
    if (k >= replay_->size())
      throw InvalidInput({"<replay>", 0, 0}, "the choices ran out after " + std::to_string(k) +
                                                  " draws; this statement needs more (another grammar or rule?)");
    const Choice& c = (*replay_)[k];
    if (c.bound != bound || (bound != 0 && c.value >= bound))
      throw InvalidInput({"<replay>", 0, 0}, "choice " + std::to_string(k) + " is " + std::to_string(c.value) +
                                                  " of " + std::to_string(c.bound) + ", but this draw is from " +
                                                  std::to_string(bound) +
                                                  " values: the choices come from another grammar, rule or schema");
  }
  if (replay_pos_ < replay_->size()) v = (*replay_)[replay_pos_++].value;
  if (bound != 0 && v >= bound) v = bound - 1;
  *value = v;
  return true;
}

uint64_t Rng::Below(uint64_t n) {
  assert(n > 0);
  uint64_t v;
  if (FromReplay(n, &v)) return Record(v, n);
  // Lemire's nearly divisionless method: unbiased and platform independent.
  uint64_t x = Next64();
  __uint128_t m = static_cast<__uint128_t>(x) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      x = Next64();
      m = static_cast<__uint128_t>(x) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return Record(static_cast<uint64_t>(m >> 64), n);
}

uint64_t Rng::RangeU(uint64_t lo, uint64_t hi) {
  assert(lo <= hi);
  const uint64_t span = hi - lo;
  if (span == UINT64_MAX) {
    uint64_t v;
    if (FromReplay(0, &v)) return Record(v, 0);
    return Record(Next64(), 0);
  }
  return lo + Below(span + 1);
}

int64_t Rng::Range(int64_t lo, int64_t hi) {
  assert(lo <= hi);
  const uint64_t offset = RangeU(0, static_cast<uint64_t>(hi) -
                                        static_cast<uint64_t>(lo));
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
}

double Rng::Uniform01() {
  return static_cast<double>(Below(uint64_t{1} << 53)) * 0x1.0p-53;
}

void Rng::Replay(const ChoiceSeq& prefix, bool strict) {
  replay_copy_ = prefix;
  replay_ = &replay_copy_;
  replay_pos_ = 0;
  replay_strict_ = strict;
}

void Rng::CheckReplayUsed() const {
  if (replay_strict_ && replay_ != nullptr && replay_pos_ < replay_->size())
    throw InvalidInput({"<replay>", 0, 0}, "the statement used " + std::to_string(replay_pos_) + " of " +
                                               std::to_string(replay_->size()) +
                                               " choices: they come from another grammar, rule or schema");
}

void Rng::StopReplay() {
  replay_ = nullptr;
  replay_copy_.clear();
  replay_pos_ = 0;
  replay_strict_ = false;
}

}  // namespace gauntlet
