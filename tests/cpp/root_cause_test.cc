// Root causes: the key that groups findings of one likely cause (a wrong
// result by the constructs of its minimal query, a crash by its frames), and
// the grouping that root_causes.json and `gauntlet triage` show.
#include "exec/root_causes.h"
#include "oracle/root_cause_key.h"

#include <gtest/gtest.h>

namespace gauntlet {
namespace {

using nlohmann::json;

json WrongResult(const std::string& kind, const std::string& signature, const std::string& statement,
                 const std::string& minimal = "") {
  json f = {{"kind", kind}, {"signature", signature}, {"statement", statement}, {"occurrences", 1}, {"at", 1.0}};
  if (!minimal.empty()) f["minimal"] = {{"sql", minimal}, {"left", minimal}, {"right", minimal + " UNION ALL ..."}};
  return f;
}

json Crash(const std::vector<std::string>& frames, const std::string& signature) {
  return {{"kind", "crash"}, {"signature", signature}, {"statement", "SELECT 1"},
          {"crash", {{"signal", 11}, {"frames", frames}}}};
}

TEST(RootCauseKey, TwoShapesOfOneCauseShareAKeyAndAnotherCauseDoesNot) {
  // Item 11 of docs/findings.md, minimised from two queries of different shapes.
  const std::string a = RootCauseKey(WrongResult("tlp", "tlp: SELECT _ FROM _ WHERE ...",
                                                 "SELECT a, b FROM t WHERE x AND 1 >= ALL (SELECT b FROM n) ORDER BY a",
                                                 "SELECT a FROM t WHERE 1 >= ALL (SELECT b FROM n)"));
  const std::string b = RootCauseKey(WrongResult("tlp", "tlp: SELECT COUNT(*) ...",
                                                 "SELECT c FROM t2 WHERE 'x' < ANY (SELECT `d` FROM m) LIMIT 4",
                                                 "SELECT `c` FROM t2 WHERE 'x' < ANY (SELECT `d` FROM m)"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "tlp/norec: ALL/ANY subquery");
  // Under NOT or beside a bit operator, the ALL/ANY comparison is the cause still.
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT 1 FROM t WHERE NOT 49 & 7 > SOME (SELECT b FROM n)")), a);
  // What the ALL/ANY subquery selects only made the NULL compared (a hunt's JSON_VALUE and UNHEX);
  // a call in its WHERE, or beside the comparison, says more.
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT `s1`.`c6_binary` AS a3 FROM `t2` AS s1 WHERE '' <= ALL "
                                                      "(SELECT JSON_VALUE('{}', '$') FROM `t2` AS s3)")), a);
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT NULL AS a3 FROM `view1` AS s1 WHERE X'61' > ALL "
                                                      "(SELECT UNHEX('NULL') FROM `view1` AS s2)")), a);
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT a FROM t WHERE 1 > ALL (SELECT UPPER(b) FROM n WHERE "
                                                      "ROUND(b) = 1)")), "tlp/norec: rounding");
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT a FROM t WHERE LENGTH(a) > ALL (SELECT (b) FROM n)")),
            "tlp/norec: LENGTH");
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: x", "SELECT CAST('[1]' AS DECIMAL(10,2)) AS a2 FROM `t1` AS s1 WHERE "
                                                      "'abc' > SOME (SELECT DATE'9999-12-31' FROM `t3` AS s2)")),
            "tlp/norec: temporal");
  // Item 4: an ENUM in NOT IN (subquery).
  const std::string c = RootCauseKey(WrongResult("tlp", "tlp: ...", "SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)",
                                                 "SELECT e FROM t WHERE e NOT IN (SELECT 1 FROM t)"));
  EXPECT_NE(a, c);
  // The tags count: a truncation is not a rounding; the oracle's kind counts.
  const std::string d = RootCauseKey(WrongResult("metamorphic", "transform:view [truncated]: SELECT ...",
                                                 "SELECT CAST(a AS CHAR) FROM t", "SELECT CAST(a AS CHAR) FROM t"));
  const std::string e = RootCauseKey(WrongResult("metamorphic", "transform:view: SELECT ...",
                                                 "SELECT CAST(a AS CHAR) FROM t", "SELECT CAST(a AS CHAR) FROM t"));
  EXPECT_EQ(d, "metamorphic [truncated]: CHAR");
  EXPECT_NE(d, e);
  // Without a minimal query, the statement; a family under its name, and
  // calls before operators.
  EXPECT_EQ(RootCauseKey(WrongResult("norec", "norec [warnings 1292]: ...", "SELECT * FROM t WHERE CAST(a AS DATE) IS NULL")),
            "tlp/norec: temporal");
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp: ...", "SELECT a FROM t WHERE TIMESTAMP(c) >= d AND x IN (1, 2)")),
            RootCauseKey(WrongResult("tlp", "tlp: ...", "SELECT b FROM u LEFT JOIN v ON 1 WHERE DATE_ADD(c, INTERVAL 1 DAY) < 3")));
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "m", "SELECT FLOOR(a) FROM t GROUP BY b")),
            RootCauseKey(WrongResult("metamorphic", "m", "SELECT DISTINCT ROUND(1e308, -1) FROM t")));
  // TRUNCATE is a keyword too (TRUNCATE TABLE), and still a rounding.
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "t", "SELECT TRUNCATE(a, 2) FROM t WHERE b LIKE 'x'")), "tlp/norec: rounding");
  // TLP on WHERE 1 is the query against itself through a UNION ALL: a transform's finding.
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp [truncated]: x", "SELECT JSON_ARRAY(b, NULL) FROM t WHERE 1")),
            RootCauseKey(WrongResult("metamorphic", "transform:view [truncated]: x", "SELECT JSON_ARRAY(X'00', 2) FROM t")));
  EXPECT_EQ(RootCauseKey(WrongResult("norec", "norec: x", "SELECT a FROM t WHERE 1")), "tlp/norec:");
  // A family over the calls beside it; of two families, the one a value goes through last.
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "m [truncated]: x", "SELECT JSON_SET('[]', '$', TIMESTAMP'2000-01-01') FROM t")),
            "metamorphic [truncated]: JSON building");
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "m", "SELECT MIN(FLOOR(g)), ST_ASTEXT(p) FROM t")), "metamorphic: rounding");
  // A rounded number cut shorter is the rounding family still; a cut JSON text is a cut.
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "transform:view [truncated]: m", "SELECT TRUNCATE(1e308, 0) FROM t")),
            "metamorphic: rounding");
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "transform:view [truncated]: m", "SELECT JSON_ARRAY(b) FROM t")),
            "metamorphic [truncated]: JSON building");
  // TLP on a join's ON 1 (no WHERE left) is the query against itself too: its right side partitions 1.
  json on_one = WrongResult("tlp", "tlp: x", "SELECT ROUND(a) FROM t JOIN u ON 1", "SELECT ROUND(a) FROM t JOIN u ON 1");
  on_one["minimal"]["right"] = "SELECT ROUND(a) FROM t JOIN u ON ( 1 ) UNION ALL SELECT ROUND(a) FROM t JOIN u ON NOT ( 1 ) UNION ALL ...";
  EXPECT_EQ(RootCauseKey(on_one), "metamorphic: rounding");
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "m", "SELECT AVG(a), LENGTH(b) FROM t")), "metamorphic: AVG LENGTH");
}

