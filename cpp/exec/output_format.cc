#include "exec/output_format.h"

#include <map>
#include <stdexcept>
#include <utility>

#include "exec/outcome.h"

namespace gauntlet {

extern const std::vector<std::pair<const char*, const char*>> kOutputFormatsJson;

namespace {

using nlohmann::json;

// The outcome kinds, in OutcomeKind's order, wherever a schema says
// {"x-enum": "outcome_kind"}: as an enum, or as an object keyed by them.
void FillOutcomeKinds(json& node) {
  if (node.is_object()) {
    if (node.value("x-enum", "") == "outcome_kind") {
      json names = json::array();
      for (size_t i = 0; i < static_cast<size_t>(OutcomeKind::kCount); ++i)
        names.push_back(OutcomeKindName(static_cast<OutcomeKind>(i)));
      if (node.value("type", "") == "object") {
        json props = json::object();
        for (const auto& n : names) props[n.get<std::string>()] = {{"type", "integer"}, {"minimum", 0}};
        node["properties"] = props;
        node["required"] = names;
        node["additionalProperties"] = false;
      } else {
        node["enum"] = names;
      }
    }
    for (auto& [key, value] : node.items()) FillOutcomeKinds(value);
  } else if (node.is_array()) {
    for (auto& value : node) FillOutcomeKinds(value);
  }
}

const std::map<std::string, json>& Formats() {
  static const std::map<std::string, json> formats = [] {
    std::map<std::string, json> m;
    for (const auto& [name, text] : kOutputFormatsJson) {
      json schema = json::parse(text);
      FillOutcomeKinds(schema);
      m.emplace(name, std::move(schema));
    }
    return m;
  }();
  return formats;
}

}  // namespace

const json& OutputFormat(const std::string& name) {
  const auto& formats = Formats();
  auto it = formats.find(name);
  if (it == formats.end()) throw std::out_of_range("no output format named " + name);
  return it->second;
}

int FormatVersion(const std::string& name) {
  return OutputFormat(name).at("properties").at("format").at("const").get<int>();
}

std::vector<std::string> OutputFormatNames() {
  std::vector<std::string> names;
  for (const auto& [name, schema] : Formats()) names.push_back(name);
  return names;
}

}  // namespace gauntlet
