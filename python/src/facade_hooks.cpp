#include "facade_hooks.hpp"

#include "bindings.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

// Kept for the life of the process (leaked on purpose: no destructor-order problems at interpreter exit).
PyObject* errors_module = nullptr;
PyObject* frames_module = nullptr;

}  // namespace

void bind_facade_hooks(py::module_& m) {
  m.def("_connect_facade", [](const py::object& errors, const py::object& frames) {
    Py_XDECREF(errors_module);
    Py_XDECREF(frames_module);
    errors_module = errors.inc_ref().ptr();
    frames_module = frames.inc_ref().ptr();
  }, py::arg("errors"), py::arg("frames"),
        "Called once by trunk_api at import: the exception classes (trunk_api.errors) and the DataFrame module "
        "(trunk_api._pandas) of the facade.");
}

py::object facade_error_class(const char* name) {
  if (errors_module == nullptr) return py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  return py::reinterpret_borrow<py::object>(errors_module).attr(name);
}

py::object frame_from_columns(const py::dict& columns) {
  require_frame_libraries();
  return py::reinterpret_borrow<py::object>(frames_module).attr("frame_from_columns")(columns);
}

void require_frame_libraries() {
  if (frames_module == nullptr) throw py::import_error("to_pandas() needs the trunk_api package (import trunk_api)");
  py::reinterpret_borrow<py::object>(frames_module).attr("require_libraries")();
}

}  // namespace trunk::python
