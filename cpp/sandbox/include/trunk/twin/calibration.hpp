#pragma once
// trunk::twin::calibrate: a queue's history turned into the quantities its twin replays, each with its interval,
// and warnings where the history is too thin or too odd to say much (docs/twin.md, "Calibration").
//
// What is read directly from the history here:
//  - CI durations: every run, finished ones whole and stopped ones as lower bounds (duration_fit.hpp);
//  - arrivals: the submissions' times over the window (arrival_fit.hpp);
//  - failed entries and failed clean runs, as queue_measures.hpp defines them (the simulation measures the same).
//    A clean run's failure was not a pull request's fault: flakiness, or a broken pull request ahead of the run in
//    a predictive queue (which v2's testing results do not name); so it bounds the flaky rate from above;
//  - batch sizes, the share of urgent (skip-the-line) submissions and each priority value's share;
//  - impacted targets: each target's share of the sampled pull requests (runs of one pull request fetched by id)
//    and the share that impacted every target.
// Failed entries and failed clean runs are what the history shows, not yet the model's broken and flaky rates:
// a queue's own rules (retries, bisection, predictive testing) sit between the two.

#include <optional>
#include <string>
#include <vector>

#include "trunk/twin/arrival_fit.hpp"
#include "trunk/twin/duration_fit.hpp"
#include "trunk/twin/estimate.hpp"
#include "trunk/twin/queue_history.hpp"

namespace trunk::twin {

/// One impacted target and the share of pull requests that impact it.
struct TargetShare {
  std::string target;
  Estimate share;
};

/// One priority value and the share of the submissions that carried it.
struct PriorityShare {
  std::int64_t value = 0;
  Estimate share;
};

struct Calibration {
  DurationFit durations;
  ArrivalProfile arrivals;
  std::optional<Estimate> failed_entries;          ///< of the submissions concluded (merged or failed), failed
  std::optional<Estimate> failed_clean_runs;       ///< of the finished non-bisection runs whose PRs all merged, failed
  std::optional<Estimate> batch_size;              ///< mean pull requests per non-bisection run, t interval
  std::optional<Estimate> urgent_submissions;      ///< skip-the-line share of the submissions
  /// Each priority value's share of the submissions, commonest first; those without a value (the queue's
  /// default, unnamed) are the rest.
  std::vector<PriorityShare> priorities;
  std::vector<TargetShare> targets;                ///< most shared first
  std::optional<Estimate> all_targets;             ///< share of sampled pull requests impacting every target
  std::size_t targets_sampled = 0;                 ///< sampled pull requests whose targets were uploaded
  std::size_t runs = 0;                            ///< runs rebuilt from the testing results
  std::size_t ignored_results = 0;                 ///< testing results missing a number, an end or a duration
  std::vector<std::string> warnings;               ///< what makes an answer weak, in words
};

Calibration calibrate(const QueueHistory& history);

/// The thresholds behind the warnings (docs/twin.md says why each).
inline constexpr double kThinWindowDays = 7;      ///< shorter: some hours of the week are never observed
inline constexpr std::size_t kFewRuns = 30;       ///< fewer finished runs: durations from a lognormal, not resampled
inline constexpr std::size_t kFewEntries = 30;    ///< fewer concluded entries: failure shares are wide

}  // namespace trunk::twin
