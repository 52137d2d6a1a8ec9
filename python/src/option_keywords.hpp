#pragma once
// The Python side of the option rows (trunk/option_rows.hpp): one loop converts and checks the keywords of any
// options struct, and one function describes its rows for Python (_core.option_rows), from which the facades'
// signatures, the stubs, the command-line flags and the docs' table are made. Durations are seconds in Python.
//
// A wrong value is a Violation naming the option, the value and the rule ("must be > 0 and <= 31536000
// seconds"); secret rows (the token) are never converted here, so their value is never rendered.

#include <pybind11/pybind11.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "convert_args.hpp"
#include "trunk/option_rows.hpp"
#include "trunk/secret.hpp"

namespace trunk::python {

namespace option_detail {

template <typename M>
inline constexpr bool is_duration = std::is_same_v<M, std::chrono::milliseconds>;
template <typename M>
inline constexpr bool is_text = std::is_same_v<M, std::string> || std::is_same_v<M, std::optional<std::string>>;

/// Whole numbers: int and std::size_t (a count).
template <typename M>
inline constexpr bool is_whole = std::is_same_v<M, int> || std::is_same_v<M, std::size_t>;
template <typename M>
inline constexpr bool is_supported = std::is_same_v<M, bool> || is_whole<M> || std::is_same_v<M, double> ||
                                     is_duration<M> || is_text<M>;

inline std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

/// The rule of a row in words, "" when any value of its type goes: "between 0 and 100", "> 0 and <= 31536000
/// seconds", ">= 0".
inline std::string rule_text(const options::OptionRule& rule, bool integer, std::string_view unit) {
  const bool has_min = std::isfinite(rule.min);
  const bool has_max = std::isfinite(rule.max);
  std::string text;
  if (integer && has_min && has_max && rule.min_inclusive) {
    text = "between " + number_text(rule.min) + " and " + number_text(rule.max);
  } else {
    if (has_min) text = std::string(rule.min_inclusive ? ">= " : "> ") + number_text(rule.min);
    if (has_max) text += (text.empty() ? "<= " : " and <= ") + number_text(rule.max);
  }
  if (!text.empty() && !unit.empty()) text += " " + std::string(unit);
  return text;
}

template <typename M>
std::string rule_of(const options::OptionRule& rule) {
  return rule_text(rule, std::is_integral_v<M> && !std::is_same_v<M, bool>, is_duration<M> ? "seconds" : "");
}

inline bool within(const options::OptionRule& rule, double value) {
  const bool above = rule.min_inclusive ? value >= rule.min : value > rule.min;
  return above && value <= rule.max;
}

/// Converts one keyword into `out` (left as it is when the conversion fails: the collector has the violation).
template <typename M>
void read_value(ArgCollector& args, pybind11::handle value, std::string_view name, const options::OptionRule& rule,
                M& out) {
  if constexpr (std::is_same_v<M, std::optional<Secret>>) {
    // Never reached: a secret row (the token) is converted apart, by the binding's one conversion of it.
    static_cast<void>(args), static_cast<void>(value), static_cast<void>(name), static_cast<void>(rule),
        static_cast<void>(out);
  } else if constexpr (std::is_same_v<M, bool>) {
    out = args.boolean(value, name);
  } else if constexpr (is_text<M>) {
    if (value.is_none()) {
      out = M{};  // None: the default (no text)
    } else {
      out = args.text(value, name);
    }
  } else {
    static_assert(is_whole<M> || std::is_same_v<M, double> || is_duration<M>,
                  "an option row of a type the Python keywords do not convert: add it here");
    double number = 0;
    if constexpr (is_whole<M>) {
      number = static_cast<double>(args.integer(value, name));
    } else {
      number = args.number(value, name);
    }
    if (!args.accepted(name)) return;
    if (!within(rule, number)) {
      args.reject_type(value, name, "must be " + rule_of<M>(rule));
      return;
    }
    if constexpr (is_duration<M>) {
      out = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(number * 1000.0)));
    } else {
      out = static_cast<M>(number);
    }
  }
}

