#pragma once
// What a test or a bot may set on one merge queue of a running sandbox (Sandbox::set_queue_controls, PUT
// /sandbox/queues/controls), replacing the sandbox-wide values for that queue only: how long its runs take and
// how often they fail, and which pull requests arrive by themselves. Each field nullopt keeps the sandbox's value, so a queue never controlled runs exactly as
// before (same seed, same outcomes, same durations). Controls live as long as the queue's simulation (not in the
// state file).
//
// A change applies from the moment it is made: runs already started keep the duration and outcome they were
// given at their start; broken_pull_request_rate decides pull requests submitted afterwards (a pull request's
// brokenness is decided at its submission, its head commit being fixed).

#include <optional>

#include "trunk/sandbox/arrivals.hpp"
#include "trunk/sandbox/run_duration.hpp"

namespace trunk::sandbox {

struct QueueControls {
  std::optional<RunDuration> run_duration;          ///< nullopt: the sandbox's (SandboxOptions run_* rows)
  std::optional<double> flaky_run_rate;             ///< in [0, 1]; nullopt: the sandbox's or the history's
  std::optional<double> broken_pull_request_rate;   ///< in [0, 1]; nullopt: the sandbox's or the history's
  /// Pull requests the queue submits by itself (arrivals.hpp), from the moment they are set; nullopt: none.
  /// Setting the same arrivals again keeps their course (a change of rate does not restart them).
  std::optional<Arrivals> arrivals;
  bool operator==(const QueueControls&) const = default;
};

}  // namespace trunk::sandbox
