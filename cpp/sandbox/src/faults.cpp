#include "faults.hpp"

#include <algorithm>
#include <cmath>

#include "random.hpp"

namespace trunk::sandbox {

FaultOptions Faults::options() const {
  std::lock_guard lock(mutex_);
  return options_;
}

void Faults::set_options(const FaultOptions& options) {
  std::lock_guard lock(mutex_);
  if (options.seed != options_.seed) counter_ = 0;  // a new seed restarts its sequence
  if (options.rate_limit_rps != options_.rate_limit_rps) buckets_.clear();
  options_ = options;
}

FaultDecision Faults::roll() {
  FaultOptions options;
  std::uint64_t n = 0;
  {
    std::lock_guard lock(mutex_);
    options = options_;
    n = counter_++;
  }
  // Independent dice per fault kind, derived from (seed, request number, kind).
  auto die = [&](std::uint64_t kind) { return unit_interval(mix64(mix64(options.seed ^ (kind << 56)) ^ n)); };
  FaultDecision decision;
  decision.delay = std::chrono::duration_cast<std::chrono::microseconds>(options.latency);
  if (options.jitter.count() > 0) {
    decision.delay += std::chrono::microseconds(
        static_cast<std::int64_t>(die(1) * static_cast<double>(options.jitter.count()) * 1000.0));
  }
  decision.drop = options.drop_rate > 0 && die(2) < options.drop_rate;
  decision.server_error = options.error_rate > 0 && die(3) < options.error_rate;
  decision.truncate = options.truncate_rate > 0 && die(4) < options.truncate_rate;
  decision.rate_limited = options.rate_limited_rate > 0 && die(5) < options.rate_limited_rate;
  decision.drop_after = options.drop_after_rate > 0 && die(6) < options.drop_after_rate;
  return decision;
}

std::optional<int> Faults::take_rate_limit_token(const std::string& organization) {
  std::lock_guard lock(mutex_);
  const double rate = options_.rate_limit_rps;
  if (rate <= 0) return std::nullopt;
  // Capacity of one second's worth (at least one request), as an edge rate limiter allows short bursts.
  const double capacity = std::max(1.0, rate);
  const auto now = std::chrono::steady_clock::now();
  auto [it, inserted] = buckets_.try_emplace(organization);
  Bucket& bucket = it->second;
  if (inserted) {
    bucket.tokens = capacity;
  } else {
    const double elapsed = std::chrono::duration<double>(now - bucket.refilled).count();
    bucket.tokens = std::min(capacity, bucket.tokens + elapsed * rate);
  }
  bucket.refilled = now;
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return std::nullopt;
  }
  const double wait = (1.0 - bucket.tokens) / rate;
  return std::max(1, static_cast<int>(std::ceil(wait)));
}

}  // namespace trunk::sandbox
