#include "combi/covering_array.h"

#include <algorithm>
#include <string>

#include "combi/constructions.h"
#include "common/error.h"
#include "common/rng.h"

namespace gauntlet {
namespace {

// A tuple no valid row can hold: counted as covered from the start, and never touched.
constexpr uint32_t kInfeasible = 1u << 30;
// Work units of the greedy tries together, and of the shortening search per unit of effort.
constexpr double kGreedyWork = 2e8;
constexpr double kEffortWork = 2e8;
// Interactions with more unset parameters than this count as if they had this many (strength <= 7 exact).
constexpr int kMaxFree = 6;

// How many rows cover each tuple of each interaction, and which tuples none does.
class Tally {
 public:
  struct Interaction {
    std::vector<int> params;
    std::vector<size_t> stride;  // mixed radix of the tuple index
    size_t offset = 0, size = 1;
  };

  explicit Tally(const CoveringModel& m) : model_(m), of_param_(m.levels.size()) {
    size_t offset = 0;
    for (size_t i = 0; i < m.interactions.size(); ++i) {
      Interaction in;
      in.params = m.interactions[i];
      in.offset = offset;
      for (size_t j = in.params.size(); j-- > 0;) {
        in.stride.insert(in.stride.begin(), in.size);
        in.size *= static_cast<size_t>(m.levels[in.params[j]]);
      }
      for (size_t j = 0; j < in.params.size(); ++j) {
        std::vector<uint32_t>& flat = of_param_[in.params[j]];
        flat.push_back(static_cast<uint32_t>(offset));
        flat.push_back(static_cast<uint32_t>(in.stride[j]));
        flat.push_back(static_cast<uint32_t>(in.params.size() - 1));
        for (size_t o = 0; o < in.params.size(); ++o)
          if (o != j) {
            flat.push_back(static_cast<uint32_t>(in.params[o]));
            flat.push_back(static_cast<uint32_t>(in.stride[o]));
          }
      }
      offset += in.size;
      interactions_.push_back(std::move(in));
    }
    count_.assign(offset, 0);
    owner_.resize(offset);
    for (size_t i = 0; i < interactions_.size(); ++i)
      std::fill(owner_.begin() + interactions_[i].offset,
                owner_.begin() + interactions_[i].offset + interactions_[i].size, static_cast<int>(i));
    uncovered_in_.assign(interactions_.size(), 0);
    place_.assign(offset, -1);
    std::vector<int> row(m.levels.size(), -1);
    for (size_t t = 0; t < offset; ++t) {
      if (!m.forbidden.empty()) {
        Decode(t, &row);
        const bool feasible = m.Extendable(row);
        for (int p : interactions_[owner_[t]].params) row[p] = -1;
        if (!feasible) {
          count_[t] = kInfeasible;
          continue;
        }
      }
      Uncover(t);
    }
  }

  const CoveringModel& model() const { return model_; }
  size_t uncovered() const { return pool_.size(); }
  const std::vector<uint32_t>& pool() const { return pool_; }
  uint32_t count(size_t t) const { return count_[t]; }
  const std::vector<Interaction>& interactions() const { return interactions_; }
  // The interactions of parameter p, flat for speed: per interaction its first tuple, p's stride,
  // the number of other parameters, and each other parameter with its stride.
  const std::vector<uint32_t>& of_param(int p) const { return of_param_[p]; }
  size_t uncovered_in(int i) const { return uncovered_in_[i]; }
  double work = 0;  // inner-loop steps so far: the deterministic clock

  size_t Index(int i, const std::vector<int>& row) const {
    const Interaction& in = interactions_[i];
    size_t x = in.offset;
    for (size_t j = 0; j < in.params.size(); ++j) x += in.stride[j] * static_cast<size_t>(row[in.params[j]]);
    return x;
  }
  // Sets the tuple's parameters in `row`.
  void Decode(size_t t, std::vector<int>* row) const {
    const Interaction& in = interactions_[owner_[t]];
    size_t x = t - in.offset;
    for (size_t j = 0; j < in.params.size(); ++j) {
      (*row)[in.params[j]] = static_cast<int>(x / in.stride[j]);
      x %= in.stride[j];
    }
  }
  int owner(size_t t) const { return owner_[t]; }