TEST(RootCauseKey, TheLimitRelationIsKeyedByHowTheLimitIsApplied) {
  // The hunt's findings of item 25 (a DISTINCT constant keeps its row past
  // OFFSET), from the transforms and TLP alike: one cause, whatever the calls.
  const auto limit = [](const std::string& kind, const std::string& statement) {
    return RootCauseKey(WrongResult(kind, "limit: SELECT DISTINCT ? AS _ FROM _ LIMIT ? OFFSET ?", statement));
  };
  const std::string item = "metamorphic: LIMIT OFFSET DISTINCT";
  EXPECT_EQ(limit("metamorphic", "SELECT DISTINCT '-00:00:01' AS a1 FROM `t1` AS s1 LIMIT 10 OFFSET 1"), item);
  EXPECT_EQ(limit("metamorphic", "SELECT DISTINCT BIT_LENGTH('A') AS a1 FROM `t3` AS s1 JOIN `t2` AS s2 ON 1 "
                                 "WHERE `s1`.`c` RLIKE '.' LIMIT 14 OFFSET 1"), item);
  EXPECT_EQ(limit("tlp", "SELECT DISTINCT 10 FROM t WHERE a > 1 LIMIT 2, 16"), item);
  EXPECT_EQ(limit("metamorphic", "SELECT a FROM t GROUP BY a ORDER BY a LIMIT 3"), "metamorphic: LIMIT GROUP BY ORDER BY");
  // The family is the signature's: the same statement under another relation is keyed by its calls.
  EXPECT_EQ(RootCauseKey(WrongResult("metamorphic", "transform:cte: SELECT ...",
                                     "SELECT DISTINCT BIT_LENGTH('A') FROM t LIMIT 1 OFFSET 1")), "metamorphic: BIT_LENGTH");
}

