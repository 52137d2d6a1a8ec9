#include "rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace trunk::detail {

RateLimiter::RateLimiter(double requests_per_second) {
  if (std::isfinite(requests_per_second) && requests_per_second > 0) {
    interval_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / requests_per_second));
  }
}

std::chrono::milliseconds RateLimiter::reserve() {
  if (!enabled()) return std::chrono::milliseconds(0);
  const auto now = Clock::now();
  Clock::time_point slot;
  {
    std::lock_guard lock(mutex_);
    slot = std::max(now, next_free_);
    next_free_ = slot + interval_;
  }
  // Rounded up so a caller never sends before its slot.
  return std::chrono::ceil<std::chrono::milliseconds>(slot - now);
}

}  // namespace trunk::detail
