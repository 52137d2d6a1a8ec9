#pragma once
// The requests of the merge-queue operations beyond updateQueue and getQueue
// (docs/reference/service.md#merge-queue-operations).
// Fields the caller leaves as nullopt are not sent.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/time.hpp"

namespace trunk {

/// The unsigned 32-bit pull request number of `pr` (0 allowed there; setImpactedTargets starts at 1).
inline constexpr schema::Rules kPullRequestNumber{.required = true, .min = 0, .max = 4294967295};

#define TRUNK_PULL_REQUEST_REF_FIELDS(X) \
  X(std::int64_t, number, "number", {}, kPullRequestNumber, "the pull request number")

/// `pr` of the pull request operations. Python and the CLI take its number as a parameter of its own.
struct PullRequestRef {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_REF_FIELDS)
  bool operator==(const PullRequestRef&) const = default;
};
TRUNK_DESCRIBE(PullRequestRef, "A pull request, by number.", TRUNK_PULL_REQUEST_REF_FIELDS)

#define TRUNK_PULL_REQUEST_COMMIT_FIELDS(X)                                                          \
  X(std::int64_t, number, "number", {}, schema::kRequiredSetting, "the pull request number (1 or more)") \
  X(std::string, sha, "sha", {}, schema::kRequiredText, "the head commit the targets were computed for")

/// `pr` of setImpactedTargets: the number and the commit.
struct PullRequestCommit {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_COMMIT_FIELDS)
  bool operator==(const PullRequestCommit&) const = default;
};
TRUNK_DESCRIBE(PullRequestCommit, "A pull request at one commit.", TRUNK_PULL_REQUEST_COMMIT_FIELDS)

#define TRUNK_PR_FIELD(X) X(PullRequestRef, pr, "pr", {}, schema::kRequired, "the pull request")

/// POST /v1/createQueue.
#define TRUNK_CREATE_QUEUE_FIELDS(X)                                                                     \
  TRUNK_REPO_FIELD(X)                                                                                    \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                           \
  X(std::optional<QueueMode>, mode, "mode", {}, schema::kNone, "single or parallel (service default: single)") \
  X(std::optional<std::int64_t>, concurrency, "concurrency", {}, schema::kSetting,                     \
    "pull requests or batches tested at once")

struct CreateQueueRequest {
  TRUNK_MEMBERS(TRUNK_CREATE_QUEUE_FIELDS)
  bool operator==(const CreateQueueRequest&) const = default;
};
TRUNK_DESCRIBE(CreateQueueRequest, "Creates the merge queue of a target branch (409 when it exists).",
               TRUNK_CREATE_QUEUE_FIELDS)

/// POST /v1/deleteQueue.
struct DeleteQueueRequest {
  TRUNK_MEMBERS(TRUNK_GET_QUEUE_FIELDS)
  bool operator==(const DeleteQueueRequest&) const = default;
};
TRUNK_DESCRIBE(DeleteQueueRequest, "Deletes an empty merge queue (400 while it holds pull requests).",
               TRUNK_GET_QUEUE_FIELDS)

/// A priority: a number 0..4294967295 (lower first; 0 is urgent and skips the line) or a priority name
/// ("urgent", "high", "medium", "low", "lowest" in the service's documentation).
using Priority = std::variant<std::int64_t, std::string>;
/// The published description gives priority "or null" (the queue's default, like not sending it).
inline constexpr schema::Rules kPriorityRules{.non_empty = true, .nullable = true, .min = 0, .max = 4294967295};

/// POST /v1/submitPullRequest. Not safe to repeat.
#define TRUNK_SUBMIT_PULL_REQUEST_FIELDS(X)                                                                  \
  TRUNK_REPO_FIELD(X)                                                                                        \
  TRUNK_PR_FIELD(X)                                                                                          \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                               \
  X(std::optional<Priority>, priority, "priority", {}, kPriorityRules,                                       \
    "a number 0..4294967295 or a priority name; not sent: the queue's default")                            \
  X(std::optional<bool>, no_batch, "noBatch", {}, schema::kNone, "test it on its own, outside any batch")

