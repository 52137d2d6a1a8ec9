// The non-template parts of the decoder (json_decoder.hpp): the one parse (decode_body.hpp), scalars, paths,
// errors, unknown keys.
#include "json_decoder.hpp"

#include <string.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <memory>
#include <new>

namespace trunk::detail {

namespace {

/// No message of the API nests deeper than 6; unknown keys may add some, but not thousands.
constexpr std::size_t kMaxNestingDepth = 128;
/// Bound of a JSON value quoted in an error message.
constexpr std::size_t kMaxQuotedJsonBytes = 80;

}  // namespace

std::string_view json_kind_name(JsonKind kind) {
  switch (kind) {
    case JsonKind::array: return "array";
    case JsonKind::object: return "object";
    case JsonKind::number: return "number";
    case JsonKind::string: return "string";
    case JsonKind::boolean: return "boolean";
    case JsonKind::null: return "null";
  }
  return "unknown";
}

namespace {

void append_path(std::string& out, const JsonPath* path) {
  if (path == nullptr || (path->parent == nullptr && !path->is_index && path->key.empty())) return;
  append_path(out, path->parent);
  if (path->is_index) {
    out += '[';
    out += std::to_string(path->index);
    out += ']';
  } else {
    if (!out.empty()) out += '.';
    out += path->key;
  }
}

}  // namespace

std::string JsonPath::str() const {
  std::string out;
  append_path(out, this);
  return out;
}

void throw_malformed(simdjson::error_code error) {
  throw DecodeError("", std::string("malformed JSON: ") + simdjson::error_message(error));
}

void throw_wrong_type(const JsonPath& path, std::string_view expected, JsonKind actual) {
  throw DecodeError(path.str(), "expected " + std::string(expected) + ", got " + std::string(json_kind_name(actual)));
}

Json to_json(const dom::element& value) {
  switch (value.type()) {
    case dom::element_type::OBJECT: {
      Json out = Json::object();
      for (const dom::key_value_pair member : dom::object(value)) out[std::string(member.key)] = to_json(member.value);
      return out;
    }
    case dom::element_type::ARRAY: {
      Json out = Json::array();
      for (const dom::element element : dom::array(value)) out.push_back(to_json(element));
      return out;
    }
    case dom::element_type::INT64: {
      const std::int64_t number = std::int64_t(value);
      if (number >= 0) return Json(static_cast<std::uint64_t>(number));
      return Json(number);
    }
    case dom::element_type::UINT64: return Json(std::uint64_t(value));
    case dom::element_type::DOUBLE: return Json(double(value));
    case dom::element_type::STRING: return Json(std::string(std::string_view(value)));
    case dom::element_type::BOOL: return Json(bool(value));
    case dom::element_type::NULL_VALUE: break;
  }
  return Json();
}

namespace {

/// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string nlohmann_message(const Json::exception& error) {
  std::string_view message = error.what();
  if (const auto end = message.find("] "); end != std::string_view::npos) message.remove_prefix(end + 2);
  return printable(message);
}

}  // namespace

void report_unknown_keys(DecodeContext& context, const JsonPath& path, const Json& unknown) {
  for (const auto& [key, value] : unknown.items()) {
    context.violations.push_back({path.member(key).str(),
                                  printable(value.dump(-1, ' ', false, Json::error_handler_t::replace),
                                            kMaxQuotedJsonBytes),
                                  "is not a field of this request"});
  }
}

std::string one_of_rule(std::span<const std::string_view> allowed) {
  std::string rule = "must be one of ";
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i != 0) rule += ", ";
    rule += allowed[i];
  }
  return rule;
}

void record_unknown_key(DecodeContext&, const JsonPath& path, const dom::element& value, Json& extras) {
  // An answer keeps it in `extra`; a request's are reported after the object's other problems, sorted by key.
  if (extras.is_null()) extras = Json::object();
  extras[std::string(path.key)] = to_json(value);
}

void read_value(const dom::element& value, const JsonPath&, DecodeContext&, Json& out) { out = to_json(value); }

namespace {

/// A string value's text, as the document holds it (valid while the document lives).
std::string_view string_of(const dom::element& value, const JsonPath& path) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) throw_wrong_type(path, "string", kind_of(value));
  return text;
}

}  // namespace

