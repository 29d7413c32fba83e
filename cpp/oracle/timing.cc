#include "oracle/timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "oracle/determinism.h"
#include "oracle/result_compare.h"
#include "sql/sql_shape.h"

namespace gauntlet {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

std::string Plan(Session& session, size_t t, std::string_view sql) {
  ResultSet rows;
  const Outcome o = session.Execute(t, "EXPLAIN " + std::string(sql), &rows, 10);
  if (!o.ok()) return "(EXPLAIN failed: " + o.message + ")";
  std::string text;
  for (const ResultColumn& c : rows.columns) text += (text.empty() ? "" : " | ") + c.name;
  for (const auto& row : rows.rows) text += "\n" + RowText(row, 400);
  return text;
}

}  // namespace

double MannWhitneyU(const std::vector<double>& xs, const std::vector<double>& ys) {
  double u = 0;
  for (double y : ys)
    for (double x : xs) u += y > x ? 1 : y == x ? 0.5 : 0;
  return u;
}

double MannWhitneyUpperTail(size_t n, size_t m, double u) {
  // ways[k][v]: orderings of k xs and j ys with U = v, built up over j.
  const size_t max_u = n * m;
  std::vector<std::vector<double>> ways(n + 1, std::vector<double>(max_u + 1, 0));
  for (size_t k = 0; k <= n; ++k) ways[k][0] = 1;  // j = 0 ys
  for (size_t j = 1; j <= m; ++j) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0));
    for (size_t k = 0; k <= n; ++k)
      for (size_t v = 0; v <= max_u; ++v) {
        // The largest element is a y (above all k xs: adds k) or an x.
        double w = v >= k ? ways[k][v - k] : 0;
        if (k > 0) w += next[k - 1][v];
        next[k][v] = w;
      }
    ways.swap(next);
  }
  double total = 0, tail = 0;
  const double threshold = std::ceil(u - 1e-9);
  for (size_t v = 0; v <= max_u; ++v) {
    total += ways[n][v];
    if (static_cast<double>(v) >= threshold) tail += ways[n][v];
  }
  return total > 0 ? tail / total : 1;
}

Verdict TimingOracle::Check(const Observation& o) {
  if (o.outcomes.size() < 2) return Verdict::NotApplicable();
  for (const Outcome& x : o.outcomes)
    if (!x.ok()) return Verdict::NotApplicable();
  const double a_ms = static_cast<double>(o.outcomes[0].nanos) / 1e6;
  size_t slow = 0;
  for (size_t t = 1; t < o.outcomes.size() && slow == 0; ++t) {
    const double b_ms = static_cast<double>(o.outcomes[t].nanos) / 1e6;
    if (b_ms >= settings_.ratio * a_ms && b_ms - a_ms >= settings_.min_ms) slow = t;
  }
  const SqlShape shape(o.sql);
  if (!ReturnsQueryRows(shape)) return Verdict::NotApplicable();
  // SLEEP(), GET_LOCK(), BENCHMARK(): their time is the point.
  if (std::string why = ReadsVolatileValue(shape); !why.empty()) return Verdict::Skipped(why);
  if (!ReadOnly(shape)) return Verdict::NotApplicable();
  if (slow == 0) return Verdict::Passed();
  // Repeat alternately, so that both sides meet the same moments of load.
  const double limit = std::max(2.0, 3.0 * static_cast<double>(o.outcomes[slow].nanos) / 1e9);
  std::vector<double> a, b;
  for (int i = 0; i < settings_.repeats; ++i) {
    const Outcome x = o.session.Execute(0, o.sql, nullptr, limit);
    const Outcome y = o.session.Execute(slow, o.sql, nullptr, limit);
    if (!x.ok() || !y.ok()) return Verdict::Skipped("a repeat failed");
    a.push_back(static_cast<double>(x.nanos) / 1e6);
    b.push_back(static_cast<double>(y.nanos) / 1e6);
  }
  const double ma = Median(a), mb = Median(b);
  const double p = MannWhitneyUpperTail(a.size(), b.size(), MannWhitneyU(a, b));
  if (p >= settings_.alpha || mb < settings_.ratio * ma || mb - ma < settings_.min_ms) return Verdict::Passed();
  const std::string& an = o.session.target(0).name;
  const std::string& bn = o.session.target(slow).name;
  Finding f;
  f.kind = "timing";
  f.targets = {an, bn};
  f.signature = "timing: " + shape.Skeleton();
  char summary[200];
  std::snprintf(summary, sizeof summary, "%.1fx slower (one-sided Mann-Whitney p = %.4f, %d runs a side)",
                ma > 0 ? mb / ma : 0.0, p, settings_.repeats);
  f.detail = bn + ": median " + Ms(mb) + ", " + an + ": median " + Ms(ma) + ": " + summary + "\nplan on " + an +
             ":\n" + Plan(o.session, 0, o.sql) + "\nplan on " + bn + ":\n" + Plan(o.session, slow, o.sql);
  f.evidence = {{"median_ms", {{an, ma}, {bn, mb}}}, {"samples_ms", {{an, a}, {bn, b}}}, {"p_value", p},
                {"ratio", ma > 0 ? mb / ma : 0.0}};
  return Verdict::Fired(std::move(f));
}

}  // namespace gauntlet
