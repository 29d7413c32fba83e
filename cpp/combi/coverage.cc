#include "combi/coverage.h"

#include <algorithm>
#include <map>
#include <set>

namespace gauntlet {
namespace {

bool Forbids(const Forbidden& f, const std::vector<int>& row) {
  for (const auto& [p, values] : f.terms)
    if (std::find(values.begin(), values.end(), row[p]) == values.end()) return false;
  return true;
}

bool Valid(const CoveringModel& m, const std::vector<int>& row) {
  for (const Forbidden& f : m.forbidden)
    if (Forbids(f, row)) return false;
  return true;
}

// Whether some valid row agrees with `partial` (-1: any): every assignment of
// the constrained parameters the tuple leaves open, tried in turn.
bool Feasible(const CoveringModel& m, const std::vector<int>& constrained, std::vector<int> partial) {
  std::vector<int> open;
  for (int p : constrained)
    if (partial[p] < 0) open.push_back(p);
  for (int p : open) partial[p] = 0;
  for (size_t p = 0; p < partial.size(); ++p)
    if (partial[p] < 0) partial[p] = 0;  // unconstrained: any value does
  while (true) {
    if (Valid(m, partial)) return true;
    size_t i = 0;
    while (i < open.size() && ++partial[open[i]] == m.levels[open[i]]) partial[open[i++]] = 0;
    if (i == open.size()) return false;
  }
}

}  // namespace

CoverageReport CheckCoverage(const CoveringModel& m, const Rows& rows) {
  CoverageReport report;
  for (const auto& row : rows) report.invalid_rows += !Valid(m, row);
  std::set<int> names;
  for (const Forbidden& f : m.forbidden)
    for (const auto& term : f.terms) names.insert(term.first);
  const std::vector<int> constrained(names.begin(), names.end());
  std::map<std::vector<int>, bool> feasible;  // by the values of the constrained parameters
  for (const auto& params : m.interactions) {
    std::set<std::vector<int>> seen;
    for (const auto& row : rows) {
      std::vector<int> tuple;
      for (int p : params) tuple.push_back(row[p]);
      seen.insert(tuple);
    }
    std::vector<int> tuple(params.size(), 0);
    while (true) {
      ++report.tuples;
      std::vector<int> partial(m.levels.size(), -1);
      for (size_t j = 0; j < params.size(); ++j) partial[params[j]] = tuple[j];
      std::vector<int> key;
      for (int p : constrained) key.push_back(partial[p]);
      auto it = feasible.find(key);
      if (it == feasible.end()) it = feasible.emplace(key, m.forbidden.empty() || Feasible(m, constrained, partial)).first;
      if (it->second) {
        ++report.feasible;
        if (seen.count(tuple)) {
          ++report.covered;
        } else if (report.missing.size() < 10) {
          std::string text;
          for (size_t j = 0; j < params.size(); ++j)
            text += (j ? " p" : "p") + std::to_string(params[j]) + "=" + std::to_string(tuple[j]);
          report.missing.push_back(text);
        }
      }
      size_t j = 0;
      while (j < params.size() && ++tuple[j] == m.levels[params[j]]) tuple[j++] = 0;
      if (j == params.size()) break;
    }
  }
  return report;
}

}  // namespace gauntlet