// A finding whose minimal query came with its data: the CREATE TABLE says
// which columns are FLOAT.
json WithData(json f, const std::string& create) {
  f["minimal"]["data"] = {{"statements", {"SET NAMES utf8mb4", create, "INSERT INTO `t2` VALUES (1)"}}};
  return f;
}

TEST(RootCauseKey, AFloatColumnConvertedByAnyFunctionIsOneFamily) {
  const std::string t2 = "CREATE TABLE `t2` (\n  `c1_float` float DEFAULT NULL,\n  `c2` double DEFAULT NULL\n)";
  const std::string a = RootCauseKey(WithData(
      WrongResult("tlp", "tlp [truncated]: x", "SELECT REVERSE(`c1_float`) FROM t2 WHERE 1", "SELECT REVERSE(`c1_float`) FROM t2 WHERE 1"), t2));
  const std::string b = RootCauseKey(WithData(
      WrongResult("metamorphic", "transform:view [truncated]: x", "SELECT CONCAT_WS(',', s1.c1_float, 'x') FROM t2 AS s1",
                  "SELECT CONCAT_WS(',', s1.c1_float, 'x') FROM t2 AS s1"), t2));
  EXPECT_EQ(a, "metamorphic: FLOAT column");  // fewer digits is a prefix by chance: no [truncated]
  EXPECT_EQ(a, b);
  // A DOUBLE is no FLOAT; a family still comes first; without data, the functions.
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("tlp", "tlp: x", "SELECT REVERSE(c2) FROM t2 WHERE 1", "SELECT REVERSE(c2) FROM t2 WHERE 1"), t2)),
            "metamorphic: REVERSE");
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("tlp", "tlp: x", "SELECT 1 FROM t2 WHERE DATE(c1_float) > 2", "SELECT 1 FROM t2 WHERE DATE(c1_float) > 2"), t2)),
            "tlp/norec: temporal");
  EXPECT_EQ(RootCauseKey(WrongResult("tlp", "tlp [truncated]: x", "SELECT REVERSE(`c1_float`) FROM t2 WHERE 1",
                                     "SELECT REVERSE(`c1_float`) FROM t2 WHERE 1")),
            "metamorphic [truncated]: REVERSE");
}

TEST(RootCauseKey, AFloatColumnOnlyCountsForARewriteAndADateColumnUnderIsNullIsTemporal) {
  const std::string t2 =
      "CREATE TABLE `t2` (\n  `c1_float` float DEFAULT NULL,\n  `c7_date` date NOT NULL,\n  `c2` double DEFAULT NULL\n)";
  // How a condition is evaluated is not a FLOAT's cause: the ALL/ANY comparison is.
  const std::string any = "SELECT `c1_float` FROM t2 WHERE NOT X'0000' <= ANY (SELECT c2 FROM t2)";
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("tlp", "tlp: x", any, any), t2)), "tlp/norec: ALL/ANY subquery");
  // A NOT NULL DATE's zero date is NULL to IS NULL in a WHERE only: temporal, with or without a join.
  const std::string is_null = "SELECT 1 FROM t2 AS s1 WHERE s1.c7_date IS NULL";
  const std::string joined = "SELECT s2.c2 FROM t2 AS s1 RIGHT JOIN t2 AS s2 ON 1 WHERE `s2`.`c7_date` IS NOT NULL";
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("norec", "norec: x", is_null, is_null), t2)), "tlp/norec: temporal");
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("tlp", "tlp: x", joined, joined), t2)), "tlp/norec: temporal");
  // IS NULL of another column is no temporal.
  const std::string other = "SELECT 1 FROM t2 WHERE c2 IS NULL";
  EXPECT_EQ(RootCauseKey(WithData(WrongResult("tlp", "tlp: x", other, other), t2)), "tlp/norec: IS");
}

