// The query string of the one GET operation, getMergeQueueMetrics: ?repo=owner/name&repoHost=host, as the
// service's metrics guide queries it. The repository is the request's Repo, spelled the way the guide does;
// without one (every repository) there is no query.
#include <optional>
#include <string>
#include <vector>

#include "text.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"
#include "trunk/wire_request.hpp"

namespace trunk {

namespace {

bool is_unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (is_unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}


std::string to_query(const GetMergeQueueMetricsRequest& request) {
  if (!request.repo) return "";  // every repository: nothing the caller did not set
  return "repo=" + percent_encode(request.repo->owner + "/" + request.repo->name, true) +
         "&repoHost=" + percent_encode(request.repo->host, false);
}

GetMergeQueueMetricsRequest metrics_request_from_query(std::string_view query) {
  std::vector<Violation> violations;
  std::optional<std::string> repo, host;
  for (const auto& [key, value] : detail::query_pairs(query, violations)) {
    if (key == "repo") {
      repo = value;
    } else if (key == "repoHost") {
      host = value;
    } else {
      violations.push_back({key, detail::quoted(value), "is not a parameter of this operation"});
    }
  }
  GetMergeQueueMetricsRequest request;
  if (repo) {
    const std::size_t slash = repo->rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == repo->size()) {
      violations.push_back({"repo", detail::quoted(*repo), "must be owner/name"});
    } else {
      // The guide always names the host; github.com is what it names, and the service's default.
      request.repo = Repo{host.value_or("github.com"), repo->substr(0, slash), repo->substr(slash + 1)};
    }
  } else if (host) {
    violations.push_back({"repoHost", detail::quoted(*host), "is only meaningful with repo"});
  }
  if (!violations.empty()) throw ValidationError(std::move(violations));
  return request;
}

}  // namespace trunk
