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
  // A join word inside a derived table is not the outer FROM's: the derived
  // table is minimised in its place.
  const auto derived = Candidates("SELECT a FROM (SELECT a FROM t1 JOIN t2 USING (a)) d");
  ExpectAmong(derived, {"SELECT a FROM (SELECT a FROM t1) d"});
  for (const std::string& x : derived) EXPECT_EQ(x.rfind("SELECT a FROM (SELECT a FROM t", 0), 0u) << x;
  // ON conditions shrink like a WHERE; a subquery in the WHERE like a query.
  ExpectAmong(Candidates("SELECT a FROM t1 LEFT JOIN t2 ON t1.a = t2.b AND ABS(t2.c) > 1 WHERE a IN (SELECT b FROM u WHERE b > 2)"),
              {"SELECT a FROM t1 LEFT JOIN t2 ON 1 WHERE a IN (SELECT b FROM u WHERE b > 2)",
               "SELECT a FROM t1 LEFT JOIN t2 ON ABS(t2.c) > 1 WHERE a IN (SELECT b FROM u WHERE b > 2)",
               "SELECT a FROM t1 LEFT JOIN t2 ON t1.a = t2.b WHERE a IN (SELECT b FROM u WHERE b > 2)",
               "SELECT a FROM t1 LEFT JOIN t2 ON t1.a = t2.b AND t2.c > 1 WHERE a IN (SELECT b FROM u WHERE b > 2)",
               "SELECT a FROM t1 LEFT JOIN t2 ON t1.a = t2.b AND ABS(t2.c) > 1 WHERE a IN (SELECT b FROM u)"});
}

TEST(Minimise, PositionsFollowTheSelectItemsAndSubqueriesBecomeNull) {
  const auto c = Candidates("SELECT a, (SELECT MIN(b) FROM u) AS m, c FROM t GROUP BY 1, 3 ORDER BY 2 DESC, 3");
  ExpectAmong(c, {"SELECT (SELECT MIN(b) FROM u) AS m, c FROM t GROUP BY 2 ORDER BY 1 DESC, 2",
                  "SELECT a, c FROM t GROUP BY 1, 2 ORDER BY 2",
                  "SELECT a, (SELECT MIN(b) FROM u) AS m FROM t GROUP BY 1 ORDER BY 2 DESC",
                  "SELECT a, (SELECT MIN(b) FROM u) AS m, c FROM t GROUP BY 1, 3 ORDER BY 3",
                  "SELECT a, (SELECT MIN(b) FROM u) AS m, c FROM t GROUP BY 3 ORDER BY 2 DESC, 3",
                  "SELECT a, NULL AS m, c FROM t GROUP BY 1, 3 ORDER BY 2 DESC, 3"});
  // The last positional reference gone: the clause too.
  ExpectAmong(Candidates("SELECT a, b FROM t ORDER BY 2"), {"SELECT a FROM t"});
  // A condition made trivial, for TLP, which needs one.
  ExpectAmong(Candidates("SELECT ROUND(a) FROM t WHERE NULL IN (2.5) GROUP BY b HAVING MAX(c) > 1"),
              {"SELECT ROUND(a) FROM t WHERE 1 GROUP BY b HAVING MAX(c) > 1",
               "SELECT ROUND(a) FROM t WHERE NULL IN (2.5) GROUP BY b HAVING 1"});
  // A subquery that IN or EXISTS reads is no scalar.
  for (const std::string& x : Candidates("SELECT a FROM t WHERE a IN (SELECT b FROM u)"))
    EXPECT_EQ(x.find("IN NULL"), std::string::npos) << x;
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