void read_value(const dom::element& value, const JsonPath& path, DecodeContext&, std::string& out) {
  out.assign(string_of(value, path));
}

namespace {

/// An integer written as a decimal string ("123"), as protobuf's JSON mapping allows and the service accepts
/// (the publisher's GitHub Action sends pr.number so). One rule for every integer field, requests and
/// answers alike: the text must be JSON's spelling of an integer, -?(0|[1-9][0-9]*) ("-0" is 0), so "",
/// " 1", "+1", "01", "1.5", "1e3" and "12a" are not integers (the caller reports the wrong type, as for
/// any other string). Beyond int64 it is out of range, worded as for a number; a field's own range
/// (1..4294967295) is validation's, as for a number.
std::optional<std::int64_t> decimal_string_integer(std::string_view text, const JsonPath& path) {
  const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  const bool spelled = !digits.empty() && (digits == "0" || digits.front() != '0') &&
                       std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!spelled) return std::nullopt;
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc::result_out_of_range) {
    throw DecodeError(path.str(), "integer " + printable(text, kMaxQuotedJsonBytes) + " is out of range");
  }
  return error == std::errc{} && end == text.data() + text.size() ? std::optional(number) : std::nullopt;
}

}  // namespace

void read_value(const dom::element& value, const JsonPath& path, DecodeContext&, std::int64_t& out) {
  switch (value.type()) {
    case dom::element_type::INT64: out = std::int64_t(value); return;
    case dom::element_type::UINT64:  // only what int64 does not hold is stored as unsigned
      throw DecodeError(path.str(), "integer " + std::to_string(std::uint64_t(value)) + " is out of range");
    case dom::element_type::STRING:
      if (const auto number = decimal_string_integer(std::string_view(value), path)) {
        out = *number;
        return;
      }
      throw_wrong_type(path, "integer", JsonKind::string);
    case dom::element_type::DOUBLE: break;
    default: throw_wrong_type(path, "integer", kind_of(value));
  }
  // A fraction or an exponent (or an integer beyond 64 bits, which the parse reads as the nearest double).
  const double number = double(value);
  // JSON has one number type, and JSON Schema's "integer" (the OpenAPI document's type of these fields) is any
  // number with a zero fraction: 5.0 and 1e3 are integers, 5.5 is not, in answers and requests alike (a
  // sender whose language writes every number as a double, or a schema-driven generator, sends 5.0).
  const bool integral = std::isfinite(number) && std::trunc(number) == number;
  if (integral && number >= -9223372036854775808.0 && number < 9223372036854775808.0) {
    out = static_cast<std::int64_t>(number);
    return;
  }
  throw DecodeError(path.str(), "expected integer, got " + printable(Json(number).dump(), kMaxQuotedJsonBytes));
}

void read_value(const dom::element& value, const JsonPath& path, DecodeContext&, double& out) {
  if (value.get_double().get(out) != simdjson::SUCCESS) throw_wrong_type(path, "number", kind_of(value));
}

void read_value(const dom::element& value, const JsonPath& path, DecodeContext&, bool& out) {
  if (value.get_bool().get(out) != simdjson::SUCCESS) throw_wrong_type(path, "boolean", kind_of(value));
}

// A time is read from the document's text in place (no copy: every test case has several).
void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, Timestamp& out) {
  const std::string_view text = string_of(value, path);
  std::string problem;
  if (auto parsed = try_parse_rfc3339(text, &problem)) {
    out = *parsed;
    return;
  }
  if (context.mode == DecodeMode::tolerant) throw DecodeError(path.str(), problem);  // a required time
  context.violations.push_back(
      {path.str(), detail::quoted(text), "must be an RFC 3339 date-time, e.g. 2024-05-01T12:00:00Z"});
}

void read_value(const dom::element& value, const JsonPath& path, DecodeContext& context, std::optional<Timestamp>& out,
                Json& extras) {
  if (context.mode == DecodeMode::strict) {
    read_value(value, path, context, out.emplace());
    return;
  }
  const std::string_view text = string_of(value, path);
  if (auto parsed = try_parse_rfc3339(text)) {
    out = *parsed;
    return;
  }
  out.reset();
  if (extras.is_null()) extras = Json::object();
  extras[std::string(path.key)] = std::string(text);
}

