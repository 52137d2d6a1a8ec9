#pragma once
// The retry policy applied to one finished attempt, shared by the sequential path (Client::Impl::post) and
// the bulk engine (bulk_engine.hpp) so both classify, log, back off and give up identically:
//   plan_attempt     the time budget of the next attempt (per-attempt timeout vs. the overall deadline)
//   classify_attempt success / final error / retryable error, with the typed exception and Retry-After
//   plan_retry       after a retryable error: the delay before the next attempt, or give up

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "http_transfer.hpp"
#include "trunk/log.hpp"
#include "trunk/retry.hpp"

namespace trunk::detail {

using AttemptClock = std::chrono::steady_clock;

/// Everything the classification needs to know about the call an attempt belongs to.
struct CallContext {
  std::string_view operation;
  const std::string* url = nullptr;
  std::string_view token;  ///< redacted from every message (a view into the client's secret memory)
  const RetryOptions* retry = nullptr;
  std::size_t max_response_bytes = 0;
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

/// Classifies attempt number `attempt` of `max_attempts` that took `elapsed`. Logs the attempt (debug).
AttemptOutcome classify_attempt(const CallContext& call, TransferResult&& result, const AttemptBudget& budget,
                                int attempt, int max_attempts, std::chrono::milliseconds elapsed);

/// After a retryable outcome of attempt number `attempt`: the wait before the next attempt, or nullopt when the
/// retry budget or the overall deadline is spent (both logged, info). `unit_random` in [0, 1) is the jitter.
std::optional<std::chrono::milliseconds> plan_retry(const CallContext& call, const AttemptOutcome& outcome,
                                                    int attempt, int max_attempts, double unit_random);

}  // namespace trunk::detail
