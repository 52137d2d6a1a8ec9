#pragma once
// trunk::twin::backtest: the twin replaying the team's own configuration over its history's window, beside what
// the history shows (docs/twin.md, "Backtest"). Its errors are how far to trust every other answer: a twin
// that misses the queue it was calibrated from will miss the alternatives too.
//
// Like with like: the history is measured as the simulation is (queue_measures.hpp), over the same calendar
// hours (an hourly profile meets the same hours of the week), and both leave a drain at the end of the window
// for the last pull requests to conclude (the history's own last hours play the simulation's drain).

#include <chrono>
#include <cmath>

#include "trunk/merge_queue_v2.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/twin/queue_history.hpp"
#include "trunk/twin/queue_measures.hpp"
#include "trunk/twin/team_fit.hpp"
#include "trunk/twin/what_if.hpp"

namespace trunk::twin {

struct Backtest {
  trunk::QueueSettings settings;      ///< the configuration replayed: the queue's today
  Timestamp from, to;                 ///< the window measured (the history's, less the drain)
  QueueMeasures observed;             ///< what the history shows
  ConfigurationOutcome predicted;     ///< what the twin gives
  /// (predicted - observed) / observed; NaN when the observed value is 0 or unbounded.
  double p50_error = NAN, p90_error = NAN, merged_per_day_error = NAN, runs_per_merged_error = NAN;
};

/// Replays `history.queue`'s configuration with `team` over the history's window. From `options` it uses seeds,
/// first_seed, warm_up, drain (shortened to leave at least an hour to measure), interrupted and threads; start
/// and window come from the history. Throws what compare() throws.
Backtest backtest(const TeamModel& team, const QueueHistory& history, const WhatIfOptions& options = {});

/// A v2 queue's configuration as the settings the twin runs (v1's shape; the sandbox's mapping of the two).
trunk::QueueSettings settings_of(const trunk::MergeQueue& queue);

}  // namespace trunk::twin
