#include "to_columns.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "bindings.hpp"
#include "convert_time.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

py::object optional_text(const std::optional<std::string>& value) {
  if (!value) return py::none();
  return py::str(*value);
}

class Columns {
 public:
  explicit Columns(std::size_t rows) : rows_(rows) {}

  /// Rows come in listing order (by file, then name), so neighbours often share a value (repository URL,
  /// status, file path, class name): such a row reuses the str object of the row before, which saves an
  /// allocation and the memory of a copy.
  template <typename Get>
  void text(const char* name, const std::vector<TestCase>& tests, Get get) {
    py::list data(rows_);
    std::optional<std::string> previous;  // a copy: some getters return temporaries
    py::object previous_object;
    for (std::size_t i = 0; i < rows_; ++i) {
      decltype(auto) value = get(tests[i]);
      if (i == 0 || value != previous) {
        previous = value;
        previous_object = optional_text(previous);
      }
      data[i] = previous_object;
    }
    columns_[name] = py::make_tuple("str", data, py::none());
  }

  template <typename Get>
  void real(const char* name, const std::vector<TestCase>& tests, Get get) {
    py::array_t<double> data(static_cast<py::ssize_t>(rows_));
    auto out = data.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows_; ++i) {
      const std::optional<double> value = get(tests[i]);
      out(static_cast<py::ssize_t>(i)) = value ? *value : std::numeric_limits<double>::quiet_NaN();
    }
    columns_[name] = py::make_tuple("float", data, py::none());
  }

  /// kind "int" (int64 values) or "time" (microseconds since the epoch).
  template <typename Get>
  void integer(const char* name, const char* kind, const std::vector<TestCase>& tests, Get get) {
    py::array_t<std::int64_t> data(static_cast<py::ssize_t>(rows_));
    py::array_t<bool> mask(static_cast<py::ssize_t>(rows_));
    auto out = data.mutable_unchecked<1>();
    auto missing = mask.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows_; ++i) {
      const std::optional<std::int64_t> value = get(tests[i]);
      out(static_cast<py::ssize_t>(i)) = value.value_or(0);
      missing(static_cast<py::ssize_t>(i)) = !value.has_value();
    }
    columns_[name] = py::make_tuple(kind, data, mask);
  }

  template <typename Get>
  void boolean(const char* name, const std::vector<TestCase>& tests, Get get) {
    py::array_t<bool> data(static_cast<py::ssize_t>(rows_));
    py::array_t<bool> mask(static_cast<py::ssize_t>(rows_));
    auto out = data.mutable_unchecked<1>();
    auto missing = mask.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows_; ++i) {
      const std::optional<bool> value = get(tests[i]);
      out(static_cast<py::ssize_t>(i)) = value.value_or(false);
      missing(static_cast<py::ssize_t>(i)) = !value.has_value();
    }
    columns_[name] = py::make_tuple("bool", data, mask);
  }

  template <typename Get>
  void object(const char* name, const std::vector<TestCase>& tests, Get get) {
    py::list data(rows_);
    for (std::size_t i = 0; i < rows_; ++i) data[i] = get(tests[i]);
    columns_[name] = py::make_tuple("object", data, py::none());
  }

  py::dict result() { return columns_; }

 private:
  std::size_t rows_;
  py::dict columns_;  // insertion-ordered: the DataFrame's column order
};

/// Pauses Python's cyclic garbage collector for its lifetime (restoring the state it found). The columns
/// hold one list or dict per test (codeowners, most_common_failures), none of which can be part of a cycle,
/// yet every allocation counts towards the collector's thresholds: with 100,000 tests alive its repeated
/// full passes took longer than building the columns (perf: gc_collect_main at the top).
class CollectorPause {
 public:
  CollectorPause() : was_enabled_(PyGC_Disable()) {}
  ~CollectorPause() {
    if (was_enabled_) PyGC_Enable();
  }
  CollectorPause(const CollectorPause&) = delete;
  CollectorPause& operator=(const CollectorPause&) = delete;

