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

/// The rule a naive datetime breaks. A naive datetime says nothing about its zone: `datetime.now()` is local
/// time, `datetime.utcnow()` and many pandas timestamps are UTC. Reading it either way silently shifts a window
/// by the UTC offset for the other half of callers (until issue 14 it was read as UTC, so a laptop in Los
/// Angeles asked for a window 8 hours in the past); refusing it says so before anything is sent.
constexpr const char* kNaiveRule =
    "must be time-zone aware: a naive datetime could be UTC or local time, and is not guessed (use "
    "datetime.now(timezone.utc), value.replace(tzinfo=timezone.utc) for UTC, value.astimezone() for local "
    "time, or pandas' tz_localize)";

Timestamp from_datetime(py::handle value, std::string_view field) {
  using namespace std::chrono;
  PyObject* object = value.ptr();
  // utcoffset() is None for naive datetimes and a timedelta for aware ones. Calling the method (rather than
  // reading tzinfo) honours every tzinfo implementation: zoneinfo, pytz, dateutil, pandas.
  py::object offset = value.attr("utcoffset")();
  if (offset.is_none()) reject(value, field, kNaiveRule);
  const year_month_day date{year{PyDateTime_GET_YEAR(object)},
                            month{static_cast<unsigned>(PyDateTime_GET_MONTH(object))},
                            day{static_cast<unsigned>(PyDateTime_GET_DAY(object))}};
  Timestamp result = sys_days{date} + hours{PyDateTime_DATE_GET_HOUR(object)} +
                     minutes{PyDateTime_DATE_GET_MINUTE(object)} + seconds{PyDateTime_DATE_GET_SECOND(object)} +
                     microseconds{PyDateTime_DATE_GET_MICROSECOND(object)};
  PyObject* delta = offset.ptr();
  result -= days{PyDateTime_DELTA_GET_DAYS(delta)} + seconds{PyDateTime_DELTA_GET_SECONDS(delta)} +
            microseconds{PyDateTime_DELTA_GET_MICROSECONDS(delta)};
  return result;
}

}  // namespace

Timestamp timestamp_from_python(py::handle value, std::string_view field) {
  if (PyDateTime_Check(value.ptr())) {
    try {
      return from_datetime(value, field);
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
    const std::string_view written(text, static_cast<std::size_t>(size));
    const Timestamp parsed = parse_rfc3339(written, field);
    // The same rule as for a naive datetime: text without an offset is a wall-clock time of an unknown zone.
    if (!rfc3339_has_offset(written)) {
      reject(value, field,
             "must carry its offset, Z or +hh:mm/-hh:mm (e.g. 2026-11-20T12:00:00Z): a time without one could be "
             "UTC or local time, and is not guessed");
    }
    return parsed;
  }
  reject(value, field, "must be a datetime, a pandas.Timestamp or an RFC 3339 string");
}

std::optional<std::int64_t> timedelta_microseconds(py::handle value) {
  if (!PyDelta_Check(value.ptr())) return std::nullopt;
  // |days| <= 999,999,999: the total fits in 64 bits.
  return (std::int64_t{PyDateTime_DELTA_GET_DAYS(value.ptr())} * 86400 + PyDateTime_DELTA_GET_SECONDS(value.ptr())) *
             1'000'000 +
         PyDateTime_DELTA_GET_MICROSECONDS(value.ptr());
}

}  // namespace trunk::python
