#pragma once
// The rules of one merge queue's test runs (duration and outcome) resolved from its controls
// (trunk/sandbox/queue_controls.hpp), the sandbox's options and the repository's failure model, plus the checks
// of what a caller may set. Pure, as QueuePolicy: the same inputs, the same rules; the dice come from the caller
// (merge_queue.cpp: mix64 of seed, queue and run serial), so a seed gives the same runs.
//
// Defaults reproduce the first simulation exactly: the lognormal draw uses the run's dice ^ 1 and ^ 2 (Box-Muller)
// and the flaky die is dice ^ 3; the empirical resampling takes dice ^ 4, a die no earlier rule used.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "failure_model.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/pull_request_script.hpp"
#include "trunk/sandbox/queue_controls.hpp"
#include "trunk/sandbox/run_duration.hpp"

namespace trunk::sandbox {

/// The violations of a duration distribution, its fields under `field` ("run_duration.minutes").
std::vector<trunk::Violation> run_duration_violations(const RunDuration& duration, const std::string& field);
std::vector<trunk::Violation> queue_controls_violations(const QueueControls& controls);
std::vector<trunk::Violation> script_violations(std::int64_t number, const PullRequestScript& script);

/// A run's duration in minutes from `duration` and the run's dice.
double draw_run_minutes(const RunDuration& duration, std::uint64_t dice) noexcept;

/// What the scripts of the pull requests a run tests say of it, combined (pull_request_script.hpp).
struct ScriptedRun {
  bool fails = false;                   ///< one scripted a failure
  bool passes = false;                  ///< one scripted a pass (and none a failure): the flaky die is skipped
  std::optional<double> minutes;        ///< the longest scripted duration
  void add(const PullRequestScript& script) noexcept;
};

struct RunRules {
  RunDuration duration;
  FailureModel model;  ///< the rates in force (controls over the sandbox's over the history's)

  /// `sandbox_duration`: the sandbox-wide distribution (SandboxOptions); `model`: the repository's.
  static RunRules of(const QueueControls& controls, const RunDuration& sandbox_duration, const FailureModel& model);
};

}  // namespace trunk::sandbox
