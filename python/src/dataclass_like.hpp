#pragma once
// DataclassLike<T>: binds a C++ model struct as an immutable, dataclass-like Python class.
//
// Each field() becomes a read-only property; finish() adds what a frozen dataclass offers:
//   __repr__      ClassName(field=value, ...) (models never hold the token, so nothing to hide)
//   __eq__        by value (C++ operator==, unknown keys included); NotImplemented for other types, so
//                 comparing with a foreign object is False
//   __hash__      None (unhashable: the models hold lists), unless hashable() was called
//   __match_args__ the field names, for `match` statements
//   to_dict()     the wire JSON as Python objects (C++ to_json), unknown keys the server sent included
//   from_dict()   static; C++ from_json, tolerant like response decoding; DecodeError names the path
//   extra         the unknown keys kept from the wire, as a dict
//   pickle        state = (version, to_dict()); copy / deepcopy give an independent C++ copy

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "convert_json.hpp"
#include "convert_time.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace trunk::python {

/// Version of the pickled state; bump it if the state layout ever changes.
inline constexpr int kPickleVersion = 1;

template <typename T>
class DataclassLike {
 public:
  DataclassLike(pybind11::module_& m, const char* name, const char* doc) : class_(m, name, doc) {}

  template <typename Getter>
  DataclassLike& field(const char* name, Getter getter, const char* doc = "") {
    class_.def_property_readonly(name, getter, doc);
    fields_.emplace_back(name);
    return *this;
  }

  DataclassLike& hashable() {
    hashable_ = true;
    return *this;
  }

  pybind11::class_<T>& cls() { return class_; }

  pybind11::class_<T>& finish() {
    namespace py = pybind11;
    py::tuple names(fields_.size());
    for (std::size_t i = 0; i < fields_.size(); ++i) names[i] = py::str(fields_[i]);
    class_.attr("__match_args__") = names;
    // TestCase, TestPage, TestStatus: names that pytest would otherwise try to collect as test classes.
    class_.attr("__test__") = false;

    class_.def("__repr__", [](py::handle self) {
      const py::tuple field_names = self.attr("__match_args__");
      std::string text = py::str(py::type::handle_of(self).attr("__name__")).cast<std::string>() + "(";
      bool first = true;
      for (auto name : field_names) {
        if (!first) text += ", ";
        first = false;
        text += name.cast<std::string>() + "=" + py::repr(self.attr(name)).cast<std::string>();
      }
      return text + ")";
    });
    class_.def("__eq__", [](const T& self, py::handle other) -> py::object {
      if (!py::isinstance<T>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return py::bool_(self == other.cast<const T&>());
    });
    class_.def("__ne__", [](const T& self, py::handle other) -> py::object {
      if (!py::isinstance<T>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return py::bool_(!(self == other.cast<const T&>()));
    });
    if (hashable_) {
      class_.def("__hash__", [](const T& self) { return py::hash(py::str(encode(self))); });
    } else {
      class_.attr("__hash__") = py::none();
    }
    class_.def("to_dict", [](const T& self) { return json_to_python(to_json(self)); },
               "The wire JSON of this value as Python objects (unknown keys included).");
    class_.def_static("from_dict", [](py::handle data) { return from_json<T>(json_from_python(data)); },
                      py::arg("data"), "Reads a value from its wire JSON (as to_dict() gives it).");
    if constexpr (requires(const T& value) { value.extra; }) {
      class_.def_property_readonly("extra", [](const T& self) -> py::object {
        if (self.extra.is_null()) return py::dict();
        return json_to_python(self.extra);
      }, "Keys the server sent that this library does not know, as a dict.");
    }
    class_.def("__copy__", [](const T& self) { return T(self); });
    class_.def("__deepcopy__", [](const T& self, py::handle /*memo*/) { return T(self); }, py::arg("memo"));
    class_.def(py::pickle(
        [](const T& self) { return py::make_tuple(kPickleVersion, json_to_python(to_json(self))); },
        [](const py::tuple& state) {
          if (state.size() != 2 || !py::isinstance<py::int_>(state[0]) || state[0].cast<int>() != kPickleVersion) {
            throw DecodeError("", "unsupported pickle state for this version of trunk_api");
          }
          return from_json<T>(json_from_python(state[1]));
        }));
    return class_;
  }

 private:
  pybind11::class_<T> class_;
  std::vector<std::string> fields_;
  bool hashable_ = false;
};

}  // namespace trunk::python
