#include "exec/hang_evidence.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "exec/connection.h"

namespace gauntlet {

nlohmann::json HangEvidence(const std::vector<Target>& targets, const std::vector<bool>& stuck) {
  nlohmann::json evidence = nlohmann::json::object();
  for (size_t t = 0; t < targets.size(); ++t) {
    if (!stuck[t]) continue;
    ConnectionParams params = targets[t].connection;
    params.connect_timeout = params.read_timeout = 5;
    Outcome error;
    auto c = Connection::Open(params, &error);
    if (!c) {
      evidence[targets[t].name] = {{"error", error.message}};
      continue;
    }
    nlohmann::json lists = nlohmann::json::object();
    // A process list's statements are cut at 300 bytes; InnoDB's status is
    // one long value, kept whole (up to the 20,000 bytes of any list).
    for (const auto& [key, sql, field_max] :
         {std::tuple<const char*, const char*, size_t>{"processlist", "SHOW FULL PROCESSLIST", 300},
          {"innodb_status", "SHOW ENGINE INNODB STATUS", 20000}}) {
      ResultSet r;
      if (!c->Execute(sql, &r).ok()) continue;
      std::string text;
      for (const auto& row : r.rows) {
        for (size_t i = 0; i < row.size(); ++i) text += (i ? " | " : "") + row[i].value_or("NULL").substr(0, field_max);
        text += "\n";
      }
      lists[key] = text.substr(0, 20000);
    }
    evidence[targets[t].name] = lists;
  }
  return evidence;
}

ServerActivity ActivityOf(const Target& target, const std::vector<uint64_t>& connections, double timeout) {
  ConnectionParams params = target.connection;
  params.connect_timeout = params.read_timeout = static_cast<unsigned>(std::clamp(timeout, 1.0, 5.0));
  Outcome error;
  auto c = Connection::Open(params, &error);
  if (!c) return ServerActivity::kNoAnswer;
  ResultSet r;
  if (!c->Execute("SELECT ID, COMMAND, STATE FROM information_schema.PROCESSLIST", &r).ok())
    return ServerActivity::kNoAnswer;
  for (const auto& row : r.rows) {
    if (row.size() < 3 || !row[0] || !row[1] || *row[1] == "Sleep") continue;
    if (row[2] && *row[2] == "Writing to net") continue;  // it waits for us to read

    for (uint64_t id : connections)
      if (*row[0] == std::to_string(id)) return ServerActivity::kBusy;
  }
  return ServerActivity::kIdle;
}

}  // namespace gauntlet
