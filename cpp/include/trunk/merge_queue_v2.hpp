#pragma once
// The merge queues of Trunk's v2 API (docs/reference/v2.md#merge-queues): a queue with its whole configuration,
// the state a write leaves it in, a page of queues, and the requests of the mergeQueues operations
// (operations.hpp, TRUNK_V2_OPERATIONS). Answers are read tolerantly (every field optional; unknown keys kept in
// `extra`); requests send only what the caller set.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

#define TRUNK_BATCHING_RULE_FIELDS(X)                                                                         \
  X(std::string, target_pattern, "targetPattern", {}, schema::kRequiredText, "the targets the rule matches")  \
  X(std::optional<OpenEnum<BatchingRulePolicy>>, policy, "policy", {}, schema::kRequired,                   \
    "what the rule does to matching pull requests (isolate)")

struct BatchingRule {
  TRUNK_MEMBERS(TRUNK_BATCHING_RULE_FIELDS)
  Extras extra;  ///< an answer's keys this library does not know (a request's are never sent: it sets none)
  bool operator==(const BatchingRule&) const = default;
};
TRUNK_DESCRIBE(BatchingRule, "A batching rule: pull requests whose targets match are isolated.",
               TRUNK_BATCHING_RULE_FIELDS)

/// The settings a v2 queue's configuration and its PATCH share: one row each, spliced into both (answer rows
/// optional and tolerant, an enumeration open to values this library does not know; the PATCH's optional, with the
/// published bounds, an enumeration one of its known values).
#define TRUNK_MERGE_QUEUE_CONFIG_SETTINGS(X, RULES, ENUM)                                                             \
  X(std::optional<std::int64_t>, concurrency, "concurrency", {}, RULES(1, 1000), "pull requests or batches tested at once") \
  X(std::optional<std::int64_t>, bisection_concurrency, "bisectionConcurrency", {}, RULES(0, 1000),            \
    "bisection runs at once")                                                                                   \
  X(std::optional<std::int64_t>, pending_failure_depth, "pendingFailureDepth", {}, RULES(0, 1000),             \
    "pull requests behind a failure tested before it is failed")                                                \
  X(std::optional<bool>, can_optimistically_merge, "canOptimisticallyMerge", {}, RULES(0, 0),                   \
    "merge when a later batch that contains it passes")                                                         \
  X(std::optional<bool>, allow_batching, "allowBatching", {}, RULES(0, 0), "test pull requests in batches")     \
  X(std::optional<std::int64_t>, batching_max_wait_time_minutes, "batchingMaxWaitTimeMinutes", {}, RULES(0, 10080), \
    "longest wait for a batch to fill")                                                                         \
  X(std::optional<std::int64_t>, batching_min_size, "batchingMinSize", {}, RULES(1, 1000), "smallest batch")    \
  X(std::optional<std::int64_t>, testing_timeout_minutes, "testingTimeoutMinutes", {}, RULES(0, 10080),        \
    "longest test run before it fails")                                                                         \
  X(std::optional<std::int64_t>, not_ready_timeout_minutes, "notReadyTimeoutMinutes", {}, RULES(0, 43200),     \
    "longest wait of a pull request that is not ready (whole hours)")                                           \
  X(std::optional<bool>, creates_prs_for_testing_branches, "createsPrsForTestingBranches", {}, RULES(0, 0),     \
    "open a pull request for each testing branch")                                                              \
  X(std::optional<bool>, are_comments_enabled, "areCommentsEnabled", {}, RULES(0, 0), "comment on pull requests") \
  X(std::optional<bool>, are_commands_enabled, "areCommandsEnabled", {}, RULES(0, 0), "accept /trunk commands")  \
  X(std::optional<bool>, is_status_check_enabled, "isStatusCheckEnabled", {}, RULES(0, 0),                      \
    "post a status check")                                                                                      \
  X(std::optional<bool>, is_extension_enabled, "isExtensionEnabled", {}, RULES(0, 0), "the browser extension")  \
  X(std::optional<bool>, are_label_commands_enabled, "areLabelCommandsEnabled", {}, RULES(0, 0),                \
    "accept label commands")                                                                                    \
  X(std::optional<bool>, are_state_labels_enabled, "areStateLabelsEnabled", {}, RULES(0, 0),                    \
    "label pull requests with their state")                                                                     \
  X(std::optional<std::vector<std::string>>, required_statuses, "requiredStatuses", {}, RULES(0, 0),            \
    "statuses that must pass ([] clears)")                                                                      \
  X(std::optional<std::vector<std::string>>, allowed_bot_submitters, "allowedBotSubmitters", {}, RULES(0, 0),   \
    "bots that may submit ([] clears)")                                                                         \
  X(std::optional<std::vector<BatchingRule>>, batching_rules, "batchingRules", {}, RULES(0, 0),                 \
    "batching rules ([] clears)")                                                                               \
  X(std::optional<ENUM(DirectMergeMode)>, direct_merge_mode, "directMergeMode", {}, RULES(0, 0),            \
    "off or always")                                                                                            \
  X(std::optional<ENUM(QueueOptimization)>, optimization_mode, "optimizationMode", {}, RULES(0, 0),         \
    "off or bisectionSkipRedundantTests")                                                                       \
  X(std::optional<ENUM(MergeStrategy)>, merge_method, "mergeMethod", {}, RULES(0, 0),                       \
    "mergeCommit, squash or rebase")                                                                            \
  X(std::optional<ENUM(TestBranchConstruction)>, test_branch_construction_mode, "testBranchConstructionMode", \
    {}, RULES(0, 0), "how the tested branch is built")                                                          \
  X(std::optional<std::string>, enqueueing_label, "enqueueingLabel", {}, RULES(-1, 0),                          \
    "the label that submits a pull request")

