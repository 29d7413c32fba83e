// The oracles' text and result logic, without a server: clause finding,
// nondeterminism, result comparison, error-log lines, finding records.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "exec/finding.h"
#include "exec/run_result.h"
#include "generate/statements.h"
#include "oracle/check_turns.h"
#include "oracle/determinism.h"
#include "oracle/error_log.h"
#include "oracle/result_compare.h"
#include "sql/sql_shape.h"
#include "sql/temporary_tables.h"
#include "oracle/transforms.h"
#include "oracle/volatile_values.h"

namespace gauntlet {
namespace {

std::string Clause(const SqlShape& s, const SqlSpan& span) {
  return span.present() ? std::string(s.text(span)) : "<none>";
}

TEST(SqlShape, FindsTheTopLevelClauses) {
  const SqlShape s(
      "SELECT DISTINCT a, (SELECT MAX(b) FROM t2 WHERE t2.x = t1.x) AS m FROM t1 JOIN t3 ON (t1.a = t3.a) "
      "WHERE a > 'WHERE' AND b IN (SELECT c FROM t4 WHERE d = 1 GROUP BY c) GROUP BY a, m HAVING COUNT(*) > 1 "
      "ORDER BY a DESC LIMIT 3 FOR UPDATE");
  ASSERT_TRUE(s.simple_select());
  EXPECT_TRUE(s.distinct());
  EXPECT_EQ(Clause(s, s.select_list), "a, (SELECT MAX(b) FROM t2 WHERE t2.x = t1.x) AS m");
  EXPECT_EQ(Clause(s, s.from), "t1 JOIN t3 ON (t1.a = t3.a)");
  EXPECT_EQ(Clause(s, s.where), "a > 'WHERE' AND b IN (SELECT c FROM t4 WHERE d = 1 GROUP BY c)");
  EXPECT_EQ(Clause(s, s.group_by), "a, m");
  EXPECT_EQ(Clause(s, s.having), "COUNT(*) > 1");
  EXPECT_EQ(Clause(s, s.order_by), "a DESC");
  EXPECT_EQ(Clause(s, s.limit), "3");
  EXPECT_EQ(Clause(s, s.tail), "FOR UPDATE");
  EXPECT_EQ(s.Items(s.select_list).size(), 2u);
}

TEST(SqlShape, CommentsStringsAndSetOperations) {
  const SqlShape s("/* a comment */ ( SELECT `a``b`, 'it''s', \"x\\\"y\" FROM t -- trailing\n WHERE c = 1 )");
  ASSERT_TRUE(s.simple_select());
  EXPECT_EQ(Clause(s, s.where), "c = 1");
  EXPECT_FALSE(SqlShape("SELECT a FROM t UNION SELECT b FROM u").simple_select());
  EXPECT_TRUE(SqlShape("SELECT a FROM t UNION SELECT b FROM u").set_operation());
  // An executable comment's body counts.
  const SqlShape e("SELECT /*!50000 STRAIGHT_JOIN */ a FROM t WHERE b = 2");
  EXPECT_EQ(Clause(e, e.where), "b = 2");
  EXPECT_EQ(SqlShape("insert into t values (1)").verb(), "INSERT");
}

TEST(SqlShape, SkeletonHidesLiterals) {
  EXPECT_EQ(SqlShape("select a from t where b = 12 and c in (1, 2, 3) and d = 'x'").Skeleton(),
            "SELECT _ FROM _ WHERE _ = ? AND _ IN (?) AND _ = ?");
  // Other literals and names: the same pattern. Other functions: another.
  EXPECT_EQ(SqlShape("SELECT a FROM t WHERE b = 7 AND c IN (4)").Skeleton(),
            SqlShape("SELECT x FROM `u` WHERE b = 99 AND c IN (5, 6)").Skeleton());
  EXPECT_EQ(SqlShape("SELECT abs(a) FROM t").Skeleton(), "SELECT ABS(_) FROM _");
}

struct Case {
  const char* sql;
  bool deterministic;
};

TEST(Determinism, NondeterministicQueriesAreNamed) {
  const Case cases[] = {
      {"SELECT a FROM t WHERE b > 1", true},
      {"SELECT RAND() FROM t", false},
      {"SELECT a FROM t WHERE d < NOW()", false},
      {"SELECT a FROM t WHERE d < CURRENT_TIMESTAMP", false},
      {"SELECT UUID()", false},
      {"SELECT @@version", false},
      {"SELECT a FROM t LIMIT 3", false},
      {"SELECT a FROM t ORDER BY a LIMIT 3", true},
      {"SELECT a, b FROM t ORDER BY a LIMIT 3", false},
      {"SELECT a, b FROM t ORDER BY a, b DESC LIMIT 3", true},
      {"SELECT a, b FROM t ORDER BY a OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY", false},
      {"SELECT a, b FROM t ORDER BY a FETCH NEXT 2 ROWS WITH TIES", false},
      {"SELECT a, b FROM t ORDER BY a, b OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY", true},
      {"SELECT a, b FROM t ORDER BY a OFFSET 1 ROWS", false},
      {"SELECT a AS x, b FROM t ORDER BY x, 2 LIMIT 3", true},
      {"SELECT * FROM t ORDER BY a LIMIT 3", false},
      {"SELECT a FROM t WHERE a IN (SELECT b FROM u LIMIT 1)", false},
      {"SELECT a, COUNT(*) FROM t GROUP BY a", true},
      {"SELECT a, b, COUNT(*) FROM t GROUP BY a", false},
      {"SELECT t.a AS g, AVG(t.b) AS v FROM t GROUP BY g", true},
      {"SELECT t.a AS g, t.c, AVG(t.b) FROM t GROUP BY g", false},
      {"SELECT a + 1, SUM(b) FROM t GROUP BY a", true},
      {"SELECT a, MAX(b) FROM t", false},
      {"SELECT COUNT(*), MAX(b) FROM t", true},
      {"SELECT a FROM t GROUP BY a HAVING b > 1", false},
      {"SELECT a AS g, COUNT(*) AS n FROM t GROUP BY g HAVING n > 1", true},
      {"SELECT 1 FROM t GROUP BY c WITH ROLLUP HAVING c > 0", true},
      {"SELECT t.c, COUNT(*) FROM t GROUP BY t.c WITH ROLLUP", true},
      {"SELECT 1 FROM t GROUP BY c WITH ROLLUP HAVING b > 0", false},
      {"SELECT a FROM t WHERE a IN (SELECT b FROM u GROUP BY c)", false},
      {"SELECT GROUP_CONCAT(a) FROM t", false},
      {"SELECT GROUP_CONCAT(a ORDER BY a) FROM t", true},
      {"SELECT GROUP_CONCAT(DISTINCT t.a ORDER BY t.a DESC SEPARATOR '|') FROM t", true},
      {"SELECT GROUP_CONCAT(a, b ORDER BY b, a) FROM t", true},
      // Ties of the ORDER BY keys come in any order.
      {"SELECT GROUP_CONCAT(a ORDER BY ExtractValue('<r/>', '/r') DESC) FROM t", false},
      {"SELECT JSON_ARRAYAGG(a ORDER BY b) FROM t", false},
      {"SELECT ROW_NUMBER() OVER (ORDER BY a) FROM t", false},
      {"SELECT a FROM information_schema.tables", false},
      {"SELECT t.a AS g, COUNT(*) AS n FROM t GROUP BY g ORDER BY g LIMIT 2", true},
      {"SELECT t.a AS g, COUNT(*) AS n FROM t GROUP BY g ORDER BY n LIMIT 2", false},
  };
  for (const Case& c : cases) {
    const std::string why = Nondeterminism(SqlShape(c.sql));
    EXPECT_EQ(why.empty(), c.deterministic) << c.sql << " -> " << why;
  }
}

// Every entry of the one table is found, named, and written or not alike by
// the oracles (ReadOnly) and the executor's tracking of writes (ChangesData).
TEST(Determinism, EveryVolatileValueIsSkippedWithItsName) {
  for (const VolatileValue& v : VolatileValues()) {
    for (const std::string& sql :
         {"SELECT " + std::string(v.example) + " FROM t",
          "SELECT a FROM t WHERE a > (SELECT " + std::string(v.example) + ") ORDER BY a",
          "select a from t where b = " + std::string(v.example)}) {
      const std::string why = Nondeterminism(SqlShape(sql));
      EXPECT_NE(why.find(v.name == ":=" ? "user variable" : std::string(v.name)), std::string::npos)
          << sql << " -> " << why;
      EXPECT_EQ(ReadsVolatileValue(SqlShape(sql)), why) << sql;
      EXPECT_EQ(ReadOnly(SqlShape(sql)), !v.changes_data) << sql;
      EXPECT_EQ(ChangesData(sql), v.changes_data) << sql;
    }
  }
  // Names that only look like them are values of the data.
  for (const char* sql : {"SELECT t.rand, next_value, `now` FROM t", "SELECT a FROM t WHERE @v = 1",
                          "SELECT a FROM t WHERE nextval_col > 1 ORDER BY a", "SELECT seq.next FROM seq"})
    EXPECT_EQ(ReadsVolatileValue(SqlShape(sql)), "") << sql;
  EXPECT_EQ(Nondeterminism(SqlShape("SELECT NEXT   VALUE  FOR s")), "uses NEXT VALUE FOR");
  EXPECT_TRUE(ChangesData("SELECT NEXT   VALUE  FOR s"));
  // SET STATEMENT ... FOR: what it runs (a false alarm when a write there went unseen by other sessions).
  EXPECT_TRUE(ChangesData("SET STATEMENT sql_mode = 'x', max_statement_time = 1 FOR INSERT INTO t VALUES (1)"));
  EXPECT_TRUE(ChangesData("set statement a = ('FOR' ) for\nDELETE FROM t"));
  EXPECT_FALSE(ChangesData("SET STATEMENT a = 1 FOR SELECT a FROM t"));
  EXPECT_FALSE(ChangesData("SET STATEMENT FORMAT_x = 'for' FOR SELECT 1"));
  EXPECT_FALSE(ChangesData("SET SESSION sql_mode = ''"));
  EXPECT_EQ(SetStatementBody("SET STATEMENT a = 1 FOR SELECT 2"), " SELECT 2");
  EXPECT_EQ(Nondeterminism(SqlShape("SELECT a FROM t WHERE (@x := a) > 1")), "assigns a user variable (:=)");
}

TEST(Determinism, ReadsAndWrites) {
  EXPECT_TRUE(ReadOnly(SqlShape("SELECT 1")));
  EXPECT_TRUE(ReadOnly(SqlShape("  show tables")));
  EXPECT_FALSE(ReadOnly(SqlShape("UPDATE t SET a = 1")));
  EXPECT_FALSE(ReadOnly(SqlShape("COMMIT")));
  EXPECT_FALSE(ReadOnly(SqlShape("ANALYZE TABLE t")));
  EXPECT_FALSE(ReadOnly(SqlShape("SELECT a FROM t INTO OUTFILE '/tmp/x'")));
  EXPECT_TRUE(ReadOnly(SqlShape("SET @a = 1")));
  EXPECT_EQ(Verb("  /* c */ ( select 1"), "SELECT");
  EXPECT_EQ(Verb("-- x\n/*!50000 INSERT */ INTO t VALUES (1)"), "INSERT");
  EXPECT_TRUE(VerbChangesNoData("BEGIN"));
  EXPECT_FALSE(VerbChangesNoData("COMMIT"));
  EXPECT_TRUE(TotallyOrdered(SqlShape("SELECT a, b FROM t ORDER BY b, a")));
  EXPECT_TRUE(PicksAmongEquals(SqlShape("SELECT DISTINCT a FROM t")));
  EXPECT_FALSE(PicksAmongEquals(SqlShape("SELECT a FROM t WHERE b = 'x'")));
}

TEST(Determinism, AnOrderByUniqueKeysOfEveryTableIsTotal) {
  // t and u keyed by PK; v by (a, b); w has none.
  const UniqueKeys keys = [](const TableRef& t) -> std::vector<std::vector<std::string>> {
    if (t.table == "t" || t.table == "db.u") return {{"PK"}};
    if (t.table == "v") return {{"A", "B"}};
    return {};
  };
  const auto ordered = [&](const char* sql) { return OrderedByUniqueKeys(SqlShape(sql), keys); };
  EXPECT_TRUE(ordered("SELECT pk, c / 3 FROM t ORDER BY pk LIMIT 20"));
  EXPECT_TRUE(ordered("SELECT c FROM t AS x ORDER BY c DESC, x.`pk` LIMIT 2"));
  EXPECT_TRUE(ordered("SELECT T1.c FROM t AS T1 LEFT JOIN db.u T2 ON T1.c = T2.c ORDER BY T2.pk, T1.pk LIMIT 5"));
  EXPECT_TRUE(ordered("SELECT c FROM v ORDER BY b, a LIMIT 1"));
  EXPECT_FALSE(ordered("SELECT c FROM v ORDER BY a LIMIT 1"));                         // half the key
  EXPECT_FALSE(ordered("SELECT T1.c FROM t AS T1 JOIN db.u T2 ON 1 ORDER BY T1.pk LIMIT 5"));  // u unsorted
  EXPECT_FALSE(ordered("SELECT T1.c FROM t AS T1 JOIN t AS T2 ON 1 ORDER BY pk, T1.pk LIMIT 5"));  // pk: which?
  EXPECT_FALSE(ordered("SELECT c FROM w ORDER BY pk LIMIT 1"));
  EXPECT_FALSE(ordered("SELECT c AS pk FROM t ORDER BY pk LIMIT 1"));  // the alias, not the column
  EXPECT_FALSE(ordered("SELECT DISTINCT c FROM t ORDER BY pk LIMIT 1"));
  EXPECT_FALSE(ordered("SELECT c, COUNT(*) FROM t GROUP BY c ORDER BY pk LIMIT 1"));
  EXPECT_FALSE(ordered("SELECT MAX(c) FROM t ORDER BY pk LIMIT 1"));
  EXPECT_FALSE(ordered("SELECT d.c FROM (SELECT * FROM t) AS d ORDER BY d.pk LIMIT 1"));
  EXPECT_EQ(Nondeterminism(SqlShape("SELECT c FROM t ORDER BY pk LIMIT 2 OFFSET 1")), "LIMIT without a total ORDER BY");
  EXPECT_EQ(Nondeterminism(SqlShape("SELECT c FROM t ORDER BY pk LIMIT 2 OFFSET 1"), &keys), "");
  EXPECT_EQ(Nondeterminism(SqlShape("SELECT c FROM t WHERE c IN (SELECT c FROM t ORDER BY pk LIMIT 2)"), &keys),
            "LIMIT without a total ORDER BY");  // in a subquery: not looked at
  const auto tables = SqlShape("SELECT 1 FROM `d`.`a b` x, c PARTITION (p0) AS y JOIN (SELECT 1) z").FromTables();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].table, "d.a b");
  EXPECT_EQ(tables[0].qualifier, "x");
  EXPECT_EQ(tables[0].written, "`d`.`a b`");
  EXPECT_TRUE(tables[1].partitions);
  EXPECT_EQ(tables[1].qualifier, "y");
}

