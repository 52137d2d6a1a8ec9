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

// Why the methods and attributes are plain function pointers inside two callable types: pybind11 compiles a
// dispatcher, argument loaders and a signature for every distinct callable type it binds. Bound as one lambda
// per method and per attribute, the ~180 model classes and their ~1,000 fields cost that ~2,500 times, in each
// Python version's build of the wheel (bind_models.cpp was its slowest file: docs/development.md#cis-time). Here
// the type-specific work is in plain function templates, and every model class shares these two instantiations.
// The price: a method's signature line in help() says `self: object` rather than the class (the stubs, made from
// the declarations, keep the exact types).

/// A pybind11 function of one Python object (a method of self, a static method of one argument).
struct ObjectFunction1 {
  pybind11::object (*call)(pybind11::handle);
  pybind11::object operator()(pybind11::handle a) const { return call(a); }
};

/// A pybind11 function of two Python objects.
struct ObjectFunction2 {
  pybind11::object (*call)(pybind11::handle, pybind11::handle);
  pybind11::object operator()(pybind11::handle a, pybind11::handle b) const { return call(a, b); }
};

/// ClassName(field=value, ...), from the class's __match_args__: the same for every model.
pybind11::object model_repr(pybind11::handle self);

/// The type-specific part of the methods every model class has, as plain functions of Python objects.
template <typename T>
struct ModelMethods {
  static const T& self(pybind11::handle object) { return object.cast<const T&>(); }

  static pybind11::object equal(pybind11::handle a, pybind11::handle b) {
    if (!pybind11::isinstance<T>(b)) return pybind11::reinterpret_borrow<pybind11::object>(Py_NotImplemented);
    return pybind11::bool_(self(a) == self(b));
  }
  static pybind11::object not_equal(pybind11::handle a, pybind11::handle b) {
    if (!pybind11::isinstance<T>(b)) return pybind11::reinterpret_borrow<pybind11::object>(Py_NotImplemented);
    return pybind11::bool_(!(self(a) == self(b)));
  }
  static pybind11::object hash(pybind11::handle a) { return pybind11::int_(pybind11::hash(pybind11::str(encode(self(a))))); }
  static pybind11::object to_dict(pybind11::handle a) { return json_to_python(to_json(self(a))); }
  static pybind11::object from_dict(pybind11::handle data) { return pybind11::cast(from_json<T>(json_from_python(data))); }
  static pybind11::object extra(pybind11::handle a) {
    const auto& value = self(a).extra;
    if (value.is_null()) return pybind11::dict();
    return json_to_python(value);
  }
  static pybind11::object copy(pybind11::handle a) { return pybind11::cast(T(self(a))); }
  static pybind11::object deep_copy(pybind11::handle a, pybind11::handle /*memo*/) { return copy(a); }
};

template <typename T>
class DataclassLike {
 public:
  DataclassLike(pybind11::module_& m, const char* name, const char* doc) : class_(m, name, doc) {}

  /// A read-only attribute: `read(self)` gives its value.
  DataclassLike& field(const char* name, pybind11::object (*read)(pybind11::handle), const char* doc = "") {
    class_.def_property_readonly(name, pybind11::cpp_function(ObjectFunction1{read}), doc);
    fields_.emplace_back(name);
    return *this;
  }

  DataclassLike& hashable() {
    hashable_ = true;
    return *this;
  }

  /// The class, by value (a new reference to the same type object): a reference into this builder would dangle
  /// when the builder is a temporary, as `model_class<T>(m).finish()` is (built -O3 without link-time
  /// optimisation, the module crashed at import on exactly that).
  pybind11::class_<T> finish() {
    namespace py = pybind11;
    using Methods = ModelMethods<T>;
    py::tuple names(fields_.size());
    for (std::size_t i = 0; i < fields_.size(); ++i) names[i] = py::str(fields_[i]);
    class_.attr("__match_args__") = names;
    // TestCase, TestPage, TestStatus: names that pytest would otherwise try to collect as test classes.
    class_.attr("__test__") = false;

    class_.def("__repr__", ObjectFunction1{&model_repr});
    class_.def("__eq__", ObjectFunction2{&Methods::equal});
    class_.def("__ne__", ObjectFunction2{&Methods::not_equal});
    if (hashable_) {
      class_.def("__hash__", ObjectFunction1{&Methods::hash});
    } else {
      class_.attr("__hash__") = py::none();
    }
    class_.def("to_dict", ObjectFunction1{&Methods::to_dict},
               "The wire JSON of this value as Python objects (unknown keys included).");
    class_.def_static("from_dict", ObjectFunction1{&Methods::from_dict}, py::arg("data"),
                      "Reads a value from its wire JSON (as to_dict() gives it).");
    if constexpr (requires(const T& value) { value.extra; }) {
      class_.def_property_readonly("extra", py::cpp_function(ObjectFunction1{&Methods::extra}),
                                   "Keys the server sent that this library does not know, as a dict.");
    }
    class_.def("__copy__", ObjectFunction1{&Methods::copy});
    class_.def("__deepcopy__", ObjectFunction2{&Methods::deep_copy}, py::arg("memo"));
    // Pickling keeps pybind11's own pair (__getstate__, and a __setstate__ that constructs in place), so the
    // pickles of earlier versions still load.
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
