#pragma once
// getMergeQueueMetrics: the merge queues of a repository in the Prometheus text exposition format 0.0.4.
//
// Names: the real service's v1 metrics (as its API reference documents them for /v2/merge-queues/metrics,
// "the metric names, help text and labels are v1's getMergeQueueMetrics"): every series carries `repo`
// (owner/name), `branch` and `queue_type` (main or bisection). From that reference the sandbox serves
// mq_depth_current and mq_pr_conclusions_1h_total (conclusions in the last hour of the sandbox clock). The
// others are the sandbox's own, in the same mq_ namespace and with the same labels: counters since the queue
// was created (submitted, concluded by conclusion, test runs started / passed / failed by cause), pull
// requests per state, and a histogram of the time from submission to merge.

#include <string>
#include <vector>

#include "merge_queue.hpp"

namespace trunk::sandbox {

struct QueueView {
  std::string repo;    ///< owner/name
  std::string branch;  ///< target branch
  const MergeQueue* queue = nullptr;
};

/// Buckets of mq_pr_time_to_merge_seconds (upper bounds, seconds; +Inf added).
inline constexpr double kTimeToMergeBuckets[] = {300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400};

std::string prometheus_metrics(const std::vector<QueueView>& queues);

}  // namespace trunk::sandbox
