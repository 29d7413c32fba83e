// Maps gauntlet::Error and its subclasses to Python exceptions.
#include <pybind11/pybind11.h>

#include "common/error.h"

namespace py = pybind11;

namespace gauntlet::bindings {

void RegisterErrors(py::module_& m) {
  static py::exception<Error> error(m, "GauntletError", PyExc_RuntimeError);
  // InvalidInput is also a ValueError: bad input is the caller's mistake.
  static py::handle invalid_input = [&] {
    py::object bases = py::make_tuple(error, py::handle(PyExc_ValueError));
    PyObject* cls = PyErr_NewException("gauntlet._core.InvalidInput", bases.ptr(), nullptr);
    m.attr("InvalidInput") = py::handle(cls);
    return py::handle(cls);
  }();
  static py::exception<GenerationError> generation(m, "GenerationError", error.ptr());
  static py::exception<OutputError> output(m, "OutputError", error.ptr());
  error.attr("__doc__") = "Gauntlet failed at something it could not recover from (the base of its errors).";
  invalid_input.attr("__doc__") =
      "Bad input: a grammar, data spec, config, DSN, option or argument. Also a ValueError. The message "
      "names the file, line and column or the setting; .file, .line, .column and .reason hold them.";
  output.attr("__doc__") =
      "A file of the results could not be written (a full or read-only disk): the message names the file, the "
      "system's reason and what the results lack.";
  generation.attr("__doc__") =
      "Generating a statement failed: a Perl block died, a Python rule raised, or the statement grew "
      "past its size limit. The message names the rule and the block's file and line.";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidInput& e) {
      py::object exc = invalid_input(py::str(e.what()));
      exc.attr("file") = e.where().file;
      exc.attr("line") = e.where().line;
      exc.attr("column") = e.where().column;
      exc.attr("reason") = e.message();
      PyErr_SetObject(invalid_input.ptr(), exc.ptr());
    } catch (const GenerationError& e) {
      generation(e.what());
    } catch (const OutputError& e) {
      output(e.what());
    } catch (const Error& e) {
      error(e.what());
    }
  });
}

}  // namespace gauntlet::bindings
