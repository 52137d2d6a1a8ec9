#include "convert_json.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "trunk/error.hpp"

namespace py = pybind11;

namespace trunk::python {

py::object json_to_python(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      return py::none();
    case Json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(value.get<double>());
    case Json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list list(value.size());
      std::size_t index = 0;
      for (const Json& item : value) list[index++] = json_to_python(item);
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (auto it = value.begin(); it != value.end(); ++it) dict[py::str(it.key())] = json_to_python(it.value());
      return dict;
    }
    case Json::value_t::binary:
      break;
  }
  throw DecodeError("", "binary JSON values are not supported");
}

namespace {

std::string type_name(py::handle value) { return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>(); }

std::string utf8(py::handle text, const std::string& path) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    throw DecodeError(path, "string is not valid UTF-8 (lone surrogate)");
  }
  return std::string(data, static_cast<std::size_t>(size));
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

}  // namespace

Json json_from_python(py::handle value, const std::string& path) {
  if (value.is_none()) return nullptr;
  if (PyBool_Check(value.ptr())) return value.ptr() == Py_True;
  if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0) return static_cast<std::int64_t>(number);
    if (overflow > 0) {
      const unsigned long long big = PyLong_AsUnsignedLongLong(value.ptr());
      if (!PyErr_Occurred()) return static_cast<std::uint64_t>(big);
      PyErr_Clear();
    }
    throw DecodeError(path, "integer " + py::str(value).cast<std::string>() + " is outside the 64-bit range");
  }
  if (PyFloat_Check(value.ptr())) {
    const double number = PyFloat_AsDouble(value.ptr());
    if (!std::isfinite(number)) throw DecodeError(path, "expected a finite number, got " + py::repr(value).cast<std::string>());
    return number;
  }
  if (PyUnicode_Check(value.ptr())) return utf8(value, path);
  if (PyDict_Check(value.ptr())) {
    Json object = Json::object();
    for (auto item : py::reinterpret_borrow<py::dict>(value)) {
      if (!PyUnicode_Check(item.first.ptr()))
        throw DecodeError(path, "object keys must be strings, got " + type_name(item.first));
      std::string key = utf8(item.first, path);
      Json converted = json_from_python(item.second, child(path, key));
      object[std::move(key)] = std::move(converted);
    }
    return object;
  }
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    Json array = Json::array();
    std::size_t index = 0;
    for (auto item : py::reinterpret_borrow<py::sequence>(value)) {
      array.push_back(json_from_python(item, path + "[" + std::to_string(index) + "]"));
      ++index;
    }
    return array;
  }
  throw DecodeError(path, "expected a JSON value (dict, list, str, int, float, bool or None), got " + type_name(value));
}

}  // namespace trunk::python
