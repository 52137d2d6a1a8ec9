#pragma once
// Conversion of Python call arguments into the C++ request structs, field by field.
//
// Every problem becomes a trunk::Violation naming the field by its wire name (the same names validation.hpp
// uses), the value as given, and the rule: a wrong Python type, an integer too big for 64 bits, a string that
// is not an enum value, an unparsable time. ArgCollector gathers them all; finish() then adds what
// trunk::check() finds on the fields that did convert and throws one ValidationError listing everything, so
// the caller sees every mistake at once, as with the C++ API. Nothing is sent when anything is wrong.

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/enums.hpp"
#include "trunk/error.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"
#include "trunk/validation.hpp"

namespace trunk::python {

class ArgCollector {
 public:
  Repo repo(pybind11::handle value, std::string_view field = "repo");
  std::string text(pybind11::handle value, std::string_view field);
  std::int64_t integer(pybind11::handle value, std::string_view field);
  bool boolean(pybind11::handle value, std::string_view field);
  /// A finite int or float (not bool).
  double number(pybind11::handle value, std::string_view field);
  /// Seconds (int or float) as milliseconds; must be >= minimum_seconds (and finite).
  std::chrono::milliseconds seconds(pybind11::handle value, std::string_view field, double minimum_seconds,
                                    bool minimum_allowed);
  Timestamp timestamp(pybind11::handle value, std::string_view field);
  std::vector<std::string> text_list(pybind11::handle value, std::string_view field);

  /// A member of the Python enum or its wire string; any case where the enumeration's declaration says so
  /// (HealthStatus). The rule names the values a request may carry.
  template <schema::DescribedEnum E>
  E enumeration(pybind11::handle value, std::string_view field) {
    const std::string given = text(value, field);
    if (failed(field)) return E{};
    std::string wire = given;
    if constexpr (schema::Enum<E>::options.case_insensitive_input) {
      for (char& c : wire) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    if (auto known = enum_from_wire<E>(wire)) return *known;
    std::string allowed;
    for (std::string_view option : enum_requestable_values<E>()) {
      allowed += allowed.empty() ? "" : ", ";
      allowed += option;
    }
    add(field, given, "must be one of " + allowed);
    return E{};
  }

  /// Throws ValidationError when a conversion failed; the violations check() reports for `request` are
  /// added, except those of fields whose conversion already failed (they hold placeholders).
  template <typename Request>
  void finish(const Request& request) const {
    if (violations_.empty()) return;
    std::vector<Violation> all = violations_;
    for (Violation& violation : check(request)) {
      if (!failed(violation.field)) all.push_back(std::move(violation));
    }
    throw ValidationError(std::move(all));
  }

  /// Like finish(), but also throws when only check() finds something (for values built here, like Repo).
  template <typename Value>
  void finish_and_check(const Value& value) const {
    finish(value);
    auto violations = check(value);
    if (!violations.empty()) throw ValidationError(std::move(violations));
  }

  /// Throws ValidationError listing the conversion problems, if any (for arguments that are not a request).
  void throw_if_failed() const {
    if (!violations_.empty()) throw ValidationError(violations_);
  }

  bool ok() const noexcept { return violations_.empty(); }
  /// No conversion of `field` failed (so far).
  bool accepted(std::string_view field) const { return !failed(field); }

  /// Records that `value` has none of the types `field` accepts (`rule` says which).
  void reject_type(pybind11::handle value, std::string_view field, std::string rule);

 private:
  void add(std::string_view field, std::string value, std::string rule);
  bool failed(std::string_view field) const;

  std::vector<Violation> violations_;
  std::set<std::string, std::less<>> failed_fields_;
};

/// repr() of a Python value for a violation (bounded, never throws).
std::string describe(pybind11::handle value);

}  // namespace trunk::python
