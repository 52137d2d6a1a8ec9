#include "to_columns.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "bindings.hpp"
#include "convert_time.hpp"
#include "facade_hooks.hpp"
#include "flat_fields.hpp"
#include "listing_items.hpp"
#include "model_values.hpp"
#include "trunk/listings.hpp"
#include "trunk/operations.hpp"
#include "trunk/pager.hpp"

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
  template <typename Item, typename Get>
  void text(const char* name, const std::vector<Item>& tests, Get get) {
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

  template <typename Item, typename Get>
  void real(const char* name, const std::vector<Item>& tests, Get get) {
    py::array_t<double> data(static_cast<py::ssize_t>(rows_));
    auto out = data.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows_; ++i) {
      const std::optional<double> value = get(tests[i]);
      out(static_cast<py::ssize_t>(i)) = value ? *value : std::numeric_limits<double>::quiet_NaN();
    }
    columns_[name] = py::make_tuple("float", data, py::none());
  }

  /// kind "int" (int64 values) or "time" (microseconds since the epoch).
  template <typename Item, typename Get>
  void integer(const char* name, const char* kind, const std::vector<Item>& tests, Get get) {
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

  template <typename Item, typename Get>
  void boolean(const char* name, const std::vector<Item>& tests, Get get) {
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

  template <typename Item, typename Get>
  void object(const char* name, const std::vector<Item>& tests, Get get) {
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

/// A list of models as one cell: a list of dicts of the items' fields. A repository has a handful of
/// failure messages shared by thousands of tests, so each distinct string becomes one str object, and the
/// keys are made once.
class ModelListCells {
 public:
  template <schema::Described M>
  py::object operator()(const std::vector<M>& items) {
    py::list list(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      py::dict item;
      schema::for_each_field<M>([&](const auto& field) {
        item[key(field.name)] = value(items[i].*(field.member));
      });
      list[i] = std::move(item);
    }
    return list;
  }

 private:
  py::object key(std::string_view name) {
    auto [it, inserted] = keys_.try_emplace(name);
    if (inserted) it->second = py::str(std::string(name));
    return it->second;
  }

  template <typename V>
  py::object value(const V& member) {
    if constexpr (std::is_same_v<V, std::optional<std::string>>) {
      if (!member) return py::none();
      auto [it, inserted] = strings_.try_emplace(*member);
      if (inserted) it->second = py::str(*member);
      return it->second;
    } else {
      return to_python(member);
    }
  }

  std::unordered_map<std::string_view, py::object> keys_;
  std::unordered_map<std::string, py::object> strings_;
};

template <schema::Described T>
py::dict build_columns(const std::vector<T>& items) {
  const CollectorPause pause;
  Columns c(items.size());
  ModelListCells model_lists;
  auto column = [&](const std::string& name, auto get) {
    using Member = std::remove_cvref_t<decltype(*get(items.front()))>;
    using Value = schema::unwrap_optional_t<Member>;
    const char* key = name.c_str();
    if constexpr (std::is_same_v<Value, std::string>) {
      c.text(key, items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<std::string>(*value) : std::optional<std::string>();
      });
    } else if constexpr (requires { typename Value::is_open_enum; }) {
      c.text(key, items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<std::string>(value->wire()) : std::optional<std::string>();
      });
    } else if constexpr (std::is_same_v<Value, double>) {
      c.real(key, items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<double>(*value) : std::optional<double>();
      });
    } else if constexpr (std::is_same_v<Value, std::int64_t>) {
      c.integer(key, "int", items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<std::int64_t>(*value) : std::optional<std::int64_t>();
      });
    } else if constexpr (std::is_same_v<Value, Timestamp>) {
      c.integer(key, "time", items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<std::int64_t>(value->time_since_epoch().count()) : std::optional<std::int64_t>();
      });
    } else if constexpr (std::is_same_v<Value, bool>) {
      c.boolean(key, items, [&](const T& item) {
        const Value* value = leaf(get(item));
        return value ? std::optional<bool>(*value) : std::optional<bool>();
      });
    } else if constexpr (schema::IsVector<Value>::value && schema::Described<typename Value::value_type>) {
      c.object(key, items, [&](const T& item) -> py::object {
        const Value* value = leaf(get(item));
        return value ? model_lists(*value) : py::none();
      });
    } else {
      c.object(key, items, [&](const T& item) -> py::object {
        const Value* value = leaf(get(item));
        return value ? to_python(*value) : py::none();
      });
    }
  };
  for_each_flat_column<T>(column);
  return c.result();
}

