#pragma once
// The request messages. Fields the caller leaves as nullopt are not sent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/page.hpp"
#include "trunk/queue_label_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"

namespace trunk {

#define TRUNK_REPO_FIELD(X) X(Repo, repo, "repo", {}, schema::kRequired, "the repository")
#define TRUNK_ORG_FIELD(X)                                        \
  X(std::string, org_url_slug, "org_url_slug", {}, schema::kRequiredText, \
    "the organization's URL slug, from the organization settings of the web app")
#define TRUNK_TARGET_BRANCH_FIELD(X) \
  X(std::string, target_branch, "targetBranch", {}, schema::kRequiredText, "the branch the queue targets")

/// POST /v1/flaky-tests/list-failing-tests. Window: start inclusive, end exclusive, 0 < end - start <= 7 days.
#define TRUNK_LIST_FAILING_TESTS_FIELDS(X)                                                                  \
  TRUNK_REPO_FIELD(X)                                                                                       \
  TRUNK_ORG_FIELD(X)                                                                                        \
  X(Timestamp, start_time, "start_time", {}, schema::kRequired, "window start (inclusive)")                \
  X(Timestamp, end_time, "end_time", {}, schema::kRequired, "window end (exclusive), at most 7 days after start") \
  X(PageQuery, page_query, "page_query", {}, schema::kRequired, "which page")

struct ListFailingTestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_FAILING_TESTS_FIELDS)
  bool operator==(const ListFailingTestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListFailingTestsRequest, "The distinct tests that failed in a time window.",
               TRUNK_LIST_FAILING_TESTS_FIELDS)

/// POST /v1/flaky-tests/list-unhealthy-tests.
#define TRUNK_LIST_UNHEALTHY_TESTS_FIELDS(X)                                                           \
  TRUNK_REPO_FIELD(X)                                                                                  \
  TRUNK_ORG_FIELD(X)                                                                                   \
  X(HealthStatus, status, "status", {HealthStatus::flaky}, schema::kRequired, "FLAKY or BROKEN")       \
  X(PageQuery, page_query, "page_query", {}, schema::kRequired, "which page")

struct ListUnhealthyTestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_UNHEALTHY_TESTS_FIELDS)
  bool operator==(const ListUnhealthyTestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListUnhealthyTestsRequest, "The tests classed flaky or broken.", TRUNK_LIST_UNHEALTHY_TESTS_FIELDS)

/// POST /v1/flaky-tests/get-test-details.
#define TRUNK_GET_TEST_DETAILS_FIELDS(X) \
  TRUNK_REPO_FIELD(X)                    \
  TRUNK_ORG_FIELD(X)                     \
  X(std::string, test_id, "test_id", {}, schema::kRequiredUuid, "the test case id (a UUID)")

struct GetTestDetailsRequest {
  TRUNK_MEMBERS(TRUNK_GET_TEST_DETAILS_FIELDS)
  bool operator==(const GetTestDetailsRequest&) const = default;
};
TRUNK_DESCRIBE(GetTestDetailsRequest, "Every detail of one test case.", TRUNK_GET_TEST_DETAILS_FIELDS)

/// POST /v1/flaky-tests/list-quarantined-tests.
#define TRUNK_LIST_QUARANTINED_TESTS_FIELDS(X) \
  TRUNK_REPO_FIELD(X)                          \
  TRUNK_ORG_FIELD(X)                           \
  X(PageQuery, page_query, "page_query", {}, schema::kRequired, "which page")

struct ListQuarantinedTestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_QUARANTINED_TESTS_FIELDS)
  bool operator==(const ListQuarantinedTestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListQuarantinedTestsRequest, "The tests the service quarantines.",
               TRUNK_LIST_QUARANTINED_TESTS_FIELDS)

