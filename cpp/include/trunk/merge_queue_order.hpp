#pragma once
// What a v2 merge queue is doing now (docs/reference/v2.md#order-and-graph): its dispatch order (the batches under
// test, the pending line, what waits to be admitted) and its dependency graph (each pull request in the queue, and
// which is tested on top of which: one chain in queue mode, lanes in graph mode). Neither is paged. Answers are read
// tolerantly (every field optional; unknown keys kept in `extra`).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/verification_run.hpp"

namespace trunk {

#define TRUNK_ORDERED_BATCH_FIELDS(X)                                                                         \
  X(std::optional<std::string>, verification_run_id, "verificationRunId", {}, schema::kRequired, "its run")   \
  X(std::optional<OpenEnum<QueueEntryState>>, state, "state", {}, schema::kRequired, "its pull requests' state") \
  X(std::optional<bool>, is_bisection, "isBisection", {}, schema::kRequired, "whether it is a bisection run") \
  X(std::optional<std::vector<PullRequestBrief>>, pull_requests, "pullRequests", {}, schema::kRequired,       \
    "the pull requests it tests")

struct OrderedBatch {
  TRUNK_MEMBERS(TRUNK_ORDERED_BATCH_FIELDS)
  Extras extra;
  bool operator==(const OrderedBatch&) const = default;
};
TRUNK_DESCRIBE(OrderedBatch, "A unit under test: one pull request or a batch.", TRUNK_ORDERED_BATCH_FIELDS)

#define TRUNK_ORDERED_PENDING_ITEM_FIELDS(X)                                                                  \
  X(std::optional<PullRequestBrief>, pull_request, "pullRequest", {}, schema::kRequired, "the pull request")  \
  X(std::optional<OpenEnum<PendingSchedulability>>, schedulability, "schedulability", {}, schema::kRequired,  \
    "whether it can start testing")                                                                          \
  X(std::optional<std::int64_t>, predicted_batch, "predictedBatch", {}, schema::kNone,                        \
    "the batch it is expected to join (0 first)")                                                            \
  X(std::optional<std::vector<PullRequestBrief>>, directly_ahead, "directlyAhead", {}, schema::kRequired,     \
    "the pull requests right ahead of it")                                                                   \
  X(std::optional<std::vector<PullRequestBrief>>, held_by, "heldBy", {}, schema::kRequired,                   \
    "the failed pull requests it waits behind")

struct OrderedPendingItem {
  TRUNK_MEMBERS(TRUNK_ORDERED_PENDING_ITEM_FIELDS)
  Extras extra;
  bool operator==(const OrderedPendingItem&) const = default;
};
TRUNK_DESCRIBE(OrderedPendingItem, "A pending pull request, in line order.", TRUNK_ORDERED_PENDING_ITEM_FIELDS)

#define TRUNK_MERGE_QUEUE_ORDER_FIELDS(X)                                                                     \
  X(std::optional<OpenEnum<MergeQueueMode>>, mode, "mode", {}, schema::kRequired, "queue or graph")           \
  X(std::optional<OpenEnum<MergeQueueState>>, queue_state, "queueState", {}, schema::kRequired, "running, paused, ...") \
  X(std::optional<bool>, batching_enabled, "batchingEnabled", {}, schema::kRequired, "whether it batches")    \
  X(std::optional<bool>, isolation_resolved, "isolationResolved", {}, schema::kRequired,                      \
    "whether the batching rules' isolation is applied to the prediction")                                    \
  X(std::optional<bool>, has_cycle, "hasCycle", {}, schema::kRequired, "whether the dependencies loop")       \
  X(std::optional<std::vector<OrderedBatch>>, batches, "batches", {}, schema::kRequired,                      \
    "the units under test, in dispatch order")                                                               \
  X(std::optional<std::vector<OrderedPendingItem>>, pending, "pending", {}, schema::kRequired, "the line")     \
  X(std::optional<std::vector<PullRequestBrief>>, awaiting_admission, "awaitingAdmission", {}, schema::kRequired, \
    "pull requests not ready yet")                                                                           \
  X(std::optional<std::int64_t>, awaiting_admission_total, "awaitingAdmissionTotal", {}, schema::kRequired,   \
    "how many are not ready")

struct MergeQueueOrder {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_ORDER_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueOrder&) const = default;
};
TRUNK_DESCRIBE(MergeQueueOrder, "A merge queue's dispatch order now.", TRUNK_MERGE_QUEUE_ORDER_FIELDS)

