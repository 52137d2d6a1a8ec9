#include "sandbox_clock.hpp"

namespace trunk::sandbox {

trunk::Timestamp SandboxClock::now() const noexcept {
  const std::chrono::microseconds offset(offset_us_.load(std::memory_order_acquire));
  if (mode_ == ClockMode::virtual_time) return start_ + offset;
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()) + offset;
}

trunk::Timestamp SandboxClock::advance(std::chrono::microseconds by) noexcept {
  offset_us_.fetch_add(by.count(), std::memory_order_acq_rel);
  return now();
}

}  // namespace trunk::sandbox
