#pragma once
// Internal: the one JSON decoder, driven by the field lists of describe.hpp, on simdjson's On-Demand API
// (it parses straight from the bytes into the model: no DOM, no allocation per key).
//
// Two modes, chosen by the type: models that keep unknown keys (answers) are read tolerantly, messages
// without (requests, read by the sandbox) strictly.
//  - tolerant: null and missing read as absent, unknown keys kept in `extra`, unknown enum values kept raw
//    (OpenEnum);
//  - strict: null is a value of the wrong type like any other (the client never sends null and the OpenAPI
//    document gives no field null: "page_token: expected string, got null"; a field declared `nullable`, as
//    the published description makes submitPullRequest's priority, reads it as absent), and a missing required field,
//    an unknown key, an unknown enum value or a bad timestamp is recorded so that one ValidationError lists
//    them all.
// In both, an integer may be written with a zero fraction or an exponent (5.0, 1e3: JSON Schema's
// "integer"), a value of the wrong JSON type is a DecodeError naming its path
// ("tests[3].failure_rate_last_7d: expected number, got string"), and malformed JSON is a DecodeError with
// the path "" and a message starting "malformed JSON: ".

#include <simdjson.h>

#include <array>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "decode_body.hpp"
#include "text.hpp"
#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk::detail {

namespace od = simdjson::ondemand;

/// Where a value sits in the document, built on the stack as the decoder descends and turned into text
/// ("tests[3].status.timestamp") only on the way to an error.
struct JsonPath {
  const JsonPath* parent = nullptr;
  std::string_view key;     // a member, when !is_index
  std::size_t index = 0;    // an array element, when is_index
  bool is_index = false;

  JsonPath member(std::string_view name) const { return JsonPath{this, name, 0, false}; }
  JsonPath element(std::size_t i) const { return JsonPath{this, {}, i, true}; }
  std::string str() const;
};

enum class DecodeMode { tolerant, strict };

struct DecodeContext {
  DecodeMode mode;
  std::vector<Violation> violations;  // strict mode
};

[[noreturn]] void throw_malformed(simdjson::error_code error);
[[noreturn]] void throw_wrong_type(const JsonPath& path, std::string_view expected, od::json_type actual);
/// The raw JSON text of a value (consumed), for `extra` and for messages.
std::string_view raw_json_of(od::value& value);
/// Parses a raw JSON value kept for `extra`.
Json parse_extra(std::string_view raw);
/// "must be one of a, b, c"
std::string one_of_rule(std::span<const std::string_view> allowed);

template <typename T>
T checked(simdjson::simdjson_result<T>&& result) {
  T value;
  if (auto error = std::move(result).get(value)) throw_malformed(error);
  return value;
}

inline od::json_type type_of(od::value& value) { return checked(value.type()); }

// ---- scalars -------------------------------------------------------------------------------------------------
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::string& out);
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::int64_t& out);
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, double& out);
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, bool& out);
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, Timestamp& out);
/// An optional time: in an answer, text that is not a time leaves it absent and is kept in `extras` under its
/// key (decoders are tolerant: one odd time must not lose the answer, nor be silently dropped); in a request it
/// is a violation, as for a required time.
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::optional<Timestamp>& out,
                Json& extras);
/// A value the description gives no shape: kept as it came.
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, Json& out);

/// A closed enumeration (requests): an unknown value is a violation.
template <schema::DescribedEnum E>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, E& out) {
  std::string text;
  read_value(value, path, context, text);
  if (auto known = enum_from_wire<E>(text)) {
    out = *known;
    return;
  }
  // switching_modes is a known value (validate() rejects it in a request) but not one to suggest.
  context.violations.push_back({path.str(), detail::quoted(text), one_of_rule(enum_requestable_values<E>())});
}

/// An open enumeration (answers): any string, known values mapped.
template <schema::DescribedEnum E>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::optional<OpenEnum<E>>& out) {
  std::string text;
  read_value(value, path, context, text);
  out = OpenEnum<E>::from_wire(text);
}

template <schema::Described T>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, T& out);