struct SubmitPullRequestRequest {
  TRUNK_MEMBERS(TRUNK_SUBMIT_PULL_REQUEST_FIELDS)
  bool operator==(const SubmitPullRequestRequest&) const = default;
};
TRUNK_DESCRIBE(SubmitPullRequestRequest, "Submits a pull request to the merge queue of its target branch.",
               TRUNK_SUBMIT_PULL_REQUEST_FIELDS)

#define TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS(X) \
  TRUNK_REPO_FIELD(X)                         \
  TRUNK_PR_FIELD(X)                           \
  TRUNK_TARGET_BRANCH_FIELD(X)

/// POST /v1/cancelPullRequest.
struct CancelPullRequestRequest {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)
  bool operator==(const CancelPullRequestRequest&) const = default;
};
TRUNK_DESCRIBE(CancelPullRequestRequest, "Takes a pull request out of the merge queue.",
               TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)

/// POST /v1/restartTestsOnPullRequest. Not safe to repeat.
struct RestartTestsOnPullRequestRequest {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)
  bool operator==(const RestartTestsOnPullRequestRequest&) const = default;
};
TRUNK_DESCRIBE(RestartTestsOnPullRequestRequest, "Restarts the tests of a pull request in the merge queue.",
               TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)

/// POST /v1/getSubmittedPullRequest.
struct GetSubmittedPullRequestRequest {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)
  bool operator==(const GetSubmittedPullRequestRequest&) const = default;
};
TRUNK_DESCRIBE(GetSubmittedPullRequestRequest, "Where one submitted pull request stands.",
               TRUNK_PULL_REQUEST_IN_QUEUE_FIELDS)

/// POST /v1/getSubmittedPullRequests: several pull requests of one queue at once, 1 to 50 of them
/// (docs/reference/service.md#get-submitted-pull-requests).
inline constexpr schema::Rules kSubmittedPullRequestsRules{.required = true, .min_items = 1, .max_items = 50};
#define TRUNK_GET_SUBMITTED_PULL_REQUESTS_FIELDS(X)                                                     \
  TRUNK_REPO_FIELD(X)                                                                                   \
  X(std::vector<PullRequestRef>, prs, "prs", {}, kSubmittedPullRequestsRules,                           \
    "the pull requests, by number (1 to 50; Python and the CLI also take the bare numbers)")            \
  TRUNK_TARGET_BRANCH_FIELD(X)

struct GetSubmittedPullRequestsRequest {
  TRUNK_MEMBERS(TRUNK_GET_SUBMITTED_PULL_REQUESTS_FIELDS)
  bool operator==(const GetSubmittedPullRequestsRequest&) const = default;
};
TRUNK_DESCRIBE(GetSubmittedPullRequestsRequest, "Where several submitted pull requests of one queue stand.",
               TRUNK_GET_SUBMITTED_PULL_REQUESTS_FIELDS)

/// take: 1..100, default 50; sent always (the default is the service's own).
inline constexpr schema::Rules kTakeRules{.min = 1, .max = 100};

/// POST /v1/listPullRequests. Cursor paging: nextCursor of the answer, absent on the last page.
#define TRUNK_LIST_PULL_REQUESTS_FIELDS(X)                                                                    \
  TRUNK_REPO_FIELD(X)                                                                                         \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                                \
  X(std::optional<PullRequestState>, state, "state", {}, schema::kNone, "only pull requests in this state")   \
  X(std::optional<Timestamp>, since, "since", {}, schema::kNone, "only pull requests concluded after this")    \
  X(std::optional<Timestamp>, until, "until", {}, schema::kNone,                                              \
    "only pull requests concluded at or before this")                                                       \
  X(std::optional<std::string>, cursor, "cursor", {}, (schema::Rules{.uuid = true, .page_position = true}),    \
    "the page to read: not sent for the first, else the nextCursor the previous page gave")                \
  X(std::int64_t, take, "take", {50}, kTakeRules, "pull requests per page, 1..100")

struct ListPullRequestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_PULL_REQUESTS_FIELDS)
  bool operator==(const ListPullRequestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListPullRequestsRequest, "The pull requests of a merge queue, a page at a time.",
               TRUNK_LIST_PULL_REQUESTS_FIELDS)

/// The impacted targets: a list of target names, or every target (AllTargets::all, "ALL" on the wire).
using ImpactedTargets = std::variant<std::vector<std::string>, AllTargets>;