// A finding whose minimal query's differing rows are `left` and `right`.
json Differing(const std::string& sql, const std::vector<std::string>& left, const std::vector<std::string>& right) {
  json f = WrongResult("metamorphic", "transform:view [truncated]: x", sql, sql);
  f["minimal"]["only_in"] = {{"left", left}, {"right", right}};
  return f;
}

TEST(RootCauseKey, WhatTheDifferingValuesLookLikeSaysMoreThanTheirCalls) {
  // Item 14's class: a DECIMAL past its type clipped to the type's largest, whatever computed it.
  const std::string avg = RootCauseKey(Differing("SELECT AVG(c) FROM d", {"('746123853643907798540564228747696665577906154661.04')"},
                                                 {"('99999999999999999999999999999999999999999999.99')"}));
  const std::string quotient = RootCauseKey(Differing("SELECT a / b FROM t4", {"('19999999999999999999999999999999999999999999999.9999999999999999998')"},
                                                      {"('9999999999999999999999999999999999999999999999.9999999999999999999')"}));
  EXPECT_EQ(avg, "metamorphic [clipped]:");
  EXPECT_EQ(avg, quotient);
  // A small type's largest, where the other side has a number past it (a hunt's AVG of a scalar
  // subquery: 256.0000 and 12.0000 through a derived table's DECIMAL(6,4) and (5,4)).
  EXPECT_EQ(RootCauseKey(Differing("SELECT AVG((SELECT MAX(DISTINCT 256) FROM v)) FROM v", {"('256.0000')"},
                                   {"('99.9999')"})), avg);
  EXPECT_EQ(RootCauseKey(Differing("SELECT AVG((SELECT MIN(12) FROM t3)) FROM t1", {"('', NULL, '12.0000')"},
                                   {"('', NULL, '9.9999')"})), avg);
  // Nines that no larger number beside them explains are no clipping.
  EXPECT_EQ(RootCauseKey(Differing("SELECT AVG(a) FROM t", {"('9.5000')"}, {"('9.9999')"})),
            "metamorphic [truncated]: AVG");
  // Item 5's: a number's integer part become 10^17 once materialized, whatever computed it.
  const std::string floor = RootCauseKey(Differing("SELECT FLOOR(SQRT(x)) FROM d", {"('3497985729708684300')"},
                                                   {"('100000000000000000')"}));
  EXPECT_EQ(floor, "metamorphic [10^17]:");
  EXPECT_EQ(floor, RootCauseKey(Differing("SELECT LEAST(b'1', c) FROM t ORDER BY 1 DESC", {"('-100000000000000000.00')"},
                                          {"('-793304491165173900.00')"})));
  // Item 15's: an overflow sent as 0 on one side.
  EXPECT_EQ(RootCauseKey(Differing("SELECT AVG(1.7976931348623157e308) FROM t", {"('0')"}, {"('1.7976931348623157e308')"})),
            "metamorphic [infinity as 0]:");
  // A zero's sign only.
  EXPECT_EQ(RootCauseKey(Differing("SELECT a MOD b - (x IS NULL) FROM t", {"('-0.0', 'x')", "('1.5', 'y')"},
                                   {"('0.0', 'x')", "('1.5', 'y')"})),
            "metamorphic [negative zero]:");
  // Other differences keep the calls (and a cut stays a cut).
  EXPECT_EQ(RootCauseKey(Differing("SELECT CAST(a AS CHAR) FROM t", {"('12345')"}, {"('123')"})), "metamorphic [truncated]: CHAR");
  EXPECT_EQ(RootCauseKey(Differing("SELECT ABS(a) / b FROM t", {"('-0.5')"}, {"('0.5')"})), "metamorphic [truncated]: ABS");
}

