// CoveringModel: what a covering array must cover, in index space.
//
// Parameter p takes the values 0 .. levels[p]-1. Each interaction is a set of
// parameters (its size is the strength there; a mixed-strength model has
// interactions of several sizes); every value tuple of every interaction must
// appear in some row, unless no valid row can hold it (then it is not
// feasible and not required). A row is valid when it matches no forbidden
// combination: a combination names a set of values for each of some
// parameters and matches a row whose values all lie in those sets. Seeds are
// rows (-1: any value) that an array must start with.
#ifndef GAUNTLET_COMBI_COVERING_MODEL_H_
#define GAUNTLET_COMBI_COVERING_MODEL_H_

#include <utility>
#include <vector>

namespace gauntlet {

struct Forbidden {
  std::vector<std::pair<int, std::vector<int>>> terms;  // parameter, its values that match
};

struct CoveringModel {
  std::vector<int> levels;
  std::vector<std::vector<int>> interactions;  // each sorted, no repeats
  std::vector<Forbidden> forbidden;
  std::vector<std::vector<int>> seeds;

  // Every set of `strength` parameters of `levels`.
  static CoveringModel Uniform(std::vector<int> levels, int strength);
  // Adds every `strength`-set of `params` (a sub-model of higher strength),
  // and drops interactions that a larger one contains.
  void AddInteractions(std::vector<int> params, int strength);

  // Throws InvalidInput naming the part that is wrong: a parameter with no
  // values, an interaction or forbidden term naming an unknown parameter or
  // value, a seed of the wrong width or with an unknown value.
  void Validate() const;
  // Whether the partial row (-1: not set) matches a forbidden combination
  // with every parameter of it set.
  bool Violates(const std::vector<int>& row) const;
  // Whether the partial row can be completed to a valid row.
  bool Extendable(std::vector<int> row) const;
  // True when nothing but the strength shapes it: no forbidden combinations,
  // no seeds, and every `strength`-set of parameters an interaction.
  bool IsUniform(int* strength) const;
};

}  // namespace gauntlet

#endif  // GAUNTLET_COMBI_COVERING_MODEL_H_