TEST(Transforms, EquivalentForms) {
  const SqlShape s("( SELECT T1.a, b FROM t1 AS T1 JOIN `db`.`t2` ON (T1.a = t2.a), t3 x WHERE T1.a > 1 ORDER BY 1 )");
  EXPECT_EQ(AsDerivedTable(s),
            "SELECT * FROM ( SELECT T1.a, b FROM t1 AS T1 JOIN `db`.`t2` ON (T1.a = t2.a), t3 x WHERE T1.a > 1 "
            "ORDER BY 1 ) AS gauntlet_d");
  std::string why;
  EXPECT_EQ(WithoutIndexes(s, &why),
            "SELECT T1.a, b FROM t1 AS T1 USE INDEX () JOIN `db`.`t2` USE INDEX () ON (T1.a = t2.a), t3 x USE INDEX "
            "() WHERE T1.a > 1 ORDER BY 1");
  EXPECT_EQ(WithoutIndexes(SqlShape("SELECT a FROM t FORCE INDEX (k)"), &why), "");
  EXPECT_EQ(why, "has index hints");
  EXPECT_EQ(WithoutIndexes(SqlShape("SELECT a FROM (SELECT 1 AS a) AS d"), &why), "");
  EXPECT_EQ(SqlString("it's a \\ b"), "'it''s a \\\\ b'");
  int64_t limit = 0, offset = 0;
  EXPECT_EQ(ReplaceLimit(SqlShape("(SELECT a FROM t ORDER BY a LIMIT 3, 5 FOR UPDATE)"), "", &limit, &offset),
            "SELECT a FROM t ORDER BY a FOR UPDATE");
  EXPECT_EQ(limit, 5);
  EXPECT_EQ(offset, 3);
  EXPECT_EQ(ReplaceLimit(SqlShape("SELECT a FROM t LIMIT 2 OFFSET 7"), "", &limit, &offset), "SELECT a FROM t");
  EXPECT_EQ(limit, 2);
  EXPECT_EQ(offset, 7);
  EXPECT_EQ(ReplaceLimit(SqlShape("SELECT a FROM t LIMIT 2 FOR UPDATE"), "LIMIT 9", &limit, &offset),
            "SELECT a FROM t LIMIT 9 FOR UPDATE");
  EXPECT_EQ(ReplaceLimit(SqlShape("SELECT a FROM t LIMIT 2 ROWS EXAMINED 9"), "", &limit, &offset), "SELECT a FROM t");
  EXPECT_EQ(limit, -1);  // may stop early: as many rows as it likes
  EXPECT_EQ(ReplaceLimit(SqlShape("SELECT a FROM t WHERE a IN (SELECT a FROM u LIMIT 1)"), "", &limit, &offset), "");
  EXPECT_EQ(ReplaceLimit(SqlShape("(SELECT a FROM t LIMIT 1) UNION (SELECT 2)"), "", &limit, &offset), "");
  EXPECT_EQ(WithoutPartLimits(SqlShape("( SELECT a FROM t LIMIT 4 ) UNION ALL ( SELECT b FROM u WHERE (b) LIMIT 2, 3 )")),
            "( SELECT a FROM t ) UNION ALL ( SELECT b FROM u WHERE (b) )");
  EXPECT_EQ(AsDerivedTable(SqlShape("(SELECT a FROM t) UNION (SELECT b FROM u)")),
            "SELECT * FROM ( (SELECT a FROM t) UNION (SELECT b FROM u) ) AS gauntlet_d");
  EXPECT_EQ(WithoutIndexes(SqlShape("(SELECT a FROM t AS x) UNION ALL (SELECT b FROM u, v)"), &why),
            "(SELECT a FROM t AS x USE INDEX ()) UNION ALL (SELECT b FROM u USE INDEX (), v USE INDEX ())");
  EXPECT_EQ(WithoutIndexes(SqlShape("SELECT a FROM t UNION SELECT b FROM u"), &why), "");
  EXPECT_EQ(WithoutPartLimits(SqlShape("(SELECT a FROM t LIMIT 4) EXCEPT (SELECT b FROM u LIMIT 2)")), "");
  EXPECT_EQ(WithoutPartLimits(SqlShape("(SELECT a FROM t LIMIT 4) UNION (SELECT b FROM u) LIMIT 2")), "");
  EXPECT_EQ(WithoutPartLimits(SqlShape("(SELECT a FROM t LIMIT @x) UNION (SELECT b FROM u)")), "");
  EXPECT_EQ(WithoutPartLimits(SqlShape("(SELECT a FROM t) INTERSECT (SELECT b FROM u)")), "");
  EXPECT_EQ(WithSetStatement(s, "join_cache_level=0").substr(0, 48), "SET STATEMENT join_cache_level=0 FOR SELECT T1.a");
}

