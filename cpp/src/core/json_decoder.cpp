// The non-template parts of the decoder (json_decoder.hpp): scalars, paths, errors, unknown keys.
#include "json_decoder.hpp"

#include <string.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <new>

namespace trunk::detail {

namespace {

/// No message of the API nests deeper than 6; unknown keys may add some, but not thousands.
constexpr std::size_t kMaxNestingDepth = 128;
/// Bound of a JSON value quoted in an error message.
constexpr std::size_t kMaxQuotedJsonBytes = 80;

std::string_view trim_right(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

std::string_view json_kind_name(od::json_type type) {
  switch (type) {
    case od::json_type::array: return "array";
    case od::json_type::object: return "object";
    case od::json_type::number: return "number";
    case od::json_type::string: return "string";
    case od::json_type::boolean: return "boolean";
    case od::json_type::null: return "null";
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

void throw_wrong_type(const JsonPath& path, std::string_view expected, od::json_type actual) {
  throw DecodeError(path.str(), "expected " + std::string(expected) + ", got " + std::string(json_kind_name(actual)));
}

std::string_view raw_json_of(od::value& value) {
  switch (type_of(value)) {
    case od::json_type::object: return checked(checked(value.get_object()).raw_json());
    case od::json_type::array: return checked(checked(value.get_array()).raw_json());
    default: return trim_right(value.raw_json_token());
  }
}

Json parse_extra(std::string_view raw) {
  try {
    return Json::parse(raw.begin(), raw.end());
  } catch (const Json::exception& error) {
    std::string_view message = error.what();
    if (const auto end = message.find("] "); end != std::string_view::npos) message.remove_prefix(end + 2);
    throw DecodeError("", "malformed JSON: " + printable(message));
  }
}

void report_unknown_keys(DecodeContext& context, const JsonPath& path, const Json& unknown) {
  for (const auto& [key, value] : unknown.items()) {
    context.violations.push_back({path.member(key).str(),
                                  printable(value.dump(-1, ' ', false, Json::error_handler_t::replace),
                                            kMaxQuotedJsonBytes),
                                  "is not a field of this request"});
  }
}

void reject_non_object_root(std::string_view body, const JsonPath& path, od::json_type type) {
  (void)parse_extra(body);  // a root that is not even JSON is malformed, whatever its first character says
  throw_wrong_type(path, "object", type);
}

std::string one_of_rule(std::span<const std::string_view> allowed) {
  std::string rule = "must be one of ";
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i != 0) rule += ", ";
    rule += allowed[i];
  }
  return rule;
}

void record_unknown_key(DecodeContext& context, const JsonPath& path, od::value& value, Json& extras) {
  const std::string_view raw = raw_json_of(value);
  Json parsed = parse_extra(raw);  // validates the value's text as well
  if (context.mode == DecodeMode::strict) {
    // Kept as an object like `extra`: reported after the object's other problems, sorted by key.
    if (extras.is_null()) extras = Json::object();
    extras[std::string(path.key)] = std::move(parsed);
    return;
  }
  if (extras.is_null()) extras = Json::object();
  extras[std::string(path.key)] = std::move(parsed);
}

void read_value(od::value& value, const JsonPath&, DecodeContext&, Json& out) { out = parse_extra(raw_json_of(value)); }

void read_value(od::value& value, const JsonPath& path, DecodeContext&, std::string& out) {
  const od::json_type type = type_of(value);
  if (type != od::json_type::string) throw_wrong_type(path, "string", type);
  out.assign(checked(value.get_string()));
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

void read_value(od::value& value, const JsonPath& path, DecodeContext&, std::int64_t& out) {
  const od::json_type type = type_of(value);
  if (type == od::json_type::string) {
    if (const auto number = decimal_string_integer(checked(value.get_string()), path)) {
      out = *number;
      return;
    }
  }
  if (type != od::json_type::number) throw_wrong_type(path, "integer", type);
  const std::string_view token = trim_right(value.raw_json_token());
  od::number_type kind{};
  if (!value.get_number_type().get(kind)) {
    if (kind == od::number_type::signed_integer) {
      out = checked(value.get_int64());
      return;
    }
    std::uint64_t big = 0;
    if (kind == od::number_type::unsigned_integer && !value.get_uint64().get(big)) {
      throw DecodeError(path.str(), "integer " + std::to_string(big) + " is out of range");
    }
  }
  // A fraction, an exponent, or an integer beyond 64 bits: read as a double (the raw token through nlohmann,
  // which also rejects what no double holds).
  const Json parsed = parse_extra(token);
  const double number = parsed.get<double>();
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

void read_value(od::value& value, const JsonPath& path, DecodeContext&, double& out) {
  const od::json_type type = type_of(value);
  if (type != od::json_type::number) throw_wrong_type(path, "number", type);
  out = checked(value.get_double());
}

void read_value(od::value& value, const JsonPath& path, DecodeContext&, bool& out) {
  const od::json_type type = type_of(value);
  if (type != od::json_type::boolean) throw_wrong_type(path, "boolean", type);
  out = checked(value.get_bool());
}

void read_value(od::value& value, const JsonPath& path, DecodeContext& context, Timestamp& out) {
  std::string text;
  read_value(value, path, context, text);
  std::string problem;
  if (auto parsed = try_parse_rfc3339(text, &problem)) {
    out = *parsed;
    return;
  }
  if (context.mode == DecodeMode::tolerant) throw DecodeError(path.str(), problem);  // a required time
  context.violations.push_back(
      {path.str(), detail::quoted(text), "must be an RFC 3339 date-time, e.g. 2024-05-01T12:00:00Z"});
}

void read_value(od::value& value, const JsonPath& path, DecodeContext& context, std::optional<Timestamp>& out,
                Json& extras) {
  if (context.mode == DecodeMode::strict) {
    read_value(value, path, context, out.emplace());
    return;
  }
  std::string text;
  read_value(value, path, context, text);
  if (auto parsed = try_parse_rfc3339(text)) {
    out = *parsed;
    return;
  }
  out.reset();
  if (extras.is_null()) extras = Json::object();
  extras[std::string(path.key)] = std::move(text);
}

namespace {

[[noreturn]] void throw_too_deep(std::string_view where) {
  throw DecodeError("", "malformed JSON: nested deeper than " + std::to_string(kMaxNestingDepth) + " levels" +
                            std::string(where));
}

/// simdjson's validating parser, set to refuse what nests deeper than the decoder allows: one pass checks the
/// syntax and the depth. Its stage 2 counts the root as level 0 and refuses depth >= max_depth, hence the +1.
simdjson::dom::parser& depth_limited_validator() {
  thread_local simdjson::dom::parser validator;
  thread_local const bool limited = [] {
    constexpr std::size_t kInitialCapacity = std::size_t{64} << 10;  // grows as bodies need, keeping the depth
    if (validator.allocate(kInitialCapacity, kMaxNestingDepth) != simdjson::SUCCESS) throw std::bad_alloc();
    return true;
  }();
  static_cast<void>(limited);
  return validator;
}

}  // namespace

std::optional<simdjson::dom::element> validate_syntax(simdjson::padded_string_view padded) {
  simdjson::dom::element root;
  const auto error = depth_limited_validator().parse(padded).get(root);
  if (!error) return root;
  if (error == simdjson::DEPTH_ERROR) throw_too_deep("");
  if (error == simdjson::NUMBER_ERROR) {
    // A number no 64-bit integer or double holds (1e400, 30 digits): valid JSON syntax, which the decoder
    // reports with its path when it reads the field; anything else wrong is still malformed. simdjson stopped
    // at the number, so the depth of what follows is checked here, before the recursive parser sees it.
    const std::string_view body(padded.data(), padded.length());
    check_nesting_depth(body);
    if (Json::accept(body.begin(), body.end())) return std::nullopt;
    try {
      const Json parsed = Json::parse(body.begin(), body.end());
      static_cast<void>(parsed);
      return std::nullopt;
    } catch (const Json::out_of_range&) {
      return std::nullopt;  // 1e400: the field's reader says "malformed JSON" too, where it meets it
    } catch (const Json::exception&) {
    }
  }
  throw_malformed(error);
}

bool check_body(std::string& body, const OnValidated& on_validated) {
  std::optional<simdjson::dom::element> validated;
  if (body.capacity() - body.size() >= kDecodePadding) {
    validated = validate_syntax(simdjson::padded_string_view(body.data(), body.size(), body.capacity()));
  } else {
    const WipedPaddedCopy padded(body);
    validated = validate_syntax(padded.view());
    if (validated && on_validated) on_validated(*validated);  // while the copy it points into lives
    return validated.has_value();
  }
  if (validated && on_validated) on_validated(*validated);
  return validated.has_value();
}

WipedPaddedCopy::~WipedPaddedCopy() { ::explicit_bzero(copy_.data(), copy_.size()); }

void check_nesting_depth(std::string_view text) {
  // A linear scan for brackets outside strings, for the one case validate_syntax's parser stops early on (a
  // number out of range): the kept raw JSON of unknown keys is later dumped and compared recursively, and
  // nlohmann's parser recurses, so hostile nesting must not get that far.
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
