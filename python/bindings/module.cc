// gauntlet._core: registers the bindings; the ergonomic layer is Python.
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace gauntlet::bindings {
void RegisterCombi(py::module_& m);
void RegisterErrors(py::module_& m);
void RegisterGrammar(py::module_& m);
void RegisterRun(py::module_& m);
}  // namespace gauntlet::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "Gauntlet's C++ engine. Use the `gauntlet` package instead.";
  gauntlet::bindings::RegisterErrors(m);
  gauntlet::bindings::RegisterGrammar(m);
  gauntlet::bindings::RegisterRun(m);
  gauntlet::bindings::RegisterCombi(m);
}
