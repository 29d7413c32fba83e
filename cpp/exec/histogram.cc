#include "exec/histogram.h"

#include <algorithm>

#include "common/error.h"

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

nlohmann::json LatencyHistogram::SummaryJson() const {
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  return {{"p50", ms(Quantile(0.5))}, {"p95", ms(Quantile(0.95))}, {"p99", ms(Quantile(0.99))},
          {"max", ms(max())}, {"mean", mean() / 1e6}};
}

nlohmann::json LatencyHistogram::ToJson() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (int i = 0; i < kBuckets; ++i)
    if (counts_[i] != 0) buckets.push_back({i, counts_[i]});
  return {{"buckets", buckets}, {"sum_ns", static_cast<double>(sum_)}, {"min_ns", min()}, {"max_ns", max_}};
}

LatencyHistogram LatencyHistogram::FromJson(const nlohmann::json& j) {
  LatencyHistogram h;
  try {
    for (const auto& b : j.at("buckets")) {
      const int i = b.at(0).get<int>();
      if (i < 0 || i >= kBuckets) throw InvalidInput({"latency_histogram"}, "bucket " + std::to_string(i) + " is out of range");
      h.counts_[i] += b.at(1).get<uint64_t>();
      h.count_ += b.at(1).get<uint64_t>();
    }
    h.sum_ = static_cast<__int128>(j.at("sum_ns").get<double>());
    h.max_ = j.at("max_ns").get<int64_t>();
    if (h.count_ != 0) h.min_ = j.at("min_ns").get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InvalidInput({"latency_histogram"}, e.what());
  }
  return h;
}

}  // namespace gauntlet
