#pragma once
// Resolution and safety checks of the client's base address and token (ClientOptions defaults).

#include <optional>
#include <string>
#include <string_view>

#include "trunk/secret.hpp"

namespace trunk::detail {

inline constexpr std::string_view kDefaultBaseUrl = "https://api.trunk.io";

/// options.base_url, else $TRUNK_BASE_URL, else kDefaultBaseUrl; without trailing '/' and without one final
/// "/v1" path segment (the operation paths carry the version: "https://api.trunk.io/v1" and
/// "https://api.trunk.io" name the same service). Throws trunk::Error
/// when it is not an http(s) URL, or is http:// to a host that is not loopback and allow_insecure_http is
/// false (the token would cross the network in clear).
std::string resolve_base_url(const std::optional<std::string>& configured, bool allow_insecure_http);

/// options.token, else $TRUNK_API_TOKEN, else $TRUNK_API_KEY. Throws trunk::Error naming both variables
/// when none is set, and when the token is empty or holds a control character (it goes into a header).
/// Returns a view of the chosen source (`configured`'s own memory or the environment's string) without copying
/// it: the caller copies it straight into secret memory, so no temporary copy is ever freed unwiped.
std::string_view resolve_token(const std::optional<Secret>& configured);

/// 127.0.0.0/8, "localhost" (any case) and ::1 (as "[::1]" or "::1").
bool is_loopback_host(std::string_view host);

}  // namespace trunk::detail
