#pragma once
// The Python side of the option rows (trunk/option_rows.hpp): one loop converts and checks the keywords of any
// options struct, and one function describes its rows for Python (_core.option_rows), from which the facades'
// signatures, the stubs, the command-line flags and the docs' table are made. Durations are seconds in Python.
//
// A wrong value is a Violation naming the option, the value and the rule ("must be > 0 and <= 31536000
// seconds", in trunk/option_text.hpp's words, which the C++ command lines use too); secret rows (the token) are
// never converted here, so their value is never rendered.

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
#include "convert_time.hpp"
#include "trunk/option_rows.hpp"
#include "trunk/option_text.hpp"
#include "trunk/secret.hpp"

namespace trunk::python {

namespace option_detail {

using options::is_duration;
using options::is_real;
using options::is_text;
using options::is_time;
using options::is_whole;

template <typename M>
inline constexpr bool is_supported = std::is_same_v<M, bool> || is_whole<M> || is_real<M> || is_duration<M> ||
                                     is_text<M> || is_time<M> || options::HasChoices<M>;

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
    } else if (rule.path && !PyUnicode_Check(value.ptr()) && !PyBytes_Check(value.ptr())) {
      PyObject* path = PyOS_FSPath(value.ptr());  // an os.PathLike gives its text
      if (path == nullptr) {
        PyErr_Clear();
        args.reject_type(value, name, "must be a string or an os.PathLike");
        return;
      }
      out = args.text(pybind11::reinterpret_steal<pybind11::object>(path), name);
    } else {
      out = args.text(value, name);
    }
  } else if constexpr (is_time<M>) {
    if (value.is_none()) {
      out = std::nullopt;
    } else {
      const Timestamp at = args.timestamp(value, name);
      if (args.accepted(name)) out = at;
    }
  } else if constexpr (options::HasChoices<M>) {
    const std::string given = args.text(value, name);
    if (!args.accepted(name)) return;
    for (const auto& choice : options::Choices<M>::all) {
      if (choice.name == given) {
        out = choice.value;
        return;
      }
    }
    args.reject_type(value, name, "must be " + options::rule_of<M>(rule));
  } else if constexpr (std::is_same_v<M, std::uint64_t>) {
    // A seed: the whole unsigned 64-bit range (more than an int64 holds).
    if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) {
      args.reject_type(value, name, "must be an integer");
      return;
    }
    const unsigned long long number = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred() != nullptr) {
      PyErr_Clear();
      const bool negative = PyObject_RichCompareBool(value.ptr(), pybind11::int_(0).ptr(), Py_LT) == 1;
      args.reject_type(value, name, negative ? "must be " + options::rule_of<M>(rule)
                                             : std::string("must be <= 18446744073709551615"));
      return;
    }
    if (!options::within(rule, static_cast<double>(number))) {
      args.reject_type(value, name, "must be " + options::rule_of<M>(rule));
      return;
    }
    out = static_cast<M>(number);
  } else {
    static_assert(is_whole<M> || is_real<M> || is_duration<M>,
                  "an option row of a type the Python keywords do not convert: add it here");
    if constexpr (std::is_same_v<M, std::optional<double>>) {
      if (value.is_none()) {
        out = std::nullopt;
        return;
      }
    }
    double number = 0;
    if (options::given_whole<M>(rule)) {
      number = static_cast<double>(args.integer(value, name));
    } else {
      number = args.number(value, name);
    }
    if (!args.accepted(name)) return;
    if (!options::within(rule, number)) {
      args.reject_type(value, name, "must be " + options::rule_of<M>(rule));
      return;
    }
    if constexpr (is_duration<M>) {
      out = rule.milliseconds ? std::chrono::milliseconds(static_cast<std::int64_t>(number))
                              : std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(number * 1000.0)));
    } else if constexpr (std::is_same_v<M, std::optional<double>>) {
      out = number;
    } else {
      out = static_cast<M>(number);
    }
  }
}

/// A row's value as Python gives it: seconds (or whole milliseconds) for durations, None for text that is not
/// set and for what is absent, a choice's name.
template <typename M>
pybind11::object python_value(const M& value, const options::OptionRule& rule) {
  if constexpr (is_duration<M>) {
    if (rule.milliseconds) return pybind11::int_(value.count());
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
  } else if constexpr (std::is_same_v<M, std::optional<double>>) {
    return value ? pybind11::object(pybind11::float_(*value)) : pybind11::object(pybind11::none());
  } else if constexpr (is_time<M>) {
    return value ? pybind11::cast(*value) : pybind11::object(pybind11::none());
  } else if constexpr (options::HasChoices<M>) {
    return pybind11::str(options::value_text(value, rule));
  } else {
    return pybind11::float_(static_cast<double>(value));
  }
}