  void Add(const std::vector<int>& row, int sign) {
    for (size_t i = 0; i < interactions_.size(); ++i) Bump(Index(static_cast<int>(i), row), sign);
    work += static_cast<double>(interactions_.size());
  }
  // row[p] = v, the counts following.
  void Change(std::vector<int>& row, int p, int v) {
    const std::vector<uint32_t>& flat = of_param_[p];
    for (size_t e = 0; e < flat.size();) {
      size_t base = flat[e];
      const size_t stride = flat[e + 1], n = flat[e + 2];
      e += 3;
      for (size_t o = 0; o < n; ++o, e += 2) base += flat[e + 1] * static_cast<size_t>(row[flat[e]]);
      Bump(base + stride * static_cast<size_t>(row[p]), -1);
      Bump(base + stride * static_cast<size_t>(v), +1);
      work += 2;
    }
    row[p] = v;
  }

 private:
  void Bump(size_t t, int sign) {
    if (count_[t] >= kInfeasible) return;
    if (sign > 0) {
      if (count_[t]++ == 0) Cover(t);
    } else if (--count_[t] == 0) {
      Uncover(t);
    }
  }
  void Uncover(size_t t) {
    place_[t] = static_cast<int32_t>(pool_.size());
    pool_.push_back(static_cast<uint32_t>(t));
    ++uncovered_in_[owner_[t]];
  }
  void Cover(size_t t) {
    const int32_t at = place_[t];
    pool_[at] = pool_.back();
    place_[pool_[at]] = at;
    pool_.pop_back();
    place_[t] = -1;
    --uncovered_in_[owner_[t]];
  }