/// An answer's rule: required by the description (a missing one is read as absent).
#define TRUNK_V2_ANSWER_RULES_(lo, hi) schema::kRequired
#define TRUNK_V2_ANSWER_ENUM_(E) OpenEnum<E>
#define TRUNK_V2_PATCH_ENUM_(E) E
/// A PATCH's rule: optional; integers within [lo, hi]; (0, 0) = no bound; (-1, 0) = non-empty text.
#define TRUNK_V2_PATCH_RULES_(lo, hi)                                                                         \
  (lo == -1 ? schema::Rules{.non_empty = true}                                                               \
            : (lo == 0 && hi == 0 ? schema::kNone : schema::Rules{.min = lo, .max = hi}))

#define TRUNK_MERGE_QUEUE_CONFIG_FIELDS(X) TRUNK_MERGE_QUEUE_CONFIG_SETTINGS(X, TRUNK_V2_ANSWER_RULES_, TRUNK_V2_ANSWER_ENUM_)

struct MergeQueueConfig {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_CONFIG_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueConfig&) const = default;
};
TRUNK_DESCRIBE(MergeQueueConfig, "Every setting of a v2 merge queue.", TRUNK_MERGE_QUEUE_CONFIG_FIELDS)

#define TRUNK_MERGE_QUEUE_FIELDS(X)                                                                            \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the queue's id (opaque)")                   \
  X(std::optional<std::string>, repository_id, "repositoryId", {}, schema::kRequired, "its repository's id")  \
  X(std::optional<std::string>, target_branch, "targetBranch", {}, schema::kRequired, "the branch it merges into") \
  X(std::optional<OpenEnum<MergeQueueState>>, state, "state", {}, schema::kRequired, "running, paused, ...")   \
  X(std::optional<OpenEnum<MergeQueueMode>>, mode, "mode", {}, schema::kRequired, "queue or graph")           \
  X(std::optional<OpenEnum<ManagedState>>, managed_state, "managedState", {}, schema::kRequired,               \
    "who manages its configuration")                                                                          \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it was created")          \
  X(std::optional<Timestamp>, updated_at, "updatedAt", {}, schema::kRequired, "when it last changed")         \
  X(std::optional<std::string>, repository_url, "repositoryUrl", {}, schema::kRequired, "its repository's API address") \
  X(std::optional<std::string>, pull_requests_url, "pullRequestsUrl", {}, schema::kRequired,                  \
    "the API address of its pull requests")                                                                   \
  X(std::optional<std::string>, html_url, "htmlUrl", {}, schema::kNone, "its page in Trunk's web app")         \
  X(std::optional<MergeQueueConfig>, config, "config", {}, schema::kRequired, "its whole configuration")

