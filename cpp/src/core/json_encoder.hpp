#pragma once
// Internal: the encoder, driven by the field lists of describe.hpp. Strict: exact wire names, only the
// fields that are set (and a request's required, nullable field, which is null when unset); a model's kept
// unknown keys are merged back (known fields win).

#include <string>
#include <type_traits>
#include <variant>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk {
template <schema::Described T>
Json to_json(const T& value);
}  // namespace trunk

namespace trunk::detail {

/// Adds the keys of `extra` that `out` does not already have (known fields win over extras).
void merge_extras(Json& out, const Extras& extra);

template <typename V>
Json encode_value(const V& value) {
  if constexpr (std::is_same_v<V, Timestamp>) {
    return format_rfc3339(value);
  } else if constexpr (schema::DescribedEnum<V>) {
    return std::string(to_wire(value));
  } else if constexpr (requires { typename V::is_open_enum; }) {
    return value.wire();
  } else if constexpr (schema::Described<V>) {
    return to_json(value);
  } else if constexpr (schema::IsVector<V>::value) {
    Json array = Json::array();
    for (const auto& item : value) array.push_back(encode_value(item));
    return array;
  } else if constexpr (schema::IsVariant<V>::value) {
    return std::visit([](const auto& alternative) { return encode_value(alternative); }, value);
  } else {
    return Json(value);  // string, integer, number, boolean, or a Json value kept as it came
  }
}

template <schema::Described T>
Json encode_model(const T& value) {
  Json out = Json::object();
  schema::for_each_field<T>([&](const auto& field) {
    const auto& member = value.*(field.member);
    using Member = std::remove_cvref_t<decltype(member)>;
    if constexpr (schema::IsOptional<Member>::value) {
      if (member) {
        out[std::string(field.wire)] = encode_value(*member);
      } else if constexpr (!schema::HasExtras<T>) {
        // A request's field that is required and may be null (Dynamic CI's baseSha): unset is its null, which the
        // service needs said rather than left out. Answers (with `extra`) never get a null they did not have.
        if (field.rules.required && field.rules.nullable) out[std::string(field.wire)] = nullptr;
      }
    } else if constexpr (std::is_same_v<Member, std::string>) {
      if (!(field.rules.omit_if_empty && member.empty())) out[std::string(field.wire)] = member;
    } else {
      out[std::string(field.wire)] = encode_value(member);
    }
  });
  if constexpr (schema::HasExtras<T>) merge_extras(out, value.extra);
  return out;
}

}  // namespace trunk::detail