 private:
  int was_enabled_;
};

std::optional<std::int64_t> micros(const std::optional<Timestamp>& value) {
  if (!value) return std::nullopt;
  return value->time_since_epoch().count();
}

/// Builds the most_common_failures cells. A repository has a handful of failure messages shared by
/// thousands of tests, so each distinct summary becomes one str object, and the three keys are made once.
class FailureCells {
 public:
  py::object operator()(const std::optional<std::vector<FailureSummary>>& failures) {
    if (!failures) return py::none();
    py::list list(failures->size());
    for (std::size_t i = 0; i < failures->size(); ++i) {
      const FailureSummary& failure = (*failures)[i];
      py::dict item;
      item[summary_key_] = summary(failure.summary);
      item[count_key_] = failure.occurrence_count ? py::object(py::int_(*failure.occurrence_count)) : py::none();
      item[last_key_] = failure.last_occurrence ? timestamp_to_python(*failure.last_occurrence) : py::object(py::none());
      list[i] = std::move(item);
    }
    return list;
  }

 private:
  py::object summary(const std::optional<std::string>& text) {
    if (!text) return py::none();
    auto [it, inserted] = summaries_.try_emplace(*text);  // keys view the TestCase strings, alive meanwhile
    if (inserted) it->second = py::str(*text);
    return it->second;
  }

  py::str summary_key_{"summary"}, count_key_{"occurrence_count"}, last_key_{"last_occurrence"};
  std::unordered_map<std::string_view, py::object> summaries_;
};

}  // namespace

py::dict test_columns(const std::vector<TestCase>& tests) {
  const CollectorPause pause;
  Columns c(tests.size());
  using T = TestCase;
  c.text("id", tests, [](const T& t) -> const auto& { return t.id; });
  c.text("name", tests, [](const T& t) -> const auto& { return t.name; });
  c.text("variant", tests, [](const T& t) -> const auto& { return t.variant; });
  c.text("classname", tests, [](const T& t) -> const auto& { return t.classname; });
  c.text("file_path", tests, [](const T& t) -> const auto& { return t.file_path; });
  c.text("parent", tests, [](const T& t) -> const auto& { return t.parent; });
  c.text("html_url", tests, [](const T& t) -> const auto& { return t.html_url; });
  c.text("repository_html_url", tests, [](const T& t) {
    return t.repository ? t.repository->html_url : std::optional<std::string>{};
  });
  c.text("status_value", tests, [](const T& t) { return t.status ? t.status->value : std::optional<std::string>{}; });
  c.text("status_reason", tests, [](const T& t) { return t.status ? t.status->reason : std::optional<std::string>{}; });
  c.integer("status_timestamp", "time", tests, [](const T& t) {
    return t.status ? micros(t.status->timestamp) : std::optional<std::int64_t>{};
  });
  c.real("failure_rate_last_7d", tests, [](const T& t) { return t.failure_rate_last_7d; });
  c.real("failure_rate_last_24h", tests, [](const T& t) { return t.failure_rate_last_24h; });
  c.integer("pull_requests_impacted_last_7d", "int", tests, [](const T& t) { return t.pull_requests_impacted_last_7d; });
  c.boolean("quarantined", tests, [](const T& t) { return t.quarantined; });
  c.object("codeowners", tests, [](const T& t) -> py::object {
    if (!t.codeowners) return py::none();
    return py::cast(*t.codeowners);
  });
  c.text("ticket_html_url", tests, [](const T& t) { return t.ticket ? t.ticket->html_url : std::optional<std::string>{}; });
  FailureCells failure_cells;
  c.object("most_common_failures", tests, [&](const T& t) { return failure_cells(t.most_common_failures); });
  return c.result();
}

void bind_columns(py::module_& m) {
  m.def("test_columns", &test_columns, py::arg("tests"),
        "Flat columns of a list of TestCase (kind, data, mask) for trunk_api._pandas.frame_from_columns.");
}

}  // namespace trunk::python