  const CoveringModel& model_;
  std::vector<Interaction> interactions_;
  std::vector<std::vector<uint32_t>> of_param_;
  std::vector<uint32_t> count_;
  std::vector<int> owner_;  // tuple -> interaction
  std::vector<size_t> uncovered_in_;
  std::vector<uint32_t> pool_;   // the uncovered tuples
  std::vector<int32_t> place_;   // tuple -> its place in pool_, or -1
};

// The value of setting row[p]: the uncovered tuples it completes, and for each
// interaction with parameters still unset, the share of its tuples that
// agree with the row and are uncovered.
double Density(Tally& tally, int p, const std::vector<int>& row, size_t* completes) {
  double score = 0, work = 0;
  *completes = 0;
  int at[kMaxFree], level[kMaxFree];
  size_t stride[kMaxFree];
  const std::vector<uint32_t>& flat = tally.of_param(p);
  const std::vector<int>& levels = tally.model().levels;
  for (size_t e = 0; e < flat.size();) {
    size_t base = flat[e] + flat[e + 1] * static_cast<size_t>(row[p]);
    const size_t others = flat[e + 2];
    e += 3;
    int n = 0;
    for (size_t o = 0; o < others; ++o, e += 2) {
      const int q = static_cast<int>(flat[e]), v = row[q];
      if (v >= 0) base += flat[e + 1] * static_cast<size_t>(v);
      else if (n < kMaxFree) stride[n] = flat[e + 1], level[n] = levels[q], at[n++] = 0;
    }
    work += 1;
    if (n == 0) {
      *completes += tally.count(base) == 0;
      continue;
    }
    // Odometer over the unset parameters' values.
    size_t open = 0, all = 0, t = base;
    while (true) {
      open += tally.count(t) == 0;
      ++all;
      int f = 0;
      for (; f < n; ++f) {
        t += stride[f];
        if (++at[f] < level[f]) break;
        t -= stride[f] * static_cast<size_t>(level[f]);
        at[f] = 0;
      }
      if (f == n) break;
    }
    work += static_cast<double>(all);
    score += static_cast<double>(open) / static_cast<double>(all);
  }
  tally.work += work;
  return score + static_cast<double>(*completes);
}

// One greedy row: from `row` (a seed, or nothing set) and an uncovered tuple.
// `gain`: the uncovered tuples it covers (for a seed, those its unset values complete).
std::vector<int> BuildRow(Tally& tally, Rng& rng, std::vector<int> row, size_t* gain) {
  const CoveringModel& m = tally.model();
  const bool constrained = !m.forbidden.empty();
  *gain = 0;
  if (std::all_of(row.begin(), row.end(), [](int v) { return v < 0; }) && tally.uncovered() > 0) {
    *gain = 1;  // the interaction it starts from; no other lies inside it
    // The interaction with the most uncovered tuples, and one of them at random.
    int best = -1;
    size_t most = 0, ties = 0;
    for (size_t i = 0; i < tally.interactions().size(); ++i) {
      const size_t n = tally.uncovered_in(static_cast<int>(i));
      if (n > most) most = n, best = static_cast<int>(i), ties = 1;
      else if (n == most && n > 0 && rng.Below(++ties) == 0) best = static_cast<int>(i);
    }
    const Tally::Interaction& in = tally.interactions()[best];
    const size_t start = rng.Below(in.size);
    for (size_t x = 0; x < in.size; ++x) {
      const size_t t = in.offset + (start + x) % in.size;
      if (tally.count(t) == 0) {
        tally.Decode(t, &row);
        break;
      }
    }
    tally.work += static_cast<double>(tally.interactions().size());
  }
  std::vector<int> order;
  for (size_t p = 0; p < row.size(); ++p)
    if (row[p] < 0) order.push_back(static_cast<int>(p));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
  for (int p : order) {
    int best = -1;
    double top = -1;
    size_t ties = 0, completes = 0, best_completes = 0;
    for (int v = 0; v < m.levels[p]; ++v) {
      row[p] = v;
      if (constrained && !m.Extendable(row)) continue;
      const double s = Density(tally, p, row, &completes);
      if (s > top + 1e-9) top = s, best = v, ties = 1, best_completes = completes;
      else if (s > top - 1e-9 && rng.Below(++ties) == 0) best = v, best_completes = completes;
    }
    if (best < 0) throw InvalidInput({"option space", 0, 0}, "a seed row cannot be completed to a valid row");
    row[p] = best;
    *gain += best_completes;
  }
  return row;
}

Rows Greedy(const CoveringModel& m, const CoveringOptions& o, Rng& rng, double* work) {
  Tally tally(m);
  Rows rows;
  size_t gain = 0;
  for (const auto& seed : m.seeds) {
    std::vector<int> row = BuildRow(tally, rng, seed, &gain);
    tally.Add(row, +1);
    rows.push_back(std::move(row));
  }
  while (tally.uncovered() > 0) {
    std::vector<int> best;
    size_t most = 0;
    for (int c = 0; c < std::max(1, o.candidates); ++c) {
      std::vector<int> row = BuildRow(tally, rng, std::vector<int>(m.levels.size(), -1), &gain);
      if (best.empty() || gain > most) best = std::move(row), most = gain;
    }
    tally.Add(best, +1);
    rows.push_back(std::move(best));
  }
  *work = tally.work;
  return rows;
}

// Fewer rows: drop the row that alone covers the fewest tuples, then move
// uncovered tuples into the rows where that uncovers the least (a tabu
// search: a cell changed lately is not changed back soon), until everything
// is covered again or the search stalls; repeat while work is left.
Rows Shorten(const CoveringModel& m, Rows rows, Rng& rng, double budget) {
  Tally tally(m);
  for (const auto& row : rows) tally.Add(row, +1);
  const size_t fixed = m.seeds.size();
  Rows best = rows;
  std::vector<std::vector<int64_t>> changed;  // move at which each cell last changed
  int64_t move = 0, stall = 0;
  size_t low = 0;
  const int64_t tenure = 4;
  std::vector<int> cells;
  while (tally.work < budget) {
    if (tally.uncovered() == 0) {
      best = rows;
      if (rows.size() <= fixed + 1) break;
      size_t drop = fixed, fewest = SIZE_MAX;
      for (size_t r = fixed; r < rows.size(); ++r) {
        size_t alone = 0;
        for (size_t i = 0; i < tally.interactions().size(); ++i)
          alone += tally.count(tally.Index(static_cast<int>(i), rows[r])) == 1;
        if (alone < fewest) fewest = alone, drop = r;
      }
      tally.work += static_cast<double>((rows.size() - fixed) * tally.interactions().size());
      tally.Add(rows[drop], -1);
      rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(drop));
      changed.assign(rows.size(), std::vector<int64_t>(m.levels.size(), -1000));
      low = tally.uncovered();
      stall = 0;
      continue;
    }
    if (stall > 20000 + 50 * static_cast<int64_t>(rows.size())) break;  // this size is out of reach
    ++move;
    const uint32_t t = tally.pool()[rng.Below(tally.pool().size())];
    const std::vector<int>& params = tally.interactions()[tally.owner(t)].params;
    std::vector<int> want(m.levels.size(), -1);
    tally.Decode(t, &want);
    size_t target = SIZE_MAX, least = SIZE_MAX, ties = 0;
    for (size_t r = fixed; r < rows.size(); ++r) {
      std::vector<int>& row = rows[r];
      cells.clear();
      bool tabu = false;
      for (int p : params)
        if (row[p] != want[p]) {
          cells.push_back(row[p]);
          tabu |= move - changed[r][p] <= tenure;
        } else {
          cells.push_back(-1);
        }
      for (size_t j = 0; j < params.size(); ++j)
        if (cells[j] >= 0) tally.Change(row, params[j], want[params[j]]);
      const size_t after = tally.uncovered();
      const bool valid = m.forbidden.empty() || !m.Violates(row);
      for (size_t j = params.size(); j-- > 0;)
        if (cells[j] >= 0) tally.Change(row, params[j], cells[j]);
      if (!valid || (tabu && after >= low)) continue;  // a tabu move only when it is the best yet
      if (after < least) least = after, target = r, ties = 1;
      else if (after == least && rng.Below(++ties) == 0) target = r;
    }
    if (target == SIZE_MAX) {
      ++stall;
      continue;
    }
    for (int p : params)
      if (rows[target][p] != want[p]) {
        tally.Change(rows[target], p, want[p]);
        changed[target][p] = move;
      }
    if (tally.uncovered() < low) low = tally.uncovered(), stall = 0;
    else ++stall;
    rng.ClearChoices();
  }
  return best;
}

}  // namespace

