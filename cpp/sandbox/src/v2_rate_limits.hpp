#pragma once
// The rate limits Trunk documents for v2 beyond the organization's 100 requests a second (docs/sandbox.md#rate-limits),
// which the sandbox applies when SandboxOptions::v2_rate_limits is on (off by default: a test suite would
// otherwise wait on them): each row says which requests it counts, whose they are, and how many a second.
// A request over its limit is answered 429 RATE_LIMITED with Retry-After; the limits are kept apart from the
// serving, as the client's retry rules are kept apart from its transfer loop.

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace trunk::sandbox::v2 {

/// Whose requests a limit counts together.
enum class LimitedBy {
  api_key,       ///< each API key apart
  organization,  ///< every key of the organization together
};

struct DocumentedLimit {
  std::string_view name;    ///< what the 429's message says is limited
  std::string_view method;  ///< the requests it counts: this method ...
  std::string_view prefix;  ///< ... at a path starting with this ...
  std::string_view suffix;  ///< ... and ending with this ("" = any)
  LimitedBy by;
  int per_second;
};

/// The documented limits, one row each.
inline constexpr std::array<DocumentedLimit, 2> kDocumentedLimits{{
    {"GET /v2/pull-requests*", "GET", "/v2/pull-requests", "", LimitedBy::api_key, 5},
    {"merge queue metrics", "GET", "/v2/merge-queues/", "/metrics", LimitedBy::organization, 5},
}};

/// The limit a request counts against, if any.
const DocumentedLimit* limit_of(std::string_view method, std::string_view path) noexcept;

/// Counts the requests of each (limit, caller) over the last second, a sliding window. Thread-safe.
class RateLimits {
 public:
  using Clock = std::chrono::steady_clock;

  /// Counts a request of `key` (the caller's API key) to `method path` made at `now`: nullopt when it is within
  /// its limit (or counts against none), else the limit it is over and the whole seconds until it is within
  /// it again (at least 1, for Retry-After). A refused request is not counted.
  std::optional<std::pair<const DocumentedLimit*, int>> admit(std::string_view method, std::string_view path,
                                                              const std::string& key, Clock::time_point now);

 private:
  std::mutex mutex_;
  std::map<std::pair<const DocumentedLimit*, std::string>, std::deque<Clock::time_point>> recent_;
};

}  // namespace trunk::sandbox::v2
