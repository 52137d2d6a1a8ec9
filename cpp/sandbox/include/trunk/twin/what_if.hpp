#pragma once
// trunk::twin::compare: the what-if of a queue's twin (docs/twin.md, "What-if"). Each configuration runs on the
// sandbox's own merge queue model (the one checked against Trunk's documented behaviour and queueing theory),
// fed by the twin's model of the team (arrivals with their targets, CI durations, broken and flaky rates), over
// several seeds; each answer is the mean over seeds with its t interval, so the spread of the team's luck shows
// in every number. Latency and cost come as a pair: time in queue (p50, p90) beside CI runs per merged pull
// request, and throughput.
//
// Measured over a window after a warm-up (the queue starts empty, a real one does not): pull requests submitted
// inside the window, their time from submission to merge; runs started inside it. The simulation runs a drain
// period past the window, arrivals continuing, so the window's last pull requests conclude under the same load;
// one still open after it counts as slower than any that merged (it is in the quantiles, at the top).

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

/// What the twin knows of the team: how its pull requests arrive and how its CI behaves.
struct TeamModel {
  trunk::sandbox::Arrivals arrivals;
  trunk::sandbox::RunDuration run_duration;
  double broken_rate = 0;  ///< the chance a pull request is genuinely broken
  double flaky_rate = 0;   ///< the chance a run fails on a flaky test
};

struct WhatIfOptions {
  std::size_t seeds = 20;
  std::chrono::hours warm_up{24};
  std::chrono::hours window{24 * 30};
  std::chrono::hours drain{48};
  std::uint64_t first_seed = 1;
  /// Monday 00:00 UTC: an hourly profile lines up with the week it describes.
  trunk::Timestamp start = trunk::Timestamp{} + std::chrono::days(4);
  /// Asked before each seed's run: true ends compare() with trunk::CancelledError (Ctrl-C from Python).
  std::function<bool()> interrupted;
};

/// One configuration's answers, each the mean over seeds with its interval.
struct ConfigurationOutcome {
  trunk::QueueSettings settings;
  Estimate minutes_in_queue_p50;   ///< submission to merge, median of the window's merged pull requests
  Estimate minutes_in_queue_p90;
  Estimate merged_per_day;
  Estimate runs_per_merged;        ///< CI runs started (bisection included) per pull request merged
  Estimate failed_share;           ///< pull requests of the window that failed out of the queue
  std::size_t seeds = 0;
};

/// Every configuration under the same seeds (common random numbers: the same arrivals, brokenness and dice),
/// so differences between configurations are not luck. Throws trunk::ValidationError naming the field for a
/// model or option out of range (no seed, an empty window, rates outside [0, 1], arrivals' own rules).
std::vector<ConfigurationOutcome> compare(const TeamModel& team, const std::vector<trunk::QueueSettings>& configurations,
                                          const WhatIfOptions& options = {});

}  // namespace trunk::twin
