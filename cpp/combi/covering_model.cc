#include "combi/covering_model.h"

#include <algorithm>
#include <set>
#include <string>

#include "common/error.h"

namespace gauntlet {
namespace {

// Calls f on every `strength`-subset of `items` (in order).
template <typename F>
void ForSubsets(const std::vector<int>& items, int strength, F f) {
  const int n = static_cast<int>(items.size());
  if (strength > n || strength < 1) return;
  std::vector<int> at(strength);
  for (int i = 0; i < strength; ++i) at[i] = i;
  std::vector<int> subset(strength);
  while (true) {
    for (int i = 0; i < strength; ++i) subset[i] = items[at[i]];
    f(subset);
    int i = strength - 1;
    while (i >= 0 && at[i] == n - strength + i) --i;
    if (i < 0) return;
    ++at[i];
    for (int j = i + 1; j < strength; ++j) at[j] = at[j - 1] + 1;
  }
}

[[noreturn]] void Bad(const std::string& what) { throw InvalidInput({"option space", 0, 0}, what); }

bool Matches(const Forbidden& f, const std::vector<int>& row, bool* complete) {
  *complete = true;
  for (const auto& [p, values] : f.terms) {
    if (row[p] < 0) {
      *complete = false;
      continue;
    }
    if (std::find(values.begin(), values.end(), row[p]) == values.end()) return false;
  }
  return true;
}

bool Complete(const CoveringModel& m, std::vector<int>& row, const std::vector<int>& free, size_t i) {
  if (m.Violates(row)) return false;
  if (i == free.size()) return true;
  const int p = free[i];
  for (int v = 0; v < m.levels[p]; ++v) {
    row[p] = v;
    if (Complete(m, row, free, i + 1)) return true;
  }
  row[p] = -1;
  return false;
}

}  // namespace

CoveringModel CoveringModel::Uniform(std::vector<int> levels, int strength) {
  CoveringModel m;
  m.levels = std::move(levels);
  std::vector<int> all(m.levels.size());
  for (size_t p = 0; p < all.size(); ++p) all[p] = static_cast<int>(p);
  m.AddInteractions(all, strength);
  return m;
}

void CoveringModel::AddInteractions(std::vector<int> params, int strength) {
  std::sort(params.begin(), params.end());
  params.erase(std::unique(params.begin(), params.end()), params.end());
  ForSubsets(params, std::min<int>(strength, static_cast<int>(params.size())),
             [&](const std::vector<int>& s) { interactions.push_back(s); });
  // A tuple of an interaction inside a larger one is covered with the larger one's.
  std::sort(interactions.begin(), interactions.end(),
            [](const auto& a, const auto& b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
  interactions.erase(std::unique(interactions.begin(), interactions.end()), interactions.end());
  std::vector<std::vector<int>> kept;
  std::set<std::vector<int>> inside;  // every subset of a kept one, below its size
  for (const auto& i : interactions) {
    if (inside.count(i)) continue;
    for (int s = 1; s < static_cast<int>(i.size()); ++s)
      ForSubsets(i, s, [&](const std::vector<int>& sub) { inside.insert(sub); });
    kept.push_back(i);
  }
  interactions = std::move(kept);
}

void CoveringModel::Validate() const {
  const int k = static_cast<int>(levels.size());
  for (int p = 0; p < k; ++p)
    if (levels[p] < 1) Bad("parameter " + std::to_string(p) + " has no values");
  for (const auto& i : interactions) {
    if (i.empty()) Bad("an interaction names no parameter");
    for (size_t j = 0; j < i.size(); ++j)
      if (i[j] < 0 || i[j] >= k || (j > 0 && i[j] <= i[j - 1]))
        Bad("an interaction names an unknown or repeated parameter");
  }
  for (const Forbidden& f : forbidden) {
    if (f.terms.empty()) Bad("a forbidden combination names no parameter");
    for (const auto& [p, values] : f.terms) {
      if (p < 0 || p >= k) Bad("a forbidden combination names an unknown parameter");
      for (int v : values)
        if (v < 0 || v >= levels[p]) Bad("a forbidden combination names an unknown value");
    }
  }
  for (const auto& s : seeds) {
    if (static_cast<int>(s.size()) != k) Bad("a seed row has " + std::to_string(s.size()) + " values, not " +
                                             std::to_string(k));
    for (int p = 0; p < k; ++p)
      if (s[p] < -1 || s[p] >= levels[p]) Bad("a seed row has an unknown value");
  }
}

bool CoveringModel::Violates(const std::vector<int>& row) const {
  bool complete = false;
  for (const Forbidden& f : forbidden)
    if (Matches(f, row, &complete) && complete) return true;
  return false;
}

bool CoveringModel::Extendable(std::vector<int> row) const {
  if (forbidden.empty()) return true;
  // Only the parameters some combination names can make a completion fail.
  std::vector<int> free;
  for (const Forbidden& f : forbidden)
    for (const auto& term : f.terms)
      if (row[term.first] < 0 && std::find(free.begin(), free.end(), term.first) == free.end())
        free.push_back(term.first);
  return Complete(*this, row, free, 0);
}

bool CoveringModel::IsUniform(int* strength) const {
  if (!forbidden.empty() || !seeds.empty() || interactions.empty()) return false;
  const size_t t = interactions.front().size();
  const int k = static_cast<int>(levels.size());
  // C(k, t) interactions of size t, all distinct (AddInteractions keeps them so).
  double expected = 1;
  for (size_t i = 0; i < t; ++i) expected = expected * (k - static_cast<double>(i)) / static_cast<double>(i + 1);
  for (const auto& i : interactions)
    if (i.size() != t) return false;
  if (static_cast<double>(interactions.size()) != expected) return false;
  *strength = static_cast<int>(t);
  return true;
}

}  // namespace gauntlet
