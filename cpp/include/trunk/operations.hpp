#pragma once
// Every operation of the API, declared once: its name, HTTP method and path, request and answer types,
// whether a retry may repeat it, and one line for people. The client's calls, the sandbox's route table, the
// Python methods' docs and the OpenAPI document are derived from this list.

#include <string_view>
#include <tuple>

#include "trunk/error.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/models.hpp"
#include "trunk/repeat.hpp"

namespace trunk {

// Rows: X(Type, name, "METHOD", "/path", Request, Response, Repeat, "doc", status, "resource", "verb")
//   name      the C++ method (Client::name) and the flat Python name; unique across both versions;
//   path      with "{wireName}" for each path parameter of the request (describe.hpp, Rules::path);
//   status    the success status the service answers (200, 201 created, 202 accepted, 204 no content);
//   resource  v2: the resource the operation belongs to (Python: client.v2.<resource>.<verb>); v1: "";
//   verb      v2: the method's name within its resource ("list", "get", "pause"); v1: "".
// The API version, and so the credential sent, is the path's (credential below).
#define TRUNK_OPERATIONS(X) TRUNK_V1_OPERATIONS(X) TRUNK_V2_OPERATIONS(X)

// v1: every operation of the legacy API (POST of a JSON body, but the metrics' GET).
#define TRUNK_V1_OPERATIONS(X)                                                                                       \
  X(ListFailingTests, list_failing_tests, "POST", "/v1/flaky-tests/list-failing-tests", ListFailingTestsRequest,     \
    TestPage, Repeat::safe, "One page of the distinct tests that failed in a time window (at most 7 days).",         \
    200, "", "")                                                                                                     \
  X(ListUnhealthyTests, list_unhealthy_tests, "POST", "/v1/flaky-tests/list-unhealthy-tests",                        \
    ListUnhealthyTestsRequest, TestPage, Repeat::safe, "One page of the tests classed flaky or broken.",             \
    200, "", "")                                                                                                     \
  X(GetTestDetails, get_test_details, "POST", "/v1/flaky-tests/get-test-details", GetTestDetailsRequest,             \
    TestDetails, Repeat::safe, "Every detail of one test case.", 200, "", "")                                        \
  X(ListQuarantinedTests, list_quarantined_tests, "POST", "/v1/flaky-tests/list-quarantined-tests",                  \
    ListQuarantinedTestsRequest, QuarantinedTestPage, Repeat::safe, "One page of the quarantined tests.",            \
    200, "", "")                                                                                                     \
  X(UpdateQueue, update_queue, "POST", "/v1/updateQueue", UpdateQueueRequest, QueueSettings, Repeat::safe,           \
    "Changes the settings of a merge queue and returns the settings after the change.", 200, "", "")                 \
  X(GetQueue, get_queue, "POST", "/v1/getQueue", GetQueueRequest, QueueSettings, Repeat::safe,                       \
    "The settings of a merge queue and the pull requests in it.", 200, "", "")                                       \
  X(CreateQueue, create_queue, "POST", "/v1/createQueue", CreateQueueRequest, Acknowledgement, Repeat::not_safe,     \
    "Creates the merge queue of a target branch (409 when it exists).", 200, "", "")                                 \
  X(DeleteQueue, delete_queue, "POST", "/v1/deleteQueue", DeleteQueueRequest, Acknowledgement, Repeat::safe,         \
    "Deletes an empty merge queue (400 while it holds pull requests).", 200, "", "")                                 \
  X(SubmitPullRequest, submit_pull_request, "POST", "/v1/submitPullRequest", SubmitPullRequestRequest,               \
    Acknowledgement, Repeat::not_safe, "Submits a pull request to a merge queue.", 200, "", "")                      \
  X(CancelPullRequest, cancel_pull_request, "POST", "/v1/cancelPullRequest", CancelPullRequestRequest,               \
    Acknowledgement, Repeat::safe, "Takes a pull request out of its merge queue.", 200, "", "")                      \
  X(RestartTestsOnPullRequest, restart_tests_on_pull_request, "POST", "/v1/restartTestsOnPullRequest",               \
    RestartTestsOnPullRequestRequest, Acknowledgement, Repeat::not_safe,                                             \
    "Restarts the tests of a pull request in its merge queue.", 200, "", "")                                         \
  X(GetSubmittedPullRequest, get_submitted_pull_request, "POST", "/v1/getSubmittedPullRequest",                      \
    GetSubmittedPullRequestRequest, SubmittedPullRequest, Repeat::safe,                                              \
    "Where one submitted pull request stands, and what it waits for.", 200, "", "")                                  \
  X(GetSubmittedPullRequests, get_submitted_pull_requests, "POST", "/v1/getSubmittedPullRequests",                   \
    GetSubmittedPullRequestsRequest, SubmittedPullRequests, Repeat::safe,                                            \
    "Where 1 to 50 submitted pull requests of one queue stand, and which it does not know.", 200, "", "")           \
  X(ListPullRequests, list_pull_requests, "POST", "/v1/listPullRequests", ListPullRequestsRequest,                   \
    PullRequestPage, Repeat::safe, "One page of the pull requests of a merge queue.", 200, "", "")                   \
  X(SetImpactedTargets, set_impacted_targets, "POST", "/v1/setImpactedTargets", SetImpactedTargetsRequest,           \
    Acknowledgement, Repeat::not_safe, "Reports the build targets a pull request changes (or ALL).", 200, "", "")    \
  X(GetMergeQueueTestingDetails, get_merge_queue_testing_details, "POST", "/v1/getMergeQueueTestingDetails",         \
    GetMergeQueueTestingDetailsRequest, TestRunDetails, Repeat::safe, "The details of one merge queue test run.",    \
    200, "", "")                                                                                                     \
  X(ListMergeQueueTestingResults, list_merge_queue_testing_results, "POST", "/v1/listMergeQueueTestingResults",     \
    ListMergeQueueTestingResultsRequest, MergeQueueTestingResults, Repeat::safe,                                     \
    "The testing a merge queue completed in a time range, newest first (offset and take, with the total).", 200,    \
    "", "")                                                                                                          \
  X(GetMergeQueueMetrics, get_merge_queue_metrics, "GET", "/v1/getMergeQueueMetrics",                                \
    GetMergeQueueMetricsRequest, MergeQueueMetrics, Repeat::safe,                                                    \
    "The merge queue metrics of a repository (Prometheus text and its samples).", 200, "", "")                       \
  X(GetStatus, status, "GET", "/v1/status", StatusRequest, ServiceStatus, Repeat::safe,                                \
    "Whether Trunk's services are up, and which are impacted (no credential is sent).", 200, "", "")                 \
  X(LinkTicketToTestCase, link_ticket_to_test_case, "POST", "/v1/flaky-tests/link-ticket-to-test-case",              \
    LinkTicketToTestCaseRequest, Acknowledgement, Repeat::safe, "Links an issue-tracker ticket to a test case.",     \
    200, "", "")                                                                                                    

// v2: the merge-queue resources (docs/reference/v2.md). A GET or DELETE carries its request's non-path fields as
// the query string; POST, PUT and PATCH as the JSON body.
#define TRUNK_V2_OPERATIONS(X) \
  TRUNK_V2_MERGE_QUEUE_OPERATIONS(X) TRUNK_V2_PULL_REQUEST_OPERATIONS(X) TRUNK_V2_VERIFICATION_RUN_OPERATIONS(X) \
  TRUNK_V2_IMPACTED_TARGETS_OPERATIONS(X) TRUNK_V2_REPOSITORY_OPERATIONS(X) TRUNK_V2_TEST_COLLECTION_OPERATIONS(X) \
  TRUNK_V2_TEST_OPERATIONS(X) TRUNK_V2_MONITOR_OPERATIONS(X) TRUNK_V2_DYNAMIC_CI_OPERATIONS(X)

#define TRUNK_V2_MERGE_QUEUE_OPERATIONS(X)                                                                           \
  X(ListMergeQueues, list_merge_queues, "GET", "/v2/merge-queues", ListMergeQueuesRequest, MergeQueueList,           \
    Repeat::safe, "One page of the organization's merge queues.", 200, "merge_queues", "list")                       \
  X(CreateMergeQueue, create_merge_queue, "POST", "/v2/merge-queues", CreateMergeQueueRequest, MergeQueue,           \
    Repeat::not_safe, "Creates the merge queue of a branch (409 QUEUE_ALREADY_EXISTS when it exists).", 201,         \
    "merge_queues", "create")                                                                                        \
  X(GetMergeQueue, get_merge_queue, "GET", "/v2/merge-queues/{id}", MergeQueueRef, MergeQueue, Repeat::safe,         \
    "A merge queue and its whole configuration.", 200, "merge_queues", "get")                                        \
  X(DeleteMergeQueue, delete_merge_queue, "DELETE", "/v2/merge-queues/{id}", MergeQueueRef, NoContent,               \
    Repeat::safe, "Deletes an empty merge queue (409 QUEUE_HAS_ACTIVE_ENTRIES while it holds pull requests).",       \
    204, "merge_queues", "delete")                                                                                   \
  X(PauseMergeQueue, pause_merge_queue, "POST", "/v2/merge-queues/{id}/pause", MergeQueueRef,                        \
    MergeQueueStateChange, Repeat::safe, "Pauses a merge queue: nothing new starts testing.", 200,                   \
    "merge_queues", "pause")                                                                                         \
  X(ResumeMergeQueue, resume_merge_queue, "POST", "/v2/merge-queues/{id}/resume", MergeQueueRef,                     \
    MergeQueueStateChange, Repeat::safe, "Resumes a paused or draining merge queue.", 200, "merge_queues",           \
    "resume")                                                                                                        \
  X(DrainMergeQueue, drain_merge_queue, "POST", "/v2/merge-queues/{id}/drain", MergeQueueRef,                        \
    MergeQueueStateChange, Repeat::safe, "Drains a merge queue: what it holds finishes, nothing new enters.",        \
    200, "merge_queues", "drain")                                                                                    \
  X(SwitchMergeQueueMode, switch_merge_queue_mode, "POST", "/v2/merge-queues/{id}/switch-modes",                     \
    SwitchModesRequest, MergeQueueStateChange, Repeat::safe, "Switches a merge queue to queue or graph mode.",       \
    200, "merge_queues", "switch_modes")                                                                             \
  X(UpdateMergeQueueConfig, update_merge_queue_config, "PATCH", "/v2/merge-queues/{id}/config",                      \
    UpdateMergeQueueConfigRequest, MergeQueue, Repeat::safe,                                                         \
    "Changes the settings given and returns the queue after the change.", 200, "merge_queues", "update_config")     \
  X(SubmitToMergeQueue, submit_to_merge_queue, "POST", "/v2/merge-queues/{id}/pull-requests",                       \
    SubmitPullRequestRequestV2, PullRequestV2, Repeat::not_safe,                                                     \
    "Submits a pull request to a merge queue (409 PR_ALREADY_ENQUEUED when it is in it).", 201, "merge_queues",     \
    "submit_pull_request")                                                                                           \
  X(ListMergeQueuePullRequests, list_merge_queue_pull_requests, "GET", "/v2/merge-queues/{id}/pull-requests",        \
    ListQueuePullRequestsRequest, PullRequestList, Repeat::safe,                                                     \
    "One page of a merge queue's pull requests, newest submission first.", 200, "merge_queues", "list_pull_requests") \
  X(GetOrganizationMergeQueueMetrics, get_organization_merge_queue_metrics, "GET", "/v2/merge-queues/metrics",       \
    OrganizationMetricsRequest, MergeQueueMetrics, Repeat::safe,                                                     \
    "The Prometheus metrics of every merge queue (or of a repository's).", 200, "merge_queues",                      \
    "organization_metrics")                                                                                          \
  X(GetMergeQueueMetricsV2, get_merge_queue_metrics_v2, "GET", "/v2/merge-queues/{id}/metrics", MergeQueueRef,       \
    MergeQueueMetrics, Repeat::safe, "The Prometheus metrics of a merge queue.", 200, "merge_queues", "metrics")     \
  X(ListMergeQueueVerificationRuns, list_merge_queue_verification_runs, "GET",                                       \
    "/v2/merge-queues/{id}/verification-runs", ListQueueVerificationRunsRequest, VerificationRunList, Repeat::safe,  \
    "One page of a merge queue's verification runs, newest first.", 200, "merge_queues", "list_verification_runs") \
  X(GetMergeQueueOrder, get_merge_queue_order, "GET", "/v2/merge-queues/{id}/order", MergeQueueRef, MergeQueueOrder, \
    Repeat::safe, "A merge queue's dispatch order now: its batches under test, its line, what is not ready.", 200,   \
    "merge_queues", "order")                                                                                         \
  X(GetMergeQueueGraph, get_merge_queue_graph, "GET", "/v2/merge-queues/{id}/graph", MergeGraphRequest, MergeGraph,  \
    Repeat::safe, "A merge queue's dependency graph now: its pull requests, and which is tested on which.", 200,    \
    "merge_queues", "graph")                                                                                         \
  X(ListTestingResults, list_testing_results, "GET", "/v2/merge-queues/{id}/testing-results",                        \
    ListTestingResultsRequest, TestingResultList, Repeat::safe,                                                      \
    "One page of a merge queue's finished testing over at most 45 days.", 200, "merge_queues",                       \
    "list_testing_results")

#define TRUNK_V2_VERIFICATION_RUN_OPERATIONS(X)                                                                      \
  X(GetVerificationRun, get_verification_run, "GET", "/v2/merge-queue-verification-runs/{id}", VerificationRunRef,   \
    VerificationRun, Repeat::safe, "A verification run: what it tested on top of what, and its checks.", 200,       \
    "verification_runs", "get")

#define TRUNK_V2_PULL_REQUEST_OPERATIONS(X)                                                                          \
  X(ResolvePullRequests, resolve_pull_requests, "GET", "/v2/pull-requests", ResolvePullRequestsRequest,              \
    PullRequestList, Repeat::safe, "The pull requests of a repository with these numbers, or from this branch.",     \
    200, "pull_requests", "resolve")                                                                                 \
  X(GetPullRequest, get_pull_request, "GET", "/v2/pull-requests/{id}", PullRequestRefV2, PullRequestV2,              \
    Repeat::safe, "A pull request and its latest queue entry.", 200, "pull_requests", "get")                         \
  X(ReprioritizePullRequest, reprioritize_pull_request, "POST", "/v2/pull-requests/{id}/reprioritize",               \
    ReprioritizeRequest, PullRequestV2, Repeat::safe, "Gives a queued pull request another priority.", 200,          \
    "pull_requests", "reprioritize")                                                                                 \
  X(UpdateQueueEntry, update_queue_entry, "PATCH", "/v2/pull-requests/{id}/queue-entry", UpdateQueueEntryRequest,    \
    PullRequestV2, Repeat::safe, "Changes the priority, batching or direct merge of a queued pull request.", 200,     \
    "pull_requests", "update_queue_entry")                                                                           \
  X(DequeuePullRequest, dequeue_pull_request, "POST", "/v2/pull-requests/{id}/dequeue", PullRequestRefV2,            \
    PullRequestV2, Repeat::safe, "Takes a pull request out of its merge queue.", 200, "pull_requests", "dequeue")    \
  X(RestartPullRequestTests, restart_pull_request_tests, "POST", "/v2/pull-requests/{id}/restart-tests",             \
    PullRequestRefV2, PullRequestV2, Repeat::not_safe, "Restarts the tests of a queued pull request.", 200,          \
    "pull_requests", "restart_tests")                                                                                \
  X(ListPullRequestVerificationRuns, list_pull_request_verification_runs, "GET",                                     \
    "/v2/pull-requests/{id}/verification-runs", ListPullRequestVerificationRunsRequest, VerificationRunList,         \
    Repeat::safe, "One page of the verification runs that tested a pull request, newest first.", 200,                \
    "pull_requests", "list_verification_runs")                                                                       \
  X(ListQueueEntryHistory, list_queue_entry_history, "GET", "/v2/pull-requests/{id}/queue-entry-history",            \
    QueueEntryHistoryRequest, QueueEntryHistoryList, Repeat::safe,                                                   \
    "One page of a pull request's queue-entry transitions (oldest first unless asked).", 200, "pull_requests",       \
    "queue_entry_history")                                                                                           \
  X(ListQueueEntryHistories, list_queue_entry_histories, "GET", "/v2/queue-entry-history",                           \
    BatchQueueEntryHistoryRequest, BatchQueueEntryHistoryList, Repeat::safe,                                         \
    "One page of several pull requests, each with its whole queue-entry history.", 200, "pull_requests",             \
    "queue_entry_history_batch")                                                                                     \
  X(GetPullRequestImpactedTargets, get_pull_request_impacted_targets, "GET", "/v2/pull-requests/{id}/impacted-targets", \
    PullRequestRefV2, PullRequestImpactedTargets, Repeat::safe,                                                      \
    "The impacted targets last uploaded for a pull request's head commit.", 200, "pull_requests", "impacted_targets")

#define TRUNK_V2_IMPACTED_TARGETS_OPERATIONS(X)                                                                      \
  X(UploadImpactedTargets, upload_impacted_targets, "PUT", "/v2/impacted-targets", UploadImpactedTargetsRequest,     \
    NoContent, Repeat::safe, "Uploads the build targets a pull request's head commit impacts (202: stored).", 202,   \
    "impacted_targets", "upload")

#define TRUNK_V2_REPOSITORY_OPERATIONS(X)                                                                            \
  X(ResolveRepositories, resolve_repositories, "GET", "/v2/repositories", ResolveRepositoriesRequest,                \
    RepositoryList, Repeat::safe, "The repositories at an address on the code host.", 200, "repositories",          \
    "resolve")                                                                                                       \
  X(GetRepository, get_repository, "GET", "/v2/repositories/{id}", RepositoryRefV2, Repository, Repeat::safe,        \
    "A repository, by its v2 id.", 200, "repositories", "get")

// v2's flaky tests. The stored description has the tests under /v2/test-cases/{testCaseId}; Trunk moved them to
// /v2/tests/{testId} since (docs/reference/v2.md#flaky-tests), which the rows use. SetTestQuarantine is newer than
// that description: its path and body are those a page of Trunk's docs shows.
#define TRUNK_V2_TEST_COLLECTION_OPERATIONS(X)                                                                      \
  X(ListTestCollections, list_test_collections, "GET", "/v2/test-collections", ListTestCollectionsRequest,           \
    TestCollectionList, Repeat::safe, "One page of the organization's test collections, newest first.", 200,         \
    "test_collections", "list")                                                                                      \
  X(CreateTestCollection, create_test_collection, "POST", "/v2/test-collections", CreateTestCollectionRequest,       \
    TestCollection, Repeat::not_safe, "Creates a test collection (0 tests until its first upload).", 201,            \
    "test_collections", "create")                                                                                    \
  X(GetTestCollection, get_test_collection, "GET", "/v2/test-collections/{id}", TestCollectionRef, TestCollection,   \
    Repeat::safe, "A test collection and its quarantine settings.", 200, "test_collections", "get")

#define TRUNK_V2_TEST_OPERATIONS(X)                                                                                 \
  X(ListTestCases, list_test_cases, "GET", "/v2/tests", ListTestCasesRequest, TestCaseList, Repeat::safe,           \
    "One page of tests, searched, filtered and sorted (by name, or a metric of a period).", 200, "tests", "list")    \
  X(GetTestCase, get_test_case, "GET", "/v2/tests/{testId}", GetTestCaseRequest, TestCaseV2, Repeat::safe,          \
    "A test, with its override, monitors and labels, and its metrics when asked.", 200, "tests", "get")             \
  X(ListTestStatusHistory, list_test_status_history, "GET", "/v2/tests/{testId}/status-history",                    \
    TestStatusHistoryRequest, StatusHistoryEntryList, Repeat::safe, "One page of a test's status changes, newest first.", \
    200, "tests", "status_history")                                                                                  \
  X(ListTestRuns, list_test_runs, "GET", "/v2/tests/{testId}/test-runs", ListTestRunsRequest, TestRunList,          \
    Repeat::safe, "One page of a test's runs, newest first.", 200, "tests", "runs")                                  \
  X(LinkTicketToTest, link_ticket_to_test, "POST", "/v2/tests/{testId}/ticket", LinkTicketRequest, Ticket,           \
    Repeat::safe, "Links an existing ticket to a test, replacing any other (linking it again changes nothing).",     \
    201, "tests", "link_ticket")                                                                                    \
  X(SetTestQuarantine, set_test_quarantine, "POST", "/v2/tests/{testId}/quarantine", SetTestQuarantineRequest,      \
    TestCaseV2, Repeat::safe, "Sets or clears a test's quarantine override; answers the test with it.", 200,        \
    "tests", "set_quarantine")

// A monitor's tests (docs/reference/v2.md#monitors), newer than the stored description: the paths and shapes Trunk's
// docs pages show. A mute is idempotent by state (a test already muted keeps its mute), so it may be retried.
#define TRUNK_V2_MONITOR_OPERATIONS(X)                                                                              \
  X(ListMonitorTests, list_monitor_tests, "GET", "/v2/monitors/{monitorId}/tests", ListMonitorTestsRequest,         \
    MonitorTestList, Repeat::safe,                                                                                   \
    "One page of the tests a monitor holds (active on them, or muted for them), ordered by test.", 200, "monitors",  \
    "tests")                                                                                                         \
  X(MuteMonitorForTest, mute_monitor_for_test, "POST", "/v2/monitors/{monitorId}/tests/{testId}/mute",              \
    MuteMonitorForTestRequest, MonitorTest, Repeat::safe,                                                            \
    "Mutes a monitor for one test, so that it no longer counts toward the test's status; answers its state.", 200,   \
    "monitors", "mute_test")

// Dynamic CI (docs/reference/v2.md#dynamic-ci). A plan may be asked again for the same run (the service records
// the run's id and attempt; asking twice changes nothing a caller sees), and the forces' PUT replaces the whole set,
// so every row may be retried.
#define TRUNK_V2_DYNAMIC_CI_OPERATIONS(X)                                                                           \
  X(GenerateCiPlan, generate_ci_plan, "POST", "/v2/dynamic-ci/generate-plan", CiPlanRequest, CiPlan, Repeat::safe, \
    "Dynamic CI's verdict on each job of a GitHub Actions run (a job absent from it must run).", 200,            \
    "dynamic_ci", "generate_plan")                                                                              \
  X(GenerateBuildkiteCiPlan, generate_buildkite_ci_plan, "POST", "/v2/dynamic-ci/generate-buildkite-plan",        \
    BuildkitePlanRequest, CiPlan, Repeat::safe,                                                                 \
    "Dynamic CI's verdict on each keyed step of a Buildkite build (a step absent from it must run).", 200,      \
    "dynamic_ci", "generate_buildkite_plan")                                                                    \
  X(ListCiPrJobs, list_ci_pr_jobs, "GET", "/v2/dynamic-ci/pr-jobs", ListCiPrJobsRequest, CiWorkflowList,          \
    Repeat::safe, "One page of the workflows that ran on the repository's pull requests, with their jobs.", 200, \
    "dynamic_ci", "pr_jobs")                                                                                    \
  X(ListCiForceOverrides, list_ci_force_overrides, "GET", "/v2/dynamic-ci/force-overrides",                     \
    ListCiForceOverridesRequest, ForceOverrideList, Repeat::safe, "One page of the forces active on a pull request.", \
    200, "dynamic_ci", "force_overrides")                                                                       \
  X(SetCiForceOverrides, set_ci_force_overrides, "PUT", "/v2/dynamic-ci/force-overrides",                       \
    SetCiForceOverridesRequest, NoContent, Repeat::safe,                                                         \
    "Replaces a pull request's forces with the set given (204); the next plan applies them.", 204, "dynamic_ci", \
    "set_force_overrides")

/// The credential an operation sends: the one its request type declares (`static constexpr Credential
/// credential`: GET /v1/status declares none, as its publisher's description says `security: []`), else its
/// path's version's: v2 an API key, v1 the organization token. A declaration rather than a list of exceptions, so
/// the client, the sandbox and the OpenAPI document all read it from the same place.
template <typename Request>
constexpr Credential credential_of(std::string_view path) {
  if constexpr (requires { Request::credential; }) {
    return Request::credential;
  } else {
    return path.starts_with("/v2/") ? Credential::api_key : Credential::token;
  }
}

namespace op {
#define TRUNK_DECLARE_OPERATION_(Type, op_name, op_method, op_path, RequestType, ResponseType, op_repeat, op_doc, \
                                 op_status, op_resource, op_verb)                                                    \
  struct Type {                                                                                                     \
    using Request = RequestType;                                                                                     \
    using Response = ResponseType;                                                                                   \
    static constexpr std::string_view name = #op_name;                                                               \
    static constexpr std::string_view method = op_method;                                                            \
    static constexpr std::string_view path = op_path;                                                                \
    static constexpr Repeat repeat = op_repeat;                                                                      \
    static constexpr std::string_view doc = op_doc;                                                                  \
    static constexpr int status = op_status;                                                                         \
    static constexpr std::string_view resource = op_resource;                                                        \
    static constexpr std::string_view verb = op_verb;                                                                \
    /** The credential it sends: what its request declares (credential_of), else its path's version's. */           \
    static constexpr Credential credential = credential_of<RequestType>(path);                                       \
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
