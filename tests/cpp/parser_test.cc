#include "grammar/parser.h"

#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "generate/generator.h"
#include "grammar/grammar.h"

namespace gauntlet {
namespace {

TEST(Parser, RuleEndsAtSemicolonAtEndOfLineOnly) {
  auto rules = ParseGrammarText("query: START TRANSACTION ; dml ; COMMIT ;\ndml: X ;\n", "t.yy");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].name, "query");
  ASSERT_EQ(rules[0].alternatives.size(), 1u);
  // The inner ';' are literal tokens of the one alternative.
  EXPECT_EQ(rules[0].alternatives[0].tokens.size(), 6u);
  EXPECT_EQ(rules[0].alternatives[0].tokens[2].text, ";");
}

TEST(Parser, CommentsLineJoinsAndQuotes) {
  auto rules = ParseGrammarText(
      "# a comment\nquery: SELECT 'a#b|c' \\\n  FROM t # trailing\n | SELECT \"x;\" ;\n", "t.yy");
  ASSERT_EQ(rules.size(), 1u);
  ASSERT_EQ(rules[0].alternatives.size(), 2u);
  const auto& first = rules[0].alternatives[0].tokens;
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[1].text, "'a#b|c'");
  EXPECT_EQ(first[1].kind, RawToken::Kind::kQuoted);
  EXPECT_EQ(rules[0].alternatives[1].tokens[1].text, "\"x;\"");
}

TEST(Parser, NoOraclesAnnotatesTheRuleItStandsBefore) {
  const auto rules = ParseGrammarText(
      "query: seq | plain ;\n"
      "seq ==NO_ORACLES: tlp,norec , transform:view==: SELECT NEXTVAL(s) | SELECT 1 ;\n"
      "plain: SELECT 2 ;\n",
      "t.yy");
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_TRUE(rules[0].no_oracles.empty());
  EXPECT_EQ(rules[1].name, "seq");
  EXPECT_EQ(rules[1].no_oracles, (std::vector<std::string>{"tlp", "norec", "transform:view"}));
  EXPECT_EQ(rules[1].alternatives.size(), 2u);
  EXPECT_TRUE(rules[2].no_oracles.empty());  // the annotation belongs to one rule
}

TEST(Parser, PerlBlocksVariablesInvariantsArgsAndWeights) {
  auto rules = ParseGrammarText(
      "query: ==FACTOR:3== { my $x = { a => 1 }; $x->{a} } $v _table[invariant] _varchar(32) ;\n",
      "t.yy");
  const auto& alt = rules[0].alternatives[0];
  EXPECT_TRUE(alt.weighted);
  EXPECT_DOUBLE_EQ(alt.weight, 3.0);
  ASSERT_EQ(alt.tokens.size(), 4u);
  EXPECT_EQ(alt.tokens[0].kind, RawToken::Kind::kPerl);
  EXPECT_EQ(alt.tokens[0].text, " my $x = { a => 1 }; $x->{a} ");
  EXPECT_EQ(alt.tokens[1].kind, RawToken::Kind::kVariable);
  EXPECT_EQ(alt.tokens[2].suffix, "[invariant]");
  ASSERT_TRUE(alt.tokens[3].has_args);
  EXPECT_EQ(alt.tokens[3].args, std::vector<double>{32});
}

TEST(Parser, PerlBlockMayContainSemicolonAtEndOfLine) {
  auto rules = ParseGrammarText("query: { $a = 1;\n $a } X ;\nnext: Y ;\n", "t.yy");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].alternatives[0].tokens.size(), 2u);
}

TEST(Parser, UnbalancedPerlBlockEndsWithItsAlternativeLikeRqg) {
  auto rules = ParseGrammarText("query: SELECT { if (1) { 7 } | SELECT 2 ;\nnext: Y ;\n", "t.yy");
  ASSERT_EQ(rules.size(), 2u);
  ASSERT_EQ(rules[0].alternatives.size(), 2u);
  const RawToken& block = rules[0].alternatives[0].tokens[1];
  EXPECT_EQ(block.kind, RawToken::Kind::kPerl);
  EXPECT_TRUE(block.unbalanced);
  EXPECT_EQ(block.text, " if (1) { 7 } ");
}

