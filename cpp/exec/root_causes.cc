#include "exec/root_causes.h"

#include <algorithm>

#include "exec/output_format.h"

namespace gauntlet {

using nlohmann::json;

namespace {

json Seen(const std::string& folder, double at) { return {{"finding", folder}, {"at", at}}; }

// The minimal query of a finding, with where it is; null when it was not
// minimised. When nothing smaller failed, the query is its own minimal form
// and the finding's evidence has its two sides.
json MinimalOf(const json& finding, const std::string& folder) {
  if (!finding.contains("minimal") || !finding["minimal"].is_object()) return nullptr;
  const json& m = finding["minimal"];
  const json& sides = m.contains("left") || m.contains("only_in") || !finding.contains("evidence") ? m : finding["evidence"];
  json out = {{"sql", m.value("sql", "")}, {"finding", folder}};
  for (const char* k : {"left", "right", "setup", "side_setup", "diff"})
    if (sides.contains(k)) out[k] = sides[k];
  return out;
}

}  // namespace

std::string RootCauses::Key(const json& finding) const {
  return key_of_ ? key_of_(finding) : finding.value("signature", "");
}

std::string RootCauses::Add(const json& finding, const std::string& folder) {
  const std::string key = Key(finding);
  const uint64_t occurrences = finding.value("occurrences", 1);
  const double at = finding.value("at", 0.0);
  const std::string statement = finding.value("statement", "");
  auto [it, added] = causes_.try_emplace(key);
  json& r = it->second.record;
  if (added) {
    it->second.order = causes_.size();
    r = {{"key", key}, {"kind", finding.value("kind", "")}, {"count", 0}, {"findings", json::array()},
         {"signature", finding.value("signature", "")}, {"first", Seen(folder, at)}, {"last", Seen(folder, at)},
         {"statement", statement}, {"minimal", nullptr}};
  }
  if (const std::string known = finding.value("known", ""); !known.empty() && !r.contains("known"))
    r["known"] = known;
  r["findings"].push_back(folder);
  Count(key, occurrences, at, folder);
  if (statement.size() < r["statement"].get_ref<const std::string&>().size()) r["statement"] = statement;
  const json minimal = MinimalOf(finding, folder);
  if (!minimal.is_null() && (r["minimal"].is_null() || minimal["sql"].get_ref<const std::string&>().size() <
                                                            r["minimal"]["sql"].get_ref<const std::string&>().size()))
    r["minimal"] = minimal;
  return key;
}

void RootCauses::Count(const std::string& key, uint64_t more, double at, const std::string& folder) {
  auto it = causes_.find(key);
  if (it == causes_.end()) return;
  json& r = it->second.record;
  r["count"] = r["count"].get<uint64_t>() + more;
  if (at > r["last"].value("at", 0.0)) r["last"] = Seen(folder, at);
}

json RootCauses::ToJson() const {
  std::vector<const Cause*> ranked;
  for (const auto& [key, cause] : causes_) ranked.push_back(&cause);
  std::stable_sort(ranked.begin(), ranked.end(), [](const Cause* a, const Cause* b) {
    const uint64_t ca = a->record["count"], cb = b->record["count"];
    return ca != cb ? ca > cb : a->order < b->order;
  });
  json list = json::array();
  for (const Cause* c : ranked) list.push_back(c->record);
  return {{"format", FormatVersion("root-causes")}, {"root_causes", list}};
}

}  // namespace gauntlet
