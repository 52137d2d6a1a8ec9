#pragma once
// Option rows (option_rows.hpp) as text, for every place that is not Python: a rule in words, a value as a
// person reads it, a value parsed from a command-line argument, and the check of a struct a C++ caller filled.
// The Python keywords (python/src/option_keywords.hpp) use the same words, so an option is refused alike
// wherever it is given.

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/option_rows.hpp"
#include "trunk/time.hpp"

namespace trunk::options {

template <typename M>
inline constexpr bool is_duration = std::is_same_v<M, std::chrono::milliseconds>;
template <typename M>
inline constexpr bool is_text = std::is_same_v<M, std::string> || std::is_same_v<M, std::optional<std::string>>;
/// Whole numbers: int, std::size_t (a count) and std::uint64_t (a seed).
template <typename M>
inline constexpr bool is_whole =
    std::is_same_v<M, int> || std::is_same_v<M, std::size_t> || std::is_same_v<M, std::uint64_t>;
template <typename M>
inline constexpr bool is_real = std::is_same_v<M, double> || std::is_same_v<M, std::optional<double>>;
template <typename M>
inline constexpr bool is_time = std::is_same_v<M, std::optional<Timestamp>>;
/// A value that is absent unless given: its default is shown as "none".
template <typename M>
inline constexpr bool is_optional = std::is_same_v<M, std::optional<double>> || is_time<M> ||
                                    std::is_same_v<M, std::optional<std::string>>;

/// The unit a duration row is given in ("seconds" or "milliseconds"); "" for any other row.
template <typename M>
constexpr std::string_view unit_of(const OptionRule& rule) {
  if constexpr (is_duration<M>) {
    return rule.milliseconds ? "milliseconds" : "seconds";
  } else {
    return "";
  }
}

/// Whether the row's value is given as a whole number.
template <typename M>
constexpr bool given_whole(const OptionRule& rule) {
  return is_whole<M> || (is_duration<M> && rule.milliseconds);
}

inline std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

/// The rule of a row in words, "" when any value of its type goes: "between 0 and 100", "> 0 and <= 31536000
/// seconds", ">= 0", "\"real\" or \"virtual\"".
template <typename M>
std::string rule_of(const OptionRule& rule) {
  if constexpr (HasChoices<M>) {
    std::string text;
    const auto& all = Choices<M>::all;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i > 0) text += i + 1 == all.size() ? " or " : ", ";
      text += "\"" + std::string(all[i].name) + "\"";
    }
    return text;
  } else {
    const bool has_min = std::isfinite(rule.min);
    const bool has_max = std::isfinite(rule.max);
    std::string text;
    if (given_whole<M>(rule) && has_min && has_max && rule.min_inclusive) {
      text = "between " + number_text(rule.min) + " and " + number_text(rule.max);
    } else {
      if (has_min) text = std::string(rule.min_inclusive ? ">= " : "> ") + number_text(rule.min);
      if (has_max) text += (text.empty() ? "<= " : " and <= ") + number_text(rule.max);
    }
    const std::string_view unit = unit_of<M>(rule);
    if (!text.empty() && !unit.empty()) text += " " + std::string(unit);
    return text;
  }
}

inline bool within(const OptionRule& rule, double value) {
  const bool above = rule.min_inclusive ? value >= rule.min : value > rule.min;
  return above && value <= rule.max;
}