TEST(Transforms, TlpAndNorec) {
  TlpQueries q;
  std::string why;
  ASSERT_TRUE(Tlp(SqlShape("SELECT DISTINCT a FROM t WHERE b > 1 ORDER BY a"), &q, &why));
  EXPECT_EQ(q.unfiltered, "SELECT DISTINCT a FROM t");
  EXPECT_EQ(q.partitioned,
            "SELECT DISTINCT a FROM t WHERE ( b > 1 ) UNION SELECT DISTINCT a FROM t WHERE NOT ( b > 1 ) UNION "
            "SELECT DISTINCT a FROM t WHERE ( b > 1 ) IS NULL");
  ASSERT_TRUE(Tlp(SqlShape("SELECT COUNT(*) FROM t WHERE b > 1"), &q, &why));
  EXPECT_EQ(q.variant, "COUNT");
  EXPECT_EQ(q.partitioned.substr(0, 60), "SELECT SUM(gauntlet_a) FROM ( SELECT COUNT(*) AS gauntlet_a ");
  EXPECT_FALSE(Tlp(SqlShape("SELECT AVG(a) FROM t WHERE b > 1"), &q, &why));
  EXPECT_FALSE(Tlp(SqlShape("SELECT COUNT(DISTINCT a) FROM t WHERE b > 1"), &q, &why));
  EXPECT_FALSE(Tlp(SqlShape("SELECT a FROM t WHERE b > 1 LIMIT 2"), &q, &why));
  EXPECT_FALSE(Tlp(SqlShape("SELECT a FROM t"), &q, &why));
  // GROUP BY: the partitions' groups merged by the GROUP BY's values, aggregates of aggregates.
  ASSERT_TRUE(Tlp(SqlShape("SELECT a, COUNT(*), MAX(c) AS `m` FROM t WHERE b > 1 GROUP BY a, c + 1 ORDER BY a"), &q,
                  &why));
  EXPECT_EQ(q.variant, "group by");
  EXPECT_EQ(q.unfiltered, "SELECT a, COUNT(*), MAX(c) AS `m` FROM t GROUP BY a, c + 1");
  const std::string inner = "SELECT a AS gauntlet_0, COUNT(*) AS gauntlet_1, MAX(c) AS `m`, a AS gauntlet_g0, c + 1 AS "
                            "gauntlet_g1 FROM t WHERE ";
  EXPECT_EQ(q.partitioned, "SELECT MIN(gauntlet_0), SUM(gauntlet_1), MAX(`M`) FROM ( " + inner +
                               "( b > 1 ) GROUP BY a, c + 1 UNION ALL " + inner + "NOT ( b > 1 ) GROUP BY a, c + 1 "
                               "UNION ALL " + inner + "( b > 1 ) IS NULL GROUP BY a, c + 1 ) AS gauntlet_tlp GROUP BY "
                               "gauntlet_g0, gauntlet_g1");
  ASSERT_TRUE(Tlp(SqlShape("SELECT T1.a AS G1, SUM(T1.b) AS A1 FROM t AS T1 WHERE T1.b > 1 GROUP BY G1"), &q, &why));
  EXPECT_NE(q.partitioned.find("SELECT MIN(`G1`), SUM(`A1`) FROM ( SELECT T1.a AS G1, SUM(T1.b) AS A1 FROM"),
            std::string::npos) << q.partitioned;
  EXPECT_NE(q.partitioned.find(") AS gauntlet_tlp GROUP BY `G1`"), std::string::npos) << q.partitioned;
  EXPECT_FALSE(Tlp(SqlShape("SELECT a, AVG(b) FROM t WHERE b > 1 GROUP BY a"), &q, &why));
  EXPECT_EQ(why, "aggregates other than MIN, MAX, SUM or COUNT");
  EXPECT_FALSE(Tlp(SqlShape("SELECT a, COUNT(b) + 1 FROM t WHERE b > 1 GROUP BY a"), &q, &why));
  EXPECT_FALSE(Tlp(SqlShape("SELECT a, COUNT(DISTINCT b) FROM t WHERE b > 1 GROUP BY 1"), &q, &why));
  EXPECT_EQ(why, "SUM or COUNT of DISTINCT values");
  // HAVING is partitioned, WHERE and GROUP BY (WITH ROLLUP) stay, ORDER BY goes.
  ASSERT_TRUE(Tlp(SqlShape("SELECT a, SUM(b) AS s FROM t WHERE b > 1 GROUP BY a WITH ROLLUP HAVING s < 3 ORDER BY a"),
                  &q, &why));
  EXPECT_EQ(q.variant, "having");
  EXPECT_EQ(q.unfiltered, "SELECT a, SUM(b) AS s FROM t WHERE b > 1 GROUP BY a WITH ROLLUP");
  EXPECT_EQ(q.partitioned,
            "SELECT a, SUM(b) AS s FROM t WHERE b > 1 GROUP BY a WITH ROLLUP HAVING ( s < 3 ) UNION ALL "
            "SELECT a, SUM(b) AS s FROM t WHERE b > 1 GROUP BY a WITH ROLLUP HAVING NOT ( s < 3 ) UNION ALL "
            "SELECT a, SUM(b) AS s FROM t WHERE b > 1 GROUP BY a WITH ROLLUP HAVING ( s < 3 ) IS NULL");
  ASSERT_TRUE(Tlp(SqlShape("SELECT DISTINCT MAX(a) FROM t HAVING MAX(a) > 0"), &q, &why));
  EXPECT_EQ(q.partitioned.find(" UNION SELECT DISTINCT MAX(a) FROM t HAVING NOT ( MAX(a) > 0 )") != std::string::npos,
            true);
  EXPECT_FALSE(Tlp(SqlShape("SELECT a FROM t GROUP BY a HAVING a > 0 LIMIT 1"), &q, &why));
  // Without WHERE: the first inner join's ON predicate, the rest of FROM kept.
  ASSERT_TRUE(Tlp(SqlShape("SELECT t.a FROM t JOIN u ON t.a = u.b JOIN v ON (SELECT 1) = v.c ORDER BY 1"), &q, &why));
  EXPECT_EQ(q.variant, "on rows");
  EXPECT_EQ(q.unfiltered, "SELECT t.a FROM t JOIN u ON 1 JOIN v ON (SELECT 1) = v.c");
  EXPECT_EQ(q.partitioned,
            "SELECT t.a FROM t JOIN u ON ( t.a = u.b ) JOIN v ON (SELECT 1) = v.c UNION ALL "
            "SELECT t.a FROM t JOIN u ON NOT ( t.a = u.b ) JOIN v ON (SELECT 1) = v.c UNION ALL "
            "SELECT t.a FROM t JOIN u ON ( t.a = u.b ) IS NULL JOIN v ON (SELECT 1) = v.c");
  ASSERT_TRUE(Tlp(SqlShape("SELECT COUNT(*) FROM t STRAIGHT_JOIN u ON t.a < u.b"), &q, &why));
  EXPECT_EQ(q.variant, "on COUNT");
  EXPECT_EQ(q.unfiltered, "SELECT COUNT(*) FROM t STRAIGHT_JOIN u ON 1");
  // An outer join's ON is no filter; USING has no predicate to partition.
  EXPECT_FALSE(Tlp(SqlShape("SELECT t.a FROM t LEFT JOIN u ON t.a = u.b"), &q, &why));
  EXPECT_FALSE(Tlp(SqlShape("SELECT t.a FROM t JOIN u USING (a)"), &q, &why));
  NorecQueries on;
  ASSERT_TRUE(Norec(SqlShape("SELECT t.a FROM t INNER JOIN u ON t.a = u.b"), &on, &why));
  EXPECT_EQ(on.optimized, "SELECT COUNT(*) FROM t INNER JOIN u ON t.a = u.b");
  EXPECT_EQ(on.unoptimized, "SELECT COALESCE(SUM(gauntlet_t), 0) FROM ( SELECT ( t.a = u.b ) IS TRUE AS gauntlet_t "
                            "FROM t INNER JOIN u ON 1 ) AS gauntlet_norec");
  NorecQueries n;
  ASSERT_TRUE(Norec(SqlShape("SELECT a, b FROM t JOIN u USING (k) WHERE a = 1 OR b IS NULL GROUP BY a"), &n, &why));
  EXPECT_EQ(n.optimized, "SELECT COUNT(*) FROM t JOIN u USING (k) WHERE a = 1 OR b IS NULL");
  EXPECT_EQ(n.unoptimized,
            "SELECT COALESCE(SUM(gauntlet_t), 0) FROM ( SELECT ( a = 1 OR b IS NULL ) IS TRUE AS gauntlet_t FROM t "
            "JOIN u USING (k) ) AS gauntlet_norec");
}

