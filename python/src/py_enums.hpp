#pragma once
// The enumerations as Python enum classes, made by _core itself from the C++ declarations (schema::Enum<E>,
// enums.hpp) at import, so Python spells no wire value and _core imports nothing from the trunk_api package.
// Each class is a str enum (members equal their wire strings) whose str() and format() give the wire string;
// trunk_api.enums re-exports them (and pickles name them there).
//
// Output: a known value becomes the enum member (QueueState.PAUSED), an unknown one (OpenEnum kept raw) stays
// the plain wire string. Input: a member or a string; the C++ wire tables decide (enum_from_wire).

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "trunk/enums.hpp"
#include "trunk/open_enum.hpp"

namespace trunk::python {

/// Creates every enum class on the module (bind_enums) ...
void bind_enums(pybind11::module_& m);
/// ... and finds one again by name.
pybind11::object python_enum_class(std::string_view name);

template <schema::DescribedEnum E>
pybind11::object enum_to_python(E value) {
  return python_enum_class(schema::Enum<E>::name)(pybind11::str(std::string(to_wire(value))));
}

template <schema::DescribedEnum E>
pybind11::object open_enum_to_python(const OpenEnum<E>& value) {
  if (auto known = value.known()) return enum_to_python(*known);
  return pybind11::str(value.wire());
}

}  // namespace trunk::python
