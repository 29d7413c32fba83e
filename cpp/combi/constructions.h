// Constructions: covering arrays from algebra, for a model of one strength
// and no constraints, where they beat any search.
//
// - t = 2, binary: Kleitman-Spencer/Katona, exactly the smallest possible
//   (row 0 all zeros; each column a distinct ceil(N/2)-subset of the other rows).
// - t = 2: an orthogonal array OA(q^2, q+1, q, 2) over the field GF(q), q a
//   prime power at least every level (values above a level folded into it).
// - t = 3: Bush's OA(q^3, q+1, q, 3) from the polynomials of degree < 3 (q+2
//   columns when q is a power of 2).
// - t = 3, binary: doubling, CA(3, 2k) from CA(3, k) twice side by side and a
//   binary pair array beside its complement.
#ifndef GAUNTLET_COMBI_CONSTRUCTIONS_H_
#define GAUNTLET_COMBI_CONSTRUCTIONS_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "combi/covering_array.h"

namespace gauntlet {

// A smaller array for (levels, strength) generated otherwise: what doubling builds on.
using ArrayMaker = std::function<Rows(const std::vector<int>& levels, int strength)>;

// The smallest construction for `levels` at `strength` with fewer than
// `limit` rows, or no rows.
Rows Construct(const std::vector<int>& levels, int strength, size_t limit, const ArrayMaker& smaller);

// The Kleitman-Spencer array for k binary parameters at strength 2.
Rows BinaryPairs(size_t k);

}  // namespace gauntlet

#endif  // GAUNTLET_COMBI_CONSTRUCTIONS_H_