Rows GenerateCoveringArray(const CoveringModel& model, const CoveringOptions& o) {
  model.Validate();
  for (const auto& seed : model.seeds)
    if (!model.Extendable(seed)) throw InvalidInput({"option space", 0, 0}, "a seed row matches a forbidden combination");
  Rows best;
  if (model.levels.empty()) return best;
  // Greedy tries with derived seeds until their work adds up (at least one).
  double spent = 0;
  const int tries = o.tries > 0 ? o.tries : 12;
  for (int i = 0; i < tries; ++i) {
    Rng rng(DeriveSeed(o.seed, static_cast<uint64_t>(i)));
    double work = 0;
    Rows rows = Greedy(model, o, rng, &work);
    spent += work;
    if (best.empty() || rows.size() < best.size()) best = std::move(rows);
    if (o.tries == 0 && spent * static_cast<double>(i + 2) / static_cast<double>(i + 1) > kGreedyWork) break;
  }
  if (o.effort > 0) {
    Rng rng(DeriveSeed(o.seed, 1000));
    best = Shorten(model, std::move(best), rng, o.effort * kEffortWork);
  }
  int strength = 0;
  if (o.constructions && model.IsUniform(&strength)) {
    // The halves of a doubling get less work: there are several, and the doubling itself is no search.
    CoveringOptions half = o;
    half.tries = 1;
    half.effort = o.effort / 4;
    const ArrayMaker smaller = [&half](const std::vector<int>& levels, int t) {
      return GenerateCoveringArray(CoveringModel::Uniform(levels, t), half);
    };
    Rows built = Construct(model.levels, strength, best.size(), smaller);
    if (!built.empty() && built.size() < best.size()) best = std::move(built);
  }
  return best;
}

}  // namespace gauntlet