/// The command-line flag of a row, without "--": the rule's spelling, else the name with '-' for '_'.
inline std::string flag_of(std::string_view name, const OptionRule& rule) {
  std::string flag(rule.flag.empty() ? name : rule.flag);
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

/// A duration in the unit its row is given in.
inline double given_duration(std::chrono::milliseconds value, const OptionRule& rule) {
  return rule.milliseconds ? static_cast<double>(value.count()) : static_cast<double>(value.count()) / 1000.0;
}

/// A value as a person reads it ("none" for an absent one): --help's defaults, a violation's value.
template <typename M>
std::string value_text(const M& value, const OptionRule& rule) {
  if constexpr (std::is_same_v<M, bool>) {
    return value ? "true" : "false";
  } else if constexpr (is_whole<M>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<M, double>) {
    return number_text(value);
  } else if constexpr (is_duration<M>) {
    return number_text(given_duration(value, rule));
  } else if constexpr (std::is_same_v<M, std::string>) {
    return value.empty() ? "none" : value;
  } else if constexpr (std::is_same_v<M, std::optional<double>>) {
    return value ? number_text(*value) : "none";
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    return value ? *value : "none";
  } else if constexpr (is_time<M>) {
    return value ? format_rfc3339(*value) : "none";
  } else if constexpr (HasChoices<M>) {
    for (const auto& choice : Choices<M>::all) {
      if (choice.value == value) return std::string(choice.name);
    }
    return "?";
  } else {
    static_assert(!sizeof(M*), "an option row of a type option_text.hpp does not render: add it here");
  }
}

/// Parses `text` (a command-line argument) into `out` by the row's type and rule; on failure returns what the
/// value must be ("an integer between 0 and 65535") and leaves `out` as it was.
template <typename M>
std::optional<std::string> parse_text(std::string_view text, const OptionRule& rule, M& out) {
  const std::string rule_words = rule_of<M>(rule);
  if constexpr (is_text<M>) {
    out = std::string(text);
    return std::nullopt;
  } else if constexpr (is_time<M>) {
    std::string problem;
    auto parsed = try_parse_rfc3339(text, &problem);
    if (!parsed) return "an RFC 3339 timestamp (" + problem + ")";
    out = *parsed;
    return std::nullopt;
  } else if constexpr (HasChoices<M>) {
    for (const auto& choice : Choices<M>::all) {
      if (choice.name == text) {
        out = choice.value;
        return std::nullopt;
      }
    }
    return rule_words;
  } else if constexpr (std::is_same_v<M, bool>) {
    if (text == "true") out = true;
    else if (text == "false") out = false;
    else return std::string("true or false");
    return std::nullopt;
  } else if constexpr (given_whole<M>(OptionRule{.milliseconds = true})) {
    // Whole numbers (and whole milliseconds): from_chars of the widest type that holds the row's range.
    using Wide = std::conditional_t<std::is_same_v<M, std::uint64_t>, std::uint64_t, std::int64_t>;
    const std::string must = rule_words.empty() ? "an integer" : "an integer " + rule_words;
    if constexpr (is_duration<M>) {
      if (!rule.milliseconds) {  // a duration in seconds: a number
        std::optional<double> seconds;
        if (auto problem = parse_text(text, rule, seconds)) return problem;
        out = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(*seconds * 1000.0)));
        return std::nullopt;
      }
    }
    Wide value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) {
      return std::is_same_v<M, std::uint64_t> ? must + " (at most 18446744073709551615)" : must;
    }
    if (!within(rule, static_cast<double>(value))) return must;
    if constexpr (is_duration<M>) {
      out = std::chrono::milliseconds(value);
    } else {
      out = static_cast<M>(value);
    }
    return std::nullopt;
  } else {
    static_assert(is_real<M>, "an option row of a type option_text.hpp does not parse: add it here");
    const std::string must = rule_words.empty() ? "a finite number" : "a number " + rule_words;
    const std::string copy(text);  // strtod needs the terminating NUL
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(value) ||
        !within(rule, value)) {
      return must;
    }
    out = value;
    return std::nullopt;
  }
}

/// The violations of the values of T's rows that break their rules (numbers outside their bounds), each naming
/// the C++ member, its value (in the unit the row is given in) and the rule. For a struct a C++ caller filled:
/// the Python keywords and the command lines check as they convert.
template <DescribedOptions T>
void check(const T& values, std::vector<Violation>& out) {
  for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    const M& value = values.*row.member;
    if constexpr (DescribedOptions<M>) {
      check(value, out);
    } else if constexpr (is_whole<M> || std::is_same_v<M, double> || is_duration<M>) {
      double number = 0;
      if constexpr (is_duration<M>) {
        number = given_duration(value, row.rule);
      } else {
        number = static_cast<double>(value);
      }
      if (!within(row.rule, number)) {
        out.push_back({std::string(row.member_name), value_text(value, row.rule), "must be " + rule_of<M>(row.rule)});
      }
    } else if constexpr (std::is_same_v<M, std::optional<double>>) {
      if (value && !within(row.rule, *value)) {
        out.push_back({std::string(row.member_name), value_text(value, row.rule), "must be " + rule_of<M>(row.rule)});
      }
    }
  });
}

}  // namespace trunk::options
