// The entry points of the codec for every described model: to_json, encode (via dump_json), decode and
// from_json, all derived from the field lists (json_encoder.hpp, json_decoder.hpp).
#include "trunk/codec.hpp"

#include <optional>
#include <utility>

#include "decode_entry_points.hpp"
#include "json_encoder.hpp"
#include "text.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace trunk {

namespace {

/// Path of the first string or key in json that is not valid UTF-8, with its text; nullopt when all are.
std::optional<std::pair<std::string, std::string>> find_invalid_utf8(const Json& json, const std::string& path) {
  if (json.is_string()) {
    const auto& text = json.get_ref<const std::string&>();
    if (!is_valid_utf8(text)) return std::pair{path, text};
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      if (auto found = find_invalid_utf8(json[i], path + '[' + std::to_string(i) + ']')) return found;
    }
  } else if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (!is_valid_utf8(key)) return std::pair{path, key};
      if (auto found = find_invalid_utf8(value, path.empty() ? key : path + '.' + key)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace detail {

void merge_extras(Json& out, const Extras& extra) {
  if (!extra.is_object()) return;
  for (const auto& [key, value] : extra.items()) {
    if (!out.contains(key)) out[key] = value;
  }
}

}  // namespace detail

std::string dump_json(const Json& json) {
  try {
    return json.dump();
  } catch (const Json::type_error&) {
    // The only type_error dump() raises is invalid UTF-8 (316); find where, so the message can say.
    auto found = find_invalid_utf8(json, "");
    if (!found) throw;
    throw ValidationError({{found->first.empty() ? "<document>" : found->first, detail::quoted(found->second),
                            "must be valid UTF-8"}});
  }
}

template <schema::Described T>
Json to_json(const T& value) {
  return detail::encode_model(value);
}

// Every model is encoded here (the client sends requests); only answers are decoded here: reading requests is
// the server's job, instantiated by the sandbox target (cpp/sandbox/src/request_decoding.cpp).
#define TRUNK_INSTANTIATE_ENCODER_(Type) template Json to_json<Type>(const Type& value);
TRUNK_ALL_MODELS(TRUNK_INSTANTIATE_ENCODER_)
#undef TRUNK_INSTANTIATE_ENCODER_

}  // namespace trunk

TRUNK_ANSWER_MODELS(TRUNK_INSTANTIATE_DECODER)
