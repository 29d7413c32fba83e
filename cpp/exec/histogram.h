// LatencyHistogram: HDR-style log-linear buckets over nanoseconds.
//
// 32 sub-buckets per power of two keep every recorded value within about 3%
// of its bucket's midpoint from 1 ns to hours, in a fixed 2 KB array, so
// histograms of different threads and seconds merge by adding counts.
// Not thread-safe; merge per-thread copies. ToJson/FromJson carry a
// histogram across processes (the rounds of a keep-going run merge theirs).
#ifndef GAUNTLET_EXEC_HISTOGRAM_H_
#define GAUNTLET_EXEC_HISTOGRAM_H_

#include <array>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace gauntlet {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = (64 - kSubBits + 1) * kSub;

  void Record(int64_t nanos);
  void Merge(const LatencyHistogram& other);
  void Clear();

  uint64_t count() const { return count_; }
  int64_t max() const { return max_; }
  int64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
  // The value at quantile q in [0, 1] (a bucket midpoint; the max for q = 1).
  int64_t Quantile(double q) const;
  // p50, p95, p99, max and mean in milliseconds, as summaries show latency.
  nlohmann::json SummaryJson() const;
  // Sparse: {"buckets": [[bucket, count], ...], "sum_ns", "min_ns", "max_ns"}.
  nlohmann::json ToJson() const;
  // Throws InvalidInput on a malformed or foreign histogram.
  static LatencyHistogram FromJson(const nlohmann::json& j);

 private:
  static int Bucket(uint64_t v);
  static uint64_t BucketMid(int bucket);

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  int64_t max_ = 0;
  int64_t min_ = INT64_MAX;
  __int128 sum_ = 0;
};

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_HISTOGRAM_H_
