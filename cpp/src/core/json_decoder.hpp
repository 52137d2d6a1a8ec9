#pragma once
// Internal: the one JSON decoder, driven by the field lists of describe.hpp. Each body is parsed once, by
// simdjson's validating parser (parse_body, decode_body.hpp), which checks the syntax, the UTF-8 and the nesting
// and builds the document (its tape); the decoder then reads the model from that document. A listing's page
// pipeline parses a page on the engine thread as it arrives and hands the document to the consumer, which
// reads the model there (client/page_pipeline.hpp), so no byte is parsed twice.
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

#include <algorithm>
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

namespace dom = simdjson::dom;

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

/// The JSON kinds, as messages name them (the document tells integers from doubles; JSON does not).
enum class JsonKind { object, array, number, string, boolean, null };

inline JsonKind kind_of(const dom::element& value) noexcept {
  switch (value.type()) {
    case dom::element_type::OBJECT: return JsonKind::object;
    case dom::element_type::ARRAY: return JsonKind::array;
    case dom::element_type::STRING: return JsonKind::string;
    case dom::element_type::BOOL: return JsonKind::boolean;
    case dom::element_type::NULL_VALUE: return JsonKind::null;
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: break;
  }
  return JsonKind::number;
}

std::string_view json_kind_name(JsonKind kind);

[[noreturn]] void throw_malformed(simdjson::error_code error);
[[noreturn]] void throw_wrong_type(const JsonPath& path, std::string_view expected, JsonKind actual);
/// A value of the document as nlohmann's JSON (for `extra` and for values the description gives no shape),
/// with the number kinds nlohmann's own parser gives (unsigned for a non-negative integer).
Json to_json(const dom::element& value);
/// "must be one of a, b, c"
std::string one_of_rule(std::span<const std::string_view> allowed);

// ---- scalars -------------------------------------------------------------------------------------------------
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::string& out);
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::int64_t& out);
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, double& out);
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, bool& out);
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, Timestamp& out);
/// An optional time: in an answer, text that is not a time leaves it absent and is kept in `extras` under its
/// key (decoders are tolerant: one odd time must not lose the answer, nor be silently dropped); in a request it
/// is a violation, as for a required time.
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::optional<Timestamp>& out,
                Json& extras);
/// A value the description gives no shape: kept as it came.
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, Json& out);

/// A closed enumeration (requests): an unknown value is a violation.
template <schema::DescribedEnum E>
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, E& out) {
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
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::optional<OpenEnum<E>>& out) {
  std::string text;
  read_value(value, path, context, text);
  out = OpenEnum<E>::from_wire(text);
}

template <schema::Described T>
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, T& out);

template <typename X>
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::vector<X>& out) {
  dom::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) throw_wrong_type(path, "array", kind_of(value));
  // Read into the elements already there (decode_parsed_into: a page read into the previous page's model
  // reuses its strings' memory), then the list is cut to the document's length.
  out.reserve(array.size());
  std::size_t index = 0;
  for (const dom::element element : array) {
    if (index == out.size()) out.emplace_back();
    read_value(element, path.element(index), context, out[index]);
    ++index;
  }
  out.resize(index);
}

/// The JSON kind a value of type X is written as (the alternatives of a variant differ in it).
template <typename X>
constexpr JsonKind json_kind() {
  if constexpr (std::is_same_v<X, std::string> || std::is_same_v<X, Timestamp> || schema::DescribedEnum<X>) {
    return JsonKind::string;
  } else if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, double>) {
    return JsonKind::number;
  } else if constexpr (std::is_same_v<X, bool>) {
    return JsonKind::boolean;
  } else if constexpr (schema::IsVector<X>::value) {
    return JsonKind::array;
  } else {
    static_assert(schema::Described<X>, "a variant alternative the decoder cannot tell apart");
    return JsonKind::object;
  }
}

