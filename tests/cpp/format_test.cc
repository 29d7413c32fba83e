// The output formats compiled in from data/formats, and the statement log's
// one reader and writer; no server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "exec/outcome.h"
#include "exec/output_format.h"
#include "exec/run_result.h"
#include "exec/statement_log.h"

namespace gauntlet {
namespace {

TEST(OutputFormat, EveryWrittenRecordCarriesItsSchemasVersion) {
  for (const char* name : {"summary", "finding", "event", "statement", "run", "campaign-row"})
    EXPECT_GE(FormatVersion(name), 1) << name;
  EXPECT_EQ(RunResult().ToJson().at("format").get<int>(), FormatVersion("summary"));
  EXPECT_THROW(OutputFormat("no-such-file"), std::out_of_range);
}

TEST(OutputFormat, OutcomeKindsAreFilledInFromTheOneTable) {
  const auto& outcomes = OutputFormat("summary").at("properties").at("outcomes");
  ASSERT_EQ(outcomes.at("required").size(), static_cast<size_t>(OutcomeKind::kCount));
  EXPECT_EQ(outcomes.at("required")[0], "ok");
  EXPECT_EQ(outcomes.at("required").back(), OutcomeKindName(OutcomeKind::kServerCrashed));
}

TEST(StatementLog, WhatIsWrittenReadsBackExactlyBinarySqlIncluded) {
  const auto path = std::filesystem::temp_directory_path() / ("gauntlet-log-" + std::to_string(getpid()) + ".jsonl");
  StatementLogLine a;
  a.seq = 3;
  a.thread = 2;
  a.piece = 1;
  a.start = 0.5;
  a.end = 0.75;
  a.outcome = "semantic";
  a.error = 1146;
  a.sql = "SELECT 'caf\xc3\xa9'";
  a.target_ms = {1.5, 2.5};
  StatementLogLine b = a;
  b.seq = 4;
  b.sql = std::string("SELECT '\xff\x00'", 11);
  b.key = {{"seed", 7}};
  {
    std::ofstream out(path);
    // A format-1 header line (older logs began with one) is skipped.
    out << R"({"header": "gauntlet statement log", "format": 1, "thread": 2})" << '\n' << a.Serialize() << '\n'
        << b.Serialize() << '\n' << "{\"seq\": 5, \"thr";
  }
  const auto lines = ReadStatementLog(path.string());  // the torn last line is dropped
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].sql, a.sql);
  EXPECT_EQ(lines[1].sql, b.sql);
  EXPECT_EQ(lines[1].key["seed"], 7);
  EXPECT_EQ(lines[0].target_ms, a.target_ms);
  EXPECT_EQ(lines[0].error, 1146u);
  EXPECT_EQ(lines[0].outcome, "semantic");
  std::filesystem::remove(path);
}

TEST(StatementLog, ANewerFormatIsRefusedNamingTheFileAndLine) {
  const auto path = std::filesystem::temp_directory_path() / ("gauntlet-new-" + std::to_string(getpid()) + ".jsonl");
  std::ofstream(path) << R"({"format": 2, "seq": 0, "thread": 1, "sql": "SELECT 1"})" << "\n"
                      << R"({"format": 999, "seq": 1, "thread": 1, "sql": "SELECT 1"})" << "\n";
  try {
    ReadStatementLog(path.string());
    FAIL() << "a newer format was read";
  } catch (const InvalidInput& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("newer"), std::string::npos) << e.message();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gauntlet
