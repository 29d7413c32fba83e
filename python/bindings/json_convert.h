// nlohmann::json <-> Python objects, through Python's json module: the values
// crossing here (summaries, replay keys) are small and cross rarely.
#ifndef GAUNTLET_BINDINGS_JSON_CONVERT_H_
#define GAUNTLET_BINDINGS_JSON_CONVERT_H_

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

namespace gauntlet::bindings {

// Text that is not UTF-8 (binary values in statements and rows) becomes U+FFFD.
inline pybind11::object ToPython(const nlohmann::json& j) {
  return pybind11::module_::import("json").attr("loads")(
      j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Throws pybind11's TypeError (via json.dumps) for what JSON cannot hold.
inline nlohmann::json FromPython(const pybind11::handle& value) {
  return nlohmann::json::parse(pybind11::module_::import("json").attr("dumps")(value).cast<std::string>());
}

}  // namespace gauntlet::bindings

#endif  // GAUNTLET_BINDINGS_JSON_CONVERT_H_
