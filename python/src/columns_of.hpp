#pragma once
// columns_of(items): the one overload point through which ListingIterator<Page>::to_pandas / to_columns reach
// the flat columns of a listing's items (to_columns.hpp builds them). A new listing adds one overload for its
// item type here; the iterator template needs nothing else.

#include <pybind11/pybind11.h>

#include <vector>

#include "to_columns.hpp"
#include "trunk/test_case.hpp"

namespace trunk::python {

inline pybind11::dict columns_of(const std::vector<TestCase>& tests) { return test_columns(tests); }

}  // namespace trunk::python
