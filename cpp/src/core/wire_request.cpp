// The non-template half of wire_request.hpp: rendering path and query values, matching a path against its
// template, and reading a query string back.
#include "trunk/wire_request.hpp"

#include <charconv>
#include <cstdint>

#include "text.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace detail {

std::string query_value(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string joined;
    for (const Json& item : value) {
      if (!joined.empty()) joined += ',';
      joined += query_value(item);
    }
    return joined;
  }
  return value.dump();  // numbers and booleans as JSON writes them
}

void put_path_parameter(std::string& path, std::string_view name, const Json& value) {
  const std::string placeholder = "{" + std::string(name) + "}";
  const std::size_t at = path.find(placeholder);
  if (at == std::string::npos) return;
  path.replace(at, placeholder.size(), percent_encode(query_value(value), /*keep_slash=*/false));
}

std::string query_string(const Json& object) {
  std::string query;
  for (const auto& [key, value] : object.items()) {
    if (value.is_null()) continue;
    if (!query.empty()) query += '&';
    query += percent_encode(key) + "=" + percent_encode(query_value(value));
  }
  return query;
}

Json query_json(std::string_view text, QueryKind kind) {
  switch (kind) {
    case QueryKind::boolean:
      if (text == "true") return true;
      if (text == "false") return false;
      break;
    case QueryKind::integer: {
      std::int64_t number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error == std::errc() && end == text.data() + text.size()) return number;
      break;
    }
    case QueryKind::list: {
      Json items = Json::array();
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        items.push_back(std::string(text.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                        : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return items;
    }
    case QueryKind::text:
      break;
  }
  return std::string(text);
}

std::vector<std::pair<std::string, std::string>> query_pairs(std::string_view query,
                                                             std::vector<Violation>& violations) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query.remove_prefix(amp == std::string_view::npos ? query.size() : amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    const auto name = percent_decode(pair.substr(0, eq));
    const auto value = percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!name || !value) {
      violations.push_back({"query", quoted(pair), "must be percent-encoded"});
      continue;
    }
    pairs.emplace_back(*name, *value);
  }
  return pairs;
}

}  // namespace detail

std::optional<std::vector<std::pair<std::string, std::string>>> match_path(std::string_view path_template,
                                                                          std::string_view path) {
  std::vector<std::pair<std::string, std::string>> parameters;
  while (!path_template.empty() || !path.empty()) {
    const std::size_t open = path_template.find('{');
    if (open == std::string_view::npos) {
      if (path_template != path) return std::nullopt;
      return parameters;
    }
    if (path.substr(0, open) != path_template.substr(0, open)) return std::nullopt;
    const std::size_t close = path_template.find('}', open);
    const std::string name(path_template.substr(open + 1, close - open - 1));
    path_template.remove_prefix(close + 1);
    path.remove_prefix(open);
    const std::size_t slash = path.find('/');
    const std::string_view segment = path.substr(0, slash);
    const auto value = percent_decode(segment);
    if (segment.empty() || !value) return std::nullopt;
    parameters.emplace_back(name, *value);
    path.remove_prefix(segment.size());
  }
  return parameters;
}

}  // namespace trunk