/// The annotation of a row's keyword. Text with a default of its own is "str"; what may be absent (or whose
/// default is worked out where it runs) adds "| None".
template <typename M>
std::string python_type(const M& default_value, const options::OptionRule& rule) {
  std::string type;
  if constexpr (std::is_same_v<M, bool>) type = "bool";
  else if constexpr (is_whole<M>) type = "int";
  else if constexpr (is_duration<M>) type = rule.milliseconds ? "int" : "float";
  else if constexpr (is_time<M>) return "datetime | str | None";
  else if constexpr (is_text<M> || std::is_same_v<M, std::optional<Secret>>) {
    type = rule.path ? "str | os.PathLike[str]" : "str";
    if constexpr (std::is_same_v<M, std::string>) {
      if (!default_value.empty()) return type;
    }
    return type + " | None";
  } else if constexpr (options::HasChoices<M>) type = "str";
  else if constexpr (std::is_same_v<M, std::optional<double>>) return "float | None";
  else type = "float";
  static_cast<void>(default_value);
  return rule.computed_default ? type + " | None" : type;
}

}  // namespace option_detail

/// Converts the keywords of T's rows found in `kwargs` (nested option structs included) into `target`, and
/// removes them from `kwargs`. Secret rows are left in `kwargs` for their own conversion. Problems are
/// collected in `args` (the caller throws them together). With `none_keeps`, a keyword given as None leaves its
/// member as it is (the sandbox's: None is "the default", or "unchanged" for set_faults).
template <options::DescribedOptions T>
void read_options(ArgCollector& args, pybind11::dict& kwargs, T& target, bool none_keeps = false) {
  options::for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    if constexpr (options::DescribedOptions<M>) {
      read_options(args, kwargs, target.*row.member, none_keeps);
    } else {
      if (row.name.empty() || row.rule.secret) return;
      const pybind11::str key(row.name.data(), row.name.size());
      if (!kwargs.contains(key)) return;
      const pybind11::object value = kwargs[key];
      if (!(none_keeps && value.is_none())) option_detail::read_value(args, value, row.name, row.rule, target.*row.member);
      PyDict_DelItem(kwargs.ptr(), key.ptr());
    }
  });
}

/// Appends T's rows that Python sees to `out`, as dicts: name, cpp_member, type, default, rule, unit, flag,
/// choices, secret, variables, doc.
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
      const M& value = defaults.*row.member;
      if constexpr (option_detail::is_supported<M>) {
        entry["type"] = row.rule.secret ? "str | None" : option_detail::python_type(value, row.rule);
        entry["default"] = row.rule.secret || row.rule.computed_default
                               ? pybind11::object(pybind11::none())
                               : option_detail::python_value(value, row.rule);
        entry["rule"] = options::rule_of<M>(row.rule);
      } else {  // a secret's holder type of its own: given as text, its default never shown
        entry["type"] = "str | None";
        entry["default"] = pybind11::none();
        entry["rule"] = "";
      }
      entry["unit"] = std::string(options::unit_of<M>(row.rule));
      entry["flag"] = "--" + options::flag_of(row.name, row.rule);
      pybind11::list choices;
      if constexpr (options::HasChoices<M>) {
        for (const auto& choice : options::Choices<M>::all) choices.append(std::string(choice.name));
      }
      entry["choices"] = choices;
      entry["secret"] = row.rule.secret;
      pybind11::list variables;
      for (std::string_view variable : row.variables) variables.append(std::string(variable));
      entry["variables"] = variables;
      entry["doc"] = std::string(row.doc);
      out.append(entry);
    }
  });
}

/// The values of T's rows that Python sees, by keyword, as Python gives them (the sandbox's faults()).
template <options::DescribedOptions T>
void options_to_python(pybind11::dict& out, const T& values) {
  options::for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    if constexpr (options::DescribedOptions<M>) {
      options_to_python(out, values.*row.member);
    } else if constexpr (option_detail::is_supported<M>) {
      if (!row.name.empty() && !row.rule.secret) {
        out[pybind11::str(row.name.data(), row.name.size())] = option_detail::python_value(values.*row.member, row.rule);
      }
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