TEST(RootCauseKey, CrashesThatDifferInAddressesAndArgumentsShareAKey) {
  const std::string a = RootCauseKey(Crash({"__memmove_avx_unaligned_erms", "Item_func_json_extract::read_json(String*, json_value_types*, char**, int*)+0x1a2",
                                            "Item_func_json_extract::val_str(String*)+0x35 [0x55d0c1a2b3c4]",
                                            "Item_func_equal::val_int()", "JOIN::exec()"},
                                           "signal 11: __memmove_avx_unaligned_erms | ..."));
  const std::string b = RootCauseKey(Crash({"Item_func_json_extract::read_json(String*, json_value_types*, char**, int*)+0x1a2",
                                            "Item_func_json_extract::val_str(String*)+0x35 [0x7f00aa112233]",
                                            "Item_func_equal::val_int()", "evaluate_join_record(JOIN*, JOIN_TAB*, int)"},
                                           "signal 11: Item_func_json_extract::read_json ..."));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "crash: signal 11: Item_func_json_extract::read_json | Item_func_json_extract::val_str | Item_func_equal::val_int");
  const std::string c = RootCauseKey(Crash({"SEL_ARG::weight()", "key_or(RANGE_OPT_PARAM*, SEL_ARG*, SEL_ARG*)"}, "signal 11: SEL_ARG"));
  EXPECT_NE(a, c);
  // A recursion's depth is the query's, not the bug's: repeated frames count once.
  const std::string deep = RootCauseKey(Crash({"Item_cond_and::get_mm_tree(RANGE_OPT_PARAM*, Item**)",
                                               "Item_cond_and::get_mm_tree(RANGE_OPT_PARAM*, Item**)",
                                               "SQL_SELECT::test_quick_select(THD*)", "JOIN::optimize_stage2()"}, "s"));
  const std::string shallow = RootCauseKey(Crash({"Item_cond_and::get_mm_tree(RANGE_OPT_PARAM*, Item**)",
                                                  "SQL_SELECT::test_quick_select(THD*)", "JOIN::optimize_stage2()"}, "s"));
  EXPECT_EQ(deep, shallow);
  EXPECT_EQ(deep, "crash: signal 11: Item_cond_and::get_mm_tree | SQL_SELECT::test_quick_select | JOIN::optimize_stage2");
  EXPECT_EQ(RootCauseKey({{"kind", "crash"}, {"signature", "assertion: x"}, {"crash", {{"assertion", "x"}}}}),
            "crash: assertion: x");
  EXPECT_EQ(RootCauseKey({{"kind", "hang"}, {"signature", "hang: no statement finished for 60 s"}}),
            "hang: no statement finished for 60 s");
}

TEST(RootCauses, GroupsCountsRanksAndKeepsTheSmallestReproducer) {
  RootCauses causes(RootCauseKey);
  json big = WrongResult("tlp", "tlp: one", "SELECT a, b FROM t WHERE 1 >= ALL (SELECT b FROM n) ORDER BY a",
                         "SELECT a, b FROM t WHERE 1 >= ALL (SELECT b FROM n)");
  json small = WrongResult("tlp", "tlp: two", "SELECT c FROM t2 WHERE 2 > ANY (SELECT d FROM m)",
                           "SELECT c FROM u WHERE 2 > ANY (SELECT d FROM m)");
  small["occurrences"] = 3;
  json crash = Crash({"SEL_ARG::weight()"}, "signal 11: SEL_ARG::weight()");
  const std::string key = causes.Add(big, "0001-tlp");
  EXPECT_EQ(causes.Add(small, "0002-tlp"), key);
  causes.Add(crash, "0003-crash");
  causes.Count(RootCauseKey(crash), 9, 5.0, "0003-crash");
  EXPECT_EQ(causes.size(), 2u);
  const json out = causes.ToJson();
  ASSERT_EQ(out["root_causes"].size(), 2u);
  const json& first = out["root_causes"][0];
  EXPECT_EQ(first["kind"], "crash");  // 10 occurrences before 4
  EXPECT_EQ(first["count"], 10);
  EXPECT_TRUE(first["minimal"].is_null());
  EXPECT_EQ(first["last"]["at"], 5.0);
  const json& second = out["root_causes"][1];
  EXPECT_EQ(second["count"], 4);
  EXPECT_EQ(second["findings"], json({"0001-tlp", "0002-tlp"}));
  EXPECT_EQ(second["minimal"]["sql"], "SELECT c FROM u WHERE 2 > ANY (SELECT d FROM m)");
  EXPECT_EQ(second["minimal"]["finding"], "0002-tlp");
  EXPECT_EQ(second["statement"], "SELECT c FROM t2 WHERE 2 > ANY (SELECT d FROM m)");
  EXPECT_EQ(second["signature"], "tlp: one");
  // Without a key function: by signature.
  RootCauses by_signature;
  by_signature.Add(big, "a");
  by_signature.Add(small, "b");
  EXPECT_EQ(by_signature.size(), 2u);
}

}  // namespace
}  // namespace gauntlet
