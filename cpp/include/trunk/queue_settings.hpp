#pragma once
// Merge queue settings as updateQueue and getQueue return them (docs/reference/service.md#queue-settings).
// The contract marks every field required, but the decoder is tolerant: a
// field the service leaves out is absent (nullopt) rather than an error, and enum values this library does
// not know are kept raw.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/queue_label_settings.hpp"

namespace trunk {

#define TRUNK_QUEUE_SETTINGS_FIELDS(X)                                                                          \
  X(std::optional<OpenEnum<QueueState>>, state, "state", {}, schema::kRequired, "queue state")                \
  X(std::optional<std::string>, branch, "branch", {}, schema::kRequired, "target branch of the queue")         \
  X(std::optional<std::int64_t>, concurrency, "concurrency", {}, schema::kRequired,                           \
    "pull requests or batches tested at once")                                                                \
  X(std::optional<std::int64_t>, testing_timeout_minutes, "testingTimeoutMinutes", {}, schema::kRequired,      \
    "minutes to wait for tests before timing out")                                                           \
  X(std::optional<OpenEnum<QueueMode>>, mode, "mode", {}, schema::kRequired,                                  \
    "single: one pull request at a time; parallel: several at once")                                         \
  X(std::optional<bool>, can_optimistically_merge, "canOptimisticallyMerge", {}, schema::kRequired,           \
    "a passing pull request also marks those ahead of it as passing")                                        \
  X(std::optional<std::int64_t>, pending_failure_depth, "pendingFailureDepth", {}, schema::kRequired,          \
    "pull requests below a failing one that finish testing before it is removed")                            \
  X(std::optional<bool>, batch, "batch", {}, schema::kRequired, "batch pull requests for testing")            \
  X(std::optional<std::int64_t>, batching_max_wait_time_minutes, "batchingMaxWaitTimeMinutes", {},             \
    schema::kRequired, "minutes to wait to collect a batch")                                                 \
  X(std::optional<std::int64_t>, batching_min_size, "batchingMinSize", {}, schema::kRequired,                  \
    "pull requests needed to form a batch")                                                                  \
  X(std::optional<bool>, create_prs_for_testing_branches, "createPrsForTestingBranches", {}, schema::kRequired, \
    "open pull requests for testing branches so CI runs on them")                                            \
  X(std::optional<bool>, comments_enabled, "commentsEnabled", {}, schema::kRequired, "post comments on pull requests") \
  X(std::optional<bool>, commands_enabled, "commandsEnabled", {}, schema::kRequired,                          \
    "accept the merge slash-command in pull request comments")                                               \
  X(std::optional<bool>, status_check_enabled, "statusCheckEnabled", {}, schema::kRequired,                   \
    "post a status check showing the queue status")                                                          \
  X(std::optional<std::int64_t>, bisection_concurrency, "bisectionConcurrency", {}, schema::kRequired,         \
    "tests run while bisecting a failed batch")                                                              \
  X(std::optional<std::vector<std::string>>, required_statuses, "requiredStatuses", {}, schema::kRequired,     \
    "statuses that must pass during queue testing")                                                          \
  X(std::optional<OpenEnum<DirectMergeMode>>, direct_merge_mode, "directMergeMode", {}, schema::kRequired,    \
    "always: up-to-date pull requests merge directly")                                                       \
  X(std::optional<OpenEnum<OptimizationMode>>, optimization_mode, "optimizationMode", {}, schema::kRequired,  \
    "bisection and skipping of redundant tests")                                                             \
  X(std::optional<OpenEnum<MergeMethod>>, merge_method, "mergeMethod", {}, schema::kRequired,                 \
    "git strategy used to merge into the target branch")                                                     \
  TRUNK_QUEUE_LABEL_SETTINGS_FIELDS(X)                                                                        \
  X(std::optional<std::vector<PullRequest>>, enqueued_pull_requests, "enqueuedPullRequests", {}, schema::kNone, \
    "the pull requests in the queue (getQueue only; absent in updateQueue answers)")

struct QueueSettings {
  TRUNK_MEMBERS(TRUNK_QUEUE_SETTINGS_FIELDS)
  Extras extra;
  bool operator==(const QueueSettings&) const = default;
};
TRUNK_DESCRIBE(QueueSettings,
               "Merge queue settings. Enum fields give the trunk_api enum member, or the raw string for a value "
               "this library does not know.",
               TRUNK_QUEUE_SETTINGS_FIELDS)

}  // namespace trunk
