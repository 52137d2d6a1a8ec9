#pragma once
// Retry policy of the client (a plain struct with defaults).
//
// Retried: HTTP 429, 500, 502, 503, 504 and transport failures (connection refused or reset, attempt
// timeout, truncated body, empty reply). Nothing else. The wait before retry n (n = 0 for the first retry) is
// "full jitter": uniform in [0, min(max_backoff, initial_backoff * 2^n)), unless the server sent Retry-After,
// in which case the client waits exactly that long, capped at max_retry_after. A retry whose wait would end
// after overall_deadline is not made: the last error is thrown instead.
//
// Writes that are not safe to repeat (the service's submitPullRequest, restartTestsOnPullRequest, createQueue,
// setImpactedTargets) are retried only when the failure is retryable above and the attempt provably never
// reached the service: no connection could be made (refused), or the answer was 429 or 503 (given before
// processing). After a timeout, a connection lost after sending, a truncated answer or a 500/502/504 the error is thrown at once:
// the write may have happened, so read the state back before trying again. Reads and updateQueue are safe to
// repeat and follow the rules above.

#include <chrono>

#include "trunk/option_rows.hpp"

namespace trunk {

// Option rows (option_rows.hpp). The waits between attempts are C++ only; Python and the command line set the
// number of retries and the overall deadline.
#define TRUNK_RETRY_OPTIONS(X)                                                                                      \
  X(int, max_retries, "max_retries", {3}, (options::OptionRule{.min = 0, .max = 100}), options::kNoVariables,       \
    "Retries after the first attempt (0 = never).")                                                                  \
  X(std::chrono::milliseconds, initial_backoff, "", {250}, options::kAnyValue, options::kNoVariables,              \
    "Upper bound of the first retry's wait (full jitter).")                                                          \
  X(std::chrono::milliseconds, max_backoff, "", {8000}, options::kAnyValue, options::kNoVariables,                 \
    "Upper bound of any backoff wait.")                                                                              \
  X(std::chrono::milliseconds, max_retry_after, "", {60000}, options::kAnyValue, options::kNoVariables,            \
    "Cap on a server's Retry-After.")                                                                                \
  X(std::chrono::milliseconds, overall_deadline, "overall_deadline", {120000}, options::kDurationOrZero,           \
    options::kNoVariables, "Bound on a whole call, retries and waits included (0 = none).")

struct RetryOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_RETRY_OPTIONS)
};
TRUNK_DESCRIBE_OPTIONS(RetryOptions, TRUNK_RETRY_OPTIONS)

}  // namespace trunk
