#include "convert_args.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "convert_time.hpp"

namespace py = pybind11;

namespace trunk::python {

std::string describe(py::handle value) {
  constexpr std::size_t kMaxShown = 200;
  std::string shown;
  try {
    shown = py::repr(value).cast<std::string>();
  } catch (const py::error_already_set&) {
    return "<unprintable value>";
  }
  if (shown.size() > kMaxShown) shown = shown.substr(0, kMaxShown) + "...";
  return shown;
}

namespace {

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

}  // namespace

void ArgCollector::add(std::string_view field, std::string value, std::string rule) {
  violations_.push_back(Violation{std::string(field), std::move(value), std::move(rule)});
  failed_fields_.emplace(field);
}

void ArgCollector::reject_type(py::handle value, std::string_view field, std::string rule) {
  add(field, describe(value), std::move(rule));
}

bool ArgCollector::failed(std::string_view field) const {
  for (const std::string& bad : failed_fields_) {
    if (field == bad) return true;
    if (field.size() > bad.size() && field.substr(0, bad.size()) == bad &&
        (field[bad.size()] == '.' || field[bad.size()] == '[')) {
      return true;
    }
  }
  return false;
}

Repo ArgCollector::repo(py::handle value, std::string_view field) {
  if (py::isinstance<Repo>(value)) return value.cast<Repo>();
  if (PyUnicode_Check(value.ptr())) {
    const std::string written = text(value, field);
    if (failed(field)) return {};
    try {
      return Repo::parse(written);
    } catch (const ValidationError& error) {
      for (const Violation& violation : error.violations()) add(violation.field, violation.value, violation.rule);
      return {};
    }
  }
  reject_type(value, field, "must be a trunk_api.Repo or a \"host/owner/name\" string");
  return {};
}

std::string ArgCollector::text(py::handle value, std::string_view field) {
  if (!PyUnicode_Check(value.ptr())) {
    reject_type(value, field, "must be a string");
    return {};
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    reject_type(value, field, "must be valid UTF-8 text (it holds a lone surrogate)");
    return {};
  }
  return std::string(data, static_cast<std::size_t>(size));
}

std::int64_t ArgCollector::integer(py::handle value, std::string_view field) {
  // bool is an int subclass in Python, but True as a concurrency is a mistake, not a number.
  if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) {
    reject_type(value, field, "must be an integer");
    return 0;
  }
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0) {
    // Beyond 64 bits every rule of the interface is broken; name the real value rather than a clamped one.
    reject_type(value, field, "is outside every allowed range (more than 64 bits)");
    return 0;
  }
  return static_cast<std::int64_t>(number);
}

bool ArgCollector::boolean(py::handle value, std::string_view field) {
  if (!PyBool_Check(value.ptr())) {
    reject_type(value, field, "must be True or False");
    return false;
  }
  return value.ptr() == Py_True;
}

double ArgCollector::number(py::handle value, std::string_view field) {
  if (PyBool_Check(value.ptr()) || !(PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr()))) {
    reject_type(value, field, "must be a number");
    return 0;
  }
  const double result = PyFloat_AsDouble(value.ptr());
  if (result == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    reject_type(value, field, "is too large");
    return 0;
  }
  if (!std::isfinite(result)) {
    reject_type(value, field, "must be a finite number");
    return 0;
  }
  return result;
}

std::chrono::milliseconds ArgCollector::seconds(py::handle value, std::string_view field, double minimum_seconds,
                                                bool minimum_allowed) {
  constexpr double kMaxSeconds = 365.0 * 24 * 3600;  // a year: anything longer is a mistake, not a timeout
  const double amount = number(value, field);
  if (failed(field)) return {};
  const bool too_small = minimum_allowed ? amount < minimum_seconds : amount <= minimum_seconds;
  if (too_small || amount > kMaxSeconds) {
    std::string rule = std::string("must be ") + (minimum_allowed ? ">= " : "> ") + format_number(minimum_seconds) +
                       " and <= " + format_number(kMaxSeconds) + " seconds";
    reject_type(value, field, std::move(rule));
    return {};
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(amount * 1000.0)));
}

Timestamp ArgCollector::timestamp(py::handle value, std::string_view field) {
  try {
    return timestamp_from_python(value, field);
  } catch (const ValidationError& error) {
    for (const Violation& violation : error.violations()) add(violation.field, violation.value, violation.rule);
    return {};
  }
}

std::vector<std::string> ArgCollector::text_list(py::handle value, std::string_view field) {
  // A lone string is a sequence of characters in Python; accepting it would send one status per letter.
  if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()) ||
      !(PyList_Check(value.ptr()) || PyTuple_Check(value.ptr()))) {
    reject_type(value, field, "must be a list of strings");
    return {};
  }
  std::vector<std::string> result;
  std::size_t index = 0;
  for (auto item : py::reinterpret_borrow<py::sequence>(value)) {
    result.push_back(text(item, std::string(field) + "[" + std::to_string(index) + "]"));
    ++index;
  }
  return result;
}

}  // namespace trunk::python
