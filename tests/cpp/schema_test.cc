#include "generate/schema.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "data/loader.h"
#include "generate/random_schema.h"

#include <map>

namespace gauntlet {
namespace {

TEST(Schema, RqgDefaultHasGendataSimpleTables) {
  const Schema s = Schema::RqgDefault();
  ASSERT_EQ(s.tables().size(), 9u);
  EXPECT_EQ(s.tables()[4].name, "E");
  EXPECT_EQ(s.tables()[4].rows, 1000u);
  EXPECT_EQ(s.Fields(0, FieldClass::kIntIndexed).size(), 2u);  // pk, col_int_key
}

TEST(Schema, JsonRoundTrip) {
  const Schema s = Schema::RqgDefault();
  const Schema t = Schema::FromJson(s.ToJson());
  EXPECT_EQ(t.ToJson(), s.ToJson());
}

TEST(Schema, BadJsonNamesTheKey) {
  try {
    Schema::FromJson(R"({"tables": [{"name": "t", "columns": [{"type": "int"}]}]})", "s.json");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("tables[0].columns[0]"), std::string::npos) << e.what();
  }
  try {
    Schema::FromJson("{\n  \"tables\": [,]\n}", "s.json");
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_EQ(e.where().line, 2);
  }
}

}  // namespace
}  // namespace gauntlet

namespace gauntlet {
namespace {

TEST(RandomSchema, EveryTypeAndKeyKindOverAFewHundredSeedsDeterministically) {
  const char* const kTypes[] = {"tinyint", "smallint", "mediumint", "int", "bigint", "unsigned", "decimal(",
                                "float", "double", "bit(", "char(0)", "varchar(0)", "binary(", "varbinary(",
                                "text", "blob", "enum(", "set(", "date", "time", "datetime", "timestamp", "year",
                                "json", "inet6", "uuid", "point", "geometry", "CHARACTER SET", "COMPRESSED",
                                " AS (", "PERSISTENT", "VIRTUAL", "DEFAULT", "NOT NULL", " NULL"};
  const char* const kKeys[] = {"PRIMARY KEY", "UNIQUE KEY", "FULLTEXT KEY", "SPATIAL KEY", " DESC)", "(16)", ", `"};
  const char* const kTables[] = {"InnoDB", "MyISAM", "Aria", "MEMORY", "PARTITION BY", "WITH SYSTEM VERSIONING",
                                 "WITH CHECK OPTION", "ALGORITHM=TEMPTABLE", "SELECT DISTINCT", "GROUP BY"};
  std::map<std::string, int> seen;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Schema s = RandomSchema(seed);
    ASSERT_GE(s.TablesIn(0, 1).size(), 1u);
    ASSERT_LE(s.TablesIn(0, 1).size(), 4u);
    ASSERT_LE(s.TablesIn(0, 2).size(), 1u);  // and perhaps a view over one of them
    EXPECT_EQ(s.ToJson(), RandomSchema(seed).ToJson());
    for (const Table& t : s.tables()) {
      std::string text = t.engine + " " + t.options;
      for (const Column& c : t.columns) text += " " + c.type;
      for (const std::string& k : t.keys) text += " " + k;
      for (const char* w : kTypes) seen[w] += text.find(w) != std::string::npos;
      for (const char* w : kKeys) seen[w] += text.find(w) != std::string::npos;
      for (const char* w : kTables) seen[w] += text.find(w) != std::string::npos;
    }
  }
  for (const auto& [what, n] : seen) EXPECT_GT(n, 0) << what << " never appeared";
  EXPECT_NE(RandomSchema(1).ToJson(), RandomSchema(2).ToJson());
}

// Some tables get a temporary twin in every session: never one that a
// temporary table cannot be (partitioned, versioned, FULLTEXT or SPATIAL).
TEST(RandomSchema, TemporaryTwins) {
  int twins = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const Schema s = RandomSchema(seed);
    const std::vector<std::string> sql = TemporaryTwinSql(s);
    size_t n = 0;
    for (const Table& t : s.tables()) {
      if (!t.temporary) continue;
      std::string text = t.options;
      for (const std::string& k : t.keys) text += " " + k;
      EXPECT_EQ(text.find("PARTITION"), std::string::npos) << seed;
      EXPECT_EQ(text.find("VERSIONING"), std::string::npos) << seed;
      EXPECT_EQ(text.find("FULLTEXT"), std::string::npos) << seed;
      EXPECT_EQ(text.find("SPATIAL"), std::string::npos) << seed;
      ASSERT_LT(n, sql.size());
      EXPECT_EQ(sql[n].rfind("BEGIN NOT ATOMIC DECLARE EXIT HANDLER", 0), 0u);
      EXPECT_NE(sql[n].find("CREATE TEMPORARY TABLE `test`.`" + t.name + "` ("), std::string::npos) << sql[n];
      ++n;
    }
    EXPECT_EQ(n, sql.size());
    twins += static_cast<int>(n);
    EXPECT_EQ(Schema::FromJson(s.ToJson()).ToJson(), s.ToJson());
  }
  EXPECT_GT(twins, 40);
}

}  // namespace
}  // namespace gauntlet
