#pragma once
// The request messages. Fields the caller leaves as nullopt are not sent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/page.hpp"
#include "trunk/queue_setting_rows.hpp"
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
/// The settings are the rows of queue_setting_rows.hpp, shared with the answers (queue_settings.hpp).
/// The integer settings are int64 so that out-of-range values (0, 4294967296) can be represented and
/// rejected by validation rather than silently wrapped. required_statuses = [] is sent as [] (set to empty);
/// delete_required_statuses = true together with required_statuses is invalid.
#define TRUNK_UPDATE_QUEUE_FIELDS(X)                                                                          \
  TRUNK_REPO_FIELD(X)                                                                                         \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                                \
  TRUNK_QUEUE_SETTING_ROWS(TRUNK_QUEUE_SETTING_IN_REQUEST_, X)                                                \
  X(std::optional<bool>, delete_required_statuses, "deleteRequiredStatuses", {}, schema::kNone,             \
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
