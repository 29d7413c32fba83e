#include "combi/constructions.h"

#include <algorithm>

namespace gauntlet {
namespace {

// GF(q), q = p^m: elements are base-p digit strings of polynomials in x;
// multiplication is modulo the first monic polynomial of degree m that makes
// every nonzero element invertible.
class Field {
 public:
  // An empty field (q() == 0) when q is not a prime power.
  explicit Field(int q) {
    int p = 2;
    while (p <= q && q % p != 0) ++p;
    int m = 0;
    for (int r = q; r > 1 && r % p == 0; r /= p) ++m;
    int power = 1;
    for (int i = 0; i < m; ++i) power *= p;
    if (q < 2 || power != q) return;
    p_ = p, m_ = m, q_ = q;
    add_.assign(q * q, 0);
    for (int a = 0; a < q; ++a)
      for (int b = 0; b < q; ++b) {
        int s = 0, scale = 1;
        for (int x = a, y = b, i = 0; i < m; ++i, x /= p, y /= p, scale *= p) s += ((x % p + y % p) % p) * scale;
        add_[a * q + b] = s;
      }
    for (int tail = 0; tail < q; ++tail) {  // modulus x^m + tail
      MakeMul(tail);
      bool field = true;
      for (int a = 1; a < q && field; ++a) {
        bool inverse = false;
        for (int b = 1; b < q && !inverse; ++b) inverse = mul_[a * q + b] == 1;
        field = inverse;
      }
      if (field) return;
    }
    q_ = 0;
  }
  int q() const { return q_; }
  int Add(int a, int b) const { return add_[a * q_ + b]; }
  int Mul(int a, int b) const { return mul_[a * q_ + b]; }

 private:
  void MakeMul(int tail) {
    mul_.assign(q_ * q_, 0);
    for (int a = 0; a < q_; ++a)
      for (int b = 0; b < q_; ++b) {
        // Schoolbook product of the digit strings, then reduced: x^m = -tail.
        std::vector<int> prod(2 * m_, 0);
        for (int i = 0, x = a; i < m_; ++i, x /= p_)
          for (int j = 0, y = b; j < m_; ++j, y /= p_) prod[i + j] = (prod[i + j] + (x % p_) * (y % p_)) % p_;
        for (int d = 2 * m_ - 1; d >= m_; --d) {
          const int c = prod[d];
          if (c == 0) continue;
          prod[d] = 0;
          for (int j = 0, y = tail; j < m_; ++j, y /= p_)
            prod[d - m_ + j] = ((prod[d - m_ + j] - c * (y % p_)) % p_ + p_) % p_;
        }
        int v = 0;
        for (int i = m_ - 1; i >= 0; --i) v = v * p_ + prod[i];
        mul_[a * q_ + b] = v;
      }
  }
  int p_ = 0, m_ = 0, q_ = 0;
  std::vector<int> add_, mul_;
};

// GF(q) for the smallest prime power q >= n.
Field SmallestField(int n) {
  for (int q = std::max(n, 2);; ++q) {
    Field f(q);
    if (f.q()) return f;
  }
}

// Folds each column's values into its parameter's levels (any value of a
// fold keeps every tuple of the smaller levels).
Rows Fold(Rows rows, const std::vector<int>& levels) {
  for (auto& row : rows) {
    row.resize(levels.size());
    for (size_t p = 0; p < levels.size(); ++p) row[p] %= levels[p];
  }
  return rows;
}

Rows OrthogonalPairs(const std::vector<int>& levels) {
  const Field f = SmallestField(*std::max_element(levels.begin(), levels.end()));
  const int q = f.q();
  if (static_cast<int>(levels.size()) > q + 1) return {};
  Rows rows;
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < q; ++b) {
      std::vector<int> row;
      for (int x = 0; x < q; ++x) row.push_back(f.Add(f.Mul(a, x), b));
      row.push_back(a);
      rows.push_back(std::move(row));
    }
  return Fold(std::move(rows), levels);
}

Rows OrthogonalTriples(const std::vector<int>& levels) {
  const Field f = SmallestField(*std::max_element(levels.begin(), levels.end()));
  const int q = f.q();
  const bool even = q % 2 == 0;
  if (static_cast<int>(levels.size()) > q + 1 + even) return {};
  Rows rows;
  for (int c2 = 0; c2 < q; ++c2)
    for (int c1 = 0; c1 < q; ++c1)
      for (int c0 = 0; c0 < q; ++c0) {
        std::vector<int> row;
        for (int x = 0; x < q; ++x) row.push_back(f.Add(f.Add(c0, f.Mul(c1, x)), f.Mul(c2, f.Mul(x, x))));
        row.push_back(c2);  // the point at infinity
        if (even) row.push_back(c1);  // the conic's nucleus
        rows.push_back(std::move(row));
      }
  return Fold(std::move(rows), levels);
}

Rows DoubledBinaryTriples(size_t k, const ArrayMaker& smaller) {
  if (k < 8) return {};
  const size_t half = (k + 1) / 2;
  const Rows a = smaller(std::vector<int>(half, 2), 3);
  const Rows b = BinaryPairs(half);
  if (a.empty() || b.empty()) return {};
  Rows rows;
  for (const auto& r : a) {
    std::vector<int> row(r);
    row.insert(row.end(), r.begin(), r.end());
    row.resize(k);
    rows.push_back(std::move(row));
  }
  for (const auto& r : b) {
    std::vector<int> row(r);
    for (int v : r) row.push_back(1 - v);
    row.resize(k);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Rows BinaryPairs(size_t k) {
  if (k == 0) return {};
  if (k == 1) return {{0}, {1}};
  // The smallest N with C(N-1, ceil(N/2)) >= k.
  size_t n = 2;
  auto choose = [](size_t a, size_t b) {
    double c = 1;
    for (size_t i = 0; i < b; ++i) c = c * static_cast<double>(a - i) / static_cast<double>(i + 1);
    return b > a ? 0.0 : c;
  };
  while (choose(n - 1, (n + 1) / 2) < static_cast<double>(k)) ++n;
  const size_t w = (n + 1) / 2;
  Rows rows(n, std::vector<int>(k, 0));
  std::vector<size_t> subset(w);
  for (size_t i = 0; i < w; ++i) subset[i] = i;
  for (size_t col = 0; col < k; ++col) {
    for (size_t i : subset) rows[i + 1][col] = 1;
    if (col + 1 == k) break;
    // The next w-subset of {0 .. n-2} in lexicographic order.
    size_t i = w;
    while (i-- > 0 && subset[i] == n - 1 - w + i) {
    }
    ++subset[i];
    for (size_t j = i + 1; j < w; ++j) subset[j] = subset[j - 1] + 1;
  }
  return rows;
}

Rows Construct(const std::vector<int>& levels, int strength, size_t limit, const ArrayMaker& smaller) {
  if (levels.empty()) return {};
  const bool binary = std::all_of(levels.begin(), levels.end(), [](int l) { return l == 2; });
  std::vector<Rows> options;
  if (strength == 2) {
    if (binary) options.push_back(BinaryPairs(levels.size()));
    options.push_back(OrthogonalPairs(levels));
  } else if (strength == 3) {
    options.push_back(OrthogonalTriples(levels));
    if (binary) options.push_back(DoubledBinaryTriples(levels.size(), smaller));
  }
  Rows best;
  for (auto& rows : options)
    if (!rows.empty() && rows.size() < limit && (best.empty() || rows.size() < best.size())) best = std::move(rows);
  return best;
}

}  // namespace gauntlet
