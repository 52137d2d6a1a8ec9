#pragma once
// A model field's value as the Python object users get: None for absent, the enum member (or the raw wire
// string of a value this library does not know), an aware UTC datetime, a list, the bound model class.
// Generic over the field types of describe.hpp, so a new field needs nothing here.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "convert_json.hpp"
#include "convert_time.hpp"
#include "py_enums.hpp"
#include "trunk/describe.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk::python {

template <typename V>
pybind11::object to_python(const V& value);

template <typename V>
pybind11::object to_python(const V& value) {
  namespace py = pybind11;
  if constexpr (schema::IsOptional<V>::value) {
    return value ? to_python(*value) : py::none();
  } else if constexpr (requires { typename V::is_open_enum; }) {
    return open_enum_to_python(value);
  } else if constexpr (schema::DescribedEnum<V>) {
    return enum_to_python(value);
  } else if constexpr (std::is_same_v<V, Timestamp>) {
    return timestamp_to_python(value);
  } else if constexpr (schema::IsVector<V>::value) {
    py::list list(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) list[i] = to_python(value[i]);
    return list;
  } else if constexpr (schema::IsVariant<V>::value) {
    return std::visit([](const auto& alternative) { return to_python(alternative); }, value);
  } else if constexpr (std::is_same_v<V, Json>) {
    return json_to_python(value);  // lists, dicts, str, int, float, bool, None as the service sent them
  } else {
    return py::cast(value);  // str, int, float, bool, or a bound model (copied into its Python object)
  }
}

}  // namespace trunk::python
