#pragma once
// trunk::twin::fit_arrivals: when pull requests enter a queue, as the twin's arrival generator replays it
// (docs/twin.md, "Arrivals").
//
// Arrivals are modelled as a Poisson process whose rate depends on the hour of the week (UTC): teams submit in
// their working hours, and a queue that is idle at night and busy at 11:00 waits very differently from one fed at
// the same average rate around the clock. Each hour of the week gets its own rate with an exact Poisson interval
// over the hours of that kind the window covers (a window of 45 days covers each hour of the week 6 or 7 times);
// the hour of the day is the coarser profile for a shorter window. A chi-squared test says whether the
// hour-of-day profile differs from a flat rate at all, so that a flat history is replayed as flat.

#include <array>
#include <cstddef>
#include <optional>
#include <span>

#include "trunk/time.hpp"
#include "trunk/twin/estimate.hpp"

namespace trunk::twin {

inline constexpr std::size_t kHoursPerWeek = 168;

struct ArrivalProfile {
  Estimate per_hour;                                                   ///< over the whole window
  std::array<std::optional<Estimate>, 24> by_hour_of_day;              ///< [0] = 00:00-01:00 UTC
  std::array<std::optional<Estimate>, kHoursPerWeek> by_hour_of_week;  ///< [0] = Monday 00:00-01:00 UTC
  double observed_hours = 0;      ///< the window's length
  std::size_t arrivals = 0;       ///< arrivals inside the window
  std::size_t ignored = 0;        ///< arrivals outside it
  double flat_p_value = 1;        ///< chi-squared test of "the same rate at every hour of the day"
  double days_alike_p_value = 1;  ///< chi-squared test of "every day of the week as the hour-of-day profile says"
};

/// Fits the arrivals that fall in [from, until). Throws trunk::ValidationError naming `until` when the window is
/// empty or reversed; any arrivals (none, all outside, unsorted) are fine.
ArrivalProfile fit_arrivals(std::span<const Timestamp> arrivals, Timestamp from, Timestamp until);

/// The hour of the week of an instant (UTC), Monday 00:00 = 0.
std::size_t hour_of_week(Timestamp t) noexcept;

}  // namespace trunk::twin
