// SyntaxShare: counts by top-level rule, and the verdict on a run of (nearly)
// only syntax errors: given once, at the 300th statement or at the end.
#include "exec/syntax_share.h"

#include <gtest/gtest.h>

#include <memory>

#include "generate/generator.h"
#include "generate/schema.h"
#include "grammar/grammar.h"

namespace gauntlet {
namespace {

TEST(SyntaxShare, ARunOfSyntaxErrorsIsJudgedOnceAtItsFirst300Statements) {
  SyntaxShare share;
  for (uint64_t i = 1; i < SyntaxShare::kJudgedAfter; ++i)
    ASSERT_EQ(share.Add(i % 20 == 0 ? "fine" : "typo", i % 20 != 0), "") << i;
  const std::string verdict = share.Add("typo", true);  // the 300th: 286 of 300 are errors
  EXPECT_NE(verdict.find("286 of the run's first 300 statements were syntax errors"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("rules: typo (286 of 286)"), std::string::npos) << verdict;
  EXPECT_EQ(verdict.find("fine"), std::string::npos) << verdict;  // no syntax error of its own
  EXPECT_EQ(share.Add("typo", true), "");  // once
  EXPECT_EQ(share.Final(), "");
}

TEST(SyntaxShare, FewerSyntaxErrorsAndShortRunsPass) {
  SyntaxShare mostly;  // 94%
  for (uint64_t i = 0; i < SyntaxShare::kJudgedAfter; ++i) EXPECT_EQ(mostly.Add("r", i % 50 >= 3), "");
  SyntaxShare short_run;
  for (uint64_t i = 0; i + 1 < SyntaxShare::kFewest; ++i) short_run.Add("r", true);
  EXPECT_EQ(short_run.Final(), "");  // too few to judge
  short_run.Add("r", true);
  EXPECT_NE(short_run.Final(), "");  // 20 of 20, at the end
}

TEST(SyntaxShare, TheTopRuleIsTheFirstRuleUnderTheStartRule) {
  Generator g(Grammar::FromString("query: sel | upd | SELECT 1 ;\nsel: SELECT inner ;\nupd: UPDATE t SET a = 1 ;\n"
                                  "inner: 2 ;\n"),
              Schema::RqgDefault(), GeneratorOptions{});
  std::map<std::string, int> seen;
  for (int i = 0; i < 60; ++i) {
    const std::string text = g.Next();
    const std::string rule = g.TopRule();
    ++seen[rule];
    EXPECT_EQ(rule, text == "SELECT 2" ? "sel" : text == "SELECT 1" ? "query" : "upd") << text;
  }
  EXPECT_EQ(seen.size(), 3u);
}

}  // namespace
}  // namespace gauntlet
