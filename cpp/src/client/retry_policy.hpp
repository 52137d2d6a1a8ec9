#pragma once
// The retry policy of the client (see trunk/retry.hpp), in one place: which outcomes of an attempt are retried,
// for which kind of request, after how long, and when to give up. The transfer engine (transfer_engine.hpp)
// is its only user, for every request the client sends:
//   plan_attempt     the time budget of the next attempt (per-attempt timeout vs. the overall deadline)
//   classify_attempt success / final error / retryable error, with the typed exception and Retry-After
//   plan_retry       after a retryable error: the delay before the next attempt, or give up
// and the pure rules they apply (is_retryable_status, is_retryable_transport, never_reached_service,
// parse_retry_after, backoff_delay, retry_delay), tested on their own.

#include <curl/curl.h>

#include <chrono>
#include <ctime>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "http_transfer.hpp"
#include "redaction.hpp"
#include "trunk/log.hpp"
#include "trunk/repeat.hpp"
#include "trunk/retry.hpp"

namespace trunk::detail {

/// The retry property of a request (trunk/repeat.hpp).
using Repeat = trunk::Repeat;

/// 429, 500, 502, 503, 504.
bool is_retryable_status(long status) noexcept;

/// Transport failures worth another attempt: connection refused or reset, attempt timeout, a truncated or
/// missing response, send/receive errors. Not retried: DNS failures, TLS and certificate errors, bad URLs,
/// aborts by the caller, oversized responses - another attempt would fail the same way.
bool is_retryable_transport(CURLcode code) noexcept;

/// Whether an attempt that ended with libcurl's `code` (and, when CURLE_OK, HTTP `status`) provably never
/// reached the service, so that even a not-safe-to-repeat write may be sent again: the host name did not
/// resolve or no connection could be made (not a byte of the request was sent), or the service answered 429 or
/// 503, which it does before processing a request (docs/reference/service.md#retries).
/// A timeout is not such a proof, even one during the connect phase: libcurl reports both the same way.
bool never_reached_service(CURLcode code, long status) noexcept;

/// Whether an attempt of a `repeat` request that ended so is retried (the retry budget and the deadline aside):
/// retryable (is_retryable_status / is_retryable_transport), and for a not-safe request also never_reached_service.
bool may_retry(Repeat repeat, CURLcode code, long status) noexcept;

/// Seconds the server asked for in a Retry-After value: delta-seconds ("120") or an HTTP-date
/// ("Wed, 21 Oct 2015 07:28:00 GMT", relative to `now`). A date in the past gives 0. nullopt when the value
/// is neither form.
std::optional<double> parse_retry_after(std::string_view value, std::time_t now);

/// Full-jitter exponential backoff for retry number `retry` (0 for the first retry):
/// uniform in [0, min(max_backoff, initial_backoff * 2^retry)), with `unit_random` in [0, 1).
std::chrono::milliseconds backoff_delay(const RetryOptions& options, int retry, double unit_random) noexcept;

/// The wait before the next attempt: the server's Retry-After (capped at max_retry_after) when it sent one,
/// else backoff_delay.
std::chrono::milliseconds retry_delay(const RetryOptions& options, int retry, double unit_random,
                                      std::optional<double> retry_after_seconds) noexcept;

using AttemptClock = std::chrono::steady_clock;

/// Everything the classification needs to know about the call an attempt belongs to.
struct CallContext {
  std::string_view operation;
  std::string_view method;  ///< "GET", "POST", ..., for messages
  const std::string* url = nullptr;
  Repeat repeat = Repeat::safe;
  SecretViews secrets;  ///< redacted from every message (views into the client's secret memory)
  const RetryOptions* retry = nullptr;
  std::size_t max_response_bytes = 0;
  const std::string* tls_trust = nullptr;  ///< TlsTrust::source, named when the server's certificate is refused
  /// Receives already-redacted records (may be empty).
  std::function<void(LogLevel, const std::string&)> log;
  bool has_deadline = false;
  AttemptClock::time_point deadline{};
};

struct AttemptBudget {
  std::chrono::milliseconds timeout{0};  ///< 0 = no per-attempt limit
  bool limited_by_deadline = false;      ///< the overall deadline, not the per-attempt timeout, set it
};

/// Throws TimeoutError when the overall deadline has already passed before attempt number `attempt`.
AttemptBudget plan_attempt(const CallContext& call, std::chrono::milliseconds per_attempt_timeout, int attempt);

struct AttemptOutcome {
  enum class Kind { success, final_error, retryable };
  Kind kind = Kind::final_error;
  std::string body;                   ///< the 2xx body (success)
  std::exception_ptr error;           ///< the typed trunk::Error (final_error, retryable)
  std::optional<double> retry_after;  ///< seconds the server asked for (retryable)
  std::string reason;                 ///< short text for the retry log records (retryable)
};

/// Classifies attempt number `attempt` of `max_attempts` that took `elapsed`. Logs the attempt (debug), and
/// (info) a retryable failure of a not-safe request that is not retried because it may have reached the service.
AttemptOutcome classify_attempt(const CallContext& call, TransferResult&& result, const AttemptBudget& budget,
                                int attempt, int max_attempts, std::chrono::milliseconds elapsed);

/// After a retryable outcome of attempt number `attempt`: the wait before the next attempt, or nullopt when the
/// retry budget or the overall deadline is spent (both logged, info). `unit_random` in [0, 1) is the jitter.
std::optional<std::chrono::milliseconds> plan_retry(const CallContext& call, const AttemptOutcome& outcome,
                                                    int attempt, int max_attempts, double unit_random);

}  // namespace trunk::detail