/// POST /v1/setImpactedTargets. Not safe to repeat.
#define TRUNK_SET_IMPACTED_TARGETS_FIELDS(X)                                                              \
  TRUNK_REPO_FIELD(X)                                                                                     \
  X(PullRequestCommit, pr, "pr", {}, schema::kRequired, "the pull request and its head commit")           \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                            \
  X(ImpactedTargets, targets, "impactedTargets", {}, (schema::Rules{.required = true, .non_empty = true}), \
    "the targets the pull request changes (a list of names), or \"ALL\"")

struct SetImpactedTargetsRequest {
  TRUNK_MEMBERS(TRUNK_SET_IMPACTED_TARGETS_FIELDS)
  bool operator==(const SetImpactedTargetsRequest&) const = default;
};
TRUNK_DESCRIBE(SetImpactedTargetsRequest, "Reports the build targets a pull request changes.",
               TRUNK_SET_IMPACTED_TARGETS_FIELDS)

/// POST /v1/getMergeQueueTestingDetails.
#define TRUNK_GET_TESTING_DETAILS_FIELDS(X) \
  TRUNK_REPO_FIELD(X)                       \
  TRUNK_TARGET_BRANCH_FIELD(X)              \
  X(std::string, test_run_id, "testRunId", {}, schema::kRequiredText, "the test run")

struct GetMergeQueueTestingDetailsRequest {
  TRUNK_MEMBERS(TRUNK_GET_TESTING_DETAILS_FIELDS)
  bool operator==(const GetMergeQueueTestingDetailsRequest&) const = default;
};
TRUNK_DESCRIBE(GetMergeQueueTestingDetailsRequest, "The details of one merge queue test run.",
               TRUNK_GET_TESTING_DETAILS_FIELDS)

/// GET /v1/getMergeQueueMetrics. Sent as the query the service's metrics guide uses:
/// ?repo=owner/name&repoHost=host (query_string.cpp), or no query at all for every repository.
#define TRUNK_GET_METRICS_FIELDS(X)                                                 \
  X(std::optional<Repo>, repo, "repo", {}, schema::kNone,                           \
    "the repository; absent: every repository of the organization")

struct GetMergeQueueMetricsRequest {
  TRUNK_MEMBERS(TRUNK_GET_METRICS_FIELDS)
  bool operator==(const GetMergeQueueMetricsRequest&) const = default;
};
TRUNK_DESCRIBE(GetMergeQueueMetricsRequest, "The merge queue metrics of a repository, or of all of them.",
               TRUNK_GET_METRICS_FIELDS)

/// POST /v1/flaky-tests/link-ticket-to-test-case (note: no org_url_slug).
#define TRUNK_LINK_TICKET_FIELDS(X)                                                                        \
  TRUNK_REPO_FIELD(X)                                                                                      \
  X(std::string, test_case_id, "test_case_id", {}, schema::kRequiredUuid, "the test case id (a UUID)")    \
  X(std::string, external_ticket_id, "external_ticket_id", {}, schema::kRequiredText,                    \
    "the ticket in the issue tracker, e.g. KAN-123")

struct LinkTicketToTestCaseRequest {
  TRUNK_MEMBERS(TRUNK_LINK_TICKET_FIELDS)
  bool operator==(const LinkTicketToTestCaseRequest&) const = default;
};
TRUNK_DESCRIBE(LinkTicketToTestCaseRequest, "Links a ticket of the issue tracker to a test case.",
               TRUNK_LINK_TICKET_FIELDS)

/// The requests of this file and the parts they hold (requests.hpp lists the rest).
#define TRUNK_MERGE_QUEUE_REQUEST_MODELS(X)                                                                   \
  X(PullRequestRef) X(PullRequestCommit) X(CreateQueueRequest) X(DeleteQueueRequest) X(SubmitPullRequestRequest) \
  X(CancelPullRequestRequest) X(RestartTestsOnPullRequestRequest) X(GetSubmittedPullRequestRequest)            \
  X(GetSubmittedPullRequestsRequest)                                                                          \
  X(ListPullRequestsRequest) X(SetImpactedTargetsRequest) X(GetMergeQueueTestingDetailsRequest)                \
  X(GetMergeQueueMetricsRequest) X(LinkTicketToTestCaseRequest)

}  // namespace trunk
