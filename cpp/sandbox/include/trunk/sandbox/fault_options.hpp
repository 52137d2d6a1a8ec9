#pragma once
// trunk::sandbox::FaultOptions: the faults the sandbox injects into its answers and webhook deliveries, as option
// rows. Apart from sandbox.hpp so that the sandbox's fault injection and webhook sender see the rows without the
// Sandbox class; sandbox.hpp includes it.

#include <chrono>
#include <cstdint>

#include "trunk/option_rows.hpp"

namespace trunk::sandbox {

/// Fault injection. All off by default; can be changed while the sandbox runs (set_faults).
///
/// Before the request is processed (nothing changes in the sandbox): drop_rate (connection closed),
/// rate_limit_rps and rate_limited_rate (429), error_rate (503). After it is processed (the change is made,
/// the answer is lost or damaged): drop_after_rate (connection closed), truncate_rate (body cut short).
/// A client that retries a non-idempotent write after one of the latter must read back the state first.
///
/// Option rows (trunk/option_rows.hpp): the one declaration of each setting; the Python keywords (Sandbox,
/// set_faults, the fault properties), the stubs, both command lines (trunk-sandbox, `trunk-api sandbox`) and
/// docs/sandbox.md's table are derived from them. Durations are given in whole milliseconds (the `_ms` names).
/// rate_limit_rps > 0: a token bucket per organization (a burst of one second's worth); over it 429, text body,
/// Retry-After in whole seconds. drop_after_rate is what a client sees when the network fails after the
/// service acted (exactly-once soak tests); rate_limited_rate injects a precise share of 429s whatever the
/// request rate (unlike rate_limit_rps, which needs real load). The webhook settings act on deliveries
/// (docs/webhooks.md, "Faults"), on the sandbox clock.
#define TRUNK_FAULT_OPTIONS(X)                                                                                   \
  X(std::chrono::milliseconds, latency, "latency_ms", {0}, options::milliseconds_up_to(3'600'000),            \
    options::kNoVariables, "Added before each response.")                                                       \
  X(std::chrono::milliseconds, jitter, "jitter_ms", {0}, options::milliseconds_up_to(3'600'000),              \
    options::kNoVariables, "Plus a uniform random 0 to jitter_ms.")                                              \
  X(double, error_rate, "error_rate", {0}, options::kFraction, options::kNoVariables,                          \
    "Fraction of requests answered 503.")                                                                        \
  X(double, rate_limit_rps, "rate_limit", {0}, options::kNonNegative, options::kNoVariables,                   \
    "Requests per second per organization, then 429 with Retry-After; 0 = no limit.")                            \
  X(double, drop_rate, "drop_rate", {0}, options::kFraction, options::kNoVariables,                            \
    "Fraction of requests whose connection is closed without an answer.")                                        \
  X(double, truncate_rate, "truncate_rate", {0}, options::kFraction, options::kNoVariables,                    \
    "Fraction of responses whose body is cut short (Content-Length kept).")                                      \
  X(double, drop_after_rate, "drop_after_rate", {0}, options::kFraction, options::kNoVariables,                \
    "Fraction of requests processed (the state changes), then closed without an answer.")                        \
  X(double, rate_limited_rate, "rate_limited_rate", {0}, options::kFraction, options::kNoVariables,            \
    "Fraction of requests answered 429 with rate_limited_retry_after_seconds, whatever the load.")               \
  X(int, rate_limited_retry_after_seconds, "rate_limited_retry_after_seconds", {1},                             \
    options::with_flag(options::between(0, 86'400), "rate-limited-retry-after"), options::kNoVariables,         \
    "Retry-After of the rate_limited_rate 429s, in seconds.")                                                    \
  X(std::uint64_t, seed, "fault_seed", {1}, options::kNonNegative, options::kNoVariables,                       \
    "Seed of the fault dice: the same seed, the same faults.")                                                   \
  X(double, webhook_duplicate_rate, "webhook_duplicate_rate", {0}, options::kFraction, options::kNoVariables,  \
    "Fraction of webhook messages sent once more (same svix-id).")                                               \
  X(std::chrono::milliseconds, webhook_delay, "webhook_delay_ms", {0}, options::milliseconds_up_to(86'400'000), \
    options::kNoVariables, "Each webhook message sent this long (sandbox clock) after its event.")              \
  X(std::chrono::milliseconds, webhook_jitter, "webhook_jitter_ms", {0},                                       \
    options::milliseconds_up_to(86'400'000), options::kNoVariables,                                              \
    "Plus a uniform random 0 to webhook_jitter_ms: pull requests' messages overtake each other, one pull "        \
    "request's keep their order (unless webhook_reorder).")                                                       \
  X(bool, webhook_reorder, "webhook_reorder", {false}, options::kAnyValue, options::kNoVariables,               \
    "With webhook_jitter_ms: one pull request's messages may overtake each other too, as Svix's retries can "     \
    "reorder them; for testing a bot that must order events by their timestamp.")

struct FaultOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_FAULT_OPTIONS)
};

}  // namespace trunk::sandbox

namespace trunk {
TRUNK_DESCRIBE_OPTIONS(sandbox::FaultOptions, TRUNK_FAULT_OPTIONS)
}  // namespace trunk
