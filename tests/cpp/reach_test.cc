// Reach: which names of each category a statement uses, by its category's rule.
#include "sql/reach.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"

namespace gauntlet {
namespace {

std::shared_ptr<const ReachIndex> Index() {
  return std::make_shared<ReachIndex>(std::vector<ReachCategory>{
      {"functions", ReachRule::kCall, {"ABS", "CONCAT", "REPLACE", "COUNT"}},
      {"keywords", ReachRule::kWord,
       {"SELECT", "FROM", "WHERE", "TABLE", "CREATE", "INTO", "STATUS", "AND", "BETWEEN", "AS", "NOT", "NULL",
        "DEFAULT", "UPDATE", "SET", "SHOW"}},
      {"topics", ReachRule::kPhrase,
       {"SELECT", "CREATE TABLE", "SHOW STATUS", "SHOW TABLE STATUS", "BETWEEN AND", "SET", "INSERT...RETURNING",
        "COUNT DISTINCT", "<=>", "REPLACE", "SELECT INTO", "INSERT SELECT", "UPDATE"}},
      {"types", ReachRule::kColumnType, {"INT", "VARCHAR", "DOUBLE", "DOUBLE PRECISION", "DATE"}},
      {"attributes", ReachRule::kColumnAttribute, {"NOT NULL", "DEFAULT", "AUTO_INCREMENT"}},
      {"variables", ReachRule::kSetVariable, {"sql_mode", "optimizer_switch", "max_statement_time"}},
      {"engines", ReachRule::kEngine, {"InnoDB", "Aria"}},
  });
}

// The names of `category` that `statements` reached.
std::set<std::string> Reached(const std::vector<std::string>& statements, const std::string& category) {
  ReachTally tally(Index());
  for (const std::string& s : statements) tally.Add(s);
  const nlohmann::json j = tally.ToJson();
  std::set<std::string> names;
  for (const auto& [name, count] : j["categories"][category]["reached"].items()) names.insert(name);
  return names;
}

using Names = std::set<std::string>;

TEST(Reach, AFunctionIsReachedByACallOnly) {
  EXPECT_EQ(Reached({"SELECT abs(a), Concat (b) FROM t WHERE replace = 1"}, "functions"), (Names{"ABS", "CONCAT"}));
  EXPECT_EQ(Reached({"SELECT 'ABS(1)', `abs` FROM t -- COUNT(*)"}, "functions"), Names{});
}

TEST(Reach, AStatementCountsOncePerNameAndTalliesMerge) {
  ReachTally a(Index()), b(Index());
  a.Add("SELECT ABS(ABS(1)), ABS(2)");
  b.Add("SELECT ABS(3)");
  b.Add("SELECT 1");
  a.Merge(b);
  const auto j = a.ToJson();
  EXPECT_EQ(j["statements"], 3);
  EXPECT_EQ(j["categories"]["functions"]["reached"]["ABS"], 2);
  EXPECT_EQ(j["categories"]["functions"]["total"], 4);
  EXPECT_EQ(j["categories"]["functions"]["rule"], "call");
}

TEST(Reach, APhrasesWordsComeInOrderPastNamesModifiersAndParentheses) {
  EXPECT_EQ(Reached({"CREATE OR REPLACE TEMPORARY TABLE IF NOT EXISTS t (a INT)", "SHOW TABLE STATUS",
                     "SELECT a FROM t WHERE a BETWEEN ABS(b) AND 2 AND b <=> 1",
                     "INSERT IGNORE INTO t (a) SELECT COUNT(DISTINCT a) FROM u RETURNING a", "SELECT a, b INTO @x, @y"},
                    "topics"),
            (Names{"CREATE TABLE", "SHOW TABLE STATUS", "SELECT", "BETWEEN AND", "<=>", "INSERT SELECT",
                   "COUNT DISTINCT", "INSERT...RETURNING", "SELECT INTO"}));
}

TEST(Reach, APhraseDoesNotPassAnotherKeywordOrLeaveItsParentheses) {
  // SHOW ... STATUS across TABLE is SHOW TABLE STATUS, not SHOW STATUS; COUNT(a) ... DISTINCT is no COUNT DISTINCT.
  EXPECT_EQ(Reached({"SHOW TABLE STATUS", "SELECT COUNT(a), DISTINCT b FROM t"}, "topics"),
            (Names{"SHOW TABLE STATUS", "SELECT"}));
}

TEST(Reach, StatementWordsThatOtherStatementsUseAsClausesCountOnlyWhereAStatementStarts) {
  EXPECT_EQ(Reached({"UPDATE t SET a = REPLACE(a, 'x', 'y')", "CREATE OR REPLACE TABLE t (a INT)"}, "topics"),
            (Names{"UPDATE", "CREATE TABLE"}));
  EXPECT_EQ(Reached({"SELECT a FROM t FOR UPDATE"}, "topics"), Names{"SELECT"});
  EXPECT_EQ(Reached({"CREATE PROCEDURE p() BEGIN SET @a = 1; UPDATE t SET a = 2; END"}, "topics"),
            (Names{"SET", "UPDATE"}));
}

TEST(Reach, AColumnTypeIsWhatAColumnIsDeclaredWith) {
  EXPECT_EQ(Reached({"CREATE TABLE t (a INT NOT NULL, `b` double precision DEFAULT 1, c VARCHAR(10), KEY (a))",
                     "ALTER TABLE t ADD COLUMN d DATE, CHANGE c c2 VARCHAR(20)"},
                    "types"),
            (Names{"INT", "DOUBLE PRECISION", "VARCHAR", "DATE"}));
  // A type's name elsewhere is no column of that type.
  EXPECT_EQ(Reached({"SELECT CAST(a AS INT), DATE('2020-01-01') FROM t", "CREATE TABLE t2 AS SELECT 1 AS date"},
                    "types"),
            Names{});
}

TEST(Reach, AColumnAttributeCountsInTableDefinitionsOnly) {
  EXPECT_EQ(Reached({"CREATE TABLE t (a INT NOT NULL AUTO_INCREMENT KEY)", "SELECT a FROM t WHERE a IS NOT NULL"},
                    "attributes"),
            (Names{"NOT NULL", "AUTO_INCREMENT"}));
}

TEST(Reach, SetVariablesInEveryFormSetAssigns) {
  EXPECT_EQ(Reached({"SET SESSION sql_mode = ''"}, "variables"), Names{"sql_mode"});
  EXPECT_EQ(Reached({"SET @@session.OPTIMIZER_SWITCH = 'x', @user = 1"}, "variables"), Names{"optimizer_switch"});
  EXPECT_EQ(Reached({"SET STATEMENT max_statement_time = 1, sql_mode = '' FOR SELECT 1"}, "variables"),
            (Names{"max_statement_time", "sql_mode"}));
  EXPECT_EQ(Reached({"SET NAMES utf8", "SELECT @@sql_mode", "UPDATE t SET sql_mode = 1"}, "variables"), Names{});
}

TEST(Reach, EnginesAreNamedByEngine) {
  EXPECT_EQ(Reached({"CREATE TABLE t (a INT) ENGINE=InnoDB", "ALTER TABLE t ENGINE 'aria'", "CREATE TABLE u (a INT)"},
                    "engines"),
            (Names{"InnoDB", "Aria"}));
}

TEST(Reach, AnUnknownRuleIsRefusedNamingTheRules) {
  try {
    ParseReachRule("calls");
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("call, word, phrase"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ParseReachRule("set_variable"), ReachRule::kSetVariable);
}

}  // namespace
}  // namespace gauntlet
