#pragma once
// getMergeQueueMetrics: merge queues in the Prometheus text exposition format 0.0.4.
//
// The documented series (Trunk's metrics guide, docs/sandbox.md "Metrics"), each with the labels `repo`
// (owner/name), `branch` and `queue_type` (main, or bisection for what a bisection does):
//   mq_depth_current, mq_awaiting_mergeability, mq_testing_slots_active (gauges, now);
//   mq_pr_conclusions_1h_total{conclusion}, mq_pr_restarts_1h_total (gauges over the last hour);
//   mq_pr_wait_duration_1h_seconds, mq_pr_test_duration_1h_seconds, mq_pr_time_in_queue_1h_seconds
//   (histograms over the last hour, buckets kDocumentedBuckets).
// The rolling ones are computed from the queue's transition record (MergeQueue::recent_transitions), so they
// cost the last hour's transitions, whatever the history. Beside them the sandbox's own series, in the same
// namespace and with the same labels: counters since the queue was created (submitted, concluded by
// conclusion, test runs started / passed / failed by cause / cancelled), pull requests per state, and a
// histogram of the time from submission to merge.

#include <string>
#include <vector>

#include "merge_queue.hpp"

namespace trunk::sandbox {

struct QueueView {
  std::string repo;    ///< owner/name
  std::string branch;  ///< target branch
  const MergeQueue* queue = nullptr;
  trunk::QueueSettings settings;
};

/// Bucket upper bounds (seconds) of the documented histograms; +Inf added.
inline constexpr double kDocumentedBuckets[] = {60, 300, 600, 900, 1800, 3600, 5400, 7200};

std::string prometheus_metrics(const std::vector<QueueView>& queues);

}  // namespace trunk::sandbox
