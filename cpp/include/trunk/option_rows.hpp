#pragma once
// Options declared like the models (describe.hpp): each options struct is one row list, and everything else is
// derived from it: the struct's members and defaults, the Python keywords with their conversion and validation
// (python/src/option_keywords.hpp), the description _core.option_rows() gives Python, from which the facades'
// signatures, the .pyi stubs, the command-line flags and the docs' configuration table are made.
//
// An option row is  X(type, member, "name", init, rule, variables, "doc"):
//   type       the C++ type: bool, int, std::size_t, std::uint64_t, double, std::optional<double>, std::string,
//              std::optional<std::string>, std::optional<trunk::Timestamp> (RFC 3339 text or a datetime),
//              std::chrono::milliseconds (Python and the command line speak seconds, or whole milliseconds when
//              the rule says so), an enumeration with Choices (its values' names), or another options struct
//              described here (its rows are taken in its place: ClientOptions' retry, SandboxOptions' faults);
//   member     the C++ member;
//   name       the Python keyword (and, with '-' for '_', the command-line flag); "" = C++ only;
//   init       the member's default initializer, e.g. {30000};
//   rule       an OptionRule (bounds of a number, in the unit Python speaks), in parentheses when inline;
//   variables  the environment variables read when the option is not given (kNoVariables for none);
//   doc        one line for people: docstrings, --help, the docs' table.
// Callables and test hooks (a log sink, an interrupt check, a clock) are not options a user writes down: they
// stay ordinary members beside the rows.

#include <array>
#include <cstddef>
#include <limits>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace trunk::options {

/// What a value must satisfy, in the unit Python speaks (seconds for durations, unless `milliseconds`), and how
/// it is given. Checked where the value is given (the Python keywords, the command lines, option_text.hpp's
/// check() for a struct C++ callers filled).
struct OptionRule {
  double min = -std::numeric_limits<double>::infinity();
  bool min_inclusive = true;
  double max = std::numeric_limits<double>::infinity();
  /// A secret (the token): never rendered, converted in its own place, never a command-line default.
  bool secret = false;
  /// A duration given in whole milliseconds (the sandbox's `_ms` settings), not in seconds.
  bool milliseconds = false;
  /// The default is worked out where it runs (the sandbox's threads: the machine's cores): shown as None, and
  /// None keeps it.
  bool computed_default = false;
  /// A file path: Python also takes an os.PathLike.
  bool path = false;
  /// The command-line flag without its "--", when it is not the name's: a spelling users already type
  /// (`--org`); "" = the name with '-' for '_'.
  std::string_view flag{};
};

inline constexpr OptionRule kAnyValue{};
inline constexpr OptionRule kSecret{.secret = true};
inline constexpr OptionRule kNonNegative{.min = 0};
/// A duration that must be given: more than 0, at most a year (anything longer is a mistake, not a timeout).
inline constexpr OptionRule kPositiveDuration{.min = 0, .min_inclusive = false, .max = 365.0 * 24 * 3600};
/// A duration where 0 means none: from 0 to a year.
inline constexpr OptionRule kDurationOrZero{.min = 0, .max = 365.0 * 24 * 3600};
/// A file path (Python also takes an os.PathLike).
inline constexpr OptionRule kPath{.path = true};
/// A probability or a share of requests.
inline constexpr OptionRule kFraction{.min = 0, .max = 1};
/// A duration in whole milliseconds, from 0 to `max`.
constexpr OptionRule milliseconds_up_to(double max) { return {.min = 0, .max = max, .milliseconds = true}; }
/// A whole number from `min` to `max`.
constexpr OptionRule between(double min, double max) { return {.min = min, .max = max}; }
/// `rule` given on the command line as --`flag`.
constexpr OptionRule with_flag(OptionRule rule, std::string_view flag) {
  rule.flag = flag;
  return rule;
}

/// One value of an enumeration that is an option, with the name Python and the command line give it.
template <typename E>
struct Choice {
  E value;
  std::string_view name;
};

/// Specialised for every enumeration an option row holds: `static constexpr std::array<Choice<E>, N> all`.
template <typename E>
struct Choices;

template <typename E>
concept HasChoices = requires { Choices<E>::all; };

/// The environment variables an option is read from, in order of preference.
using Variables = std::span<const std::string_view>;
inline constexpr Variables kNoVariables{};

template <typename Owner, typename Member>
struct Option {
  using owner_type = Owner;
  using member_type = Member;
  std::string_view member_name;  ///< the C++ member
  std::string_view name;         ///< the Python keyword; "" = C++ only
  Member Owner::*member;
  OptionRule rule;
  Variables variables;
  std::string_view doc;
};

/// Closes a row list (the macro rows end with a comma).
struct End {};

/// Specialised by TRUNK_DESCRIBE_OPTIONS for every options struct.
template <typename T>
struct Rows;

template <typename T>
concept DescribedOptions = requires { Rows<T>::rows; };

/// Calls f(option) for every row of T, in declaration order.
template <DescribedOptions T, typename F>
constexpr void for_each_option(F&& f) {
  std::apply([&](const auto&... row) {
    (
        [&](const auto& one) {
          if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(one)>, End>) f(one);
        }(row),
        ...);
  }, Rows<T>::rows);
}

}  // namespace trunk::options

/// The members of an option row list, inside the struct: `struct X { TRUNK_OPTION_MEMBERS(LIST) ... };`
#define TRUNK_OPTION_MEMBERS(LIST) LIST(TRUNK_DECLARE_OPTION_MEMBER_)
#define TRUNK_DECLARE_OPTION_MEMBER_(type, member, name, init, rule, variables, doc) type member init;

/// The description of an options struct, at namespace trunk scope after the struct.
#define TRUNK_DESCRIBE_OPTIONS(Type, LIST)                                                           \
  template <>                                                                                        \
  struct options::Rows<Type> {                                                                       \
    using Self = Type;                                                                               \
    static constexpr std::string_view name = #Type;                                                  \
    static constexpr auto rows = std::tuple{LIST(TRUNK_DESCRIBE_OPTION_)::trunk::options::End{}};   \
  };
#define TRUNK_DESCRIBE_OPTION_(type, member, name, init, rule, variables, doc) \
  ::trunk::options::Option<Self, type>{#member, name, &Self::member, rule, variables, doc},