struct MergeQueue {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_FIELDS)
  Extras extra;
  bool operator==(const MergeQueue&) const = default;
};
TRUNK_DESCRIBE(MergeQueue, "A v2 merge queue and its configuration.", TRUNK_MERGE_QUEUE_FIELDS)

#define TRUNK_MERGE_QUEUE_STATE_CHANGE_FIELDS(X)                                                               \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the queue's id")                            \
  X(std::optional<OpenEnum<MergeQueueState>>, state, "state", {}, schema::kRequired, "its state after the write") \
  X(std::optional<OpenEnum<MergeQueueMode>>, mode, "mode", {}, schema::kRequired, "its mode after the write") \
  X(std::optional<std::string>, pull_requests_url, "pullRequestsUrl", {}, schema::kRequired,                  \
    "the API address of its pull requests")

struct MergeQueueStateChange {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_STATE_CHANGE_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueStateChange&) const = default;
};
TRUNK_DESCRIBE(MergeQueueStateChange, "A merge queue's state after pause, resume, drain or switch-modes.",
               TRUNK_MERGE_QUEUE_STATE_CHANGE_FIELDS)

#define TRUNK_MERGE_QUEUE_LIST_FIELDS(X)                                                                       \
  X(std::vector<MergeQueue>, data, "data", {}, schema::kRequired, "the merge queues of this page")            \
  TRUNK_V2_PAGE_FIELDS(X)

struct MergeQueueList {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_LIST_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueList&) const = default;
};
TRUNK_DESCRIBE(MergeQueueList, "One page of merge queues.", TRUNK_MERGE_QUEUE_LIST_FIELDS)

/// The empty answer of a 204 (DELETE) or a 202 without a body: the call succeeded, nothing more to read.
#define TRUNK_NO_CONTENT_FIELDS(X)
struct NoContent {
  TRUNK_MEMBERS(TRUNK_NO_CONTENT_FIELDS)
  Extras extra;  ///< always empty: the body, if any, is not read
  bool operator==(const NoContent&) const = default;
};
TRUNK_DESCRIBE(NoContent, "The service accepted the request and answered no body.", TRUNK_NO_CONTENT_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_MERGE_QUEUE_ID_FIELD(X) X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")

#define TRUNK_LIST_MERGE_QUEUES_FIELDS(X)                                                                      \
  X(std::optional<std::string>, repository_id, "repositoryId", {}, (schema::Rules{.uuid = true}),             \
    "only the queues of this repository (a UUID)")                                                            \
  X(std::optional<std::string>, target_branch, "targetBranch", {}, (schema::Rules{.non_empty = true}),        \
    "only the queue of this branch (needs repository_id)")                                                    \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListMergeQueuesRequest {
  TRUNK_MEMBERS(TRUNK_LIST_MERGE_QUEUES_FIELDS)
  bool operator==(const ListMergeQueuesRequest&) const = default;
};
TRUNK_DESCRIBE(ListMergeQueuesRequest, "The merge queues of the organization, page by page.",
               TRUNK_LIST_MERGE_QUEUES_FIELDS)

/// The request of every operation that names one queue and nothing else (get, delete, pause, resume, drain).
struct MergeQueueRef {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_ID_FIELD)
  bool operator==(const MergeQueueRef&) const = default;
};
TRUNK_DESCRIBE(MergeQueueRef, "A merge queue, by id.", TRUNK_MERGE_QUEUE_ID_FIELD)

