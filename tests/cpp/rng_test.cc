#include "common/rng.h"

#include <gtest/gtest.h>

namespace gauntlet {
namespace {

TEST(Rng, BelowStaysInRangeAndIsRoughlyUniform) {
  Rng rng(1);
  int counts[6] = {0};
  for (int i = 0; i < 60000; ++i) {
    const uint64_t v = rng.Below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

TEST(Rng, FullRangesWork) {
  // Over the whole range, both halves come up (each draw misses one with probability 1/2).
  Rng rng(2);
  int negative = 0, high = 0;
  for (int i = 0; i < 100; ++i) {
    negative += rng.Range(INT64_MIN, INT64_MAX) < 0;
    const uint64_t u = rng.RangeU(5, UINT64_MAX);
    EXPECT_GE(u, 5u);
    high += u > UINT64_MAX / 2;
    EXPECT_EQ(rng.Range(-3, -3), -3);
  }
  EXPECT_GT(negative, 10);
  EXPECT_LT(negative, 90);
  EXPECT_GT(high, 10);
  EXPECT_LT(high, 90);
}

TEST(Rng, RecordsAndReplaysChoices) {
  Rng rng(3);
  std::vector<uint64_t> first;
  for (int i = 0; i < 10; ++i) first.push_back(rng.Below(100));
  const ChoiceSeq recorded = rng.choices();
  ASSERT_EQ(recorded.size(), 10u);
  rng.ClearChoices();
  rng.Replay(recorded);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(rng.Below(100), first[i]);
  EXPECT_EQ(rng.Below(100), 0u);    // past the end: the simplest choice
  EXPECT_EQ(rng.Below(3), 0u);
  rng.StopReplay();
  rng.Replay({{50, 100}});
  EXPECT_EQ(rng.Below(10), 9u);     // clamped to the new bound
}

TEST(Rng, DerivedSeedsDiffer) {
  EXPECT_NE(DeriveSeed(1, 1), DeriveSeed(1, 2));
  EXPECT_NE(DeriveSeed(1, 1), DeriveSeed(2, 1));
  // The same on every machine: a seed names the same statements everywhere.
  EXPECT_EQ(DeriveSeed(7, 3), 11890610812480902339ULL);
  EXPECT_EQ(Rng(1).Below(1000000), 702921u);
}

}  // namespace
}  // namespace gauntlet
