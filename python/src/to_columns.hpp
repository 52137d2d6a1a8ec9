#pragma once
// Flat columns of a listing's items, derived from the item's declaration (describe.hpp) and built in C++ (no
// Python dict per item on the way to pandas). One walk defines the flat names for the DataFrame and the CSV
// alike: a field is a column under its name; a nested single model is flattened into "<field>_<its field>"
// columns (status_value, repository_html_url); lists stay one column of Python lists (codeowners) or of
// dicts (most_common_failures).

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "trunk/test_case.hpp"

namespace trunk::python {

/// {column name: (kind, data, mask)} for trunk_api._pandas.frame_from_columns. Kinds:
///   "str"       data: list of str or None (enumerations give their wire string)
///   "float"     data: float64 ndarray, NaN when absent
///   "int"       data: int64 ndarray, mask: bool ndarray (True = absent)  -> pandas Int64
///   "bool"      data: bool ndarray, mask: bool ndarray                    -> pandas boolean
///   "time"      data: int64 ndarray of microseconds since the epoch (UTC), mask -> datetime64[us, UTC]
///   "object"    data: list of Python objects (lists, dicts) or None
/// Defined for the item type of every listing (PageTraits<Page>::Item of an operation's answer).
template <typename Item>
pybind11::dict columns_of(const std::vector<Item>& items);

/// Kept for callers of the first version: columns_of for tests.
inline pybind11::dict test_columns(const std::vector<TestCase>& tests) { return columns_of(tests); }

}  // namespace trunk::python
