#pragma once
// Fault injection: the dice for each request and the per-organization rate limiter.
// Dice are counter based (request number n, seed s -> mix64), so one seed always gives the same sequence of
// faults for the same sequence of requests, whatever the thread that serves them.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "trunk/sandbox/fault_options.hpp"

namespace trunk::sandbox {

struct FaultDecision {
  std::chrono::microseconds delay{0};
  bool drop = false;
  bool server_error = false;
  bool truncate = false;
  bool drop_after = false;    ///< process the request, then close the connection without an answer
  bool rate_limited = false;  ///< the rate_limited_rate die came up: answer 429
};

class Faults {
 public:
  explicit Faults(FaultOptions options) : options_(options) {}

  FaultOptions options() const;
  void set_options(const FaultOptions& options);

  /// Rolls the dice for the next request.
  FaultDecision roll();

  /// Token bucket of `organization`: nullopt when the request may proceed, else the seconds to wait
  /// (for Retry-After, at least 1).
  std::optional<int> take_rate_limit_token(const std::string& organization);

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point refilled{};
  };
  mutable std::mutex mutex_;
  FaultOptions options_;
  std::uint64_t counter_ = 0;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace trunk::sandbox
