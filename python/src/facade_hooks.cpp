#include "facade_hooks.hpp"

#include "bindings.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

// Kept for the life of the process (leaked on purpose: no destructor-order problems at interpreter exit).
PyObject* errors_module = nullptr;
PyObject* frames_module = nullptr;
PyObject* arrow_module = nullptr;

pybind11::object arrow() {
  if (arrow_module == nullptr) throw py::import_error("to_arrow() needs the trunk_api package (import trunk_api)");
  return py::reinterpret_borrow<py::object>(arrow_module);
}

}  // namespace

void bind_facade_hooks(py::module_& m) {
  m.def("_connect_facade", [](const py::object& errors, const py::object& frames, const py::object& arrow) {
    Py_XDECREF(errors_module);
    Py_XDECREF(frames_module);
    Py_XDECREF(arrow_module);
    errors_module = errors.inc_ref().ptr();
    frames_module = frames.inc_ref().ptr();
    arrow_module = arrow.inc_ref().ptr();
  }, py::arg("errors"), py::arg("frames"), py::arg("arrow"),
        "Called once by trunk_api at import: the exception classes (trunk_api.errors), the DataFrame module "
        "(trunk_api._pandas) and the Arrow module (trunk_api._arrow) of the facade.");
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

namespace trunk::python {

void require_arrow_libraries(const char* form) { arrow().attr("require")(form); }

py::object convert_arrow(const char* form, const py::object& batch) { return arrow().attr("convert")(form, batch); }

}  // namespace trunk::python
