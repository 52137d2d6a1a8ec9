#include "py_enums.hpp"

#include <cctype>
#include <unordered_map>

#include "trunk/models.hpp"
#include "trunk/webhook_events.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// The classes made at import; they live as long as the module (leaked on purpose: no destructor-order
/// problems at interpreter exit).
std::unordered_map<std::string_view, PyObject*>& classes() {
  static auto* made = new std::unordered_map<std::string_view, PyObject*>();
  return *made;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

template <schema::DescribedEnum E>
void bind_enum(py::module_& m) {
  using Description = schema::Enum<E>;
  py::list members;
  for (std::size_t i = 0; i < Description::wire.size(); ++i) {
    members.append(py::make_tuple(upper(Description::names[i]), std::string(Description::wire[i])));
  }
  const py::object enum_class = py::module_::import("enum").attr("Enum");
  py::object cls = enum_class(std::string(Description::name), members, py::arg("module") = "trunk_api.enums",
                              py::arg("qualname") = std::string(Description::name), py::arg("type") = py::module_::import("builtins").attr("str"));
  cls.attr("__doc__") = std::string(Description::doc);
  // TestHealth & co.: a name pytest would otherwise try to collect as a test class in a user's test module.
  cls.attr("__test__") = false;
  // str() and format() give the wire string, as a user printing a setting expects ("paused", not
  // "QueueState.PAUSED").
  cls.attr("__str__") = py::cpp_function([](py::handle self) { return self.attr("value"); }, py::is_method(cls));
  cls.attr("__format__") = py::cpp_function(
      [](py::handle self, py::handle spec) { return py::str(self.attr("value")).attr("__format__")(spec); },
      py::is_method(cls));
  if constexpr (Description::options.case_insensitive_input) {
    // HealthStatus("flaky") finds FLAKY: the filter's documented input is any case.
    py::handle handle = cls;
    cls.attr("_missing_") = py::module_::import("builtins").attr("classmethod")(py::cpp_function(
        [handle](py::handle, py::handle value) -> py::object {
          if (!PyUnicode_Check(value.ptr())) return py::none();
          if (auto known = enum_from_wire<E>(upper(value.cast<std::string>()))) {
            return handle(py::str(std::string(to_wire(*known))));
          }
          return py::none();
        }));
  }
  m.attr(Description::name.data()) = cls;
  classes()[Description::name] = cls.release().ptr();
}

}  // namespace

void bind_enums(py::module_& m) {
#define TRUNK_BIND_ENUM_(Type) bind_enum<Type>(m);
  TRUNK_ALL_ENUMS(TRUNK_BIND_ENUM_)
  TRUNK_WEBHOOK_ENUMS(TRUNK_BIND_ENUM_)
#undef TRUNK_BIND_ENUM_
}

py::object python_enum_class(std::string_view name) {
  return py::reinterpret_borrow<py::object>(classes().at(name));
}

}  // namespace trunk::python
