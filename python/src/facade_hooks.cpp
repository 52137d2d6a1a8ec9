#include "facade_hooks.hpp"

#include "bindings.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

// Kept for the life of the process (leaked on purpose: no destructor-order problems at interpreter exit).
PyObject* errors_module = nullptr;
PyObject* frame_builder = nullptr;

}  // namespace

void bind_facade_hooks(py::module_& m) {
  m.def("_connect_facade", [](const py::object& errors, const py::object& build_frame) {
    Py_XDECREF(errors_module);
    Py_XDECREF(frame_builder);
    errors_module = errors.inc_ref().ptr();
    frame_builder = build_frame.inc_ref().ptr();
  }, py::arg("errors"), py::arg("frame_from_columns"),
        "Called once by trunk_api at import: the exception classes and the DataFrame builder of the facade.");
}

py::object facade_error_class(const char* name) {
  if (errors_module == nullptr) return py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  return py::reinterpret_borrow<py::object>(errors_module).attr(name);
}

py::object frame_from_columns(const py::dict& columns) {
  if (frame_builder == nullptr) throw py::import_error("to_pandas() needs the trunk_api package (import trunk_api)");
  return py::reinterpret_borrow<py::object>(frame_builder)(columns);
}

}  // namespace trunk::python