/// POST /v1/updateQueue. Only repo and target_branch are required; every other field is sent only when set.
/// The integer settings are int64 so that out-of-range values (0, 4294967296) can be represented and
/// rejected by validation rather than silently wrapped. required_statuses = [] is sent as [] (set to empty);
/// delete_required_statuses = true together with required_statuses is invalid.
#define TRUNK_UPDATE_QUEUE_FIELDS(X)                                                                             \
  TRUNK_REPO_FIELD(X)                                                                                            \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                                   \
  X(std::optional<QueueState>, state, "state", {}, schema::kNone, "desired queue state")                       \
  X(std::optional<std::int64_t>, concurrency, "concurrency", {}, schema::kSetting,                             \
    "pull requests or batches tested at once")                                                                 \
  X(std::optional<std::int64_t>, bisection_concurrency, "bisectionConcurrency", {}, schema::kSetting,           \
    "tests run while bisecting a failed batch")                                                                \
  X(std::optional<std::int64_t>, testing_timeout_minutes, "testingTimeoutMinutes", {}, schema::kSetting,        \
    "minutes to wait for tests before timing out")                                                            \
  X(std::optional<std::int64_t>, pending_failure_depth, "pendingFailureDepth", {}, schema::kSetting,            \
    "pull requests below a failing one that finish testing before it is removed")                             \
  X(std::optional<bool>, can_optimistically_merge, "canOptimisticallyMerge", {}, schema::kNone,                \
    "a passing pull request also marks those ahead of it as passing")                                         \
  X(std::optional<bool>, batch, "batch", {}, schema::kNone, "batch pull requests for testing")                 \
  X(std::optional<std::int64_t>, batching_max_wait_time_minutes, "batchingMaxWaitTimeMinutes", {},              \
    schema::kSetting, "minutes to wait to collect a batch")                                                   \
  X(std::optional<std::int64_t>, batching_min_size, "batchingMinSize", {}, schema::kSetting,                    \
    "pull requests needed to form a batch")                                                                   \
  X(std::optional<QueueMode>, mode, "mode", {}, schema::kNone,                                                 \
    "single: one pull request at a time; parallel: several at once")                                          \
  X(std::optional<bool>, comments_enabled, "commentsEnabled", {}, schema::kNone, "post comments on pull requests") \
  X(std::optional<bool>, commands_enabled, "commandsEnabled", {}, schema::kNone,                               \
    "accept the merge slash-command in pull request comments")                                                \
  X(std::optional<bool>, create_prs_for_testing_branches, "createPrsForTestingBranches", {}, schema::kNone,    \
    "open pull requests for testing branches so CI runs on them")                                             \
  X(std::optional<DirectMergeMode>, direct_merge_mode, "directMergeMode", {}, schema::kNone,                   \
    "always: up-to-date pull requests merge directly")                                                        \
  X(std::optional<OptimizationMode>, optimization_mode, "optimizationMode", {}, schema::kNone,                 \
    "bisection and skipping of redundant tests")                                                              \
  X(std::optional<MergeMethod>, merge_method, "mergeMethod", {}, schema::kNone,                                \
    "git strategy used to merge into the target branch")                                                      \
  X(std::optional<bool>, status_check_enabled, "statusCheckEnabled", {}, schema::kNone,                        \
    "post a status check showing the queue status")                                                           \
  TRUNK_QUEUE_LABEL_SETTINGS_FIELDS(X)                                                                         \
  X(std::optional<std::vector<std::string>>, required_statuses, "requiredStatuses", {},                        \
    (schema::Rules{.non_empty = true}),                                                                        \
    "statuses that must pass during queue testing; replaces the current list ([] sets it empty)")             \
  X(std::optional<bool>, delete_required_statuses, "deleteRequiredStatuses", {}, schema::kNone,                \
    "drop the manually set list; statuses then come from branch protection or the repository configuration")

struct UpdateQueueRequest {
  TRUNK_MEMBERS(TRUNK_UPDATE_QUEUE_FIELDS)
  bool operator==(const UpdateQueueRequest&) const = default;
};
TRUNK_DESCRIBE(UpdateQueueRequest, "Changes the settings of the merge queue of one target branch.",
               TRUNK_UPDATE_QUEUE_FIELDS)

/// POST /v1/getQueue.
#define TRUNK_GET_QUEUE_FIELDS(X) \
  TRUNK_REPO_FIELD(X)             \
  TRUNK_TARGET_BRANCH_FIELD(X)

struct GetQueueRequest {
  TRUNK_MEMBERS(TRUNK_GET_QUEUE_FIELDS)
  bool operator==(const GetQueueRequest&) const = default;
};
TRUNK_DESCRIBE(GetQueueRequest, "The settings and pull requests of the merge queue of one target branch.",
               TRUNK_GET_QUEUE_FIELDS)

/// Every request message and the parts requests hold (a new request adds itself here).
#define TRUNK_REQUEST_MODELS(X)                                                                               \
  X(Repo) X(PageQuery) X(ListFailingTestsRequest) X(ListUnhealthyTestsRequest) X(GetTestDetailsRequest)       \
  X(ListQuarantinedTestsRequest) X(UpdateQueueRequest) X(GetQueueRequest)

}  // namespace trunk
