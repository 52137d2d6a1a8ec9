#pragma once
// What _core needs from the pure-Python facade, handed to it by the facade at import (trunk_api/__init__.py
// calls _core._connect_facade) instead of _core importing the trunk_api package: the dependency goes one way,
// facade -> _core, and _core never imports a module of the package that imports it.
//   - the exception classes of trunk_api/errors.py (they carry Python-level constructors and docs);
//   - the DataFrame builder of trunk_api/_pandas.py (pandas is an optional dependency of the facade).

#include <pybind11/pybind11.h>

namespace trunk::python {

void bind_facade_hooks(pybind11::module_& m);

/// trunk_api.errors.<name>; RuntimeError when the facade has not connected (only possible while it imports).
pybind11::object facade_error_class(const char* name);
/// trunk_api._pandas.frame_from_columns(columns).
pybind11::object frame_from_columns(const pybind11::dict& columns);

}  // namespace trunk::python
