#pragma once
// Every operation of the API, declared once: its name, HTTP method and path, request and answer types,
// whether a retry may repeat it, and one line for people. The client's calls, the sandbox's route table, the
// Python methods' docs and the OpenAPI document are derived from this list.

#include <string_view>
#include <tuple>

#include "trunk/error.hpp"
#include "trunk/models.hpp"
#include "trunk/repeat.hpp"

namespace trunk {

// X(Type, name, "METHOD", "/path", Request, Response, Repeat, "doc")
#define TRUNK_OPERATIONS(X)                                                                                     \
  X(ListFailingTests, list_failing_tests, "POST", "/v1/flaky-tests/list-failing-tests", ListFailingTestsRequest, \
    TestPage, Repeat::safe, "One page of the distinct tests that failed in a time window (at most 7 days).")   \
  X(ListUnhealthyTests, list_unhealthy_tests, "POST", "/v1/flaky-tests/list-unhealthy-tests",                    \
    ListUnhealthyTestsRequest, TestPage, Repeat::safe, "One page of the tests classed flaky or broken.")       \
  X(GetTestDetails, get_test_details, "POST", "/v1/flaky-tests/get-test-details", GetTestDetailsRequest,         \
    TestDetails, Repeat::safe, "Every detail of one test case.")                                              \
  X(ListQuarantinedTests, list_quarantined_tests, "POST", "/v1/flaky-tests/list-quarantined-tests",              \
    ListQuarantinedTestsRequest, QuarantinedTestPage, Repeat::safe, "One page of the quarantined tests.")      \
  X(UpdateQueue, update_queue, "POST", "/v1/updateQueue", UpdateQueueRequest, QueueSettings, Repeat::safe,    \
    "Changes the settings of a merge queue and returns the settings after the change.")                          \
  X(GetQueue, get_queue, "POST", "/v1/getQueue", GetQueueRequest, QueueSettings, Repeat::safe,                \
    "The settings of a merge queue and the pull requests in it.")                                                \
  X(CreateQueue, create_queue, "POST", "/v1/createQueue", CreateQueueRequest, Acknowledgement, Repeat::not_safe, \
    "Creates the merge queue of a target branch (409 when it exists).")                                         \
  X(DeleteQueue, delete_queue, "POST", "/v1/deleteQueue", DeleteQueueRequest, Acknowledgement, Repeat::safe,     \
    "Deletes an empty merge queue (400 while it holds pull requests).")                                         \
  X(SubmitPullRequest, submit_pull_request, "POST", "/v1/submitPullRequest", SubmitPullRequestRequest,          \
    Acknowledgement, Repeat::not_safe, "Submits a pull request to a merge queue.")                               \
  X(CancelPullRequest, cancel_pull_request, "POST", "/v1/cancelPullRequest", CancelPullRequestRequest,          \
    Acknowledgement, Repeat::safe, "Takes a pull request out of its merge queue.")                              \
  X(RestartTestsOnPullRequest, restart_tests_on_pull_request, "POST", "/v1/restartTestsOnPullRequest",          \
    RestartTestsOnPullRequestRequest, Acknowledgement, Repeat::not_safe,                                       \
    "Restarts the tests of a pull request in its merge queue.")                                                 \
  X(GetSubmittedPullRequest, get_submitted_pull_request, "POST", "/v1/getSubmittedPullRequest",                 \
    GetSubmittedPullRequestRequest, SubmittedPullRequest, Repeat::safe,                                         \
    "Where one submitted pull request stands, and what it waits for.")                                          \
  X(ListPullRequests, list_pull_requests, "POST", "/v1/listPullRequests", ListPullRequestsRequest,              \
    PullRequestPage, Repeat::safe, "One page of the pull requests of a merge queue.")                           \
  X(SetImpactedTargets, set_impacted_targets, "POST", "/v1/setImpactedTargets", SetImpactedTargetsRequest,      \
    Acknowledgement, Repeat::not_safe, "Reports the build targets a pull request changes (or ALL).")            \
  X(GetMergeQueueTestingDetails, get_merge_queue_testing_details, "POST", "/v1/getMergeQueueTestingDetails",    \
    GetMergeQueueTestingDetailsRequest, TestRunDetails, Repeat::safe, "The details of one merge queue test run.") \
  X(GetMergeQueueMetrics, get_merge_queue_metrics, "GET", "/v1/getMergeQueueMetrics",                           \
    GetMergeQueueMetricsRequest, MergeQueueMetrics, Repeat::safe,                                               \
    "The merge queue metrics of a repository (Prometheus text and its samples).")                               \
  X(LinkTicketToTestCase, link_ticket_to_test_case, "POST", "/v1/flaky-tests/link-ticket-to-test-case",         \
    LinkTicketToTestCaseRequest, Acknowledgement, Repeat::safe, "Links an issue-tracker ticket to a test case.")

namespace op {
#define TRUNK_DECLARE_OPERATION_(Type, op_name, op_method, op_path, RequestType, ResponseType, op_repeat, op_doc) \
  struct Type {                                                                                                     \
    using Request = RequestType;                                                                                    \
    using Response = ResponseType;                                                                                  \
    static constexpr std::string_view name = #op_name;                                                              \
    static constexpr std::string_view method = op_method;                                                           \
    static constexpr std::string_view path = op_path;                                                               \
    static constexpr Repeat repeat = op_repeat;                                                         \
    static constexpr std::string_view doc = op_doc;                                                                 \
    /** The credential it sends, from its path's version: v2 an API key, v1 the organization token. */              \
    static constexpr Credential credential =                                                                        \
        path.starts_with("/v2/") ? Credential::api_key : Credential::token;                                         \
  };
TRUNK_OPERATIONS(TRUNK_DECLARE_OPERATION_)
#undef TRUNK_DECLARE_OPERATION_
}  // namespace op

/// Every operation, for code that walks them all (routing, documentation).
#define TRUNK_OPERATION_TYPE_(Type, ...) op::Type,
using AllOperations = std::tuple<TRUNK_OPERATIONS(TRUNK_OPERATION_TYPE_) schema::End>;
#undef TRUNK_OPERATION_TYPE_

/// Paths of the operations, relative to the base address (paths::kListFailingTests ...).
namespace paths {
#define TRUNK_OPERATION_PATH_(Type, name, method, path, ...) inline constexpr std::string_view k##Type = path;
TRUNK_OPERATIONS(TRUNK_OPERATION_PATH_)
#undef TRUNK_OPERATION_PATH_
}  // namespace paths

/// Calls f(Operation{}) for every operation.
template <typename F>
constexpr void for_each_operation(F&& f) {
  std::apply([&](auto... operations) { (schema::call_unless_end(f, operations), ...); }, AllOperations{});
}

}  // namespace trunk