/// The flat column names of T, in order (the CSV header).
template <schema::Described T>
std::vector<std::string> column_names() {
  std::vector<std::string> names;
  auto add = [&](const std::string& name, auto) { names.push_back(name); };
  for_each_flat_column<T>(add);
  return names;
}

/// One item's flat values, in column order (a CSV row): read from the item where it lives, no copy.
template <schema::Described T>
py::tuple flat_row(const T& item) {
  py::list row;
  auto cell = [&](const std::string&, auto get) {
    const auto* value = leaf(get(item));
    row.append(value ? to_python(*value) : py::none());
  };
  for_each_flat_column<T>(cell);
  return py::tuple(row);
}

}  // namespace

template <typename Item>
py::dict columns_of(const std::vector<Item>& items) {
  return build_columns(items);
}

// Instantiated for the items of every page of listings.hpp.
#define TRUNK_INSTANTIATE_COLUMNS_(Page, ...) template py::dict columns_of(const std::vector<PageTraits<Page>::Item>&);
TRUNK_LISTING_PAGES(TRUNK_INSTANTIATE_COLUMNS_)
#undef TRUNK_INSTANTIATE_COLUMNS_

void bind_columns(py::module_& m) {
  m.def("test_columns", [](const std::vector<TestCase>& items) { return columns_of(items); }, py::arg("tests"),
        "Flat columns of a list of TestCase (kind, data, mask) for trunk_api._pandas.frame_from_columns.");
  // Per listing item type: the flat column names (CSV header) and rows (CSV body), from the same walk.
  m.def("listing_columns", [](py::handle item_type, const py::list& items) -> py::dict {
    require_frame_libraries();
    std::optional<py::dict> columns;
    for_each_listing_item([&]<typename Item>(std::type_identity<Item>) {
      if (columns || !item_type.is(py::type::of<Item>())) return;
      std::vector<Item> copied;  // the Python objects' C++ values (the async listings hold Python objects)
      copied.reserve(items.size());
      for (py::handle item : items) copied.push_back(item.cast<const Item&>());
      columns = columns_of(copied);
    });
    if (!columns) throw py::type_error("listing_columns: not a listing item type");
    return *columns;
  }, py::arg("item_type"), py::arg("items"),
     "Flat columns (kind, data, mask) of listing items of `item_type`, as the sync iterators' to_columns().");
  m.def("column_names", [](py::handle type) -> std::vector<std::string> {
    std::optional<std::vector<std::string>> names;
    for_each_listing_item([&]<typename Item>(std::type_identity<Item>) {
      if (!names && type.is(py::type::of<Item>())) names = column_names<Item>();
    });
    if (!names) throw py::type_error("column_names: not a listing item type");
    return *names;
  }, py::arg("item_type"), "The flat column names of a listing's items, in order (to_pandas() and CSV).");
  m.def("flat_row", [](py::handle item) -> py::tuple {
    std::optional<py::tuple> row;
    for_each_listing_item([&]<typename Item>(std::type_identity<Item>) {
      if (!row && py::isinstance<Item>(item)) row = flat_row(item.cast<const Item&>());
    });
    if (!row) throw py::type_error("flat_row: not a listing item");
    return *row;
  }, py::arg("item"), "The item's flat cell values, in column order (a CSV row).");
}

}  // namespace trunk::python