#define TRUNK_CREATE_MERGE_QUEUE_FIELDS(X)                                                                     \
  X(std::string, repository_id, "repositoryId", {}, schema::kRequiredUuid, "the repository's id (a UUID)")    \
  X(std::string, target_branch, "targetBranch", {}, schema::kRequiredText, "the branch the queue merges into") \
  X(std::optional<MergeQueueMode>, mode, "mode", {}, schema::kNone, "queue or graph (service default: queue)") \
  X(std::optional<std::int64_t>, concurrency, "concurrency", {}, (schema::Rules{.min = 1, .max = 1000}),      \
    "pull requests or batches tested at once")                                                                \
  X(std::optional<std::int64_t>, bisection_concurrency, "bisectionConcurrency", {},                            \
    (schema::Rules{.min = 0, .max = 1000}), "bisection runs at once")                                         \
  X(std::optional<std::string>, enqueueing_label, "enqueueingLabel", {}, (schema::Rules{.non_empty = true}),  \
    "the label that submits a pull request")

struct CreateMergeQueueRequest {
  TRUNK_MEMBERS(TRUNK_CREATE_MERGE_QUEUE_FIELDS)
  bool operator==(const CreateMergeQueueRequest&) const = default;
};
TRUNK_DESCRIBE(CreateMergeQueueRequest, "Creates the merge queue of a branch (409 QUEUE_ALREADY_EXISTS when it exists).",
               TRUNK_CREATE_MERGE_QUEUE_FIELDS)

#define TRUNK_SWITCH_MODES_FIELDS(X)                                                                           \
  TRUNK_MERGE_QUEUE_ID_FIELD(X)                                                                                \
  X(MergeQueueMode, mode, "mode", {}, schema::kRequired, "the mode to switch to: queue or graph")

struct SwitchModesRequest {
  TRUNK_MEMBERS(TRUNK_SWITCH_MODES_FIELDS)
  bool operator==(const SwitchModesRequest&) const = default;
};
TRUNK_DESCRIBE(SwitchModesRequest, "Switches a merge queue to another mode.", TRUNK_SWITCH_MODES_FIELDS)

#define TRUNK_UPDATE_MERGE_QUEUE_CONFIG_FIELDS(X)                                                              \
  TRUNK_MERGE_QUEUE_ID_FIELD(X)                                                                                \
  TRUNK_MERGE_QUEUE_CONFIG_SETTINGS(X, TRUNK_V2_PATCH_RULES_, TRUNK_V2_PATCH_ENUM_)

struct UpdateMergeQueueConfigRequest {
  TRUNK_MEMBERS(TRUNK_UPDATE_MERGE_QUEUE_CONFIG_FIELDS)
  bool operator==(const UpdateMergeQueueConfigRequest&) const = default;
};
TRUNK_DESCRIBE(UpdateMergeQueueConfigRequest,
               "Changes the settings given (a merge patch: an absent setting stays, [] clears a list).",
               TRUNK_UPDATE_MERGE_QUEUE_CONFIG_FIELDS)

#define TRUNK_ORGANIZATION_METRICS_FIELDS(X)                                                                  \
  X(std::optional<std::string>, repository_id, "repositoryId", {}, (schema::Rules{.uuid = true}),             \
    "only the queues of this repository (a UUID)")

struct OrganizationMetricsRequest {
  TRUNK_MEMBERS(TRUNK_ORGANIZATION_METRICS_FIELDS)
  bool operator==(const OrganizationMetricsRequest&) const = default;
};
TRUNK_DESCRIBE(OrganizationMetricsRequest, "The Prometheus metrics of every merge queue, or of a repository's.",
               TRUNK_ORGANIZATION_METRICS_FIELDS)

/// Every described struct of the v2 merge queues: answers, then requests.
#define TRUNK_MERGE_QUEUE_V2_ANSWER_MODELS(X) \
  X(BatchingRule) X(MergeQueueConfig) X(MergeQueue) X(MergeQueueStateChange) X(MergeQueueList) X(NoContent)
#define TRUNK_MERGE_QUEUE_V2_REQUEST_MODELS(X) \
  X(ListMergeQueuesRequest) X(MergeQueueRef) X(CreateMergeQueueRequest) X(SwitchModesRequest)               \
  X(UpdateMergeQueueConfigRequest) X(OrganizationMetricsRequest)

}  // namespace trunk
