#include "trunk/twin/backtest.hpp"

#include <algorithm>
#include <cmath>

#include "../v2_settings_map.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk::twin {

namespace {

double relative_error(double predicted, double observed) {
  if (observed == 0 || !std::isfinite(observed)) return NAN;
  return (predicted - observed) / observed;
}

}  // namespace

trunk::QueueSettings settings_of(const trunk::MergeQueue& queue) {
  trunk::QueueSettings settings;
  if (queue.mode && queue.mode->known()) settings.mode = trunk::to_v1(*queue.mode->known());
  if (!queue.config) return settings;
  const trunk::MergeQueueConfig& c = *queue.config;
  trunk::sandbox::v2::copy_v2_to_v1(c, settings);
  if (c.optimization_mode && c.optimization_mode->known()) {
    settings.optimization_mode = trunk::to_v1(*c.optimization_mode->known());
  }
  if (c.merge_method && c.merge_method->known()) settings.merge_method = trunk::to_v1(*c.merge_method->known());
  return settings;
}

Backtest backtest(const TeamModel& team, const QueueHistory& history, const WhatIfOptions& options) {
  Backtest out;
  out.settings = history.settings;
  const auto span = std::chrono::duration_cast<std::chrono::hours>(history.until - history.since);
  // At least an hour left to measure; a history under an hour long has no drain (std::clamp would be handed a
  // negative upper bound there, which it does not allow).
  const std::chrono::hours longest_drain = std::max(span - std::chrono::hours(1), std::chrono::hours(0));
  const std::chrono::hours drain = std::min(std::max(options.drain, std::chrono::hours(0)), longest_drain);
  out.from = history.since;
  out.to = history.until - drain;
  out.observed = measure(record_of(history), out.from, out.to);
  if (history.source == HistorySource::v1) {
    // v1's submission is the first test's start: the wait before it is not seen, so time in queue is not comparable.
    out.observed.minutes_in_queue_p50 = NAN;
    out.observed.minutes_in_queue_p90 = NAN;
  }

  WhatIfOptions replay = options;
  replay.start = history.since - options.warm_up;
  replay.window = std::max(std::chrono::hours(1), span - drain);
  replay.drain = drain;
  out.predicted = compare(team, {out.settings}, replay).front();

  out.p50_error = relative_error(out.predicted.minutes_in_queue_p50.value, out.observed.minutes_in_queue_p50);
  out.p90_error = relative_error(out.predicted.minutes_in_queue_p90.value, out.observed.minutes_in_queue_p90);
  out.merged_per_day_error = relative_error(out.predicted.merged_per_day.value, out.observed.merged_per_day);
  out.runs_per_merged_error = relative_error(out.predicted.runs_per_merged.value, out.observed.runs_per_merged);
  return out;
}

}  // namespace trunk::twin