/// Throws DecodeError("", ...) when the text nests deeper than the decoder allows: a byte scan, for the one case
/// the parse stops before it has seen the whole text (a number out of range).
void check_nesting_depth(std::string_view text);

namespace {

[[noreturn]] void throw_too_deep(std::string_view where) {
  throw DecodeError("", "malformed JSON: nested deeper than " + std::to_string(kMaxNestingDepth) + " levels" +
                            std::string(where));
}

/// A text with simdjson's padding after it, wiped when it goes (the text may be an answer echoing the token).
class WipedPaddedCopy {
 public:
  explicit WipedPaddedCopy(std::string_view text) : copy_(text) {}
  ~WipedPaddedCopy() { ::explicit_bzero(copy_.data(), copy_.size()); }
  WipedPaddedCopy(const WipedPaddedCopy&) = delete;
  WipedPaddedCopy& operator=(const WipedPaddedCopy&) = delete;
  simdjson::padded_string_view view() const {
    return simdjson::padded_string_view(copy_.data(), copy_.size(), copy_.size() + simdjson::SIMDJSON_PADDING);
  }

 private:
  simdjson::padded_string copy_;
};

/// The slow path of parse_padded: a text simdjson stopped at a number no 64-bit integer or double holds. Its
/// depth is checked by a byte scan (simdjson stopped early), then nlohmann reads it: 1e400 is malformed, a
/// 30-digit integer becomes the nearest double. The document is parsed again from what nlohmann writes back.
dom::element parse_out_of_range_numbers(std::string_view text, simdjson::error_code first, dom::parser& parser);

/// One parse of a padded text into `parser` (see parse_body).
dom::element parse_padded(simdjson::padded_string_view padded, dom::parser& parser) {
  dom::element root;
  const auto error = parser.parse(padded).get(root);
  if (!error) return root;
  if (error == simdjson::DEPTH_ERROR) throw_too_deep("");
  if (error == simdjson::NUMBER_ERROR) {
    return parse_out_of_range_numbers(std::string_view(padded.data(), padded.length()), error, parser);
  }
  throw_malformed(error);
}

dom::element parse_out_of_range_numbers(std::string_view text, simdjson::error_code first, dom::parser& parser) {
  check_nesting_depth(text);
  std::string written;
  try {
    written = Json::parse(text.begin(), text.end()).dump();
  } catch (const Json::out_of_range& error) {
    throw DecodeError("", "malformed JSON: " + nlohmann_message(error));
  } catch (const Json::exception&) {
    throw_malformed(first);  // not JSON after all: simdjson's reason
  }
  const WipedPaddedCopy padded(written);
  ::explicit_bzero(written.data(), written.size());
  dom::element root;
  if (const auto error = parser.parse(padded.view()).get(root)) throw_malformed(error);
  return root;
}

}  // namespace

std::unique_ptr<dom::parser> make_body_parser() {
  // One pass checks the syntax and the depth (MalformedJson.NestingLimitIs128LevelsExactly pins the limit), so
  // hostile nesting never reaches the recursive reading. The capacity grows as bodies need, keeping the depth.
  constexpr std::size_t kInitialCapacity = std::size_t{64} << 10;
  auto parser = std::make_unique<dom::parser>();
  if (parser->allocate(kInitialCapacity, kMaxNestingDepth) != simdjson::SUCCESS) throw std::bad_alloc();
  return parser;
}

dom::parser& thread_body_parser() {
  thread_local const std::unique_ptr<dom::parser> parser = make_body_parser();
  return *parser;
}

dom::element parse_body(std::string& body, dom::parser& parser) {
  static_assert(kDecodePadding >= simdjson::SIMDJSON_PADDING);
  if (body.capacity() - body.size() >= kDecodePadding) {
    return parse_padded(simdjson::padded_string_view(body.data(), body.size(), body.capacity()), parser);
  }
  return parse_text(body, parser);
}

dom::element parse_text(std::string_view text, dom::parser& parser) {
  const WipedPaddedCopy padded(text);
  return parse_padded(padded.view(), parser);
}

void check_nesting_depth(std::string_view text) {
  // A linear scan for brackets outside strings, for the one case the parse stops early on (a number out of
  // range, parse_out_of_range_numbers): nlohmann's parser, which reads that text next, recurses, so hostile
  // nesting must not get that far.
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
        throw_too_deep(" at byte " + std::to_string(i));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace trunk::detail
