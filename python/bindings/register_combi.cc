// Covering arrays: a model in index space in, rows out (python/gauntlet/combi.py names them).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "combi/coverage.h"
#include "combi/covering_array.h"
#include "common/error.h"

namespace py = pybind11;

namespace gauntlet::bindings {
namespace {

// levels, the interactions of each strength ([[params...], strength] pairs: every strength-set of
// the params), forbidden combinations ([[param, [values]], ...]) and seed rows (-1: any value).
CoveringModel MakeModel(const std::vector<int>& levels, const std::vector<std::pair<std::vector<int>, int>>& parts,
                        const std::vector<std::vector<std::pair<int, std::vector<int>>>>& forbidden,
                        const std::vector<std::vector<int>>& seeds) {
  CoveringModel m;
  m.levels = levels;
  for (const auto& [params, strength] : parts) m.AddInteractions(params, strength);
  for (const auto& terms : forbidden) m.forbidden.push_back(Forbidden{terms});
  m.seeds = seeds;
  m.Validate();
  return m;
}

}  // namespace

void RegisterCombi(py::module_& m) {
  m.def(
      "covering_array",
      [](const std::vector<int>& levels, const std::vector<std::pair<std::vector<int>, int>>& parts,
         const std::vector<std::vector<std::pair<int, std::vector<int>>>>& forbidden,
         const std::vector<std::vector<int>>& seeds, uint64_t seed, int tries, double effort, bool constructions) {
        const CoveringModel model = MakeModel(levels, parts, forbidden, seeds);
        CoveringOptions o;
        o.seed = seed;
        o.tries = tries;
        o.effort = effort;
        o.constructions = constructions;
        py::gil_scoped_release release;
        return GenerateCoveringArray(model, o);
      },
      py::arg("levels"), py::arg("parts"), py::arg("forbidden") = std::vector<std::vector<std::pair<int, std::vector<int>>>>{},
      py::arg("seeds") = std::vector<std::vector<int>>{}, py::arg("seed") = 1, py::arg("tries") = 0,
      py::arg("effort") = 1.0, py::arg("constructions") = true,
      "Rows covering every feasible tuple of the model (see cpp/combi/covering_array.h).");
  m.def(
      "check_coverage",
      [](const std::vector<int>& levels, const std::vector<std::pair<std::vector<int>, int>>& parts,
         const std::vector<std::vector<std::pair<int, std::vector<int>>>>& forbidden, const Rows& rows) {
        const CoveringModel model = MakeModel(levels, parts, forbidden, {});
        for (const auto& row : rows)
          if (row.size() != levels.size()) throw InvalidInput({"rows", 0, 0}, "a row of the wrong width");
        CoverageReport r;
        {
          py::gil_scoped_release release;
          r = CheckCoverage(model, rows);
        }
        return py::dict(py::arg("tuples") = r.tuples, py::arg("feasible") = r.feasible, py::arg("covered") = r.covered,
                        py::arg("invalid_rows") = r.invalid_rows, py::arg("missing") = r.missing);
      },
      py::arg("levels"), py::arg("parts"), py::arg("forbidden"), py::arg("rows"),
      "Counts the model's tuples, the feasible ones, those the rows cover, and rows that break a constraint.");
}

}  // namespace gauntlet::bindings