/// One of several alternatives, told apart by the JSON kind of the value (a number or a name; a list or "ALL").
template <typename... A>
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::variant<A...>& out) {
  const JsonKind type = kind_of(value);
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
void read_field(T& out, const dom::element& value, const JsonPath& path, DecodeContext& context, Json& extras) {
  constexpr const auto& field = schema::get<I>(schema::Model<T>::fields);
  using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
  if constexpr (schema::IsOptional<Member>::value) {
    using Inner = typename Member::value_type;
    if constexpr (requires { typename Inner::is_open_enum; }) {
      read_value(value, path, context, out.*(field.member));  // the OpenEnum overload takes the optional
    } else if constexpr (std::is_same_v<Inner, Timestamp>) {
      read_value(value, path, context, out.*(field.member), extras);
    } else {
      Member& slot = out.*(field.member);
      if (!slot) slot.emplace();
      read_value(value, path, context, *slot);  // into what is there: see read_object
    }
  } else {
    read_value(value, path, context, out.*(field.member));
  }
}

/// The model as T{} makes it: what a field that is not in the document holds.
template <schema::Described T>
const T& model_defaults() {
  static const T defaults{};
  return defaults;
}

/// Back to the field's default (a request's page_size is 100, not 0): a key met a second time is read as if the
/// first had not been there, and a field the document does not hold (or holds as null, in an answer) is absent
/// even where the model was read into before.
template <schema::Described T, std::size_t I>
void clear_field(T& out) {
  constexpr const auto& field = schema::get<I>(schema::Model<T>::fields);
  out.*(field.member) = model_defaults<T>().*(field.member);
}

template <schema::Described T>
struct FieldDispatch {
  using Reader = void (*)(T&, const dom::element&, const JsonPath&, DecodeContext&, Json& extras);
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
    return {Entry{schema::get<I>(schema::Model<T>::fields).wire, &read_field<T, I>, &clear_field<T, I>,
                  schema::get<I>(schema::Model<T>::fields).rules.required,
                  schema::get<I>(schema::Model<T>::fields).rules.nullable}...};
  }
  static constexpr std::array<Entry, size> entries = make(std::make_index_sequence<size>{});

  /// The field indexes ordered by the length of their wire names, and where each length starts in that order:
  /// a key not at the hint is compared only with the names of its length (one to three of them).
  static constexpr std::size_t longest = [] {
    std::size_t most = 0;
    for (const Entry& entry : entries) most = std::max(most, entry.wire.size());
    return most;
  }();
  static constexpr std::array<std::size_t, size> by_length = [] {
    std::array<std::size_t, size> order{};
    std::size_t filled = 0;
    for (std::size_t length = 0; length <= longest; ++length) {  // by length, in declaration order within one
      for (std::size_t i = 0; i < size; ++i) {
        if (entries[i].wire.size() == length) order[filled++] = i;
      }
    }
    return order;
  }();
  static constexpr std::array<std::size_t, longest + 2> length_starts = [] {
    std::array<std::size_t, longest + 2> starts{};
    for (std::size_t length = 0, at = 0; length < longest + 2; ++length) {
      while (at < size && entries[by_length[at]].wire.size() < length) ++at;
      starts[length] = at;
    }
    return starts;
  }();

  /// Index of the field named `key`, or size. Keys usually come in declaration order: the field after the
  /// previous match is tried first; else (sorted keys, from nlohmann-based senders, or any other order) the
  /// fields of the key's length.
  static std::size_t find(std::string_view key, std::size_t hint) noexcept {
    if constexpr (size == 0) {
      return size;  // a model of no declared fields (Acknowledgement): every key is unknown
    } else {
      if (hint < size && entries[hint].wire == key) return hint;
      if (key.size() > longest) return size;
      for (std::size_t at = length_starts[key.size()]; at < length_starts[key.size() + 1]; ++at) {
        if (entries[by_length[at]].wire == key) return by_length[at];
      }
      return size;
    }
  }
};

/// Keeps an unknown key: in `extras` for an answer; for a request, to be reported by report_unknown_keys.
void record_unknown_key(DecodeContext& context, const JsonPath& path, const dom::element& value, Json& extras);
/// Strict mode: one violation per unknown key (sorted by key), after the object's other problems.
void report_unknown_keys(DecodeContext& context, const JsonPath& path, const Json& unknown);
template <schema::Described T>
void read_object(const dom::object& object, const JsonPath& path, DecodeContext& context, T& out) {
  using Dispatch = FieldDispatch<T>;
  std::bitset<64> seen;  // a value was read (a required field is present)
  std::bitset<64> met;   // the key appeared, null or not
  std::size_t hint = 0;
  Json extras;  // null until the first unknown key: most objects have none
  for (const dom::key_value_pair member : object) {
    const std::string_view key = member.key;  // unescaped by the parse
    const dom::element& value = member.value;
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
    if ((context.mode == DecodeMode::tolerant || Dispatch::entries[index].nullable) && value.is_null()) {
      Dispatch::entries[index].clear(out);
      // A nullable field's null is a value it was given: a required one (Dynamic CI's baseSha) is present.
      if (Dispatch::entries[index].nullable) seen.set(index);
      continue;
    }
    seen.set(index);
    Dispatch::entries[index].read(out, value, path.member(key), context, extras);
  }
  // `out` may hold a model read before (decode_parsed_into): what this object does not say goes back to the
  // default, so the result is the same as reading into a fresh model.
  if (met.count() != Dispatch::size) {
    for (std::size_t i = 0; i < Dispatch::size; ++i) {
      if (!met.test(i)) Dispatch::entries[i].clear(out);
    }
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
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, T& out) {
  dom::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) throw_wrong_type(path, "object", kind_of(value));
  read_object(object, path, context, out);
}

/// The document as T (see the top of this file), read from the document parse_body built into `out`, a model
/// of T read before or fresh, with the same result (read_object): `root` must be an object; `root_path`
/// prefixes every path in a message (from_json's caller names where the value sits).
template <schema::Described T>
void decode_element_into(const dom::element& root, T& out, std::string_view root_path = "") {
  const JsonPath root_at{nullptr, root_path, 0, false};
  DecodeContext context{schema::HasExtras<T> ? DecodeMode::tolerant : DecodeMode::strict, {}};
  read_value(root, root_at, context, out);
  if (!context.violations.empty()) throw ValidationError(std::move(context.violations));
}

/// decode_element_into a fresh model.
template <schema::Described T>
T decode_element(const dom::element& root, std::string_view root_path = "") {
  T out{};
  decode_element_into(root, out, root_path);
  return out;
}

/// decode_body.hpp.
template <schema::Described T>
T decode_parsed(const dom::element& root) {
  return decode_element<T>(root);
}

/// decode_body.hpp.
template <schema::Described T>
void decode_parsed_into(const dom::element& root, T& out) {
  decode_element_into(root, out);
}

/// decode_body.hpp: parsed on this thread's parser, then read.
template <schema::Described T>
T decode_body(std::string& body) {
  return decode_element<T>(parse_body(body, thread_body_parser()));
}

/// The document as T, from any text (parsed from a padded copy), `root_path` as for decode_element.
template <schema::Described T>
T decode_document(std::string_view body, std::string_view root_path = "") {
  return decode_element<T>(parse_text(body, thread_body_parser()), root_path);
}

}  // namespace trunk::detail