template <typename X>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::vector<X>& out) {
  const od::json_type type = type_of(value);
  if (type != od::json_type::array) throw_wrong_type(path, "array", type);
  od::array array = checked(value.get_array());
  out.clear();
  std::size_t index = 0;
  for (auto element_result : array) {
    od::value element = checked(std::move(element_result));
    X item{};
    read_value(element, path.element(index), context, item);
    out.push_back(std::move(item));
    ++index;
  }
}

/// The JSON kind a value of type X is written as (the alternatives of a variant differ in it).
template <typename X>
constexpr od::json_type json_kind() {
  if constexpr (std::is_same_v<X, std::string> || std::is_same_v<X, Timestamp> || schema::DescribedEnum<X>) {
    return od::json_type::string;
  } else if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, double>) {
    return od::json_type::number;
  } else if constexpr (std::is_same_v<X, bool>) {
    return od::json_type::boolean;
  } else if constexpr (schema::IsVector<X>::value) {
    return od::json_type::array;
  } else {
    static_assert(schema::Described<X>, "a variant alternative the decoder cannot tell apart");
    return od::json_type::object;
  }
}

std::string_view json_kind_name(od::json_type type);

/// One of several alternatives, told apart by the JSON kind of the value (a number or a name; a list or "ALL").
template <typename... A>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::variant<A...>& out) {
  const od::json_type type = type_of(value);
  bool matched = false;
  auto try_alternative = [&]<typename X>(std::type_identity<X>) {
    if (matched || json_kind<X>() != type) return;
    matched = true;
    X alternative{};
    read_value(value, path, context, alternative);
    out = std::move(alternative);
  };
  (try_alternative(std::type_identity<A>{}), ...);
  if (!matched) {
    std::string expected;
    ((expected += (expected.empty() ? "" : " or ") + std::string(json_kind_name(json_kind<A>()))), ...);
    throw_wrong_type(path, expected, type);
  }
}

// ---- objects ---------------------------------------------------------------------------------------------
template <schema::Described T, std::size_t I>
void read_field(T& out, od::value& value, const JsonPath& path, DecodeContext& context, Json& extras) {
  constexpr const auto& field = std::get<I>(schema::Model<T>::fields);
  using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
  if constexpr (schema::IsOptional<Member>::value) {
    using Inner = typename Member::value_type;
    if constexpr (requires { typename Inner::is_open_enum; }) {
      read_value(value, path, context, out.*(field.member));  // the OpenEnum overload takes the optional
    } else if constexpr (std::is_same_v<Inner, Timestamp>) {
      read_value(value, path, context, out.*(field.member), extras);
    } else {
      read_value(value, path, context, (out.*(field.member)).emplace());
    }
  } else {
    read_value(value, path, context, out.*(field.member));
  }
}

/// Back to the field's default: a key met a second time is read as if the first had not been there.
template <schema::Described T, std::size_t I>
void clear_field(T& out) {
  constexpr const auto& field = std::get<I>(schema::Model<T>::fields);
  using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
  out.*(field.member) = Member{};
}

template <schema::Described T>
struct FieldDispatch {
  using Reader = void (*)(T&, od::value&, const JsonPath&, DecodeContext&, Json& extras);
  using Clearer = void (*)(T&);
  struct Entry {
    std::string_view wire;
    Reader read;
    Clearer clear;
    bool required;
    bool nullable;
  };
  static constexpr std::size_t size = schema::field_count<T>();
  static_assert(size <= 64, "a model has at most 64 fields (the decoder tracks them in a bitset)");

  template <std::size_t... I>
  static constexpr std::array<Entry, size> make(std::index_sequence<I...>) {
    return {Entry{std::get<I>(schema::Model<T>::fields).wire, &read_field<T, I>, &clear_field<T, I>,
                  std::get<I>(schema::Model<T>::fields).rules.required,
                  std::get<I>(schema::Model<T>::fields).rules.nullable}...};
  }
  static constexpr std::array<Entry, size> entries = make(std::make_index_sequence<size>{});

  /// Index of the field named `key`, or size. Keys usually come in declaration order (or sorted, from
  /// nlohmann-based senders): start after the previous match, then wrap around.
  static std::size_t find(std::string_view key, std::size_t hint) noexcept {
    if constexpr (size == 0) {
      return size;  // a model of no declared fields (Acknowledgement): every key is unknown
    } else {
      for (std::size_t n = 0; n < size; ++n) {
        const std::size_t i = (hint + n) % size;
        if (entries[i].wire == key) return i;
      }
      return size;
    }
  }
};

