// trunk_api._core: the private extension module behind the trunk_api facade.
#include <pybind11/pybind11.h>

#include "trunk/version.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "Private C++ core of trunk_api; use the trunk_api package instead.";
  m.attr("__version__") = trunk::kVersion;
}
