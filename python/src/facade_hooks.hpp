#pragma once
// What _core needs from the pure-Python facade, handed to it by the facade at import (trunk_api/__init__.py
// calls _core._connect_facade) instead of _core importing the trunk_api package: the dependency goes one way,
// facade -> _core, and _core never imports a module of the package that imports it.
//   - the exception classes of trunk_api/errors.py (they carry Python-level constructors and docs);
//   - trunk_api/_pandas.py: the DataFrame builder, and the check that numpy and pandas (optional dependencies
//     of the facade) are installed, made before a listing is consumed;
//   - trunk_api/_arrow.py: the same for the Arrow-based results (pyarrow, polars).

#include <pybind11/pybind11.h>

namespace trunk::python {

void bind_facade_hooks(pybind11::module_& m);

/// trunk_api.errors.<name>; RuntimeError when the facade has not connected (only possible while it imports).
pybind11::object facade_error_class(const char* name);
/// trunk_api._pandas.frame_from_columns(columns).
pybind11::object frame_from_columns(const pybind11::dict& columns);
/// trunk_api._pandas.require_libraries(): raises ModuleNotFoundError saying what to install when numpy or
/// pandas is missing. Called before anything is fetched, so the iterator is still whole afterwards.
void require_frame_libraries();
/// trunk_api._arrow.require(form): ModuleNotFoundError saying what to install for that form ("table",
/// "polars", "pandas") when a library is missing; called before anything is fetched.
void require_arrow_libraries(const char* form);
/// trunk_api._arrow.convert(form, batch): the _core.ArrowBatch as a pyarrow.Table, polars or pandas DataFrame.
pybind11::object convert_arrow(const char* form, const pybind11::object& batch);

}  // namespace trunk::python