ResultSet Rows(std::vector<std::string> types, std::vector<std::vector<std::optional<std::string>>> rows) {
  ResultSet r;
  for (size_t i = 0; i < types.size(); ++i) r.columns.push_back({"c" + std::to_string(i), types[i], false, 0});
  r.rows = std::move(rows);
  return r;
}

TEST(ResultCompare, MultisetsOrderAndTolerance) {
  const auto a = Rows({"INT", "VARCHAR"}, {{"1", "x"}, {"2", std::nullopt}, {"2", std::nullopt}});
  const auto b = Rows({"INT", "VARCHAR"}, {{"2", std::nullopt}, {"1", "x"}, {"2", std::nullopt}});
  EXPECT_TRUE(CompareResults(a, b, {Relation::kUnordered, false}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(a, b, {Relation::kExact, false}, "a", "b").holds);
  const auto fewer = Rows({"INT", "VARCHAR"}, {{"2", std::nullopt}, {"1", "x"}});
  const Comparison c = CompareResults(a, fewer, {Relation::kUnordered, false}, "a", "b");
  EXPECT_FALSE(c.holds);
  EXPECT_NE(c.diff.find("only in a (1 rows):\n  ('2', NULL)"), std::string::npos) << c.diff;
  EXPECT_TRUE(CompareResults(a, fewer, {Relation::kSuperset, false}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(a, fewer, {Relation::kSubset, false}, "a", "b").holds);
  // Floating values within the tolerance; decimals exact.
  EXPECT_TRUE(CompareResults(Rows({"DOUBLE"}, {{"0.30000000000000004"}, {"1e300"}}),
                             Rows({"DOUBLE"}, {{"1.0000000000000001e300"}, {"0.3"}}), {}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"DECIMAL"}, {{"0.3333"}}), Rows({"DECIMAL"}, {{"0.333333333333"}}), {}, "a", "b")
                   .holds);
  // DOUBLEs printed into text (a sum's last digits follow the join order), only those.
  EXPECT_TRUE(CompareResults(Rows({"JSON", "VARCHAR"}, {{"{\"b\": 2.37301857789448e67}", "x-0.30000000000000004"}}),
                             Rows({"JSON", "VARCHAR"}, {{"{\"b\": 2.3730185778944795e67}", "x-0.3000000000000000"}}),
                             {Relation::kUnordered, false}, "a", "b").holds);
  for (const char* other : {"{\"b\": 2.373018e67}", "{\"b\": 2.37301857789448e68}", "{\"b\": 2.4e67}",
                            "{\"c\": 2.37301857789448e67}", "{\"b\": 2.37301857789448e67 }"})
    EXPECT_FALSE(CompareResults(Rows({"JSON"}, {{"{\"b\": 2.3730185778944795e67}"}}), Rows({"JSON"}, {{other}}),
                                {Relation::kUnordered, false}, "a", "b").holds)
        << other;
  EXPECT_TRUE(CompareResults(Rows({"BLOB"}, {{"{\"B\": 2.37301857789448e67}"}}),
                             Rows({"BLOB"}, {{"{\"b\": 2.3730185778944795E67}"}}), {Relation::kUnordered, true}, "a",
                             "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"VARCHAR"}, {{"1.5"}}), Rows({"VARCHAR"}, {{"1.50"}}), {}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"VARCHAR"}, {{"a12345678901234567"}}), Rows({"VARCHAR"}, {{"a12345678901234568"}}),
                              {}, "a", "b").holds);
  // Case and trailing spaces only where the query may pick among equals.
  EXPECT_FALSE(CompareResults(Rows({"VARCHAR"}, {{"a "}}), Rows({"VARCHAR"}, {{"A"}}), {}, "a", "b").holds);
  EXPECT_TRUE(CompareResults(Rows({"VARCHAR"}, {{"a "}}), Rows({"VARCHAR"}, {{"A"}}), {Relation::kUnordered, true},
                             "a", "b").holds);
}