/// The Python default of a row's value: seconds for durations, None for text that is not set.
template <typename M>
pybind11::object python_default(const M& value) {
  if constexpr (is_duration<M>) {
    return pybind11::float_(static_cast<double>(value.count()) / 1000.0);
  } else if constexpr (std::is_same_v<M, std::optional<Secret>>) {
    static_cast<void>(value);
    return pybind11::none();  // a secret has no default to show
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    return value ? pybind11::object(pybind11::str(*value)) : pybind11::object(pybind11::none());
  } else if constexpr (std::is_same_v<M, std::string>) {
    return value.empty() ? pybind11::object(pybind11::none()) : pybind11::object(pybind11::str(value));
  } else if constexpr (std::is_same_v<M, bool>) {
    return pybind11::bool_(value);
  } else if constexpr (is_whole<M>) {
    return pybind11::int_(value);
  } else {
    return pybind11::float_(static_cast<double>(value));
  }
}

template <typename M>
constexpr const char* python_type() {
  if constexpr (std::is_same_v<M, bool>) return "bool";
  else if constexpr (is_whole<M>) return "int";
  else if constexpr (is_text<M> || std::is_same_v<M, std::optional<Secret>>) return "str | None";
  else return "float";
}

}  // namespace option_detail

/// Converts the keywords of T's rows found in `kwargs` (nested option structs included) into `target`, and
/// removes them from `kwargs`. Secret rows are left in `kwargs` for their own conversion. Problems are
/// collected in `args` (the caller throws them together).
template <options::DescribedOptions T>
void read_options(ArgCollector& args, pybind11::dict& kwargs, T& target) {
  options::for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    if constexpr (options::DescribedOptions<M>) {
      read_options(args, kwargs, target.*row.member);
    } else {
      if (row.name.empty() || row.rule.secret) return;
      const pybind11::str key(row.name.data(), row.name.size());
      if (!kwargs.contains(key)) return;
      option_detail::read_value(args, kwargs[key], row.name, row.rule, target.*row.member);
      PyDict_DelItem(kwargs.ptr(), key.ptr());
    }
  });
}

/// Appends T's rows that Python sees to `out`, as dicts: name, type, default, rule, unit, variables, doc.
/// Secret rows have no default shown (None) and say so (secret=True).
template <options::DescribedOptions T>
void describe_options(pybind11::list& out, const T& defaults = T{}) {
  options::for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    if constexpr (options::DescribedOptions<M>) {
      describe_options<M>(out, defaults.*row.member);
    } else {
      if (row.name.empty()) return;
      pybind11::dict entry;
      entry["name"] = std::string(row.name);
      entry["cpp_member"] = std::string(row.member_name);
      if constexpr (option_detail::is_supported<M>) {
        entry["type"] = row.rule.secret ? "str | None" : option_detail::python_type<M>();
        entry["default"] = row.rule.secret ? pybind11::object(pybind11::none())
                                           : option_detail::python_default(defaults.*row.member);
        entry["rule"] = option_detail::rule_of<M>(row.rule);
      } else {  // a secret's holder type of its own: given as text, its default never shown
        entry["type"] = "str | None";
        entry["default"] = pybind11::none();
        entry["rule"] = "";
      }
      entry["unit"] = option_detail::is_duration<M> ? "seconds" : "";
      entry["secret"] = row.rule.secret;
      pybind11::list variables;
      for (std::string_view variable : row.variables) variables.append(std::string(variable));
      entry["variables"] = variables;
      entry["doc"] = std::string(row.doc);
      out.append(entry);
    }
  });
}

/// TypeError for the first keyword left in `kwargs` (one no row declares), as Python words it.
inline void refuse_unknown_keywords(const pybind11::dict& kwargs, std::string_view callable) {
  for (auto item : kwargs) {
    throw pybind11::type_error(std::string(callable) + "() got an unexpected keyword argument '" +
                               pybind11::str(item.first).cast<std::string>() + "'");
  }
}

}  // namespace trunk::python
