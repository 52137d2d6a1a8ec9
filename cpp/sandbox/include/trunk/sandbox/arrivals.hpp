#pragma once
// Pull requests that arrive in a merge queue by themselves (QueueControls::arrivals): a test or a notebook states
// how a team submits (a Poisson rate, a profile by hour of the day or of the week, or a list of times) and which
// targets each pull request impacts, and the queue submits them on its clock as the API would, so a sandbox can
// play a team's queue for 30 simulated days without a driver loop. The twin's arrival fit (trunk/twin/
// arrival_fit.hpp) reads the same hours: hour 0 of the week is Monday 00:00 UTC.
//
// Drawn with counter-based dice (the queue's seed and the arrival's serial, src/arrival_plan.hpp), so a seed
// repeats the same arrivals, their targets and priorities. Rules (docs/sandbox.md, "Arrivals"): rates from 0 to
// kMaxArrivalsPerHour; a profile of 24 or 168 hours; at most kMaxScheduledArrivals times; target chances from 0
// to 1 on non-empty names; priority chances from 0 to 1 on distinct priority values (within a submission's bounds), summing to 1 at most.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "trunk/time.hpp"

namespace trunk::sandbox {

/// The highest arrival rate accepted (pull requests per hour): one a second.
inline constexpr double kMaxArrivalsPerHour = 3600;
/// The most times a scheduled list may hold.
inline constexpr std::size_t kMaxScheduledArrivals = 100'000;
/// The most targets an arrival's distribution may name.
inline constexpr std::size_t kMaxArrivalTargets = 1'000;
/// The most priorities an arrival's distribution may name.
inline constexpr std::size_t kMaxArrivalPriorities = 256;

/// A homogeneous Poisson process: `per_hour` pull requests an hour on average, at any hour.
struct PoissonArrivals {
  double per_hour = 0;
  bool operator==(const PoissonArrivals&) const = default;
};

/// A Poisson process whose rate depends on the hour (UTC): 24 rates (every day alike, hour 0 at midnight) or
/// 168 (hour 0 = Monday 00:00), each per hour.
struct HourlyArrivals {
  std::vector<double> per_hour;
  bool operator==(const HourlyArrivals&) const = default;
};

/// Exactly these times (the ones already past when set are skipped), in any order.
struct ScheduledArrivals {
  std::vector<trunk::Timestamp> at;
  bool operator==(const ScheduledArrivals&) const = default;
};

using ArrivalProcess = std::variant<PoissonArrivals, HourlyArrivals, ScheduledArrivals>;

/// A target each arriving pull request impacts with `probability`, independently of the others.
struct TargetChance {
  std::string target;
  double probability = 0;
  bool operator==(const TargetChance&) const = default;
};

/// A priority each arriving pull request is submitted with, with `probability`. One arrival draws one priority
/// at most: the chances exclude each other, and an arrival that draws none is submitted without a priority (the
/// queue's default), as most submissions are.
struct PriorityChance {
  std::int64_t value = 0;  ///< lower first; 0 skips the line
  double probability = 0;
  bool operator==(const PriorityChance&) const = default;
};

struct Arrivals {
  ArrivalProcess process;
  /// Each arrival's impacted targets: every target drawn with its chance. Empty: every arrival impacts "ALL"
  /// (in parallel mode, each pull request then depends on every one ahead of it, as Trunk treats ALL).
  std::vector<TargetChance> targets;
  /// The first arrival's pull request number; each next one takes the next number not in the queue.
  std::int64_t first_number = 1;
  /// Each arrival's priority. Empty: every arrival takes the queue's default.
  std::vector<PriorityChance> priorities;
  bool operator==(const Arrivals&) const = default;
};

}  // namespace trunk::sandbox
