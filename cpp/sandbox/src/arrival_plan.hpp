#pragma once
// The arrivals of one merge queue drawn one at a time (trunk/sandbox/arrivals.hpp), and the checks of what a
// caller may set. Pure as RunRules: the same arrivals, dice and start give the same times, targets and priorities, whatever
// the queue does meanwhile, because the k-th arrival's draws come from (dice, k) alone.
//
// A non-homogeneous Poisson process by inversion: the k-th gap is an exponential draw E of unit mean, spent
// against the rate's integral hour by hour (a profile's rate is constant within an hour of the clock), so an
// hour with rate 0 never holds an arrival and the mean count over any hour is exactly its rate.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/sandbox/arrivals.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

/// The violations of `arrivals`, its fields under `field` ("arrivals.per_hour").
std::vector<trunk::Violation> arrivals_violations(const Arrivals& arrivals, const std::string& field);

class ArrivalPlan {
 public:
  /// Arrivals strictly after `from`; `dice`: the queue's (seed and queue mixed).
  ArrivalPlan(Arrivals arrivals, std::uint64_t dice, trunk::Timestamp from);

  const Arrivals& arrivals() const noexcept { return arrivals_; }
  /// When the next pull request arrives; nullopt when none will (a rate of 0, a list used up).
  std::optional<trunk::Timestamp> next() const noexcept { return next_; }

  struct Arrival {
    std::vector<std::string> targets;  ///< the impacted targets drawn
    bool all_targets = false;          ///< no target distribution given: "ALL"
    std::optional<std::int64_t> priority;  ///< the priority drawn; none: the queue's default
  };
  /// The arrival due at next(), then moves next() on. Call only when next() has a value.
  Arrival take();
  /// The number the arrival takes: the next one from first_number on for which `in_use` is false.
  template <typename InUse>
  std::int64_t claim_number(InUse&& in_use) {
    while (in_use(number_)) ++number_;
    return number_++;
  }

 private:
  /// The arrival after `after` for serial `serial`; nullopt when none.
  std::optional<trunk::Timestamp> following(trunk::Timestamp after, std::uint64_t serial) const;

  Arrivals arrivals_;
  std::uint64_t dice_;
  std::uint64_t serial_ = 0;        ///< arrivals taken so far
  std::vector<trunk::Timestamp> schedule_;  ///< ScheduledArrivals' times after `from`, sorted
  std::optional<trunk::Timestamp> next_;
  std::int64_t number_;
};

}  // namespace trunk::sandbox
