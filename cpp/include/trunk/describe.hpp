#pragma once
// One declaration per concept: every wire message, model and enumeration of the API is declared once, as a
// field list (an X-macro), and everything else is derived from that list:
//   - the C++ struct's members (TRUNK_MEMBERS) and its description (TRUNK_DESCRIBE: schema::Model<T>);
//   - JSON encoding, the one decoder (tolerant for answers, strict for the sandbox's reading of requests);
//   - the declared constraints checked by validate() (required, non-empty, integer ranges, UUID, enums,
//     date-times), with the same messages everywhere;
//   - the Python classes (attributes, repr, ==, pickle, to_dict/from_dict, __match_args__), their .pyi
//     stubs, the DataFrame/CSV columns, the CLI's options and help, and the OpenAPI document.
//
// A field row is  X(type, member, "wireName", init, rules, "doc"):
//   type     the C++ type: std::string, std::int64_t, double, bool, Timestamp, an enum, OpenEnum<E>, another
//            described model, Json (a value the service's description gives no shape), std::vector<...> of
//            those, std::variant<...> of alternatives with different JSON kinds (an integer or a name; a list
//            or "ALL"), or std::optional<...> of any of them ("absent");
//   member   the C++ member name, which is also the Python attribute and the CLI option (snake_case);
//   init     the member's default initializer, usually {};
//   rules    a schema::Rules constant (kNone, kRequired, ...), in parentheses when written inline;
//   doc      one line for people: docstrings, --help, the OpenAPI description.
// Why X-macros rather than a separate table beside a hand-written struct (Boost.Describe-style): the member
// and its description come from the same row, so a field cannot be declared and forgotten by the codec;
// and unlike Boost.Describe the row carries the wire name, constraints and docs, which are the point here.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <type_traits>
#include <variant>
#include <vector>

namespace trunk::schema {

/// The declared constraints of one field. Cross-field rules (the 7-day window, requiredStatuses with
/// deleteRequiredStatuses) are not expressible here: validation.cpp writes them, once.
struct Rules {
  /// Requests: the sender must set it (strict decoding reports it missing). Answers: the contract marks it
  /// required (the tolerant decoder still reads a missing one as absent; the OpenAPI document says required).
  bool required = false;
  bool non_empty = false;  ///< text (or each text of a list): must not be ""
  bool uuid = false;       ///< text: 8-4-4-4-12 hexadecimal digits, either case
  bool omit_if_empty = false;  ///< text: "" is the default and is not sent (page_token)
  /// The position of a listing's page (listPullRequests' cursor): pagers set it, so iter_ calls do not take it.
  bool page_position = false;
  /// Requests: the service's published description allows `null` for this optional field, read as absent (the
  /// strict decoding refuses null for every other field; the encoders never write it): submitPullRequest's
  /// priority ("or null"). Answers: the description declares null a value of it (v2's nextCursor on the last
  /// page); the tolerant decoder reads any null as absent anyway, this only tells the OpenAPI document.
  bool nullable = false;
  /// Requests: a path parameter, written into the operation's path where it says "{wireName}" (percent-encoded)
  /// and nowhere else; required. The other fields go into the query (GET, DELETE) or the JSON body.
  bool path = false;
  std::int64_t min = std::numeric_limits<std::int64_t>::min();  ///< integers: inclusive bounds
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  /// Integers: the least value Trunk's service itself takes, where the contract's range starts higher
  /// (pendingFailureDepth: the contract says 1 to 4294967295, the service takes and answers 0, its default). The
  /// client keeps the contract's range and its error says so; the sandbox, standing in for the service, takes
  /// these values (check(value, path, Judge::service)). max(): none.
  std::int64_t service_min = std::numeric_limits<std::int64_t>::max();
  /// Lists: inclusive bounds on how many items it holds (getSubmittedPullRequests' prs: 1 to 50), so that the
  /// OpenAPI document says them (minItems, maxItems) and the checks need no rule of their own. max(): none.
  std::size_t min_items = 0;
  std::size_t max_items = std::numeric_limits<std::size_t>::max();
  /// Text (or each text of a list): at most this many characters (Unicode code points, as JSON Schema's maxLength
  /// counts them): a test collection's name, 100. max(): none.
  std::size_t max_length = std::numeric_limits<std::size_t>::max();

