#include "retry_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace trunk::detail {

bool is_retryable_status(long status) noexcept {
  switch (status) {
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

bool is_retryable_transport(CURLcode code) noexcept {
  switch (code) {
    case CURLE_COULDNT_CONNECT:     // refused
    case CURLE_OPERATION_TIMEDOUT:  // attempt timeout
    case CURLE_PARTIAL_FILE:        // body shorter than Content-Length
    case CURLE_GOT_NOTHING:         // connection closed before any response
    case CURLE_SEND_ERROR:          // reset while sending
    case CURLE_RECV_ERROR:          // reset while receiving
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

std::optional<double> parse_retry_after(std::string_view value, std::time_t now) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // Delta-seconds. Parsed as double so an absurdly long number saturates instead of overflowing.
    double seconds = 0;
    for (char c : value) seconds = seconds * 10 + (c - '0');
    return seconds;
  }
  const std::string text(value);
  const std::time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::max(0.0, std::difftime(when, now));
}

std::chrono::milliseconds backoff_delay(const RetryOptions& options, int retry, double unit_random) noexcept {
  const double initial = static_cast<double>(std::max<std::int64_t>(0, options.initial_backoff.count()));
  const double cap = static_cast<double>(std::max<std::int64_t>(0, options.max_backoff.count()));
  const double ceiling = std::min(cap, initial * std::pow(2.0, std::clamp(retry, 0, 62)));
  const double fraction = std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(ceiling * fraction));
}

std::chrono::milliseconds retry_delay(const RetryOptions& options, int retry, double unit_random,
                                      std::optional<double> retry_after_seconds) noexcept {
  if (!retry_after_seconds) return backoff_delay(options, retry, unit_random);
  const double cap_ms = static_cast<double>(std::max<std::int64_t>(0, options.max_retry_after.count()));
  const double wanted_ms = std::max(0.0, *retry_after_seconds) * 1000.0;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(wanted_ms, cap_ms)));
}

}  // namespace trunk::detail