#define TRUNK_MERGE_GRAPH_NODE_FIELDS(X)                                                                      \
  X(std::optional<std::int64_t>, pull_request_number, "pullRequestNumber", {}, schema::kRequired, "its number") \
  X(std::optional<std::string>, title, "title", {}, schema::kRequired, "its title")                           \
  X(std::optional<std::string>, author, "author", {}, schema::kRequired, "its author")                        \
  X(std::optional<OpenEnum<QueueEntryState>>, state, "state", {}, schema::kRequired, "its state")             \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kRequired, "its priority")      \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kNone, "its priority's name")      \
  X(std::optional<bool>, skips_the_line, "skipsTheLine", {}, schema::kRequired, "whether it skips the line")  \
  X(std::optional<bool>, allows_batching, "allowsBatching", {}, schema::kRequired, "whether it may be batched") \
  X(std::optional<std::string>, verification_run_id, "verificationRunId", {}, schema::kNone, "its run")       \
  X(std::optional<bool>, is_bisection, "isBisection", {}, schema::kRequired, "whether it is in a bisection")  \
  X(std::optional<std::vector<std::string>>, impacted_targets, "impactedTargets", {}, schema::kNone,          \
    "its impacted targets, when asked")                                                                      \
  X(std::optional<std::int64_t>, total_impacted_targets, "totalImpactedTargets", {}, schema::kNone,           \
    "how many, when asked")

struct MergeGraphNode {
  TRUNK_MEMBERS(TRUNK_MERGE_GRAPH_NODE_FIELDS)
  Extras extra;
  bool operator==(const MergeGraphNode&) const = default;
};
TRUNK_DESCRIBE(MergeGraphNode, "A pull request in a merge queue's graph.", TRUNK_MERGE_GRAPH_NODE_FIELDS)

#define TRUNK_MERGE_GRAPH_EDGE_FIELDS(X)                                                                      \
  X(std::optional<std::int64_t>, from_pull_request_number, "fromPullRequestNumber", {}, schema::kRequired,    \
    "the pull request tested first")                                                                         \
  X(std::optional<std::int64_t>, to_pull_request_number, "toPullRequestNumber", {}, schema::kRequired,        \
    "the pull request tested on top of it")                                                                  \
  X(std::optional<std::vector<std::string>>, common_impacted_targets, "commonImpactedTargets", {}, schema::kNone, \
    "the targets both impact, when asked")                                                                   \
  X(std::optional<std::int64_t>, total_common_impacted_targets, "totalCommonImpactedTargets", {}, schema::kNone, \
    "how many, when asked")

struct MergeGraphEdge {
  TRUNK_MEMBERS(TRUNK_MERGE_GRAPH_EDGE_FIELDS)
  Extras extra;
  bool operator==(const MergeGraphEdge&) const = default;
};
TRUNK_DESCRIBE(MergeGraphEdge, "One pull request tested on top of another.", TRUNK_MERGE_GRAPH_EDGE_FIELDS)

#define TRUNK_MERGE_GRAPH_FIELDS(X)                                                                           \
  X(std::optional<std::vector<MergeGraphNode>>, nodes, "nodes", {}, schema::kRequired, "the pull requests")    \
  X(std::optional<std::vector<MergeGraphEdge>>, edges, "edges", {}, schema::kRequired, "what is tested on what")

struct MergeGraph {
  TRUNK_MEMBERS(TRUNK_MERGE_GRAPH_FIELDS)
  Extras extra;
  bool operator==(const MergeGraph&) const = default;
};
TRUNK_DESCRIBE(MergeGraph, "A merge queue's dependency graph now.", TRUNK_MERGE_GRAPH_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_MERGE_GRAPH_REQUEST_FIELDS(X)                                                                   \
  X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")                                       \
  X(std::optional<bool>, include_impacted_targets, "includeImpactedTargets", {}, schema::kNone,               \
    "also answer each pull request's impacted targets and each edge's common ones")

struct MergeGraphRequest {
  TRUNK_MEMBERS(TRUNK_MERGE_GRAPH_REQUEST_FIELDS)
  bool operator==(const MergeGraphRequest&) const = default;
};
TRUNK_DESCRIBE(MergeGraphRequest, "A merge queue's dependency graph.", TRUNK_MERGE_GRAPH_REQUEST_FIELDS)

#define TRUNK_MERGE_QUEUE_ORDER_V2_ANSWER_MODELS(X) \
  X(OrderedBatch) X(OrderedPendingItem) X(MergeQueueOrder) X(MergeGraphNode) X(MergeGraphEdge) X(MergeGraph)
#define TRUNK_MERGE_QUEUE_ORDER_V2_REQUEST_MODELS(X) X(MergeGraphRequest)

}  // namespace trunk
