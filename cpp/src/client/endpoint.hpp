#pragma once
// Resolution and safety checks of the client's base address (ClientOptions defaults); credentials.hpp resolves
// the credentials.

#include <optional>
#include <string>
#include <string_view>

namespace trunk::detail {

inline constexpr std::string_view kDefaultBaseUrl = "https://api.trunk.io";

/// options.base_url, else $TRUNK_BASE_URL, else kDefaultBaseUrl; without trailing '/' and without one final
/// "/v1" or "/v2" path segment (the operation paths carry the version: "https://api.trunk.io/v1",
/// "https://api.trunk.io/v2" and "https://api.trunk.io" name the same service). Throws trunk::Error
/// when it is not an http(s) URL, or is http:// to a host that is not loopback and allow_insecure_http is
/// false (the token would cross the network in clear).
std::string resolve_base_url(const std::optional<std::string>& configured, bool allow_insecure_http);

/// 127.0.0.0/8, "localhost" (any case) and ::1 (as "[::1]" or "::1").
bool is_loopback_host(std::string_view host);

}  // namespace trunk::detail
