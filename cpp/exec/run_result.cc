#include "exec/run_result.h"

#include "exec/error_table.h"
#include "exec/output_format.h"

namespace gauntlet {
namespace {

using nlohmann::json;

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

json KindsJson(const KindCounts& k) {
  json j = json::object();
  for (size_t i = 0; i < k.size(); ++i) j[OutcomeKindName(static_cast<OutcomeKind>(i))] = k[i];
  return j;
}

}  // namespace

void OracleStats::Add(const OracleStats& o) {
  passed += o.passed;
  fired += o.fired;
  for (const auto& [why, n] : o.skipped) skipped[why] += n;
  minimised += o.minimised;
  minimise_checks += o.minimise_checks;
  minimise_exhausted += o.minimise_exhausted;
  minimise_seconds += o.minimise_seconds;
}

json OracleStats::ToJson() const {
  uint64_t skips = 0;
  for (const auto& [why, n] : skipped) skips += n;
  json j = {{"checked", passed + fired + skips}, {"passed", passed}, {"fired", fired},
            {"verified", passed + fired}, {"skipped", skips}, {"skipped_by_reason", skipped}};
  if (minimised > 0)
    j["minimised"] = {{"findings", minimised}, {"checks", minimise_checks}, {"seconds", minimise_seconds},
                      {"exhausted", minimise_exhausted}};
  return j;
}

namespace {

json ErrorsJson(const std::map<unsigned, uint64_t>& errors,
                const std::map<unsigned, std::vector<RunResult::ErrorExample>>* examples) {
  json errs = json::array();
  for (const auto& [code, count] : errors) {
    json e = {{"code", code}, {"name", ErrorTable::Default().Name(code)},
              {"kind", OutcomeKindName(ErrorTable::Default().Classify(code))}, {"count", count}};
    if (examples != nullptr) {
      e["examples"] = json::array();
      if (auto it = examples->find(code); it != examples->end())
        for (const auto& x : it->second) e["examples"].push_back({{"statement", x.statement}, {"message", x.message}});
    }
    errs.push_back(std::move(e));
  }
  return errs;
}

}  // namespace

json TargetStats::ToJson() const {
  return {{"name", name}, {"outcomes", KindsJson(kinds)}, {"errors", ErrorsJson(errors, nullptr)},
          {"latency_ms", latency.SummaryJson()}, {"latency_histogram", latency.ToJson()}};
}

json RunFailure::ToJson() const {
  return {{"kind", kind}, {"at", at}, {"thread", thread}, {"message", message}};
}

json SecondStats::ToJson() const {
  return {{"t", t}, {"statements", statements}, {"transactions", transactions},
          {"queries", queries}, {"verified", verified}, {"outcomes", KindsJson(kinds)}, {"p50_ms", Ms(p50)},
          {"p95_ms", Ms(p95)}, {"p99_ms", Ms(p99)}, {"max_ms", Ms(max)},
          {"query_p50_ms", Ms(query_p50)}, {"query_p95_ms", Ms(query_p95)},
          {"query_p99_ms", Ms(query_p99)}, {"query_max_ms", Ms(query_max)}};
}

json FindingCounts(const json& findings) {
  std::map<std::string, uint64_t> by_kind;
  std::map<std::string, bool> causes;  // key -> known (findings before keys: by signature)
  uint64_t known = 0;
  for (const json& f : findings) {
    ++by_kind[f.at("kind").get<std::string>()];
    const bool is_known = !f.value("known", "").empty();
    known += is_known;
    causes[f.value("cause", f.value("signature", ""))] |= is_known;
  }
  json new_causes = json::array();
  uint64_t known_causes = 0;
  for (const auto& [key, is_known] : causes) {
    known_causes += is_known;
    if (!is_known) new_causes.push_back(key);
  }
  return {{"total", findings.size()}, {"new", findings.size() - known}, {"known", known}, {"by_kind", by_kind},
          {"causes", {{"total", causes.size()}, {"known", known_causes}, {"new", new_causes}}}};
}

json RunResult::ToJson() const {
  json f = json::array();
  for (const Finding& x : findings) f.push_back(x.ToJson());
  json o = json::object();
  for (const auto& [name, stats] : oracles) o[name] = stats.ToJson();
  json t = json::array();
  for (const TargetStats& x : targets) t.push_back(x.ToJson());
  json connect = json::array();
  for (const auto& [code, count] : connect_errors)
    connect.push_back({{"code", code}, {"name", ErrorTable::Default().Name(code)}, {"count", count}});
  json by_rule = json::array();
  for (const auto& [rule, c] : rules)
    by_rule.push_back({{"rule", rule}, {"statements", c.statements}, {"syntax_errors", c.syntax_errors}});
  const double s = seconds > 0 ? seconds : 1;
  json j = {{"format", FormatVersion("summary")},
          {"seconds", seconds},
          {"threads", threads},
          {"seed", seed},
          {"queries", queries},
          {"statements", statements},
          {"cancelled", cancelled},
          {"transactions", transactions},
          {"statements_per_second", statements / s},
          {"transactions_per_second", transactions / s},
          {"queries_done", queries_done},
          {"queries_per_second", queries_done / s},
          {"verified", verified},
          {"verified_per_second", verified / s},
          {"rate", rate},
          {"outcomes", KindsJson(kinds)},
          {"errors", ErrorsJson(errors, &error_examples)},
          {"latency_ms", latency.SummaryJson()},
          {"latency_histogram", latency.ToJson()},
          {"query_latency_ms", query_latency.SummaryJson()},
          {"query_latency_histogram", query_latency.ToJson()},
          {"generate_cpu_seconds", generate_seconds},
          {"findings", f},
          {"finding_counts", FindingCounts(f)},
          {"oracles", o},
          {"targets", t},
          {"error", failure ? failure->ToJson() : json(nullptr)},
          {"connect_errors", connect},
          {"rules", by_rule},
          {"stop_reason", stop_reason}};
  if (!reach.is_null()) j["reach"] = reach;
  return j;
}

}  // namespace gauntlet
