#pragma once
// Which failures are retried, and how long to wait before the next attempt (see trunk/retry.hpp).

#include <curl/curl.h>

#include <chrono>
#include <ctime>
#include <optional>
#include <string_view>

#include "trunk/retry.hpp"

namespace trunk::detail {

/// 429, 500, 502, 503, 504.
bool is_retryable_status(long status) noexcept;

/// Transport failures worth another attempt: connection refused or reset, attempt timeout, a truncated or
/// missing response, send/receive errors. Not retried: DNS failures, TLS and certificate errors, bad URLs,
/// aborts by the caller, oversized responses - another attempt would fail the same way.
bool is_retryable_transport(CURLcode code) noexcept;

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

}  // namespace trunk::detail
