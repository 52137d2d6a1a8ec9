#include "convert_time.hpp"

#include <datetime.h>

#include <chrono>
#include <string>

#include "trunk/error.hpp"

namespace py = pybind11;

namespace trunk::python {

void init_datetime_api() {
  PyDateTime_IMPORT;
  if (PyDateTimeAPI == nullptr) throw py::error_already_set();
}

py::object timestamp_to_python(Timestamp value) {
  using namespace std::chrono;
  const auto day = floor<days>(value);
  const year_month_day date{day};
  const hh_mm_ss<microseconds> time{value - day};
  PyObject* result = PyDateTimeAPI->DateTime_FromDateAndTime(
      static_cast<int>(date.year()), static_cast<int>(static_cast<unsigned>(date.month())),
      static_cast<int>(static_cast<unsigned>(date.day())), static_cast<int>(time.hours().count()),
      static_cast<int>(time.minutes().count()), static_cast<int>(time.seconds().count()),
      static_cast<int>(time.subseconds().count()), PyDateTime_TimeZone_UTC, PyDateTimeAPI->DateTimeType);
  if (result == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

namespace {

[[noreturn]] void reject(py::handle value, std::string_view field, const std::string& rule) {
  std::string shown;
  try {
    shown = py::repr(value).cast<std::string>();
  } catch (const py::error_already_set&) {
    shown = "<unprintable>";
  }
  throw ValidationError({Violation{std::string(field), shown, rule}});
}

Timestamp from_datetime(py::handle value) {
  using namespace std::chrono;
  PyObject* object = value.ptr();
  const year_month_day date{year{PyDateTime_GET_YEAR(object)},
                            month{static_cast<unsigned>(PyDateTime_GET_MONTH(object))},
                            day{static_cast<unsigned>(PyDateTime_GET_DAY(object))}};
  Timestamp result = sys_days{date} + hours{PyDateTime_DATE_GET_HOUR(object)} +
                     minutes{PyDateTime_DATE_GET_MINUTE(object)} + seconds{PyDateTime_DATE_GET_SECOND(object)} +
                     microseconds{PyDateTime_DATE_GET_MICROSECOND(object)};
  // utcoffset() is None for naive datetimes (read as UTC) and a timedelta for aware ones. Calling the method
  // (rather than reading tzinfo) honours every tzinfo implementation: zoneinfo, pytz, dateutil, pandas.
  py::object offset = value.attr("utcoffset")();
  if (!offset.is_none()) {
    PyObject* delta = offset.ptr();
    result -= days{PyDateTime_DELTA_GET_DAYS(delta)} + seconds{PyDateTime_DELTA_GET_SECONDS(delta)} +
              microseconds{PyDateTime_DELTA_GET_MICROSECONDS(delta)};
  }
  return result;
}

}  // namespace

Timestamp timestamp_from_python(py::handle value, std::string_view field) {
  if (PyDateTime_Check(value.ptr())) {
    try {
      return from_datetime(value);
    } catch (const py::error_already_set& error) {
      // pandas.NaT is a datetime subclass whose utcoffset() raises: a missing value, not a time.
      reject(value, field, std::string("must be a datetime with a value (") + error.what() + ")");
    }
  }
  if (PyUnicode_Check(value.ptr())) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (text == nullptr) {
      PyErr_Clear();
      reject(value, field, "must be valid UTF-8 text");
    }
    return parse_rfc3339(std::string_view(text, static_cast<std::size_t>(size)), field);
  }
  reject(value, field, "must be a datetime, a pandas.Timestamp or an RFC 3339 string");
}

}  // namespace trunk::python
