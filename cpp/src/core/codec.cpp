// The generic entry points of the codec: from_json<T> and decode<T> for every model, and the JSON text
// parser guarded against documents nested deeply enough to exhaust the stack later (dump and == recurse).
#include "trunk/codec.hpp"

#include <optional>
#include <type_traits>
#include <utility>

#include "codec_internal.hpp"
#include "fast_response_reader.hpp"
#include "text.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace trunk {

namespace {

/// No message of interface.md nests deeper than 5; unknown keys may add some, but not thousands.
constexpr std::size_t kMaxNestingDepth = 128;

/// Scans JSON text for brackets outside strings; a linear pass much cheaper than parsing itself.
void check_nesting_depth(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot close the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth) {
        throw DecodeError("", "malformed JSON: nested deeper than " + std::to_string(kMaxNestingDepth) +
                                  " levels at byte " + std::to_string(i));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

Json parse_json(std::string_view body) {
  check_nesting_depth(body);
  try {
    return Json::parse(body.begin(), body.end());
  } catch (const Json::exception& error) {
    // parse_error for bad syntax, out_of_range for a number no double can hold (1e400): both mean the body
    // is not JSON we can read. nlohmann's message starts with "[json.exception.<kind>.<id>] "; keep only the
    // human part.
    std::string_view message = error.what();
    if (const auto end = message.find("] "); end != std::string_view::npos) message.remove_prefix(end + 2);
    throw DecodeError("", "malformed JSON: " + detail::printable(message));
  }
}

/// Path of the first string or key in json that is not valid UTF-8, with its text; nullopt when all are.
std::optional<std::pair<std::string, std::string>> find_invalid_utf8(const Json& json,
                                                                     const std::string& path) {
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

template <typename T>
T from_json(const Json& json, const std::string& path) {
  return detail::read(json, path, detail::Tag<T>{});
}

template <typename T>
T decode(std::string_view body) {
  // The two responses a listing or a bulk read decodes thousands of times first try the direct reader
  // (fast_response_reader.hpp); whatever it does not take is decoded the DOM way, errors included.
  if constexpr (std::is_same_v<T, TestPage>) {
    if (auto page = detail::fast_read_test_page(body)) return std::move(*page);
  } else if constexpr (std::is_same_v<T, TestDetails>) {
    if (auto details = detail::fast_read_test_details(body)) return std::move(*details);
  }
  return from_json<T>(parse_json(body));
}

#define TRUNK_INSTANTIATE_CODEC(Type)                                       \
  template Type from_json<Type>(const Json& json, const std::string& path); \
  template Type decode<Type>(std::string_view body);

TRUNK_INSTANTIATE_CODEC(Repo)
TRUNK_INSTANTIATE_CODEC(PageQuery)
TRUNK_INSTANTIATE_CODEC(PageInfo)
TRUNK_INSTANTIATE_CODEC(RepositoryRef)
TRUNK_INSTANTIATE_CODEC(TicketRef)
TRUNK_INSTANTIATE_CODEC(TestStatus)
TRUNK_INSTANTIATE_CODEC(FailureSummary)
TRUNK_INSTANTIATE_CODEC(TestCase)
TRUNK_INSTANTIATE_CODEC(QueueSettings)
TRUNK_INSTANTIATE_CODEC(TestPage)
TRUNK_INSTANTIATE_CODEC(TestDetails)
TRUNK_INSTANTIATE_CODEC(ListFailingTestsRequest)
TRUNK_INSTANTIATE_CODEC(ListUnhealthyTestsRequest)
TRUNK_INSTANTIATE_CODEC(GetTestDetailsRequest)
TRUNK_INSTANTIATE_CODEC(UpdateQueueRequest)

#undef TRUNK_INSTANTIATE_CODEC

}  // namespace trunk
