#pragma once
// Where each field of a request goes on the wire, by its operation (operations.hpp): a path parameter
// (schema::Rules::path) into the path where it says "{wireName}", percent-encoded; the other fields into the query
// string for GET and DELETE, into the JSON body for POST, PUT and PATCH. One split, from the request's own JSON
// (to_json, codec.hpp), so the query and the body name and render each field exactly as the encoder does; the
// sandbox reads a request back with request_json(), the reverse, and then decodes it as strictly as a body.
//
// Query values: text as it is, numbers and booleans as JSON writes them, a list as its items joined by ','
// (v2's comma-separated parameters: `state=testing,pending`).

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "trunk/codec.hpp"
#include "trunk/describe.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"

namespace trunk {

/// RFC 3986 percent-encoding of everything but the unreserved characters (and '/' when keep_slash).
std::string percent_encode(std::string_view text, bool keep_slash = false);
/// The text a percent-encoded one stands for ('+' is a space, as in a query); nullopt when malformed.
std::optional<std::string> percent_decode(std::string_view text);

/// A request as it travels: the path (parameters in place), the query string ("" for none) and the JSON body.
struct WireRequest {
  std::string path;
  std::string query;
  std::string body;  ///< only for methods with a body ("{}" when every field went elsewhere)
};

namespace detail {
/// Renders one JSON value of the query ("" for null).
std::string query_value(const Json& value);
/// Substitutes `{name}` in `path_template` by the percent-encoded text of the parameter (any '/' encoded too).
void put_path_parameter(std::string& path, std::string_view name, const Json& value);
/// Splits `object` (a request's JSON, path parameters already taken out) into a query string.
std::string query_string(const Json& object);

/// Whether the declared type M (optional unwrapped) is an integer, a boolean or a list, for reading a query back.
enum class QueryKind { text, integer, boolean, list };
template <typename M>
constexpr QueryKind query_kind() {
  using T = schema::unwrap_optional_t<M>;
  if constexpr (std::is_same_v<T, bool>) {
    return QueryKind::boolean;
  } else if constexpr (std::is_integral_v<T>) {
    return QueryKind::integer;
  } else if constexpr (schema::IsVector<T>::value) {
    return QueryKind::list;
  } else {
    return QueryKind::text;
  }
}
/// One query value as the JSON a field of that kind holds; a value that is not of the kind stays text, so the
/// strict decoder names the field and the type it expected.
Json query_json(std::string_view text, QueryKind kind);
}  // namespace detail

/// Whether a request of type T has fields outside its path: what a POST, PUT or PATCH of it carries as its body.
/// One whose every field is in the path (pause, resume, drain) declares no body; the sandbox ignores any it gets.
template <schema::Described T>
constexpr bool has_body_fields() {
  bool any = false;
  schema::for_each_field<T>([&](const auto& field) { any = any || !field.rules.path; });
  return any;
}

/// The wire form of `request` for an operation of `method` and `path_template` (Op::method, Op::path).
template <schema::Described T>
WireRequest to_wire_request(const T& request, std::string_view method, std::string_view path_template) {
  Json object = to_json(request);
  WireRequest wire;
  wire.path = std::string(path_template);
  schema::for_each_field<T>([&](const auto& field) {
    if (!field.rules.path) return;
    const std::string key(field.wire);
    detail::put_path_parameter(wire.path, key, object.contains(key) ? object[key] : Json());
    object.erase(key);
  });
  if (method == "GET" || method == "DELETE") {
    wire.query = detail::query_string(object);
  } else {
    wire.body = dump_json(object);
  }
  return wire;
}

/// The path parameters of `path` if it has the shape of `path_template` (each "{name}" one non-empty segment,
/// percent-decoded); nullopt when it does not match.
std::optional<std::vector<std::pair<std::string, std::string>>> match_path(std::string_view path_template,
                                                                          std::string_view path);

/// The JSON object a request of type T arrived as (the sandbox's reading of a GET or DELETE, and of a body's
/// path parameters): the path parameters, then every query parameter, each typed by its field's declaration; an
/// unknown or repeated parameter is kept as it came, for the strict decoder to refuse by name. Throws
/// ValidationError for a malformed percent-encoding.
template <schema::Described T>
Json request_json(const std::vector<std::pair<std::string, std::string>>& path_parameters, std::string_view query,
                  Json object = Json::object());

namespace detail {
/// The name=value pairs of a query string, percent-decoded; a malformed pair is added to `violations` (field
/// "query") and left out.
std::vector<std::pair<std::string, std::string>> query_pairs(std::string_view query,
                                                             std::vector<Violation>& violations);
}  // namespace detail

template <schema::Described T>
Json request_json(const std::vector<std::pair<std::string, std::string>>& path_parameters, std::string_view query,
                  Json object) {
  const auto put = [&](const std::string& name, const std::string& value) {
    detail::QueryKind kind = detail::QueryKind::text;
    schema::for_each_field<T>([&](const auto& field) {
      using M = typename std::remove_cvref_t<decltype(field)>::member_type;
      if (field.wire == name) kind = detail::query_kind<M>();
    });
    object[name] = detail::query_json(value, kind);
  };
  std::vector<Violation> violations;
  for (const auto& [name, value] : detail::query_pairs(query, violations)) put(name, value);
  if (!violations.empty()) throw ValidationError(std::move(violations));
  for (const auto& [name, value] : path_parameters) put(name, value);  // the path wins over a query of that name
  return object;
}

}  // namespace trunk
