#pragma once
// Many POSTs to one URL over one libcurl multi handle: at most `concurrency` transfers in flight, each easy
// handle kept for the next request so its connection (cached by the multi handle) is reused. Every request
// gets the retry policy of the sequential path (attempt_outcome.hpp): same classification, backoff,
// Retry-After and overall deadline, except that a request waiting for its retry does not hold a slot — the
// others keep running. Every attempt, retries included, takes a slot of the client's rate limiter.

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "attempt_outcome.hpp"
#include "rate_limiter.hpp"

namespace trunk::detail {

struct BulkTransport {
  /// Sets the per-client options on a new easy handle (headers, TLS, share...), as the connection pool does.
  std::function<void(CURL*)> configure;
  /// A fresh retry context for one request; called at its first attempt (its overall deadline starts then).
  std::function<CallContext()> new_call;
  std::chrono::milliseconds attempt_timeout{0};
  int max_attempts = 1;
  RateLimiter* rate_limiter = nullptr;
  /// Polled between transfers and between polls of the multi handle; true cancels the whole run.
  const std::function<bool()>* interrupt_check = nullptr;
  std::function<double()> random;  ///< uniform [0, 1), the backoff jitter
  std::size_t max_response_bytes = 0;
  /// Receives the 2xx body of request `index` as soon as it arrives; an exception it throws becomes that
  /// request's error.
  std::function<void(std::size_t index, std::string&& body)> on_success;
};

/// POSTs every body of `bodies` to `url`. Returns one entry per body, in order: null when on_success took its
/// body, else the error that ended it. Throws CancelledError (naming `operation`) when interrupt_check asks.
std::vector<std::exception_ptr> run_bulk_posts(const BulkTransport& transport, const std::string& url,
                                               const std::vector<std::string>& bodies, std::size_t concurrency,
                                               std::string_view operation);

}  // namespace trunk::detail
