#pragma once
// How long a merge queue's CI test run takes: a distribution the sandbox draws each run's duration from with the
// run's own counter-based die (src/run_rules.hpp), so a seed gives the same durations. Set per queue
// (QueueControls::run_duration) or for the whole sandbox (SandboxOptions' run_* rows); a pull request's script
// may fix its next run's duration (PullRequestScript::next_run_minutes).
//
// Every duration is in minutes (fractions allowed) from kMinRunMinutes to kMaxRunMinutes: a run of no time would
// end in the step it starts, which no CI does, and the upper bound keeps the clock far from overflow.

#include <variant>
#include <vector>

namespace trunk::sandbox {

/// The shortest run (minutes): the lognormal draw's floor since the first merge queue simulation.
inline constexpr double kMinRunMinutes = 1;
/// The longest run (minutes): one week.
inline constexpr double kMaxRunMinutes = 7 * 24 * 60;
/// The largest lognormal spread accepted: beyond it most draws sit at the bounds.
inline constexpr double kMaxRunSigma = 5;
/// The most durations an empirical list may hold.
inline constexpr std::size_t kMaxEmpiricalDurations = 10'000;

/// Every run takes exactly `minutes`.
struct FixedRunDuration {
  double minutes = 15;
  bool operator==(const FixedRunDuration&) const = default;
};

/// median * exp(sigma * z), z standard normal, at least kMinRunMinutes: the sandbox's default (15 min, 0.35).
struct LognormalRunDuration {
  double median_minutes = 15;
  double sigma = 0.35;
  bool operator==(const LognormalRunDuration&) const = default;
};

/// One of `minutes`, uniformly: resamples a CI's measured durations (a bimodal list gives a bimodal queue).
struct EmpiricalRunDuration {
  std::vector<double> minutes;
  bool operator==(const EmpiricalRunDuration&) const = default;
};

using RunDuration = std::variant<LognormalRunDuration, FixedRunDuration, EmpiricalRunDuration>;

}  // namespace trunk::sandbox