TEST(CheckTurns, FamiliesShareTheStatementsAndPassOnWhatTheirOracleDeclines) {
  // tlp (0), norec (1), transforms (2, 3, 4).
  CheckTurns turns({{0}, {1}, {2, 3, 4}});
  std::vector<int> holder;
  for (uint64_t n = 0; n < 9; ++n)
    for (size_t p = 0; p < 5; ++p)
      if (turns.Mine(7, n, p)) holder.push_back(static_cast<int>(p));
  EXPECT_EQ(holder, (std::vector<int>{0, 1, 2, 0, 1, 3, 0, 1, 4}));
  // Statement 9 is tlp's: declined, norec's turn; declined too, the transform whose turn it is.
  EXPECT_TRUE(turns.Mine(7, 9, 0));
  turns.Declined(7, 9, 0);
  EXPECT_FALSE(turns.Mine(7, 9, 0));
  EXPECT_TRUE(turns.Mine(7, 9, 1));
  turns.Declined(7, 9, 1);
  EXPECT_TRUE(turns.Mine(7, 9, 2));  // (9 / 3) % 3 = 0: the first transform
  turns.Declined(7, 9, 2);
  EXPECT_TRUE(turns.Mine(7, 9, 3));  // no later family: the next oracle
  EXPECT_TRUE(turns.Mine(8, 9, 0));  // another session: its own turns
  CheckTurns alone(std::vector<std::vector<size_t>>{{0}});
  EXPECT_TRUE(alone.Mine(1, 5, 0) && alone.Mine(1, 6, 0));
}

