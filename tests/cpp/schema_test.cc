#include "generate/schema.h"

#include <gtest/gtest.h>

#include "common/error.h"

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