/// Keeps an unknown key: in `extras` for an answer; for a request, to be reported by report_unknown_keys.
void record_unknown_key(DecodeContext& context, const JsonPath& path, od::value& value, Json& extras);
/// Strict mode: one violation per unknown key (sorted by key), after the object's other problems.
void report_unknown_keys(DecodeContext& context, const JsonPath& path, const Json& unknown);
/// Throws for a document whose root is not an object: malformed when it is not JSON at all, else wrong type.
[[noreturn]] void reject_non_object_root(std::string_view body, const JsonPath& path, od::json_type type);

/// A member's key, unescaped. Keys almost never hold an escape: such a key is the text between its quotes, read
/// in place (the syntax check has already validated it), without the call into simdjson's string unescaper that
/// unescaped_key() makes per key (5 % of decoding the 2 KB webhook event of benchmarks/run.py scenario 10, of
/// about 30 keys). A key with a backslash is unescaped as before.
inline std::string_view key_of(od::field& member) {
  const char* start = member.key().raw();
  const char* end = start;
  while (*end != '"' && *end != '\\') ++end;
  if (*end == '"') return {start, static_cast<std::size_t>(end - start)};
  return checked(member.unescaped_key());
}

template <schema::Described T>
void read_object(od::object& object, const JsonPath& path, DecodeContext& context, T& out) {
  using Dispatch = FieldDispatch<T>;
  std::bitset<64> seen;  // a value was read (a required field is present)
  std::bitset<64> met;   // the key appeared, null or not
  std::size_t hint = 0;
  Json extras;  // null until the first unknown key: most objects have none
  for (auto member_result : object) {
    od::field member = checked(std::move(member_result));
    const std::string_view key = key_of(member);
    od::value value = member.value();
    const std::size_t index = Dispatch::find(key, hint);
    if (index == Dispatch::size) {
      record_unknown_key(context, path.member(key), value, extras);
      continue;
    }
    hint = index + 1;
    if (met.test(index)) {
      // A duplicate key: the last occurrence wins, as in nlohmann, Python's json and JavaScript. What the
      // first one left (a value, or text kept in `extras` by a lenient reader) is dropped, so decoding what
      // the model encodes gives the same model.
      Dispatch::entries[index].clear(out);
      if (extras.is_object()) {
        extras.erase(std::string(key));
        if (extras.empty()) extras = Json();  // null, as for an object that never had an unknown key
      }
      seen.reset(index);
    }
    met.set(index);
    // An answer's null reads as absent. A request's null goes to the field's reader, which refuses it like
    // any other wrong type ("expected integer, got null"), unless the field is declared nullable (the
    // published description allows it): the request decoding is the sandbox's, the one place where what a
    // request may hold is decided (see the top of this file).
    if ((context.mode == DecodeMode::tolerant || Dispatch::entries[index].nullable) && checked(value.is_null())) {
      continue;
    }
    seen.set(index);
    Dispatch::entries[index].read(out, value, path.member(key), context, extras);
  }
  if (context.mode == DecodeMode::strict) {
    for (std::size_t i = 0; i < Dispatch::size; ++i) {
      if (Dispatch::entries[i].required && !seen.test(i)) {
        context.violations.push_back({path.member(Dispatch::entries[i].wire).str(), "<missing>", "is required"});
      }
    }
    report_unknown_keys(context, path, extras);
  } else if constexpr (schema::HasExtras<T>) {
    out.extra = std::move(extras);
  }
}

template <schema::Described T>
void read_value(od::value& value, const JsonPath& path, DecodeContext& context, T& out) {
  const od::json_type type = type_of(value);
  if (type != od::json_type::object) throw_wrong_type(path, "object", type);
  od::object object = checked(value.get_object());
  read_object(object, path, context, out);
}

/// Throws DecodeError("", ...) when the text nests deeper than the decoder allows (a byte scan; validate_syntax
/// checks the depth in its parse and calls this only where that parse stops early).
void check_nesting_depth(std::string_view text);

