// Minimise: the smaller forms of a query, and the greedy loop that keeps the
// smallest one that still fails (here a predicate on the text; the relation
// oracles give it the live server's verdict).
#include "oracle/minimise.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gauntlet {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

void ExpectAmong(const std::vector<std::string>& candidates, const std::vector<std::string>& wanted) {
  for (const std::string& w : wanted) EXPECT_TRUE(Has(candidates, w)) << w;
}

TEST(Minimise, CandidatesDropClausesItemsJunctionsAndOperands) {
  const auto c = Candidates("SELECT a, b FROM t WHERE a > 1 AND (b < 2 OR c = 3) ORDER BY a LIMIT 5");
  ExpectAmong(c, {"SELECT a, b FROM t WHERE a > 1 AND (b < 2 OR c = 3) LIMIT 5",
                  "SELECT a, b FROM t WHERE a > 1 AND (b < 2 OR c = 3) ORDER BY a",
                  "SELECT a, b FROM t ORDER BY a LIMIT 5",
                  "SELECT b FROM t WHERE a > 1 AND (b < 2 OR c = 3) ORDER BY a LIMIT 5",
                  "SELECT a FROM t WHERE a > 1 AND (b < 2 OR c = 3) ORDER BY a LIMIT 5",
                  "SELECT a, b FROM t WHERE (b < 2 OR c = 3) ORDER BY a LIMIT 5",
                  "SELECT a, b FROM t WHERE a > 1 ORDER BY a LIMIT 5",
                  "SELECT a, b FROM t WHERE a > 1 AND b < 2 OR c = 3 ORDER BY a LIMIT 5"});
  for (const std::string& x : c) EXPECT_LT(x.size(), 70u) << x;
}

TEST(Minimise, BetweenKeepsItsAndAndCallsGiveTheirArguments) {
  const auto c = Candidates("SELECT a FROM t WHERE a BETWEEN 1 AND 5 AND COALESCE(b, 7) > 2 AND a IN (1, 2)");
  ExpectAmong(c, {"SELECT a FROM t WHERE a BETWEEN 1 AND 5 AND COALESCE(b, 7) > 2",
                  "SELECT a FROM t WHERE COALESCE(b, 7) > 2 AND a IN (1, 2)",
                  "SELECT a FROM t WHERE a BETWEEN 1 AND 5 AND b > 2 AND a IN (1, 2)",
                  "SELECT a FROM t WHERE a BETWEEN 1 AND 5 AND 7 > 2 AND a IN (1, 2)"});
  EXPECT_FALSE(Has(c, "SELECT a FROM t WHERE a BETWEEN 1 AND COALESCE(b, 7) > 2 AND a IN (1, 2)"));
  EXPECT_FALSE(Has(c, "SELECT a FROM t WHERE a BETWEEN 1 AND 5 AND COALESCE(b, 7) > 2 AND a IN 1"));  // a list
  EXPECT_TRUE(Candidates("UPDATE t SET a = 1").empty());  // only a plain SELECT
}

TEST(Minimise, CandidatesDropJoinsTablesAndDistinctAndUnwrapCallsEverywhere) {
  const auto c = Candidates(
      "SELECT DISTINCT CONCAT(t1.a, 'x') AS k, CAST(t2.b AS CHAR) FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
      "JOIN t3 USING (a) WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1");
  ExpectAmong(c, {"SELECT DISTINCT CONCAT(t1.a, 'x') AS k, CAST(t2.b AS CHAR) FROM t1 JOIN t3 USING (a) "
                  "WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1",
                  "SELECT DISTINCT CONCAT(t1.a, 'x') AS k, CAST(t2.b AS CHAR) FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
                  "WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1",
                  "SELECT CONCAT(t1.a, 'x') AS k, CAST(t2.b AS CHAR) FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
                  "JOIN t3 USING (a) WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1",
                  "SELECT DISTINCT t1.a AS k, CAST(t2.b AS CHAR) FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
                  "JOIN t3 USING (a) WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1",
                  "SELECT DISTINCT CONCAT(t1.a, 'x') AS k, t2.b FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
                  "JOIN t3 USING (a) WHERE t1.a > 0 GROUP BY k HAVING MAX(t1.a) > 1",
                  "SELECT DISTINCT CONCAT(t1.a, 'x') AS k, CAST(t2.b AS CHAR) FROM t1 LEFT JOIN t2 ON t1.a = t2.b "
                  "JOIN t3 USING (a) WHERE t1.a > 0 GROUP BY k HAVING t1.a > 1"});
  ExpectAmong(Candidates("SELECT a FROM t1, t2 WHERE a = 1"), {"SELECT a FROM t2 WHERE a = 1",
                                                                "SELECT a FROM t1 WHERE a = 1"});
  // A join word inside a derived table is not the outer FROM's.
  for (const std::string& x : Candidates("SELECT a FROM (SELECT a FROM t1 JOIN t2 USING (a)) d"))
    EXPECT_NE(x.find("JOIN t2"), std::string::npos) << x;
}

TEST(Minimise, KeepsTheSmallestFormThatStillFails) {
  const std::string query = "SELECT a, b FROM t WHERE a > 1 AND (b < 2 OR c = 3) ORDER BY a LIMIT 5";
  int calls = 0;
  const auto fails = [&](const std::string& sql) {
    ++calls;
    return sql.find("c = 3") != std::string::npos;
  };
  const Minimised m = Minimise(query, fails);
  EXPECT_EQ(m.sql, "SELECT b FROM t WHERE c = 3");
  EXPECT_EQ(m.checks, calls);
  EXPECT_GT(m.steps, 3);
  EXPECT_FALSE(m.exhausted);
  // A budget of two checks: whatever it reached, and says it ran out.
  const Minimised cut = Minimise(query, fails, MinimiseBudget{2, 10});
  EXPECT_TRUE(cut.exhausted);
  EXPECT_EQ(cut.checks, 2);
  EXPECT_LT(cut.sql.size(), query.size());
  // Nothing smaller fails: the query as it was.
  EXPECT_EQ(Minimise(query, [](const std::string&) { return false; }).sql, query);
}

}  // namespace
}  // namespace gauntlet