TEST(ResultCompare, ALimitsRowsAreAmongTheRowsAndAsMany) {
  ResultSet all, some;
  all.columns = some.columns = {ResultColumn{"a", "INT"}};
  for (const char* v : {"1", "2", "2", "3"}) all.rows.push_back({std::string(v)});
  some.rows = {{std::string("2")}, {std::string("2")}};
  EXPECT_TRUE(CompareResults(all, some, {Relation::kSuperset, false, 2, 1}, "all", "limited").holds);
  EXPECT_TRUE(CompareResults(all, some, {Relation::kSuperset, false, -1, 0}, "all", "limited").holds);
  const Comparison c = CompareResults(all, some, {Relation::kSuperset, false, 3, 0}, "all", "limited");
  EXPECT_FALSE(c.holds);
  EXPECT_NE(c.diff.find("(LIMIT 3 OFFSET 0 of all: 3)"), std::string::npos) << c.diff;
  EXPECT_TRUE(CompareResults(all, ResultSet{all.columns, {}}, {Relation::kSuperset, false, 2, 4}, "all", "l").holds);
  some.rows.push_back({std::string("2")});  // a third 2: not among them
  EXPECT_FALSE(CompareResults(all, some, {Relation::kSuperset, false, 3, 0}, "all", "limited").holds);
}

TEST(ResultCompare, OrderedRowsTiedUnderTheCollationComeInAnyOrder) {
  // ORDER BY 1, 2 under a case-insensitive PAD SPACE collation: ('1.50', 'a ') and ('1.50', 'A  ') are
  // ties (seen with join_cache_level=0 on 10.11.19), ('1.50', 'b') is not one of them.
  const auto a = Rows({"DECIMAL", "VARCHAR"}, {{"1.00", "z"}, {"1.50", "a "}, {"1.50", "A  "}, {"1.50", "b"}});
  const auto b = Rows({"DECIMAL", "VARCHAR"}, {{"1.00", "z"}, {"1.50", "A  "}, {"1.50", "a "}, {"1.50", "b"}});
  EXPECT_TRUE(CompareResults(a, b, {Relation::kExact, false}, "a", "b").holds);
  // Out of place beyond the ties, or different values among them, still fails.
  const auto moved = Rows({"DECIMAL", "VARCHAR"}, {{"1.00", "z"}, {"1.50", "b"}, {"1.50", "a "}, {"1.50", "A  "}});
  EXPECT_FALSE(CompareResults(a, moved, {Relation::kExact, false}, "a", "b").holds);
  const auto changed = Rows({"DECIMAL", "VARCHAR"}, {{"1.00", "z"}, {"1.50", "A  "}, {"1.50", "A "}, {"1.50", "b"}});
  EXPECT_FALSE(CompareResults(a, changed, {Relation::kExact, false}, "a", "b").holds);
  const auto more = Rows({"DECIMAL", "VARCHAR"}, {{"1.00", "z"}, {"1.50", "A  "}, {"1.50", "a "}, {"1.50", "a"}});
  EXPECT_FALSE(CompareResults(a, more, {Relation::kExact, false}, "a", "b").holds);
  // Accents too ('a' and 'Ä' under utf8mb4_general_ci: ORDER BY 1 DESC of a RIGHT JOIN with
  // join_cache_level=0, the hunt of 2026-12-06), and the values must still be the same.
  const auto accents = Rows({"VARCHAR"}, {{"b"}, {"a"}, {"\xc3\x84"}, {"a\xcc\x81"}});
  const auto reordered = Rows({"VARCHAR"}, {{"b"}, {"\xc3\x84"}, {"a\xcc\x81"}, {"a"}});
  EXPECT_TRUE(CompareResults(accents, reordered, {Relation::kExact, false}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(accents, Rows({"VARCHAR"}, {{"b"}, {"\xc3\x84"}, {"\xc3\x84"}, {"a"}}),
                              {Relation::kExact, false}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"VARCHAR"}, {{"a"}}), Rows({"VARCHAR"}, {{"\xc3\x84"}}), {}, "a", "b").holds);
  // Binary strings have no such ties.
  const auto bin_a = Rows({"VARBINARY"}, {{"a"}, {"A"}}), bin_b = Rows({"VARBINARY"}, {{"A"}, {"a"}});
  EXPECT_FALSE(CompareResults(bin_a, bin_b, {Relation::kExact, false}, "a", "b").holds);
}

TEST(ResultCompare, BitAgainstBinaryIsANumberAndCutValuesAreNamed) {
  // A view or UNION may hand a BIT column back as VARBINARY: the same value.
  EXPECT_TRUE(CompareResults(Rows({"BIT"}, {{"1843"}}), Rows({"VARCHAR"}, {{std::string("\x00\x00\x07\x33", 4)}}),
                             {}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"BIT"}, {{"1843"}}), Rows({"VARCHAR"}, {{std::string("\x07\x34", 2)}}), {},
                              "a", "b").holds);
  // BIT(64) as the column's bytes and as decimal text (DISTINCT through a
  // temporary table, GREATEST of BITs): the same numbers.
  ResultSet raw = Rows({"BIT"}, {{std::string("\x00\x00\x00\x00\x00\x00\x07\x33", 8)}, {std::nullopt}});
  ResultSet text = Rows({"BIT"}, {{"1843"}, {std::nullopt}});
  raw.columns[0].length = text.columns[0].length = 64;
  EXPECT_TRUE(CompareResults(raw, text, {}, "a", "b").holds);
  text.rows[0][0] = "1844";
  EXPECT_FALSE(CompareResults(raw, text, {}, "a", "b").holds);
  // SELECT DISTINCT hands a BIT(64) back as BIGINT UNSIGNED in decimal, whose
  // text may look like bytes of the right length ("15732" is not 0x3135373332).
  ResultSet distinct = Rows({"BIGINT"}, {{"15732"}, {std::nullopt}});
  raw.rows[0][0] = std::string("\x00\x00\x00\x00\x00\x00\x3d\x74", 8);
  EXPECT_TRUE(CompareResults(distinct, raw, {}, "a", "b").holds);
  EXPECT_TRUE(CompareResults(raw, distinct, {}, "a", "b").holds);
  distinct.rows[0][0] = "12345678";
  EXPECT_FALSE(CompareResults(distinct, raw, {}, "a", "b").holds);
  // BIT(1) as bytes (0x01) against the text '1'.
  ResultSet one = Rows({"BIT"}, {{std::string("\x01", 1)}}), one_text = Rows({"BIT"}, {{"1"}});
  one.columns[0].length = one_text.columns[0].length = 1;
  EXPECT_TRUE(CompareResults(one, one_text, {}, "a", "b").holds);
  const Comparison cut = CompareResults(Rows({"VARCHAR", "INT"}, {{"-3992000000000", "1"}}),
                                        Rows({"VARCHAR", "INT"}, {{"-39920000000", "1"}}), {}, "a", "b");
  EXPECT_FALSE(cut.holds);
  EXPECT_EQ(cut.kind, "truncated");
  const Comparison other = CompareResults(Rows({"VARCHAR"}, {{"abc"}}), Rows({"VARCHAR"}, {{"abd"}}), {}, "a", "b");
  EXPECT_FALSE(other.holds);
  EXPECT_EQ(other.kind, "");
  EXPECT_EQ(CompareResults(Rows({"INT"}, {{"1"}, {"2"}}), Rows({"INT"}, {{"1"}}), {}, "a", "b").kind, "");
  // A column a UNION retyped (YEAR to INT) holds the same numbers; one that kept its type does not.
  EXPECT_TRUE(CompareResults(Rows({"YEAR", "DECIMAL"}, {{"0000", "-7.00"}}), Rows({"BIGINT", "BIGINT"},
                             {{"0", "-7"}}), {}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"DECIMAL"}, {{"-0.0"}}), Rows({"DECIMAL"}, {{"0.0"}}), {}, "a", "b").holds);
  EXPECT_FALSE(CompareResults(Rows({"YEAR"}, {{"100000000000000000"}}), Rows({"BIGINT"}, {{"100000000000000001"}}),
                              {}, "a", "b").holds);
}