/// Throws DecodeError("", "malformed JSON: ...") unless the whole text is JSON nested at most 128 levels deep.
/// On-Demand checks only what it reads, and skipping an unknown key's value does not check the structure after
/// it (fuzz finding: {"a":"b":1} read as an object), so the document's syntax is checked first by simdjson's
/// validating parser, which also refuses deeper nesting (hostile input must not reach the recursive code).
/// Returns the document as that parser read it (valid until its thread parses again), or nullopt when the
/// parser stopped at a number no double holds and a slower check accepted the text.
std::optional<simdjson::dom::element> validate_syntax(simdjson::padded_string_view padded);

/// The document as T (see the top of this file), read in place from text with simdjson's padding after it,
/// whose syntax validate_syntax has already checked (and accepted): the caller that needed to look at the
/// validated document first (a webhook event's `type` chooses T) does not pay for a second validating parse.
template <schema::Described T>
T decode_validated(simdjson::padded_string_view padded, std::string_view root_path = "") {
  const std::string_view body(padded.data(), padded.length());
  const JsonPath root_at{nullptr, root_path, 0, false};
  thread_local od::parser parser;
  od::document document;
  if (auto error = parser.iterate(padded).get(document)) throw_malformed(error);
  DecodeContext context{schema::HasExtras<T> ? DecodeMode::tolerant : DecodeMode::strict, {}};
  const od::json_type type = checked(document.type());
  if (type != od::json_type::object) reject_non_object_root(body, root_at, type);
  od::object root = checked(document.get_object());
  T out{};
  read_object(root, root_at, context, out);
  // Whatever follows the root object must be nothing at all.
  const char* rest = nullptr;
  if (!document.current_location().get(rest)) {
    throw DecodeError("", "malformed JSON: unexpected content after the document");
  }
  if (!context.violations.empty()) throw ValidationError(std::move(context.violations));
  return out;
}

/// The document as T, read in place from text with simdjson's padding after it: validate_syntax, then
/// decode_validated. `on_validated`, when given, sees the validated document before it is decoded
/// (decode_body.hpp).
template <schema::Described T>
T decode_padded(simdjson::padded_string_view padded, std::string_view root_path = "",
                const OnValidated& on_validated = {}) {
  const std::optional<simdjson::dom::element> validated = validate_syntax(padded);
  if (validated && on_validated) on_validated(*validated);
  return decode_validated<T>(padded, root_path);
}

/// A copy of a text with simdjson's padding, wiped when it goes (the text may be an answer echoing the token).
class WipedPaddedCopy {
 public:
  explicit WipedPaddedCopy(std::string_view text) : copy_(text) {}
  ~WipedPaddedCopy();
  WipedPaddedCopy(const WipedPaddedCopy&) = delete;
  WipedPaddedCopy& operator=(const WipedPaddedCopy&) = delete;
  simdjson::padded_string_view view() const {
    return simdjson::padded_string_view(copy_.data(), copy_.size(), copy_.size() + simdjson::SIMDJSON_PADDING);
  }

 private:
  simdjson::padded_string copy_;
};

/// The document as T, from any text (decoded from a padded copy).
template <schema::Described T>
T decode_document(std::string_view body, std::string_view root_path = "") {
  const WipedPaddedCopy padded(body);
  return decode_padded<T>(padded.view(), root_path);
}

/// decode_body.hpp: the body's own spare capacity as the padding when there is enough, else a padded copy.
template <schema::Described T>
T decode_body(std::string& body, const OnValidated& on_validated) {
  static_assert(kDecodePadding >= simdjson::SIMDJSON_PADDING);
  if (body.capacity() - body.size() >= kDecodePadding) {
    return decode_padded<T>(simdjson::padded_string_view(body.data(), body.size(), body.capacity()), "",
                            on_validated);
  }
  const WipedPaddedCopy padded(body);
  return decode_padded<T>(padded.view(), "", on_validated);
}

/// decode_body.hpp.
template <schema::Described T>
T decode_checked_body(std::string& body) {
  if (body.capacity() - body.size() >= kDecodePadding) {
    return decode_validated<T>(simdjson::padded_string_view(body.data(), body.size(), body.capacity()));
  }
  const WipedPaddedCopy padded(body);
  return decode_validated<T>(padded.view());
}

}  // namespace trunk::detail
