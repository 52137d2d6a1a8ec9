#pragma once
// Everything a Client can be configured with (a plain struct with defaults).

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "trunk/error.hpp"
#include "trunk/log.hpp"
#include "trunk/option_rows.hpp"
#include "trunk/retry.hpp"
#include "trunk/secret.hpp"

namespace trunk {

/// The environment variable of the base URL (the token's are kTokenVariables, error.hpp).
inline constexpr std::array<std::string_view, 1> kBaseUrlVariables{"TRUNK_BASE_URL"};

/// The type that holds the API token (the one place it is named, so the type can change alone).
using TokenHolder = std::optional<Secret>;

// Option rows (option_rows.hpp): the one declaration of each option; the Python keywords, the stubs, the
// command-line flags and docs/configuration.md's table are derived from it.
//
// base_url: nullopt -> $TRUNK_BASE_URL, else "https://api.trunk.io". Operation paths ("/v1/...") are appended.
// Given with the version, as the publisher's tools spell it ("https://api.trunk.io/v1", with or without a
// trailing '/'), the final "/v1" is dropped first, so both spellings call the same paths (docs/configuration.md).
//
// token, api_key: the credentials of v1 (the organization token) and v2 (an API key, trunk_v2_...); a client may
// hold both, and each call sends the one its API version accepts (docs/reference/credentials.md). trunk_token: the
// short-lived token of Trunk's own login, which v2's description also accepts (x-trunk-token); a v2 call sends it
// only when the client has no API key. No environment variable: Trunk's tools keep it in their own file. nullopt ->
// the environment: $TRUNK_API_TOKEN, then $TRUNK_API_KEY, each value filling the credential its prefix says
// (TRUNK_API_KEY holds either kind). With neither, the Client constructor throws trunk::MissingTokenError; a call
// whose version's credential is missing throws it before sending. A token that is a v2 key, or an api_key that is
// not one, is refused by the constructor. Each is a Secret (secret.hpp): assign a string as
// before (`options.token = "..."`; std::move(your_string) has it wiped); it is kept outside the ordinary heap and
// wiped by its own destructor. Hence ClientOptions is move-only: pass std::move(options). Copies you keep, and the
// environment variables, are yours to protect (docs/security.md).
//
// timeout: per attempt, whole transfer; C++ may set 0 = no per-attempt limit (Python requires more than 0).
// user_agent_suffix: User-Agent is "trunk-api-cpp/<version>", plus " " + suffix when the suffix is not empty.
// allow_insecure_http: an http:// base_url whose host is not loopback (127.0.0.0/8, localhost, [::1]) is
// refused unless this is true: the token would travel in clear.
// max_requests_per_second: shared by all threads of the client: requests (retries included) are spaced at
// least 1/rate apart, waiting through `sleep`.
// prefetch_pages: a listing's page pipeline requests the next page as soon as the previous one is in, while the
// caller works on it (see the top of pager.hpp); false = a page is requested when asked for.
#define TRUNK_CLIENT_OPTIONS(X)                                                                                     \
  X(std::optional<std::string>, base_url, "base_url", {}, options::kAnyValue, kBaseUrlVariables,                  \
    "Service address, with or without the API version (`https://api.trunk.io/v1` is the same); "                   \
    "default `https://api.trunk.io`.")                                                                               \
  X(TokenHolder, token, "token", {}, options::kSecret, kTokenVariables,                                            \
    "v1's organization token, sent as `x-api-token`. Never shown in `repr`, logs, errors or pickles.")             \
  X(TokenHolder, api_key, "api_key", {}, options::kSecret, kApiKeyVariables,                                       \
    "v2 API key (`trunk_v2_...`), sent as `Authorization: Bearer`. A secret as the token is.")                     \
  X(TokenHolder, trunk_token, "trunk_token", {}, options::kSecret, options::kNoVariables,                         \
    "Short-lived token of Trunk's own login (`x-trunk-token`), sent by v2 calls when there is no API key: it "     \
    "reads merge queues; Trunk refuses merge-queue writes with it (403). A secret as the token is.")              \
  X(std::chrono::milliseconds, timeout, "timeout", {30000}, options::kPositiveDuration, options::kNoVariables,     \
    "Per attempt, whole transfer.")                                                                                  \
  X(std::chrono::milliseconds, connect_timeout, "connect_timeout", {10000}, options::kPositiveDuration,            \
    options::kNoVariables, "Per attempt, TCP + TLS connection.")                                                    \
  X(RetryOptions, retry, "", {}, options::kAnyValue, options::kNoVariables, "The retry policy.")                   \
  X(std::string, user_agent_suffix, "user_agent", {}, options::kAnyValue, options::kNoVariables,                  \
    "Appended to `trunk-api-cpp/<version>` in the User-Agent header.")                                              \
  X(bool, verify_tls, "verify_tls", {true}, options::kAnyValue, options::kNoVariables,                             \
    "Verify the server's certificate.")                                                                              \
  X(std::string, ca_bundle, "ca_bundle", {}, options::kAnyValue, options::kNoVariables,                           \
    "Path of a PEM CA bundle; none = the system's.")                                                                \
  X(bool, allow_insecure_http, "allow_insecure_http", {false}, options::kAnyValue, options::kNoVariables,         \
    "Allow `http://` to a host other than loopback (the token would travel in clear).")                             \
  X(double, max_requests_per_second, "max_requests_per_second", {0}, options::kNonNegative, options::kNoVariables, \
    "Client-side rate limit, 0 = none (the service allows 100 requests/s per organization).")                       \
  X(bool, prefetch_pages, "prefetch_pages", {true}, options::kAnyValue, options::kNoVariables,                     \
    "The iterators request the next page while the current one is read (see Performance).")

struct ClientOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_CLIENT_OPTIONS)

  // ---- callables: set in code, not written down as options ----
  /// One debug record per attempt, one info record per retry. Token already redacted.
  LogCallback log;
  /// Polled about every 100 ms during transfers and sleeps; returning true aborts the call with
  /// trunk::CancelledError (Python uses it for Ctrl-C). Must be cheap and thread-safe.
  std::function<bool()> interrupt_check;

  // ---- test hooks: deterministic, fast tests ----
  /// Replaces a wait with no transfer in flight: between the attempts of a call, or for a rate-limit slot.
  /// (A bulk call waiting while its other requests are on the network keeps waiting in its poll loop.)
  /// Default: the engine's poll loop, which checks interrupt_check at least every 100 ms.
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Uniform in [0, 1), used for the full jitter of the backoff. Default: a seeded PRNG.
  std::function<double()> random;
};
TRUNK_DESCRIBE_OPTIONS(ClientOptions, TRUNK_CLIENT_OPTIONS)

}  // namespace trunk
