// Covering arrays: every feasible tuple covered (by the independent checker),
// no row breaking a constraint, sizes of the constructions, determinism.
#include <gtest/gtest.h>

#include "combi/constructions.h"
#include "combi/coverage.h"
#include "combi/covering_array.h"
#include "common/error.h"

namespace gauntlet {
namespace {

void ExpectCovers(const CoveringModel& m, const Rows& rows) {
  const CoverageReport r = CheckCoverage(m, rows);
  EXPECT_EQ(r.covered, r.feasible) << (r.missing.empty() ? "" : r.missing.front());
  EXPECT_EQ(r.invalid_rows, 0u);
}

TEST(CoveringArray, UniformModelsAreCoveredAndSmall) {
  struct Case {
    std::vector<int> levels;
    int strength;
    size_t at_most;  // PICT 3.7.4's size (ca_benchmark_table.csv), or the known optimum
  };
  const std::vector<Case> cases = {
      {std::vector<int>(4, 3), 2, 9},    {std::vector<int>(13, 3), 2, 19}, {std::vector<int>(10, 2), 2, 6},
      {std::vector<int>(10, 5), 2, 45},  {{5, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2}, 2, 21},
      {std::vector<int>(6, 3), 3, 47},   {std::vector<int>(6, 4), 3, 64},  {std::vector<int>(10, 2), 3, 19},
  };
  for (const Case& c : cases) {
    const CoveringModel m = CoveringModel::Uniform(c.levels, c.strength);
    const Rows rows = GenerateCoveringArray(m);
    ExpectCovers(m, rows);
    EXPECT_LE(rows.size(), c.at_most) << c.levels.size() << " parameters, t=" << c.strength;
  }
}

TEST(CoveringArray, ConstructionsReachTheKnownSizes) {
  // Kleitman-Spencer: the smallest binary pair arrays exactly.
  EXPECT_EQ(BinaryPairs(10).size(), 6u);
  EXPECT_EQ(BinaryPairs(100).size(), 10u);
  ExpectCovers(CoveringModel::Uniform(std::vector<int>(100, 2), 2), BinaryPairs(100));
  const ArrayMaker none = [](const std::vector<int>&, int) { return Rows{}; };
  // OA(9, 4, 3, 2), Bush's OA(64, 6, 4, 3) with the nucleus column, OA(125, 6, 5, 3).
  const std::vector<std::pair<std::vector<int>, int>> oa = {{std::vector<int>(4, 3), 2},
                                                            {std::vector<int>(6, 4), 3},
                                                            {std::vector<int>(6, 5), 3}};
  for (const auto& [levels, t] : oa) {
    const Rows rows = Construct(levels, t, 1000, none);
    size_t n = 1;
    for (int i = 0; i < t; ++i) n *= static_cast<size_t>(levels[0]);
    EXPECT_EQ(rows.size(), n);
    ExpectCovers(CoveringModel::Uniform(levels, t), rows);
  }
  // Over GF(9) (a prime power, not a prime) with mixed levels folded in.
  const std::vector<int> mixed = {9, 9, 7, 5, 3, 2, 9, 9};
  const Rows folded = Construct(mixed, 2, 1000, none);
  EXPECT_EQ(folded.size(), 81u);
  ExpectCovers(CoveringModel::Uniform(mixed, 2), folded);
}

TEST(CoveringArray, ConstraintsAreKeptAndInfeasibleTuplesNotRequired) {
  // 0: a in {0,1,2}; 1: b in {0,1}; 2: c in {0,1,2}; 3, 4: two flags.
  CoveringModel m = CoveringModel::Uniform({3, 2, 3, 2, 2}, 2);
  m.forbidden.push_back({{{0, {2}}, {1, {0}}}});          // a=2 needs b=1
  m.forbidden.push_back({{{1, {1}}, {2, {0, 1}}}});       // b=1 needs c=2: so a=2 needs c=2 too
  m.forbidden.push_back({{{3, {1}}, {4, {1}}}});          // not both flags
  const Rows rows = GenerateCoveringArray(m);
  const CoverageReport r = CheckCoverage(m, rows);
  EXPECT_EQ(r.invalid_rows, 0u);
  EXPECT_EQ(r.covered, r.feasible);
  // a=2 with c=0 or c=1 is infeasible through the chain, not only the pairs named.
  const size_t pairs = 3 * 2 + 3 * 3 + 3 * 2 + 3 * 2 + 2 * 3 + 2 * 2 + 2 * 2 + 3 * 2 + 3 * 2 + 2 * 2;
  EXPECT_EQ(r.tuples, pairs);
  EXPECT_EQ(r.feasible, pairs - 1 - 2 - 2 - 1);  // (a2,b0), (a2,c0), (a2,c1), (b1,c0), (b1,c1), (f1,f1)
  for (const auto& row : rows) EXPECT_FALSE(m.Violates(row));
}

TEST(CoveringArray, SeedsComeFirstAndMixedStrengthIsCovered) {
  CoveringModel m = CoveringModel::Uniform(std::vector<int>(8, 3), 2);
  m.AddInteractions({1, 2, 5}, 3);  // these three at strength 3
  m.seeds = {{0, 0, 0, 0, 0, 0, 0, 0}, {1, -1, -1, -1, -1, -1, -1, 2}};
  const Rows rows = GenerateCoveringArray(m);
  ASSERT_GE(rows.size(), 27u);
  EXPECT_EQ(rows[0], m.seeds[0]);
  EXPECT_EQ(rows[1][0], 1);
  EXPECT_EQ(rows[1][7], 2);
  ExpectCovers(m, rows);
  // The triples of 1, 2, 5 are all there; a pair interaction inside it is not kept twice.
  for (const auto& i : m.interactions) EXPECT_FALSE(i.size() == 2 && i[0] == 1 && i[1] == 2);
}

TEST(CoveringArray, TheSameSeedGivesTheSameRows) {
  const CoveringModel m = CoveringModel::Uniform({4, 4, 3, 3, 3, 2, 2, 2, 2}, 2);
  CoveringOptions a, b;
  a.seed = b.seed = 42;
  EXPECT_EQ(GenerateCoveringArray(m, a), GenerateCoveringArray(m, b));
  CoveringOptions c;
  c.seed = 43;
  c.constructions = false;
  a.constructions = false;
  EXPECT_NE(GenerateCoveringArray(m, a), GenerateCoveringArray(m, c));
}

TEST(CoveringArray, BadModelsAreErrorsThatSayWhat) {
  CoveringModel m = CoveringModel::Uniform({2, 0, 3}, 2);
  EXPECT_THROW(
      {
        try {
          GenerateCoveringArray(m);
        } catch (const InvalidInput& e) {
          EXPECT_NE(std::string(e.what()).find("parameter 1 has no values"), std::string::npos) << e.what();
          throw;
        }
      },
      InvalidInput);
  m = CoveringModel::Uniform({2, 2, 3}, 2);
  m.seeds = {{0, 0}};
  EXPECT_THROW(GenerateCoveringArray(m), InvalidInput);
  m.seeds = {{0, 0, 0}};
  m.forbidden.push_back({{{0, {0}}, {1, {0}}}});
  EXPECT_THROW(GenerateCoveringArray(m), InvalidInput);  // the seed breaks a constraint
  m.seeds.clear();
  m.forbidden.push_back({{{2, {5}}}});
  EXPECT_THROW(GenerateCoveringArray(m), InvalidInput);  // no value 5
}

}  // namespace
}  // namespace gauntlet
