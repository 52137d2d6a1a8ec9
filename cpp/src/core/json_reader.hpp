#pragma once
// Internal: reading JSON objects field by field with JSON paths in every error.
//
// Two modes share one reader so that responses and requests agree on types and paths:
//  - response (tolerant): null/missing read as absent, unknown keys kept for `extra`, integers may arrive
//    as floats with an integral value (the queue settings are typed "number"), unknown enum values kept raw;
//  - request (strict, the sandbox's side): integers must be JSON integers, and a missing required field,
//    an unknown key, an unknown enum value or a bad timestamp is recorded as a Violation so that one
//    ValidationError can list them all. A wrong JSON type is a DecodeError in both modes.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/json_fwd.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk::detail {

enum class Mode { response, request };

/// "parent.key", or "key" at the root.
std::string child_path(const std::string& parent, std::string_view key);
/// "parent[index]".
std::string index_path(const std::string& parent, std::size_t index);

/// Throws DecodeError(path, "expected <expected>, got <type of value>").
[[noreturn]] void throw_wrong_type(const std::string& path, std::string_view expected, const Json& value);

std::string read_string(const Json& value, const std::string& path);
std::int64_t read_integer(const Json& value, const std::string& path, Mode mode);
double read_number(const Json& value, const std::string& path);
bool read_boolean(const Json& value, const std::string& path);
std::vector<std::string> read_strings(const Json& value, const std::string& path);
/// Throws DecodeError unless value is an object.
void expect_object(const Json& value, const std::string& path);

class ObjectReader {
 public:
  /// Throws DecodeError when json is not an object. In request mode `violations` must not be null.
  ObjectReader(const Json& json, std::string path, Mode mode, std::vector<Violation>* violations = nullptr);

  /// The value under key, or nullptr when missing or null. Marks the key as known either way.
  const Json* find(std::string_view key);
  /// Like find, but in request mode records "<missing>: is required" when the key is absent.
  const Json* require(std::string_view key);
  std::string path_of(std::string_view key) const { return child_path(path_, key); }

  std::optional<std::string> string(std::string_view key);
  std::optional<std::int64_t> integer(std::string_view key);
  std::optional<double> number(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::vector<std::string>> strings(std::string_view key);
  /// Response mode: a bad timestamp is a DecodeError. Request mode: it is a Violation.
  std::optional<Timestamp> timestamp(std::string_view key);

  /// Response mode: any string; values this library does not know are kept raw.
  template <typename E>
  std::optional<OpenEnum<E>> open_enum(std::string_view key) {
    auto text = string(key);
    if (!text) return std::nullopt;
    return OpenEnum<E>::from_wire(*text);
  }

  /// Request mode: a value outside E is recorded as a Violation ("must be one of ...").
  /// `allowed` is what the rule names (a request accepts fewer queue states than a response reports).
  template <typename E>
  std::optional<E> closed_enum(std::string_view key, const Json* value,
                               std::span<const std::string_view> allowed = enum_wire_values<E>()) {
    if (value == nullptr) return std::nullopt;
    const std::string text = read_string(*value, path_of(key));
    if (auto known = enum_from_wire<E>(text)) return known;
    record_unknown_enum(key, text, allowed);
    return std::nullopt;
  }

  void add_violation(std::string field, std::string value, std::string rule);

  /// Response mode: the keys nobody asked for, as an object, or null when there are none.
  Extras extras() const;
  /// Request mode: records a Violation for every key nobody asked for.
  void reject_unknown_keys();

 private:
  void record_unknown_enum(std::string_view key, const std::string& text,
                           std::span<const std::string_view> allowed);
  bool is_known(std::string_view key) const;

  const Json& json_;
  std::string path_;
  Mode mode_;
  std::vector<Violation>* violations_;
  // The keys asked for, kept inline (no allocation per object). They are string literals of the codec, so
  // the views stay valid. The largest model (updateQueue) has 21 fields.
  static constexpr std::size_t kMaxKnownKeys = 32;
  std::array<std::string_view, kMaxKnownKeys> known_{};
  std::size_t known_count_ = 0;
};

}  // namespace trunk::detail
