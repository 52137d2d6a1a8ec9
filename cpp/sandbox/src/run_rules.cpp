#include "run_rules.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "arrival_plan.hpp"
#include "random.hpp"

namespace trunk::sandbox {

namespace {

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::string& minutes_rule() {
  static const std::string rule =
      "must be from " + number_text(kMinRunMinutes) + " to " + number_text(kMaxRunMinutes) + " minutes";
  return rule;
}

/// NaN fails every comparison, so it is refused with the rest.
void check_minutes(double minutes, const std::string& field, std::vector<trunk::Violation>& out) {
  if (!(minutes >= kMinRunMinutes && minutes <= kMaxRunMinutes)) out.push_back({field, number_text(minutes), minutes_rule()});
}

void check_rate(const std::optional<double>& rate, const std::string& field, std::vector<trunk::Violation>& out) {
  if (rate && !(*rate >= 0 && *rate <= 1)) out.push_back({field, number_text(*rate), "must be from 0 to 1"});
}

}  // namespace

std::vector<trunk::Violation> run_duration_violations(const RunDuration& duration, const std::string& field) {
  std::vector<trunk::Violation> out;
  if (const auto* fixed = std::get_if<FixedRunDuration>(&duration)) {
    check_minutes(fixed->minutes, field + ".minutes", out);
  } else if (const auto* lognormal = std::get_if<LognormalRunDuration>(&duration)) {
    check_minutes(lognormal->median_minutes, field + ".median_minutes", out);
    if (!(lognormal->sigma >= 0 && lognormal->sigma <= kMaxRunSigma)) {
      out.push_back({field + ".sigma", number_text(lognormal->sigma), "must be from 0 to " + number_text(kMaxRunSigma)});
    }
  } else {
    const auto& list = std::get<EmpiricalRunDuration>(duration).minutes;
    if (list.empty() || list.size() > kMaxEmpiricalDurations) {
      out.push_back({field + ".minutes", std::to_string(list.size()) + " durations",
                     "must hold from 1 to " + std::to_string(kMaxEmpiricalDurations) + " durations"});
    }
    for (std::size_t i = 0; i < list.size(); ++i) check_minutes(list[i], field + ".minutes[" + std::to_string(i) + "]", out);
  }
  return out;
}

std::vector<trunk::Violation> queue_controls_violations(const QueueControls& controls) {
  std::vector<trunk::Violation> out;
  if (controls.run_duration) out = run_duration_violations(*controls.run_duration, "run_duration");
  check_rate(controls.flaky_run_rate, "flaky_run_rate", out);
  check_rate(controls.broken_pull_request_rate, "broken_pull_request_rate", out);
  if (controls.arrivals) {
    for (auto& violation : arrivals_violations(*controls.arrivals, "arrivals")) out.push_back(std::move(violation));
  }
  return out;
}

std::vector<trunk::Violation> script_violations(std::int64_t number, const PullRequestScript& script) {
  std::vector<trunk::Violation> out;
  if (number < 1) out.push_back({"number", std::to_string(number), "must be a pull request number, at least 1"});
  if (script.next_run_minutes) check_minutes(*script.next_run_minutes, "next_run_minutes", out);
  return out;
}

double draw_run_minutes(const RunDuration& duration, std::uint64_t dice) noexcept {
  if (const auto* fixed = std::get_if<FixedRunDuration>(&duration)) return fixed->minutes;
  if (const auto* lognormal = std::get_if<LognormalRunDuration>(&duration)) {
    // Box-Muller from two of the run's dice: a lognormal duration around the median.
    const double u1 = std::max(unit_interval(mix64(dice ^ 1)), 1e-12);
    const double u2 = unit_interval(mix64(dice ^ 2));
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return std::clamp(lognormal->median_minutes * std::exp(lognormal->sigma * z), kMinRunMinutes, kMaxRunMinutes);
  }
  const auto& list = std::get<EmpiricalRunDuration>(duration).minutes;
  if (list.empty()) return kMinRunMinutes;  // refused by the checks; never indexes an empty list
  const auto index = static_cast<std::size_t>(unit_interval(mix64(dice ^ 4)) * static_cast<double>(list.size()));
  return list[std::min(index, list.size() - 1)];
}

void ScriptedRun::add(const PullRequestScript& script) noexcept {
  if (script.next_run == ScriptedOutcome::fail) fails = true;
  if (script.next_run == ScriptedOutcome::pass) passes = true;
  if (script.next_run_minutes) minutes = std::max(minutes.value_or(0.0), *script.next_run_minutes);
}

RunRules RunRules::of(const QueueControls& controls, const RunDuration& sandbox_duration, const FailureModel& model) {
  RunRules rules{controls.run_duration.value_or(sandbox_duration), model};
  if (controls.flaky_run_rate) rules.model.flaky_run_failure = *controls.flaky_run_rate;
  if (controls.broken_pull_request_rate) rules.model.broken_pull_request = *controls.broken_pull_request_rate;
  return rules;
}

}  // namespace trunk::sandbox
