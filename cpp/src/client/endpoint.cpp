#include "endpoint.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "curl_handles.hpp"
#include "trunk/client_options.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string lower(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string url_part(CURLU* url, CURLUPart part) {
  char* raw = nullptr;
  if (curl_url_get(url, part, &raw, 0) != CURLUE_OK || raw == nullptr) return {};
  CurlString owned(raw);
  return std::string(owned.get());
}

/// The publisher's own tools spell the address with the API version (https://api.trunk.io/v1, trunk-io/login's
/// https://api.trunk.io/v2), ours without, and the operation paths carry it ("/v1/getQueue", "/v2/merge-queues"):
/// one final path segment exactly "v1" or "v2" is dropped, so that every spelling works and the version is never
/// sent twice. Decided on the parsed path (`path`), so a host named "v1" stays; "/v10", "/V1" and "/xv1" are other
/// paths and stay; "/api/v1" becomes "/api". `base` has no trailing '/', query or fragment: its text ends with
/// its path.
void drop_version_segment(std::string& base, std::string_view path) {
  for (const std::string_view segment : {std::string_view("/v1"), std::string_view("/v2")}) {
    if (!path.ends_with(segment) || !std::string_view(base).ends_with(segment)) continue;
    base.resize(base.size() - segment.size());
    while (!base.empty() && base.back() == '/') base.pop_back();
    return;
  }
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  const std::string name = lower(host);
  if (name == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, name.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  std::string v6_text = name;
  if (v6_text.size() >= 2 && v6_text.front() == '[' && v6_text.back() == ']') {
    v6_text = v6_text.substr(1, v6_text.size() - 2);
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, v6_text.c_str(), &v6) == 1) {
    return std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
  }
  return false;
}

std::string resolve_base_url(const std::optional<std::string>& configured, bool allow_insecure_http) {
  std::string base = configured ? *configured : environment(kBaseUrlVariables[0].data()).value_or(std::string(kDefaultBaseUrl));
  while (!base.empty() && base.back() == '/') base.pop_back();

  ensure_curl_initialized();
  UrlHandle url(curl_url());
  if (!url) throw TransportError("libcurl could not parse a URL (out of memory)");
  if (base.empty() || curl_url_set(url.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK) {
    throw Error("base_url '" + base + "' is not a valid URL (expected e.g. https://api.trunk.io)");
  }
  const std::string scheme = lower(url_part(url.get(), CURLUPART_SCHEME));
  if (scheme != "https" && scheme != "http") {
    throw Error("base_url '" + base + "' must start with https:// (or http:// for a local server)");
  }
  if (!url_part(url.get(), CURLUPART_QUERY).empty() || !url_part(url.get(), CURLUPART_FRAGMENT).empty()) {
    throw Error("base_url '" + base + "' must not have a query or a fragment");
  }
  const std::string host = url_part(url.get(), CURLUPART_HOST);
  if (scheme == "http" && !allow_insecure_http && !is_loopback_host(host)) {
    throw Error("base_url '" + base + "' uses plain http:// to the non-loopback host '" + host +
                "': the API token would travel unencrypted. Use https://, or set allow_insecure_http");
  }
  drop_version_segment(base, url_part(url.get(), CURLUPART_PATH));
  return base;
}

}  // namespace trunk::detail
