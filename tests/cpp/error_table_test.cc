// ErrorTable: codes to outcome kinds, and the rows that classify a code's errors by their message.
#include "exec/error_table.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace gauntlet {
namespace {

TEST(ErrorTable, AMessageRowClassifiesThatCodesErrorsWhoseMessageStartsSo) {
  const ErrorTable t = ErrorTable::Parse(
      "code\tname\tkind\n1105\tER_UNKNOWN_ERROR\tcorruption\n1105\tER_UNKNOWN_ERROR\tsemantic\tOnly constant\n",
      "t.tsv");
  EXPECT_EQ(t.Classify(1105), OutcomeKind::kCorruption);
  EXPECT_EQ(t.Classify(1105, "Something went wrong"), OutcomeKind::kCorruption);
  EXPECT_EQ(t.Classify(1105, "Only constant XPATH queries are supported"), OutcomeKind::kSemantic);
  EXPECT_EQ(t.Name(1105), "ER_UNKNOWN_ERROR");
  EXPECT_EQ(t.Classify(1146, "Only constant"), OutcomeKind::kSemantic);  // unknown: semantic
}

TEST(ErrorTable, TheShippedTableTellsAnXpathRefusalFromAnInternalError) {
  const ErrorTable& t = ErrorTable::Default();
  EXPECT_EQ(t.Classify(1105, "Only constant XPATH queries are supported"), OutcomeKind::kSemantic);
  EXPECT_EQ(t.Classify(1105, "Character set 'ucs2' is not supported by XPATH"), OutcomeKind::kSemantic);
  EXPECT_EQ(t.Classify(1105, "Unknown error"), OutcomeKind::kCorruption);
}

TEST(ErrorTable, AMalformedRowIsAnErrorAtItsLine) {
  EXPECT_THROW(ErrorTable::Parse("code\tname\tkind\n1105\tER_UNKNOWN_ERROR\n", "t.tsv"), InvalidInput);
  EXPECT_THROW(ErrorTable::Parse("code\tname\tkind\n1105\tX\tnot-a-kind\tmsg\n", "t.tsv"), InvalidInput);
}

}  // namespace
}  // namespace gauntlet
