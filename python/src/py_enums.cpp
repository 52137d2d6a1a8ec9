#include "py_enums.hpp"

namespace py = pybind11;

namespace trunk::python {

py::object python_enum_class(const char* name) {
  // The module object is kept for the life of the process (classes are looked up on it each time, which is a
  // dict lookup); leaking one reference avoids destructor-order problems at interpreter exit.
  static PyObject* module = [] {
    return py::module_::import("trunk_api.enums").release().ptr();
  }();
  return py::reinterpret_borrow<py::object>(module).attr(name);
}

}  // namespace trunk::python
