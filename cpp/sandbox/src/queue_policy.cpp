#include "queue_policy.hpp"

#include <algorithm>

#include "queue_setting_starts.hpp"

namespace trunk::sandbox {

namespace {

/// Absent or unknown reads as running: a queue keeps going on a state it cannot read.
trunk::QueueState state_of(const trunk::QueueSettings& settings) {
  return settings.state && settings.state->known() ? *settings.state->known() : trunk::QueueState::running;
}

/// What `state` stops, matched over every state so that a new one must be decided here.
void restrict_by_state(trunk::QueueState state, QueuePolicy& policy) {
  switch (state) {
    case trunk::QueueState::running:
      return;
    case trunk::QueueState::paused:  // a run in progress finishes; nothing starts, merges or fails until resumed
      policy.admits_new_units = policy.runs_start = policy.outcomes_apply = false;
      return;
    case trunk::QueueState::draining:  // what is in the train and the bisection goes on; nothing new comes in
    case trunk::QueueState::switching_modes:
      policy.accepts_submissions = policy.admits_new_units = false;
      return;
  }
}

}  // namespace

QueuePolicy QueuePolicy::of(const trunk::QueueSettings& settings) {
  QueuePolicy policy;
  restrict_by_state(state_of(settings), policy);
  policy.parallel = settings.mode && settings.mode->known() == trunk::QueueMode::parallel;
  policy.optimize_bisection = settings.optimization_mode && settings.optimization_mode->known() ==
                                                                trunk::OptimizationMode::bisection_skip_redundant_tests;
  policy.direct_merge_always =
      settings.direct_merge_mode && settings.direct_merge_mode->known() == trunk::DirectMergeMode::always;
  const std::int64_t concurrency =
      std::max<std::int64_t>(setting_or_start<&trunk::QueueSettings::concurrency>(settings), 1);
  policy.concurrency = static_cast<std::size_t>(concurrency);
  // bisectionConcurrency's row has no start value: the queue store fills it from concurrency, the simulation too.
  policy.bisection_concurrency =
      static_cast<std::size_t>(std::max<std::int64_t>(settings.bisection_concurrency.value_or(concurrency), 1));
  policy.batching.on = setting_or_start<&trunk::QueueSettings::batch>(settings);
  policy.batching.min_size =
      static_cast<std::size_t>(std::max<std::int64_t>(setting_or_start<&trunk::QueueSettings::batching_min_size>(settings), 1));
  policy.batching.max_size = std::max(policy.batching.min_size, static_cast<std::size_t>(kMaxBatchSize));
  policy.batching.max_wait =
      std::chrono::minutes(setting_or_start<&trunk::QueueSettings::batching_max_wait_time_minutes>(settings));
  policy.pending_failure_depth = static_cast<std::size_t>(
      std::max<std::int64_t>(setting_or_start<&trunk::QueueSettings::pending_failure_depth>(settings), 0));
  policy.optimistic_merge = setting_or_start<&trunk::QueueSettings::can_optimistically_merge>(settings);
  policy.testing_timeout = std::chrono::minutes(setting_or_start<&trunk::QueueSettings::testing_timeout_minutes>(settings));
  return policy;
}

}  // namespace trunk::sandbox