TEST(ResultCompare, RowTextShowsBytesInHex) {
  EXPECT_EQ(RowText({std::string("a\xc3\xa1"), std::nullopt, std::string("\x00\xff", 2), std::string("\xc3")}),
            "('a\xc3\xa1', NULL, X'00FF', X'C3')");
}

TEST(ErrorLog, NormalizedLinesAndNewLinesOnly) {
  EXPECT_EQ(NormalizedLogLine("2026-12-03 11:39:13 42 [ERROR] InnoDB: page 123 at 0x7f00ab is corrupt"),
            "[ERROR] InnoDB: page N at N is corrupt");
  const std::string path = testing::TempDir() + "/gauntlet_errorlog_test.err";
  std::ofstream(path) << "2026-12-03 10:00:00 0 [ERROR] before the run\n";
  ErrorLogOracle oracle({{"a", path}});
  EXPECT_TRUE(oracle.Watch().empty());
  std::ofstream(path, std::ios::app) << "2026-12-03 10:00:01 5 [Note] fine\n"
                                     << "2026-12-03 10:00:02 5 [ERROR] mariadbd: Table 't1' is marked as crashed\n"
                                     << "2026-12-03 10:00:03 5 [ERROR] half a li";
  EXPECT_TRUE(oracle.Watch().empty());  // held back while a statement may still explain it
  const auto found = oracle.Finish();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "error-log");
  EXPECT_EQ(found[0].targets, std::vector<std::string>{"a"});
  std::ofstream(path, std::ios::app) << "ne\n2026-12-03 10:00:04 0 [ERROR] mariadbd got signal 11 ;\n"
                                     << "2026-12-03 10:00:04 0 [ERROR] after the crash\n";
  const auto rest = oracle.Finish();
  ASSERT_EQ(rest.size(), 1u);  // the completed line; the crash report is the crash finding's
  EXPECT_NE(rest[0].signature.find("half a line"), std::string::npos);
}

TEST(ErrorLog, AStatementsDeadlockTheServerLoggedIsNoFinding) {
  // Seen in a partitions hunt: the server logged a statement's deadlock as [ERROR].
  const std::string path = testing::TempDir() + "/gauntlet_errorlog_deadlock.err";
  std::ofstream(path) << "";
  ErrorLogOracle oracle({{"a", path}});
  std::ofstream(path, std::ios::app)
      << "2026-12-06 20:02:20 6 [ERROR] mariadbd: Deadlock found when trying to get lock; try restarting transaction\n"
      << "2026-12-06 20:02:21 6 [ERROR] mariadbd: Lock wait timeout exceeded; try restarting transaction\n"
      // the corpus round's CREATE TABLE with too wide a row (the statement got 1118)
      << "2026-12-07 22:57:01 8 [ERROR] InnoDB: Cannot add field `col7` in table `test`.`table1` because after "
         "adding it, the row size is 8478 which is greater than maximum allowed size (8126 bytes) for a record "
         "on index leaf page.\n"
      // the corpus run's: InnoDB's reasons for statements it refused, a DDL clean-up's own lock wait timeout
      << "2026-12-08  0:42:03 8 [ERROR] InnoDB: File ./test/t1#P#x.ibd: 'create' returned OS error 236.\n"
      << "2026-12-08  0:40:51 8 [ERROR] InnoDB: Error number 36 means 'File name too long'\n"
      << "2026-12-08  0:45:00 8 [ERROR] InnoDB: Cannot rename './test/t1.ibd' to './non_existent/t1.ibd' because "
         "the target schema directory doesn't exist.\n"
      << "2026-12-08  1:03:26 85 [ERROR] InnoDB: FTS_DOC_ID must be larger than 20030101000000 for table `test`.`t1`\n"
      << "2026-12-08  1:02:33 8 [ERROR] DDL_LOG: Got error 1205 when trying to execute action for entry 172 of type "
         "'rename table'\n";
  EXPECT_TRUE(oracle.Watch().empty());
  std::ofstream(path, std::ios::app) << "2026-12-06 20:02:22 6 [ERROR] InnoDB: something else\n";
  EXPECT_EQ(oracle.Finish().size(), 1u);
}

// The server logs some errors it returns to a statement (by design: a sort out of memory with a
// small sort_buffer_size, a temporary table full): a line a statement's error explains is no finding.
TEST(ErrorLog, ALineThatEchoesAStatementsErrorIsNoFindingAndOneNoneExplainsIs) {
  const std::string path = testing::TempDir() + "/gauntlet_errorlog_echo.err";
  std::ofstream(path) << "";
  ErrorLogOracle oracle({{"a", path}});
  Session session({});
  Outcome sort;
  sort.kind = OutcomeKind::kResource;
  sort.error_code = 1038;
  sort.message = "Out of sort memory, consider increasing server sort buffer size";
  const std::vector<Outcome> outcomes = {sort};
  const std::vector<ResultSet> results;
  const Observation o{1, "SET STATEMENT sort_buffer_size = 1024 FOR SELECT a FROM t ORDER BY b", outcomes, results,
                      session, false, {}, 0};
  // Logged before the statement's error comes back (read between the two): held back, then explained.
  std::ofstream(path, std::ios::app)
      << "2026-12-07 22:09:05 7 [ERROR] mariadbd: Out of sort memory, consider increasing server sort buffer size\n";
  EXPECT_TRUE(oracle.Watch().empty());
  EXPECT_EQ(oracle.Check(o).kind, Verdict::kNotApplicable);
  std::ofstream(path, std::ios::app)
      << "2026-12-07 22:09:06 7 [ERROR] mariadbd: Out of sort memory, consider increasing server sort buffer size\n";
  EXPECT_TRUE(oracle.Watch().empty());
  // Lines no statement's error explains are findings: at the run's end at the latest.
  std::ofstream(path, std::ios::app)
      << "2026-12-07 22:09:07 7 [ERROR] mariadbd: The table '(temporary)' is full\n"
      << "2026-12-07 22:09:08 7 [ERROR] mariadbd: Incorrect information in file: './test/t1.frm'\n";
  EXPECT_TRUE(oracle.Watch().empty());  // within the grace a statement has to return
  const std::vector<Finding> found = oracle.Finish();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].signature.find("is full"), std::string::npos);
}

