#pragma once
// Conversions between trunk::Timestamp (UTC, microseconds) and Python.
//
// Python -> Timestamp accepts an aware datetime (converted to UTC), an aware pandas.Timestamp (a datetime
// subclass; nanoseconds are truncated) or an RFC 3339 string (parsed by trunk::parse_rfc3339, which requires
// its offset). A naive datetime is refused (convert_time.cpp, kNaiveRule says why), like anything else that is
// not a time: a ValidationError naming the field. This is the one place every time argument passes through
// (requests, Sandbox(now=...)), so the rule holds for all of them.
// Timestamp -> Python gives an aware datetime in UTC.
//
// The datetime C API lives in convert_time.cpp only (PyDateTime_IMPORT fills a per-file pointer); this header
// offers plain functions and a pybind11 caster built on them, so `std::optional<Timestamp>` members convert
// like any other value. pybind11/chrono.h must not be included anywhere: its caster gives naive local times.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "trunk/time.hpp"

namespace trunk::python {

/// Imports the datetime C API; called once from the module init.
void init_datetime_api();

/// An aware UTC datetime.
pybind11::object timestamp_to_python(Timestamp value);

/// See the header comment; throws trunk::ValidationError naming `field` for anything not accepted.
Timestamp timestamp_from_python(pybind11::handle value, std::string_view field);

/// The length of a datetime.timedelta in microseconds, read from its fields (as exact as total_seconds()
/// without calling it); nullopt for any other object.
std::optional<std::int64_t> timedelta_microseconds(pybind11::handle value);

}  // namespace trunk::python

namespace pybind11::detail {

template <>
struct type_caster<trunk::Timestamp> {
 public:
  PYBIND11_TYPE_CASTER(trunk::Timestamp, const_name("datetime.datetime"));

  bool load(handle source, bool /*convert*/) {
    value = trunk::python::timestamp_from_python(source, "timestamp");
    return true;
  }

  static handle cast(const trunk::Timestamp& source, return_value_policy /*policy*/, handle /*parent*/) {
    return trunk::python::timestamp_to_python(source).release();
  }
};

}  // namespace pybind11::detail
