#include "exec/statement_log.h"

#include <fstream>

#include "common/error.h"
#include "exec/output_format.h"

namespace gauntlet {

using nlohmann::json;

namespace {

std::string Hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char c : bytes) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return hex;
}

std::string Unhex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

StatementLogLine FromJson(const json& j) {
  StatementLogLine s;
  s.seq = j.at("seq").get<uint64_t>();
  s.thread = j.at("thread").get<int>();
  s.query = j.value("query", uint64_t{0});
  s.piece = j.value("piece", uint64_t{0});
  s.start = j.value("start", 0.0);
  s.end = j.value("end", 0.0);
  s.outcome = j.value("outcome", "");
  s.error = j.value("error", 0u);
  s.sql = j.contains("sql_hex") ? Unhex(j["sql_hex"].get<std::string>()) : j.at("sql").get<std::string>();
  s.target_ms = j.value("target_ms", std::vector<double>{});
  s.key = j.value("key", json());
  return s;
}

}  // namespace

std::string StatementLogLine::Serialize() const {
  json line = {{"format", FormatVersion("statement")}, {"seq", seq}, {"thread", thread}, {"query", query}, {"piece", piece}, {"start", start},
               {"end", end}, {"outcome", outcome}, {"error", error}, {"sql", sql}};
  if (!target_ms.empty()) line["target_ms"] = target_ms;
  if (!key.is_null()) line["key"] = key;
  try {
    return line.dump();
  } catch (const json::type_error&) {  // not UTF-8: keep the bytes exact
    line.erase("sql");
    line["sql_hex"] = Hex(sql);
    return line.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

std::vector<StatementLogLine> ReadStatementLog(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InvalidInput({file, 0, 0}, "cannot read the statement log");
  std::vector<StatementLogLine> lines;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
      if (j.value("format", 0) > FormatVersion("statement"))
        throw InvalidInput({file, number, 0}, "a statement log of format " + std::to_string(j.value("format", 0)) +
                                                  ", newer than this Gauntlet reads (" +
                                                  std::to_string(FormatVersion("statement")) + ")");
      if (j.contains("header")) continue;  // format 1 began with a header line
      lines.push_back(FromJson(j));
    } catch (const InvalidInput&) {
      throw;
    } catch (const std::exception& e) {
      if (in.peek() == EOF) break;  // a run killed mid-write leaves a torn last line
      throw InvalidInput({file, number, 0}, std::string("not a statement log line: ") + e.what());
    }
    if (lines.back().thread < 1) throw InvalidInput({file, number, 0}, "thread must be 1 or more");
  }
  return lines;
}

}  // namespace gauntlet
