#pragma once
// The rules one merge queue runs by for one step of its simulation (merge_queue.hpp), resolved from its settings
// once, so every phase of the step reads the same named values and no rule reads a raw setting. What it derives:
//  - each setting the stored settings do not hold takes its start value (setting_or_start, queue_setting_starts.hpp),
//    so a default is written in its setting row only;
//  - numbers are clamped to what the simulation can run: concurrency, bisection concurrency and a batch's minimum
//    size at least 1, a negative pendingFailureDepth as 0, a batch at most max(batchingMinSize, kMaxBatchSize);
//    bisectionConcurrency absent follows concurrency;
//  - an enum value this library does not know reads as the setting's plain behaviour (state running, mode single,
//    directMergeMode off, optimizationMode off);
//  - the state is matched once, over every QueueState, into what it lets the queue do.

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "trunk/queue_settings.hpp"

namespace trunk::sandbox {

/// A batch's size limit beside batchingMinSize (Trunk documents none; the sandbox's choice).
inline constexpr std::int64_t kMaxBatchSize = 16;

struct QueuePolicy {
  // What the state lets the queue do (running: all; paused: take submissions only; draining and switching_modes:
  // everything but taking in new pull requests).
  bool accepts_submissions = true;  ///< submit is not refused
  bool admits_new_units = true;     ///< the line may enter the train, and a pull request may merge directly
  bool runs_start = true;           ///< test runs start (main queue and bisection)
  bool outcomes_apply = true;       ///< decided units merge, fail or go to bisection

  bool parallel = false;             ///< mode parallel: units depend on overlapping impacted targets only
  bool optimize_bisection = false;   ///< optimizationMode bisection_skip_redundant_tests
  bool direct_merge_always = false;  ///< directMergeMode always
  std::size_t concurrency = 1;       ///< units in the train at most
  std::size_t bisection_concurrency = 1;  ///< bisection runs at once at most
  struct Batching {
    bool on = false;
    std::size_t min_size = 1, max_size = static_cast<std::size_t>(kMaxBatchSize);
    std::chrono::minutes max_wait{0};  ///< how long the oldest waits for a batch to fill
  } batching;
  std::size_t pending_failure_depth = 0;  ///< units depending on a failed one that finish testing before it fails
  bool optimistic_merge = false;          ///< canOptimisticallyMerge
  std::chrono::minutes testing_timeout{0};

  /// The policy `settings` (as stored, or as an answer shows them) give. Pure: the same settings, the same policy.
  static QueuePolicy of(const trunk::QueueSettings& settings);
};

}  // namespace trunk::sandbox
