#pragma once
// Flat columns of a list of tests, built in C++ (issue 7: no Python dict per test on the way to pandas).

#include <pybind11/pybind11.h>

#include <vector>

#include "trunk/test_case.hpp"

namespace trunk::python {

/// {column name: (kind, data, mask)} for trunk_api._pandas.frame_from_columns. Kinds:
///   "str"       data: list of str or None
///   "float"     data: float64 ndarray, NaN when absent
///   "int"       data: int64 ndarray, mask: bool ndarray (True = absent)  -> pandas Int64
///   "bool"      data: bool ndarray, mask: bool ndarray                    -> pandas boolean
///   "time"      data: int64 ndarray of microseconds since the epoch (UTC), mask -> datetime64[us, UTC]
///   "object"    data: list of Python objects (lists, dicts) or None
pybind11::dict test_columns(const std::vector<TestCase>& tests);

}  // namespace trunk::python
