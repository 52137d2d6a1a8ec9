#pragma once
// trunk::twin::compare: the what-if of a queue's twin (docs/twin.md, "What-if"). Each configuration runs on the
// sandbox's own merge queue model (the one checked against Trunk's documented behaviour and queueing theory),
// fed by the twin's model of the team (arrivals with their targets, CI durations, broken and flaky rates), over
// several seeds. Each answer is the mean over seeds, and its interval where 95 % of windows fall: each seed is a
// window of the team's luck and, when the model carries what its history left uncertain (TeamUncertainty), a
// plausible team drawn from it, so the interval is a prediction for a window like the history's, not the
// precision of the mean. Latency and cost come as a pair: time in queue (p50, p90) beside CI runs per merged pull
// request, and throughput.
//
// Measured over a window after a warm-up (the queue starts empty, a real one does not), as queue_measures.hpp
// says. The simulation runs a drain period past the window, arrivals continuing, so the window's last pull
// requests conclude under the same load; one still open after it counts as slower than any that merged.
// Seeds run on every core; the answers do not depend on how many.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trunk/queue_settings.hpp"
#include "trunk/sandbox/arrivals.hpp"
#include "trunk/sandbox/run_duration.hpp"
#include "trunk/time.hpp"
#include "trunk/twin/estimate.hpp"

namespace trunk::twin {

/// What a team's history leaves uncertain about it (fit_team fills it from the intervals; a model written by
/// hand has none). Each seed of a what-if draws its own plausible team: rates from normal distributions cut to
/// [0, 1], the arrival rates scaled by a draw of mean 1, an empirical duration list resampled (bootstrap), a
/// lognormal's median scaled by a log-normal draw.
struct TeamUncertainty {
  double broken_rate_sd = 0;
  double flaky_rate_sd = 0;
  double arrival_rate_sd = 0;         ///< relative to the rates (0.05: 5 %)
  double log_median_sd = 0;           ///< of a lognormal duration's log-median
  bool resample_durations = false;    ///< bootstrap an empirical duration list for each seed

  bool operator==(const TeamUncertainty&) const = default;
};

/// What the twin knows of the team: how its pull requests arrive and how its CI behaves.
struct TeamModel {
  trunk::sandbox::Arrivals arrivals;
  trunk::sandbox::RunDuration run_duration;
  double broken_rate = 0;  ///< the chance a pull request is genuinely broken
  double flaky_rate = 0;   ///< the chance a run fails on a flaky test
  TeamUncertainty uncertainty;
};

struct WhatIfOptions {
  std::size_t seeds = 20;
  std::chrono::hours warm_up{24};
  std::chrono::hours window{24 * 30};
  std::chrono::hours drain{48};
  std::uint64_t first_seed = 1;
  /// Monday 00:00 UTC: an hourly profile lines up with the week it describes.
  trunk::Timestamp start = trunk::Timestamp{} + std::chrono::days(4);
  /// Asked on the calling thread before each seed it runs: true ends compare() with trunk::CancelledError
  /// (Ctrl-C from Python) once the seeds already running end.
  std::function<bool()> interrupted;
  /// Threads running seeds; 0: one per core.
  std::size_t threads = 0;
};

/// One configuration's answers, each the mean over seeds with the interval where 95 % of windows fall (Student's
/// prediction interval from the seeds, on the log scale for positive measures).
struct ConfigurationOutcome {
  trunk::QueueSettings settings;
  Estimate minutes_in_queue_p50;   ///< submission to merge, median of the window's merged pull requests
  Estimate minutes_in_queue_p90;
  Estimate merged_per_day;
  Estimate runs_per_merged;        ///< CI runs ended (bisection and stopped ones included) per pull request merged
  Estimate failed_share;           ///< of the window's concluded pull requests, the share that failed
  std::size_t seeds = 0;
};

/// Every configuration under the same seeds (common random numbers: the same drawn team, arrivals, brokenness
/// and dice), so differences between configurations are not luck. Throws trunk::ValidationError naming the field for a
/// model or option out of range (no seed, an empty window, rates outside [0, 1], arrivals' own rules).
std::vector<ConfigurationOutcome> compare(const TeamModel& team, const std::vector<trunk::QueueSettings>& configurations,
                                          const WhatIfOptions& options = {});

}  // namespace trunk::twin
