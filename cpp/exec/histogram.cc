#include "exec/histogram.h"

#include <algorithm>

namespace gauntlet {

int LatencyHistogram::Bucket(uint64_t v) {
  if (v < kSub) return static_cast<int>(v);
  const int top = 63 - __builtin_clzll(v);           // position of the highest bit
  const int shift = top - kSubBits;                  // bits below the sub-bucket
  const int sub = static_cast<int>((v >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

uint64_t LatencyHistogram::BucketMid(int bucket) {
  if (bucket < kSub) return static_cast<uint64_t>(bucket);
  const int shift = bucket / kSub - 1;
  const uint64_t sub = static_cast<uint64_t>(bucket % kSub);
  const uint64_t low = (uint64_t{kSub} + sub) << shift;
  return low + ((uint64_t{1} << shift) >> 1);
}

void LatencyHistogram::Record(int64_t nanos) {
  if (nanos < 0) nanos = 0;
  ++counts_[Bucket(static_cast<uint64_t>(nanos))];
  ++count_;
  sum_ += nanos;
  max_ = std::max(max_, nanos);
  min_ = std::min(min_, nanos);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

void LatencyHistogram::Clear() { *this = LatencyHistogram(); }

int64_t LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  if (q >= 1.0) return max_;
  const uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_));
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen > rank) return std::min<int64_t>(static_cast<int64_t>(BucketMid(i)), max_);
  }
  return max_;
}

}  // namespace gauntlet
