#pragma once
// Client-side request rate limit (ClientOptions::max_requests_per_second), shared by every thread of one
// client: requests are spaced at least 1/rate apart. Each caller reserves the next free slot and is told
// how long to wait for it, so waiting happens outside the lock (and through the client's interruptible
// sleep).

#include <chrono>
#include <mutex>

namespace trunk::detail {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  /// rate <= 0 (or not finite) disables the limit.
  explicit RateLimiter(double requests_per_second);

  bool enabled() const noexcept { return interval_.count() > 0; }

  /// Reserves the next slot and returns how long to wait before sending (zero when a slot is free now).
  std::chrono::milliseconds reserve();

 private:
  Clock::duration interval_{0};
  std::mutex mutex_;
  Clock::time_point next_free_{};
};

}  // namespace trunk::detail
