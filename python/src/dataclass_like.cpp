// The one method every model class shares as it is (dataclass_like.hpp).
#include "dataclass_like.hpp"

#include <string>

namespace py = pybind11;

namespace trunk::python {

py::object model_repr(py::handle self) {
  const py::tuple field_names = self.attr("__match_args__");
  std::string text = py::str(py::type::handle_of(self).attr("__name__")).cast<std::string>() + "(";
  bool first = true;
  for (auto name : field_names) {
    if (!first) text += ", ";
    first = false;
    text += name.cast<std::string>() + "=" + py::repr(self.attr(name)).cast<std::string>();
  }
  return py::str(text + ")");
}

}  // namespace trunk::python
