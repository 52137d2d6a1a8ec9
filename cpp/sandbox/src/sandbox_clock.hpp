#pragma once
// The sandbox's own clock, on which the merge queues move (readiness, test runs, batching waits,
// switching_modes). Two modes (SandboxOptions::clock):
//  - real: the wall clock plus an offset that advance() grows, so a demo can skip an hour of queue life;
//  - virtual_time: time stands still at `start` until advance() moves it, so the same calls give the same
//    outcomes however fast or loaded the machine is (tests, notebooks).
// The flaky-test history's `now` is a different thing: the generated data does not age with this clock.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "trunk/sandbox/clock_mode.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

class SandboxClock {
 public:
  /// `start` is where a virtual clock begins; a real clock ignores it.
  SandboxClock(ClockMode mode, trunk::Timestamp start) noexcept : mode_(mode), start_(start) {}

  trunk::Timestamp now() const noexcept;
  /// Moves the clock forward by `by` (not negative) and returns the new time.
  trunk::Timestamp advance(std::chrono::microseconds by) noexcept;

 private:
  ClockMode mode_;
  trunk::Timestamp start_;
  std::atomic<std::int64_t> offset_us_{0};
};

}  // namespace trunk::sandbox