TEST(Grammar, UnbalancedPerlBlockIsAWarningAndAddsNothingIfItDoesNotCompile) {
  auto g = Grammar::FromString("query:\n  SELECT { 1 + \n;\n", "bad.yy");
  ASSERT_EQ(g->warnings().size(), 1u);
  EXPECT_EQ(g->warnings()[0].rfind("bad.yy:2:10: ", 0), 0u) << g->warnings()[0];
  Generator gen(g, Schema::RqgDefault());
  EXPECT_EQ(gen.Next(), "SELECT");
  Generator compiles(Grammar::FromString("query: SELECT { if (1) { 7 } | SELECT { 2 ;\n"), Schema::RqgDefault());
  std::set<std::string> seen;
  for (int i = 0; i < 40; ++i) seen.insert(compiles.Next());
  EXPECT_EQ(seen, (std::set<std::string>{"SELECT 7", "SELECT 2"}));
}

TEST(Parser, ALoneSemicolonLineAfterARuleIsAcceptedLikeRqg) {
  auto rules = ParseGrammarText("query: A ;\n;\nnext:\n  B\n;\n  ;\n", "t.yy");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[1].name, "next");
}

TEST(Parser, TextWithoutRuleNameIsSkippedLikeRqg) {
  std::vector<size_t> skipped;
  auto rules = ParseGrammarText("limit: | LIMIT 1;\n | LIMIT 2;\nnext: X ;\n", "t.yy", &skipped);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].alternatives.size(), 2u);
  ASSERT_EQ(skipped.size(), 1u);
}

TEST(Parser, LoneQuoteIsALiteral) {
  auto rules = ParseGrammarText("single_quote:\n     ';\n", "t.yy");
  ASSERT_EQ(rules.size(), 1u);
  ASSERT_EQ(rules[0].alternatives[0].tokens.size(), 1u);
  EXPECT_EQ(rules[0].alternatives[0].tokens[0].text, "'");
}

TEST(Grammar, BadBuiltinArgumentIsAnErrorAtTheToken) {
  try {
    Grammar::FromString("query:\n  SELECT _pareto(10, 1) ;\n", "g.yy");
    FAIL() << "expected an error";
  } catch (const InvalidInput& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 10);
  }
}

TEST(Grammar, UndefinedLowercaseWordIsAWarning) {
  auto g = Grammar::FromString("query: SELECT digit FROM nosuchrule ;\n", "g.yy");
  ASSERT_EQ(g->undefined_words().count("nosuchrule"), 1u);
  EXPECT_EQ(g->undefined_words().count("digit"), 0u);  // RQG's bare `digit` built-in
  EXPECT_EQ(g->undefined_words().at("nosuchrule").column, 26);
}

TEST(Grammar, RedefineOverridesAndAddRulesExtend) {
  auto g = std::make_shared<Grammar>();
  g->AddText("query: A | B ;\nquery_init: I ;\nitem: OLD ;\n", "main.yy");
  g->AddText("item: NEW ;\nquery_add: C ;\nquery_init_add: J ;\n", "redefine.yy");
  g->Finish();
  const Rule& query = g->rules()[g->FindRule("query")];
  EXPECT_EQ(query.alternatives.size(), 3u);
  const Rule& item = g->rules()[g->FindRule("item")];
  EXPECT_EQ(item.alternatives[0].tokens[0].text, "NEW");
  EXPECT_FALSE(g->warnings().empty());
  const Rule& init = g->rules()[g->FindRule("query_init")];
  ASSERT_EQ(init.alternatives.size(), 1u);
  EXPECT_EQ(init.alternatives[0].tokens.size(), 3u);  // base ; add
}

}  // namespace
}  // namespace gauntlet