TEST(TemporaryTables, WhatAStatementCreatesAndDrops) {
  using V = std::vector<std::string>;
  EXPECT_EQ(TemporaryTables("CREATE OR REPLACE TEMPORARY TABLE SURFACE_T1 (a INT)").created, V{"SURFACE_T1"});
  EXPECT_EQ(TemporaryTables("create temporary table if not exists `db`.`t 2` like t1").created, V{"t 2"});
  EXPECT_TRUE(TemporaryTables("CREATE TABLE t1 (a INT)").created.empty());
  EXPECT_EQ(TemporaryTables("DROP TEMPORARY TABLE IF EXISTS t1, test.t2").dropped, (V{"t1", "t2"}));
  EXPECT_EQ(TemporaryTables("DROP TABLE t3").dropped, V{"t3"});
  EXPECT_TRUE(TemporaryTables("SELECT * FROM t1").dropped.empty());
}

TEST(FindingLog, OnePerSignatureKnownBugsMarked) {
  const std::string dir = testing::TempDir() + "/gauntlet_findings_test";
  std::filesystem::remove_all(dir);
  const std::string known_path = testing::TempDir() + "/gauntlet_known.txt";
  std::ofstream(known_path) << "# comment\n\nsignal 11 ## MDEV-1 fixed in 11.4\n";
  FindingLog log(dir, LoadKnownBugs(known_path), {{"a", {{"server", "default"}}}});
  Finding f;
  f.kind = "crash";
  f.signature = "signal 11: f1 f2";
  f.targets = {"a"};
  f.preceding = {"CREATE TABLE t (a INT)"};
  f.statement = "SELECT 1";
  EXPECT_TRUE(log.Add(f));
  EXPECT_FALSE(log.Add(f));
  f.signature = "signal 6: g";
  EXPECT_TRUE(log.Add(f));
  const auto all = log.findings();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].occurrences, 2u);
  EXPECT_EQ(all[0].known, "MDEV-1 fixed in 11.4");
  EXPECT_TRUE(all[1].known.empty());
  EXPECT_TRUE(std::filesystem::exists(dir + "/findings/0001-crash/finding.json"));
  std::ifstream readme(dir + "/findings/0001-crash/README.txt");
  const std::string about((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  EXPECT_NE(about.find("signature: signal 11: f1 f2"), std::string::npos) << about;
  EXPECT_NE(about.find("target a: {\"server\":\"default\"}"), std::string::npos) << about;
  std::ifstream sql(dir + "/findings/0001-crash/statements.sql");
  const std::string text((std::istreambuf_iterator<char>(sql)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("CREATE TABLE t (a INT);\n-- the statement:\nSELECT 1;"), std::string::npos) << text;
  std::ifstream jsonl(dir + "/findings.jsonl");
  int lines = 0;
  for (std::string line; std::getline(jsonl, line);) ++lines;
  EXPECT_EQ(lines, 2);
  EXPECT_THROW(LoadKnownBugs(dir + "/no-such-file"), InvalidInput);
}

TEST(KnownBug, CatalogueEntriesMatchRootCauseKeysByGlob) {
  const KnownBug temporal{"", "temporal-conversion", {"tlp/norec: temporal", "metamorphic*: temporal"}};
  EXPECT_TRUE(temporal.Matches("tlp/norec: temporal", "tlp: SELECT ..."));
  EXPECT_TRUE(temporal.Matches("metamorphic [truncated]: temporal", ""));
  EXPECT_FALSE(temporal.Matches("tlp/norec: temporal IN", ""));  // a glob matches the whole key
  EXPECT_FALSE(temporal.Matches("metamorphic: rounding", "metamorphic: temporal"));  // not the signature
  const KnownBug crash{"", "json-extract-crash", {"crash: signal 11: Item_func_json_extract::read_json *"}};
  EXPECT_TRUE(crash.Matches("crash: signal 11: Item_func_json_extract::read_json | a | b", ""));
  EXPECT_FALSE(crash.Matches("crash: signal 6: Item_func_json_extract::read_json | a | b", ""));
  EXPECT_TRUE((KnownBug{"", "any", {"*"}}).Matches("", ""));
  EXPECT_TRUE((KnownBug{"", "stars", {"a**b*"}}).Matches("aXb", ""));
  EXPECT_FALSE((KnownBug{"", "none", {}}).Matches("anything", "anything"));
}

TEST(FindingLog, FindingsAndCausesOfAKnownKeyAreMarkedKnown) {
  using nlohmann::json;
  const std::string dir = testing::TempDir() + "/gauntlet_findings_known_cause";
  std::filesystem::remove_all(dir);
  // The key here is the signature's first word: two signatures, one cause.
  FindingLog log(dir, {KnownBug{"", "item-6", {"tlp*"}}}, json::object(),
                 [](const json& f) { return f.value("signature", "").substr(0, f.value("signature", "").find(' ')); });
  Finding f;
  f.kind = "tlp";
  for (const char* signature : {"tlp one shape", "tlp another shape", "norec a third"}) {
    f.signature = signature;
    EXPECT_TRUE(log.Add(f));
  }
  const auto all = log.findings();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].known, "item-6");
  EXPECT_EQ(all[1].known, "item-6");
  EXPECT_EQ(all[1].cause, "tlp");
  EXPECT_TRUE(all[2].known.empty());
  json findings = json::array();
  for (const Finding& x : all) findings.push_back(x.ToJson());
  const json counts = FindingCounts(findings);
  EXPECT_EQ(counts["known"], 2);
  EXPECT_EQ(counts["causes"]["total"], 2);
  EXPECT_EQ(counts["causes"]["known"], 1);
  EXPECT_EQ(counts["causes"]["new"], json::array({"norec"}));
  log.Flush();
  std::ifstream in(dir + "/root_causes.json");
  const json causes = json::parse(in)["root_causes"];
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0]["known"], "item-6");
  EXPECT_FALSE(causes[1].contains("known"));
}

}  // namespace
}  // namespace gauntlet
