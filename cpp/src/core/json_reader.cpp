#include "json_reader.hpp"

#include <cmath>
#include <stdexcept>

#include "text.hpp"

namespace trunk::detail {

namespace {
/// Bound of a JSON value quoted in an error message.
constexpr std::size_t kMaxQuotedJsonBytes = 80;

std::string quoted_json(const Json& value) {
  return printable(value.dump(-1, ' ', false, Json::error_handler_t::replace), kMaxQuotedJsonBytes);
}
}  // namespace

std::string child_path(const std::string& parent, std::string_view key) {
  std::string path;
  path.reserve(parent.size() + key.size() + 1);
  path += parent;
  if (!parent.empty()) path += '.';
  path += key;
  return path;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + '[' + std::to_string(index) + ']';
}

void throw_wrong_type(const std::string& path, std::string_view expected, const Json& value) {
  throw DecodeError(path, "expected " + std::string(expected) + ", got " + value.type_name());
}

std::string read_string(const Json& value, const std::string& path) {
  if (!value.is_string()) throw_wrong_type(path, "string", value);
  return value.get_ref<const std::string&>();
}

std::int64_t read_integer(const Json& value, const std::string& path, Mode mode) {
  if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<std::uint64_t>();
    if (unsigned_value > static_cast<std::uint64_t>(INT64_MAX)) {
      throw DecodeError(path, "integer " + std::to_string(unsigned_value) + " is out of range");
    }
    return static_cast<std::int64_t>(unsigned_value);
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    // Responses type the queue settings as "number": accept 5.0 but not 5.5. Requests take integers only.
    const bool integral = std::isfinite(number) && std::trunc(number) == number;
    if (mode == Mode::response && integral && number >= -9223372036854775808.0 &&
        number < 9223372036854775808.0) {
      return static_cast<std::int64_t>(number);
    }
    throw DecodeError(path, "expected integer, got " + quoted_json(value));
  }
  throw_wrong_type(path, "integer", value);
}

double read_number(const Json& value, const std::string& path) {
  if (!value.is_number()) throw_wrong_type(path, "number", value);
  return value.get<double>();
}

bool read_boolean(const Json& value, const std::string& path) {
  if (!value.is_boolean()) throw_wrong_type(path, "boolean", value);
  return value.get<bool>();
}

std::vector<std::string> read_strings(const Json& value, const std::string& path) {
  if (!value.is_array()) throw_wrong_type(path, "array", value);
  std::vector<std::string> result;
  result.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) result.push_back(read_string(value[i], index_path(path, i)));
  return result;
}

void expect_object(const Json& value, const std::string& path) {
  if (!value.is_object()) throw_wrong_type(path, "object", value);
}

ObjectReader::ObjectReader(const Json& json, std::string path, Mode mode, std::vector<Violation>* violations)
    : json_(json), path_(std::move(path)), mode_(mode), violations_(violations) {
  expect_object(json_, path_);
}

const Json* ObjectReader::find(std::string_view key) {
  if (known_count_ == known_.size()) throw std::logic_error("ObjectReader: more keys than kMaxKnownKeys");
  known_[known_count_++] = key;
  const auto it = json_.find(key);
  if (it == json_.end() || it->is_null()) return nullptr;
  return &*it;
}

const Json* ObjectReader::require(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr && mode_ == Mode::request) add_violation(path_of(key), "<missing>", "is required");
  return value;
}

// The accessors check the common, well-typed case inline and build the JSON path only on the way to an
// error: decoding a page touches every field of every test, and a string per field would dominate.
std::optional<std::string> ObjectReader::string(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get_ref<const std::string&>();
  throw_wrong_type(path_of(key), "string", *value);
}

std::optional<std::int64_t> ObjectReader::integer(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_integer() && !value->is_number_unsigned()) return value->get<std::int64_t>();
  return read_integer(*value, path_of(key), mode_);
}

std::optional<double> ObjectReader::number(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number()) return value->get<double>();
  throw_wrong_type(path_of(key), "number", *value);
}

std::optional<bool> ObjectReader::boolean(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_boolean()) return value->get<bool>();
  throw_wrong_type(path_of(key), "boolean", *value);
}

std::optional<std::vector<std::string>> ObjectReader::strings(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_array()) {
    std::vector<std::string> result;
    result.reserve(value->size());
    for (const auto& item : *value) {
      if (!item.is_string()) return read_strings(*value, path_of(key));  // names the bad element
      result.push_back(item.get_ref<const std::string&>());
    }
    return result;
  }
  return read_strings(*value, path_of(key));
}

std::optional<Timestamp> ObjectReader::timestamp(std::string_view key) {
  const Json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) throw_wrong_type(path_of(key), "string", *value);
  const std::string& text = value->get_ref<const std::string&>();
  std::string problem;
  if (auto parsed = try_parse_rfc3339(text, &problem)) return parsed;
  if (mode_ == Mode::response) throw DecodeError(path_of(key), problem);
  add_violation(path_of(key), detail::quoted(text),
                "must be an RFC 3339 date-time, e.g. 2024-05-01T12:00:00Z");
  return std::nullopt;
}

void ObjectReader::add_violation(std::string field, std::string value, std::string rule) {
  if (violations_ != nullptr) violations_->push_back({std::move(field), std::move(value), std::move(rule)});
}

void ObjectReader::record_unknown_enum(std::string_view key, const std::string& text,
                                       std::span<const std::string_view> allowed) {
  std::string rule = "must be one of ";
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i != 0) rule += ", ";
    rule += allowed[i];
  }
  add_violation(path_of(key), detail::quoted(text), std::move(rule));
}

bool ObjectReader::is_known(std::string_view key) const {
  for (std::size_t i = 0; i < known_count_; ++i) {
    if (known_[i] == key) return true;
  }
  return false;
}

Extras ObjectReader::extras() const {
  Extras extra;  // null until the first unknown key: most objects have none
  for (const auto& [key, value] : json_.items()) {
    if (!is_known(key)) extra[key] = value;
  }
  return extra;
}

void ObjectReader::reject_unknown_keys() {
  for (const auto& [key, value] : json_.items()) {
    if (!is_known(key)) add_violation(path_of(key), quoted_json(value), "is not a field of this request");
  }
}

}  // namespace trunk::detail
