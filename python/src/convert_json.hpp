#pragma once
// Conversions between nlohmann::json (trunk::Json) and plain Python objects (dict, list, str, int, float,
// bool, None). to_dict()/from_dict() of every model go through these, so the Python dicts are exactly the
// wire JSON, unknown keys included.

#include <pybind11/pybind11.h>

#include <string>

#include "trunk/json_value.hpp"

namespace trunk::python {

pybind11::object json_to_python(const Json& value);

/// Throws trunk::DecodeError naming the path (like the codec does) for a value that is not JSON:
/// "tests[0].name: expected a JSON value, got datetime", a non-string dict key, a non-finite float, or an
/// integer outside the 64-bit range.
Json json_from_python(pybind11::handle value, const std::string& path = "");

}  // namespace trunk::python
