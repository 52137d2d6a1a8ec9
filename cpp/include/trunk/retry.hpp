#pragma once
// Retry policy of the client (a plain struct with defaults).
//
// Retried: HTTP 429, 500, 502, 503, 504 and transport failures (connection refused or reset, attempt
// timeout, truncated body, empty reply). Nothing else. The wait before retry n (n = 0 for the first retry) is
// "full jitter": uniform in [0, min(max_backoff, initial_backoff * 2^n)), unless the server sent Retry-After,
// in which case the client waits exactly that long, capped at max_retry_after. A retry whose wait would end
// after overall_deadline is not made: the last error is thrown instead.

#include <chrono>

namespace trunk {

struct RetryOptions {
  int max_retries = 3;  ///< retries after the first attempt (0 = never retry)
  std::chrono::milliseconds initial_backoff{250};
  std::chrono::milliseconds max_backoff{8000};
  std::chrono::milliseconds max_retry_after{60000};   ///< cap on a server's Retry-After
  std::chrono::milliseconds overall_deadline{120000};  ///< across all attempts and sleeps; 0 = none
};

}  // namespace trunk