  constexpr bool has_range() const noexcept {
    return min != std::numeric_limits<std::int64_t>::min() || max != std::numeric_limits<std::int64_t>::max();
  }
};

inline constexpr Rules kNone{};
inline constexpr Rules kRequired{.required = true};
inline constexpr Rules kRequiredText{.required = true, .non_empty = true};
inline constexpr Rules kRequiredUuid{.required = true, .uuid = true};
/// Answers: a field the description requires and allows as null (v2's "null when unknown").
inline constexpr Rules kRequiredNullable{.required = true, .nullable = true};
/// The id of a v2 resource in its path (/v2/merge-queues/{id}): opaque text, required.
inline constexpr Rules kPathId{.required = true, .non_empty = true, .path = true};
/// The same where the id is a UUID (pull requests, repositories).
inline constexpr Rules kPathUuid{.required = true, .uuid = true, .path = true};
/// The unsigned 32-bit settings of the merge queue (docs/reference/service.md#limits).
inline constexpr Rules kSetting{.min = 1, .max = 4294967295};
inline constexpr Rules kRequiredSetting{.required = true, .min = 1, .max = 4294967295};
/// pendingFailureDepth: a setting whose 0, the service's default, the contract's range leaves out (Rules::service_min).
inline constexpr Rules kDepthSetting{.min = 1, .max = 4294967295, .service_min = 0};

template <typename Class, typename Member>
struct Field {
  using class_type = Class;
  using member_type = Member;
  std::string_view name;  ///< C++ member = Python attribute
  std::string_view wire;  ///< JSON key
  Member Class::*member;
  Rules rules;
  std::string_view doc;
};

/// Closes a field list (the macro rows end with a comma).
struct End {};

/// Specialised by TRUNK_DESCRIBE for every described struct: name, doc, fields.
template <typename T>
struct Model;

template <typename T>
concept Described = requires { Model<T>::fields; };

/// Specialised by TRUNK_ENUM for every enumeration.
template <typename E>
struct Enum;

template <typename E>
concept DescribedEnum = std::is_enum_v<E> && requires { Enum<E>::wire; };

/// Options of an enumeration's declaration.
struct EnumOptions {
  /// How many values (from the first) a request may carry; the rest are reported only (switching_modes).
  std::size_t requestable = std::numeric_limits<std::size_t>::max();
  /// Python and the CLI accept the value in any case ("flaky" for FLAKY).
  bool case_insensitive_input = false;
};

// A model's fields, one slot per field, each of its own type. Why not std::tuple: every translation unit that
// includes the models instantiates each model's field list, and std::tuple's recursive storage and its
// constrained constructors cost the compiler about O(n^2) per list of n fields. These slots are one flat
// aggregate (measured: `#include "trunk/models.hpp"` went from 7.3 s to 3.1 s of g++ -fsyntax-only, and every
// test and library file pays it once per build tree; docs/development.md#cis-time).
template <std::size_t I, typename T>
struct FieldSlot {
  T value;
};
template <typename Indices, typename... T>
struct FieldList;
template <std::size_t... I, typename... T>
struct FieldList<std::index_sequence<I...>, T...> : FieldSlot<I, T>... {
  static constexpr std::size_t size = sizeof...(T);
};
template <typename... T>
constexpr FieldList<std::index_sequence_for<T...>, T...> make_field_list(T... fields) {
  return {{fields}...};
}
/// The I-th field of a list (the slot's type is deduced from its base: no recursion).
template <std::size_t I, typename T>
constexpr const T& get(const FieldSlot<I, T>& slot) {
  return slot.value;
}

template <typename F, typename X>
constexpr void call_unless_end(F& f, const X& x) {
  if constexpr (!std::is_same_v<X, End>) f(x);
}

/// Calls f(field) for every field of T, in declaration order.
template <Described T, typename F>
constexpr void for_each_field(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (call_unless_end(f, schema::get<I>(Model<T>::fields)), ...);
  }(std::make_index_sequence<std::remove_cvref_t<decltype(Model<T>::fields)>::size>{});
}

template <Described T>
constexpr std::size_t field_count() {
  return std::remove_cvref_t<decltype(Model<T>::fields)>::size - 1;
}

/// True for models that keep the unknown keys of the wire in an `extra` member.
template <typename T>
concept HasExtras = requires(T value) { value.extra; };

// ---- type classification used by every derived part ------------------------------------------------------
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

template <typename T>
struct IsVariant : std::false_type {};
template <typename... T>
struct IsVariant<std::variant<T...>> : std::true_type {};

template <typename T>
struct Unwrapped {
  using type = T;
};
template <typename T>
struct Unwrapped<std::optional<T>> {
  using type = T;
};
/// std::optional<X> -> X, else T.
template <typename T>
using unwrap_optional_t = typename Unwrapped<T>::type;

}  // namespace trunk::schema

/// The members of a field list, inside the struct: `struct X { TRUNK_MEMBERS(LIST) ... };`
#define TRUNK_MEMBERS(LIST) LIST(TRUNK_DECLARE_MEMBER_)
#define TRUNK_DECLARE_MEMBER_(type, member, wire, init, rules, doc) type member init;

/// The description of a struct, at namespace trunk scope after the struct.
#define TRUNK_DESCRIBE(Type, doc_text, LIST)                                                                \
  template <>                                                                                               \
  struct schema::Model<Type> {                                                                              \
    using Self = Type;                                                                                      \
    static constexpr std::string_view name = #Type;                                                         \
    static constexpr std::string_view doc = doc_text;                                                       \
    static constexpr auto fields =                                                                          \
        ::trunk::schema::make_field_list(LIST(TRUNK_DESCRIBE_FIELD_)::trunk::schema::End{});                \
  };
#define TRUNK_DESCRIBE_FIELD_(type, member, wire, init, rules, doc) \
  ::trunk::schema::Field<Self, type>{#member, wire, &Self::member, rules, doc},

/// An enumeration and its description, at namespace trunk scope. Value rows: X(enumerator, "wire").
#define TRUNK_ENUM(Type, doc_text, LIST, ...)                                                  \
  enum class Type { LIST(TRUNK_ENUMERATOR_) };                                                 \
  template <>                                                                                  \
  struct schema::Enum<Type> {                                                                  \
    static constexpr std::string_view name = #Type;                                            \
    static constexpr std::string_view doc = doc_text;                                          \
    static constexpr auto wire = std::array{LIST(TRUNK_ENUM_WIRE_)};                           \
    static constexpr auto names = std::array{LIST(TRUNK_ENUM_NAME_)};                          \
    static constexpr ::trunk::schema::EnumOptions options{__VA_ARGS__};                         \
  };
#define TRUNK_ENUMERATOR_(enumerator, wire) enumerator,
#define TRUNK_ENUM_WIRE_(enumerator, wire) std::string_view{wire},
#define TRUNK_ENUM_NAME_(enumerator, wire) std::string_view{#enumerator},
