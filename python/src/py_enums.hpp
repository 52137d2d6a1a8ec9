#pragma once
// Enumeration values to and from the Python enum classes of trunk_api/enums.py.
//
// Output: a known value becomes the enum member (QueueState.PAUSED), an unknown one (OpenEnum kept raw) stays
// the plain wire string. Input: a member or a string; the C++ wire tables decide (enum_from_wire), so the
// Python enums never carry their own parsing rules.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "trunk/enums.hpp"
#include "trunk/open_enum.hpp"

namespace trunk::python {

/// The class trunk_api.enums.<name> (imported on first use, then cached).
pybind11::object python_enum_class(const char* name);

template <typename E>
const char* python_enum_name();
template <>
inline const char* python_enum_name<QueueState>() { return "QueueState"; }
template <>
inline const char* python_enum_name<QueueMode>() { return "QueueMode"; }
template <>
inline const char* python_enum_name<DirectMergeMode>() { return "DirectMergeMode"; }
template <>
inline const char* python_enum_name<OptimizationMode>() { return "OptimizationMode"; }
template <>
inline const char* python_enum_name<MergeMethod>() { return "MergeMethod"; }
template <>
inline const char* python_enum_name<HealthStatus>() { return "HealthStatus"; }

template <typename E>
pybind11::object enum_to_python(E value) {
  return python_enum_class(python_enum_name<E>())(pybind11::str(std::string(to_wire(value))));
}

template <typename E>
pybind11::object open_enum_to_python(const std::optional<OpenEnum<E>>& value) {
  if (!value) return pybind11::none();
  if (auto known = value->known()) return enum_to_python(*known);
  return pybind11::str(value->wire());
}

}  // namespace trunk::python
