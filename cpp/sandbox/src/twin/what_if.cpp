#include "trunk/twin/what_if.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../arrival_plan.hpp"
#include "../run_rules.hpp"
#include "simulation.hpp"
#include "trunk/error.hpp"
#include "trunk/twin/intervals.hpp"

namespace trunk::twin {

namespace {

constexpr double kNeverMerged = std::numeric_limits<double>::infinity();

/// The mean over seeds, and the interval where 95 % of windows fall: Student's prediction interval for one more
/// window, t(n - 1) * sd * sqrt(1 + 1/n) about the mean, on the log scale when every seed is positive (waits
/// and costs are skewed to the right and never negative), else on the natural one, cut at 0. With 20 seeds the
/// seeds' own 2.5 % and 97.5 % quantiles would be their second smallest and largest, which a new window passes
/// about one time in ten. A seed where nothing merged (an infinity) makes the answer unbounded above.
Estimate over_seeds(const std::vector<QueueMeasures>& seeds, double (*measure_of)(const QueueMeasures&)) {
  std::vector<double> values;
  bool unbounded = false;
  for (const QueueMeasures& m : seeds) {
    const double x = measure_of(m);
    if (std::isinf(x)) {
      unbounded = true;
    } else {
      values.push_back(x);
    }
  }
  Estimate e{.value = kNeverMerged, .low = kNeverMerged, .high = kNeverMerged, .observations = seeds.size()};
  if (!values.empty()) {
    const auto n = static_cast<double>(values.size());
    double sum = 0;
    for (const double x : values) sum += x;
    e.value = sum / n;
    const bool positive = std::all_of(values.begin(), values.end(), [](double x) { return x > 0; });
    std::vector<double> scaled = values;
    if (positive) {
      for (double& x : scaled) x = std::log(x);
    }
    double mean = 0;
    for (const double x : scaled) mean += x / n;
    double squares = 0;
    for (const double x : scaled) squares += (x - mean) * (x - mean);
    const double half = values.size() < 2 ? kNeverMerged
                                          : confidence_t(n - 1) * std::sqrt(squares / (n - 1)) * std::sqrt(1 + 1 / n);
    if (positive) {
      e.low = std::exp(mean - half);
      e.high = std::exp(mean + half);
    } else {
      e.low = std::max(0.0, mean - half);
      e.high = mean + half;
    }
    // The log scale centres on the geometric mean: keep the (arithmetic) mean inside against rounding.
    e.low = std::min(e.low, e.value);
    e.high = std::max(e.high, e.value);
  }
  if (unbounded) e.high = e.value = kNeverMerged;
  return e;
}

void check(const TeamModel& team, const WhatIfOptions& options) {
  std::vector<trunk::Violation> problems = trunk::sandbox::arrivals_violations(team.arrivals, "team.arrivals");
  for (auto& v : trunk::sandbox::run_duration_violations(team.run_duration, "team.run_duration")) problems.push_back(v);
  const auto rate = [&](double value, const char* field) {
    if (!(value >= 0 && value <= 1)) problems.push_back({field, std::to_string(value), "must be from 0 to 1"});
  };
  rate(team.broken_rate, "team.broken_rate");
  rate(team.flaky_rate, "team.flaky_rate");
  const auto spread = [&](double value, const char* field) {
    if (!(value >= 0 && value <= 10)) problems.push_back({field, std::to_string(value), "must be from 0 to 10"});
  };
  spread(team.uncertainty.broken_rate_sd, "team.uncertainty.broken_rate_sd");
  spread(team.uncertainty.flaky_rate_sd, "team.uncertainty.flaky_rate_sd");
  spread(team.uncertainty.arrival_rate_sd, "team.uncertainty.arrival_rate_sd");
  spread(team.uncertainty.log_median_sd, "team.uncertainty.log_median_sd");
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
  // Each seed's team is drawn once and played under every configuration (common random numbers).
  std::vector<TeamModel> teams;
  for (std::size_t k = 0; k < options.seeds; ++k) teams.push_back(detail::team_for_seed(team, options.first_seed + k));
  std::vector<std::vector<QueueMeasures>> measured(configurations.size(), std::vector<QueueMeasures>(options.seeds));
  detail::run_jobs(
      configurations.size() * options.seeds, options.threads,
      [&](std::size_t job, const detail::StopCheck& stop) {
        const std::size_t c = job / options.seeds, k = job % options.seeds;
        measured[c][k] = detail::simulate(teams[k], configurations[c], options.first_seed + k, options, stop);
      },
      options.interrupted);
  std::vector<ConfigurationOutcome> out;
  for (std::size_t c = 0; c < configurations.size(); ++c) {
    const auto& seeds = measured[c];
    ConfigurationOutcome outcome;
    outcome.settings = configurations[c];
    outcome.minutes_in_queue_p50 = over_seeds(seeds, [](const QueueMeasures& m) { return m.minutes_in_queue_p50; });
    outcome.minutes_in_queue_p90 = over_seeds(seeds, [](const QueueMeasures& m) { return m.minutes_in_queue_p90; });
    outcome.merged_per_day = over_seeds(seeds, [](const QueueMeasures& m) { return m.merged_per_day; });
    outcome.runs_per_merged = over_seeds(seeds, [](const QueueMeasures& m) { return m.runs_per_merged; });
    outcome.failed_share = over_seeds(seeds, [](const QueueMeasures& m) { return m.failed_share(); });
    outcome.seeds = options.seeds;
    out.push_back(std::move(outcome));
  }
  return out;
}

}  // namespace trunk::twin
