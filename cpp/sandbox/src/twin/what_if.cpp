#include "trunk/twin/what_if.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../arrival_plan.hpp"
#include "../merge_queue.hpp"
#include "../run_rules.hpp"
#include "trunk/error.hpp"
#include "trunk/twin/intervals.hpp"

namespace trunk::twin {

namespace {

using trunk::PullRequestState;
using trunk::Timestamp;

constexpr double kNeverMerged = std::numeric_limits<double>::infinity();

/// One seed's measures of one configuration.
struct SeedOutcome {
  double p50 = 0, p90 = 0, merged_per_day = 0, runs_per_merged = 0, failed_share = 0;
};

double minutes_between(Timestamp from, Timestamp to) {
  return std::chrono::duration<double, std::ratio<60>>(to - from).count();
}

/// The q-quantile of `values` (nearest rank, so an unmerged pull request's infinity stays an infinity rather
/// than being averaged with a finite neighbour).
double nearest_rank(std::vector<double> values, double q) {
  if (values.empty()) return kNeverMerged;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const std::size_t index = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return values[index];
}

SeedOutcome run_one(const TeamModel& team, const trunk::QueueSettings& settings, std::uint64_t seed,
                    const WhatIfOptions& options) {
  const trunk::sandbox::FailureModel model{.flaky_run_failure = team.flaky_rate,
                                           .broken_pull_request = team.broken_rate,
                                           .seed = seed};
  trunk::sandbox::MergeQueue queue("twin.local/team/queue", "main", model, options.start, team.run_duration);
  queue.advance_to(options.start, settings);
  trunk::sandbox::QueueControls controls;
  controls.arrivals = team.arrivals;
  queue.set_controls(controls);
  const Timestamp from = options.start + options.warm_up;
  const Timestamp to = from + options.window;
  queue.advance_to(to + options.drain, settings);

  std::vector<double> minutes;
  std::size_t submitted = 0, failed = 0, merged_inside = 0;
  for (const auto& entry : queue.entries()) {
    if (entry.state == PullRequestState::merged && entry.concluded_at && *entry.concluded_at >= from &&
        *entry.concluded_at < to) {
      ++merged_inside;
    }
    if (entry.submitted_at < from || entry.submitted_at >= to) continue;
    ++submitted;
    if (entry.state == PullRequestState::merged && entry.concluded_at) {
      minutes.push_back(minutes_between(entry.submitted_at, *entry.concluded_at));
    } else if (entry.state == PullRequestState::failed) {
      ++failed;
    } else if (!entry.concluded) {
      minutes.push_back(kNeverMerged);
    }
  }
  std::size_t runs = 0;
  for (const auto& run : queue.runs()) runs += run.created_at >= from && run.created_at < to;
  const double days = std::chrono::duration<double, std::ratio<86400>>(options.window).count();
  SeedOutcome out;
  out.p50 = nearest_rank(minutes, 0.5);
  out.p90 = nearest_rank(minutes, 0.9);
  out.merged_per_day = static_cast<double>(merged_inside) / days;
  out.runs_per_merged = merged_inside == 0 ? kNeverMerged : static_cast<double>(runs) / static_cast<double>(merged_inside);
  out.failed_share = submitted == 0 ? 0 : static_cast<double>(failed) / static_cast<double>(submitted);
  return out;
}

/// The mean over seeds with its interval; an infinite seed (nothing merged) makes the answer unbounded above.
Estimate over_seeds(const std::vector<SeedOutcome>& outcomes, double SeedOutcome::*measure) {
  std::vector<double> values;
  bool unbounded = false;
  for (const SeedOutcome& o : outcomes) {
    if (std::isinf(o.*measure)) {
      unbounded = true;
    } else {
      values.push_back(o.*measure);
    }
  }
  auto estimate = estimate_mean(values).value_or(Estimate{.value = kNeverMerged, .low = kNeverMerged,
                                                          .high = kNeverMerged, .observations = 0});
  if (unbounded) estimate.high = estimate.value = kNeverMerged;
  estimate.observations = outcomes.size();
  return estimate;
}

void check(const TeamModel& team, const WhatIfOptions& options) {
  std::vector<trunk::Violation> problems = trunk::sandbox::arrivals_violations(team.arrivals, "team.arrivals");
  for (auto& v : trunk::sandbox::run_duration_violations(team.run_duration, "team.run_duration")) problems.push_back(v);
  const auto rate = [&](double value, const char* field) {
    if (!(value >= 0 && value <= 1)) problems.push_back({field, std::to_string(value), "must be from 0 to 1"});
  };
  rate(team.broken_rate, "team.broken_rate");
  rate(team.flaky_rate, "team.flaky_rate");
  if (options.seeds < 1) problems.push_back({"seeds", "0", "must be at least 1"});
  if (options.window.count() < 1) {
    problems.push_back({"window", std::to_string(options.window.count()) + " hours", "must be at least 1 hour"});
  }
  if (options.warm_up.count() < 0 || options.drain.count() < 0) {
    problems.push_back({options.warm_up.count() < 0 ? "warm_up" : "drain",
                        std::to_string(std::min(options.warm_up.count(), options.drain.count())) + " hours",
                        "must not be negative"});
  }
  if (!problems.empty()) throw trunk::ValidationError(std::move(problems));
}

}  // namespace

std::vector<ConfigurationOutcome> compare(const TeamModel& team, const std::vector<trunk::QueueSettings>& configurations,
                                          const WhatIfOptions& options) {
  check(team, options);
  std::vector<ConfigurationOutcome> out;
  for (const trunk::QueueSettings& settings : configurations) {
    std::vector<SeedOutcome> outcomes;
    for (std::size_t k = 0; k < options.seeds; ++k) {
      if (options.interrupted && options.interrupted()) throw trunk::CancelledError("twin compare: interrupted");
      outcomes.push_back(run_one(team, settings, options.first_seed + k, options));
    }
    ConfigurationOutcome outcome;
    outcome.settings = settings;
    outcome.minutes_in_queue_p50 = over_seeds(outcomes, &SeedOutcome::p50);
    outcome.minutes_in_queue_p90 = over_seeds(outcomes, &SeedOutcome::p90);
    outcome.merged_per_day = over_seeds(outcomes, &SeedOutcome::merged_per_day);
    outcome.runs_per_merged = over_seeds(outcomes, &SeedOutcome::runs_per_merged);
    outcome.failed_share = over_seeds(outcomes, &SeedOutcome::failed_share);
    outcome.seeds = options.seeds;
    out.push_back(std::move(outcome));
  }
  return out;
}

}  // namespace trunk::twin
