#pragma once
// Everything a Client can be configured with (a plain struct with defaults).

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "trunk/log.hpp"
#include "trunk/retry.hpp"
#include "trunk/secret.hpp"

namespace trunk {

struct ClientOptions {
  /// nullopt -> $TRUNK_BASE_URL, else "https://api.trunk.io". Operation paths ("/v1/...") are appended.
  /// Given with the version, as the publisher's tools spell it ("https://api.trunk.io/v1", with or without a
  /// trailing '/'), the final "/v1" is dropped first, so both spellings call the same paths
  /// (docs/configuration.md).
  std::optional<std::string> base_url;
  /// nullopt -> $TRUNK_API_TOKEN, then $TRUNK_API_KEY (kTokenVariables); when none is set the Client
  /// constructor throws trunk::MissingTokenError naming both variables.
  /// A Secret (secret.hpp): assign a string as before (`options.token = "..."`; std::move(your_string) has
  /// it wiped), it is kept outside the ordinary heap and wiped by its own destructor. Hence ClientOptions is
  /// move-only: pass std::move(options). Copies you keep, and the environment variables, are yours to protect
  /// (docs/security.md).
  std::optional<Secret> token;
  std::chrono::milliseconds timeout{30000};  ///< per attempt, whole transfer; 0 = no per-attempt limit
  std::chrono::milliseconds connect_timeout{10000};
  RetryOptions retry;
  /// User-Agent is "trunk-api-cpp/<version>", plus " " + suffix when the suffix is not empty.
  std::string user_agent_suffix;
  bool verify_tls = true;
  std::string ca_bundle;  ///< path of a PEM CA bundle; "" = the system default
  /// An http:// base_url whose host is not loopback (127.0.0.0/8, localhost, [::1]) is refused unless
  /// this is true: the token would travel in clear.
  bool allow_insecure_http = false;
  /// Client-side rate limit shared by all threads of the client: requests (retries included) are spaced
  /// at least 1/rate apart, waiting through `sleep`. 0 = none. The service allows 100/s per organization.
  double max_requests_per_second = 0;
  /// The pagers of failing_tests()/unhealthy_tests() request the next page in the background while the
  /// caller works on the current one (see "Prefetching" in pager.hpp). false = fetch only on demand.
  bool prefetch_pages = true;
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

}  // namespace trunk
