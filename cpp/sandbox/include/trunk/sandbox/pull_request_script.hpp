#pragma once
// What happens to one pull request in a merge queue, staged instead of searched for among seeds
// (Sandbox::script_pull_request, POST /sandbox/queues/pull-requests/{number}/script). A script may be set before
// the pull request is submitted; it waits for it. Setting a script replaces the pull request's previous one.
//
//  - broken: true, it fails every run it is in (as a pull request the dice made broken); false, it is never
//    broken whatever the rate; nullopt, the dice decide. Applies at once to the pull request in the queue (runs
//    already started keep their outcome) and to later submissions of the same number.
//  - next_run / next_run_minutes: consumed by the next run that tests the pull request (main queue or
//    bisection); being tested on top of it does not consume them. How a run with several scripted pull
//    requests combines (src/run_rules.hpp): any scripted failure fails it; a scripted pass only skips the flaky
//    die (a broken pull request in the run, or a scripted failure, still fails it); the longest scripted
//    duration replaces the drawn one. A run longer than testingTimeoutMinutes still times out.

#include <cstdint>
#include <optional>
#include <string_view>

namespace trunk::sandbox {

enum class ScriptedOutcome { fail, pass };

/// "fail" or "pass": how the HTTP route, Python and the command lines spell an outcome.
constexpr std::string_view outcome_name(ScriptedOutcome outcome) noexcept {
  return outcome == ScriptedOutcome::fail ? "fail" : "pass";
}
constexpr std::optional<ScriptedOutcome> outcome_from_name(std::string_view name) noexcept {
  if (name == "fail") return ScriptedOutcome::fail;
  if (name == "pass") return ScriptedOutcome::pass;
  return std::nullopt;
}

struct PullRequestScript {
  std::optional<bool> broken;
  std::optional<ScriptedOutcome> next_run;
  std::optional<double> next_run_minutes;  ///< from kMinRunMinutes to kMaxRunMinutes (run_duration.hpp)
  bool operator==(const PullRequestScript&) const = default;
};

}  // namespace trunk::sandbox
