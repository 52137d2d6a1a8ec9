#pragma once
// The verification runs of Trunk's v2 API (docs/reference/v2.md#verification-runs): one test run of a merge queue,
// what it tested on top of what, its checks and its impacted targets (v1's "testing details"; the same id, without
// v1's "-bisection" suffix), and the requests that read one or list a queue's or a pull request's. Answers are read
// tolerantly (every field optional; unknown keys kept in `extra`).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

/// A pull request as v2 names it inside another answer: a run's tested and dependent pull requests, the queue's
/// dispatch order.
#define TRUNK_PULL_REQUEST_BRIEF_FIELDS(X)                                                                    \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the pull request's id (a UUID)")            \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "its number on the code host")      \
  X(std::optional<std::string>, sha, "sha", {}, schema::kRequired, "the head commit concerned")               \
  X(std::optional<std::string>, title, "title", {}, schema::kRequired, "its title")                           \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its API address")

struct PullRequestBrief {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_BRIEF_FIELDS)
  Extras extra;
  bool operator==(const PullRequestBrief&) const = default;
};
TRUNK_DESCRIBE(PullRequestBrief, "A pull request named inside another answer.", TRUNK_PULL_REQUEST_BRIEF_FIELDS)

#define TRUNK_CHECK_FIELDS(X)                                                                                 \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the check's id on the code host")          \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "its name (required when in requiredStatuses)") \
  X(std::optional<OpenEnum<CheckKind>>, kind, "kind", {}, schema::kRequired, "check run or commit status")    \
  X(std::optional<OpenEnum<CheckStatus>>, status, "status", {}, schema::kRequired, "whether it has finished")  \
  X(std::optional<OpenEnum<CheckConclusion>>, conclusion, "conclusion", {}, schema::kRequired, "how it ended") \
  X(std::optional<OpenEnum<ProviderCheckStatus>>, provider_status, "providerStatus", {}, schema::kNone,       \
    "its status as the code host spells it")                                                                 \
  X(std::optional<OpenEnum<ProviderCheckConclusion>>, provider_conclusion, "providerConclusion", {},          \
    schema::kNone, "its conclusion as the code host spells it")                                              \
  X(std::optional<std::string>, url, "url", {}, (schema::Rules{.required = true, .nullable = true}),          \
    "its page (null when it has none)")                                                                      \
  X(std::optional<std::string>, provider, "provider", {}, schema::kRequired, "the code host (github)")

struct Check {
  TRUNK_MEMBERS(TRUNK_CHECK_FIELDS)
  Extras extra;
  bool operator==(const Check&) const = default;
};
TRUNK_DESCRIBE(Check, "One check a verification run observed.", TRUNK_CHECK_FIELDS)

#define TRUNK_TEST_BRANCH_PULL_REQUEST_FIELDS(X)                                                              \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "its number")                       \
  X(std::optional<std::string>, url, "url", {}, schema::kRequired, "its page")

struct TestBranchPullRequest {
  TRUNK_MEMBERS(TRUNK_TEST_BRANCH_PULL_REQUEST_FIELDS)
  Extras extra;
  bool operator==(const TestBranchPullRequest&) const = default;
};
TRUNK_DESCRIBE(TestBranchPullRequest, "The pull request opened for a run's test branch.",
               TRUNK_TEST_BRANCH_PULL_REQUEST_FIELDS)

#define TRUNK_IMPACTED_TARGET_SET_FIELDS(X)                                                                   \
  X(std::optional<bool>, impacts_all_targets, "impactsAllTargets", {}, schema::kRequired,                     \
    "whether every target is impacted")                                                                      \
  X(std::optional<std::vector<std::string>>, impacted_targets, "impactedTargets", {}, schema::kRequired,      \
    "the impacted targets (empty when all are)")                                                             \
  X(std::optional<std::int64_t>, total_impacted_targets, "totalImpactedTargets", {}, schema::kRequired,       \
    "how many there are")

struct ImpactedTargetSet {
  TRUNK_MEMBERS(TRUNK_IMPACTED_TARGET_SET_FIELDS)
  Extras extra;
  bool operator==(const ImpactedTargetSet&) const = default;
};
TRUNK_DESCRIBE(ImpactedTargetSet, "A set of build targets: all of them, or these.", TRUNK_IMPACTED_TARGET_SET_FIELDS)

#define TRUNK_VERIFICATION_RUN_IMPACTED_TARGETS_FIELDS(X)                                                     \
  X(std::optional<ImpactedTargetSet>, all, "all", {}, schema::kRequired, "of every pull request it tested on") \
  X(std::optional<ImpactedTargetSet>, tested_pull_requests_only, "testedPullRequestsOnly", {}, schema::kNone, \
    "of the pull requests it tested only")

struct VerificationRunImpactedTargets {
  TRUNK_MEMBERS(TRUNK_VERIFICATION_RUN_IMPACTED_TARGETS_FIELDS)
  Extras extra;
  bool operator==(const VerificationRunImpactedTargets&) const = default;
};
TRUNK_DESCRIBE(VerificationRunImpactedTargets, "The targets a verification run covered.",
               TRUNK_VERIFICATION_RUN_IMPACTED_TARGETS_FIELDS)

#define TRUNK_VERIFICATION_RUN_FIELDS(X)                                                                      \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the run's id")                              \
  X(std::optional<bool>, is_bisection, "isBisection", {}, schema::kRequired,                                  \
    "whether it tests part of a failed batch to find the culprit")                                           \
  X(std::optional<std::string>, test_branch, "testBranch", {}, schema::kRequired, "the branch it tested")     \
  X(std::optional<std::string>, test_branch_sha, "testBranchSha", {}, schema::kRequired, "that branch's commit") \
  X(std::optional<std::string>, test_branch_commit_url, "testBranchCommitUrl", {}, schema::kNone,             \
    "that commit's page on the code host")                                                                   \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it started")              \
  X(std::optional<Timestamp>, updated_at, "updatedAt", {}, schema::kRequired,                                 \
    "when it last changed (about when it ended, once it has)")                                               \
  X(std::optional<OpenEnum<VerificationRunStatus>>, status, "status", {}, schema::kRequired, "where it stands") \
  X(std::optional<OpenEnum<RequiredStatusesSourceV2>>, required_statuses_source, "requiredStatusesSource", {}, \
    schema::kNone, "where its required statuses came from")                                                  \
  X(std::optional<std::vector<std::string>>, required_statuses, "requiredStatuses", {}, schema::kRequired,    \
    "the checks that had to pass")                                                                           \
  X(std::optional<std::vector<Check>>, checks, "checks", {}, schema::kRequired, "every check it observed")    \
  X(std::optional<std::vector<PullRequestBrief>>, tested_pull_requests, "testedPullRequests", {},             \
    schema::kRequired, "the pull requests it tested (more than one: a batch)")                              \
  X(std::optional<std::vector<PullRequestBrief>>, dependent_pull_requests, "dependentPullRequests", {},       \
    schema::kRequired, "the pull requests it was tested on top of")                                          \
  X(std::optional<TestBranchPullRequest>, test_branch_pull_request, "testBranchPullRequest", {}, schema::kNone, \
    "the pull request opened for its test branch")                                                           \
  X(std::optional<VerificationRunImpactedTargets>, impacted_targets, "impactedTargets", {}, schema::kNone,    \
    "the targets it covered")

struct VerificationRun {
  TRUNK_MEMBERS(TRUNK_VERIFICATION_RUN_FIELDS)
  Extras extra;
  bool operator==(const VerificationRun&) const = default;
};
TRUNK_DESCRIBE(VerificationRun, "One test run of a merge queue.", TRUNK_VERIFICATION_RUN_FIELDS)

#define TRUNK_VERIFICATION_RUN_LIST_FIELDS(X)                                                                 \
  X(std::vector<VerificationRun>, data, "data", {}, schema::kRequired, "the runs of this page")               \
  TRUNK_V2_PAGE_FIELDS(X)

struct VerificationRunList {
  TRUNK_MEMBERS(TRUNK_VERIFICATION_RUN_LIST_FIELDS)
  Extras extra;
  bool operator==(const VerificationRunList&) const = default;
};
TRUNK_DESCRIBE(VerificationRunList, "One page of verification runs.", TRUNK_VERIFICATION_RUN_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_VERIFICATION_RUN_ID_FIELD(X) \
  X(std::string, id, "id", {}, schema::kPathId, "the verification run's id (v1's test run id)")

struct VerificationRunRef {
  TRUNK_MEMBERS(TRUNK_VERIFICATION_RUN_ID_FIELD)
  bool operator==(const VerificationRunRef&) const = default;
};
TRUNK_DESCRIBE(VerificationRunRef, "A verification run, by id.", TRUNK_VERIFICATION_RUN_ID_FIELD)

#define TRUNK_LIST_QUEUE_VERIFICATION_RUNS_FIELDS(X)                                                          \
  X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")                                       \
  X(std::optional<VerificationRunStatus>, status, "status", {}, schema::kNone, "only runs in this status")    \
  X(std::optional<Timestamp>, created_after, "createdAfter", {}, schema::kNone,                               \
    "only runs started after this instant")                                                                 \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListQueueVerificationRunsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_QUEUE_VERIFICATION_RUNS_FIELDS)
  bool operator==(const ListQueueVerificationRunsRequest&) const = default;
};
TRUNK_DESCRIBE(ListQueueVerificationRunsRequest, "The verification runs of a merge queue, newest first.",
               TRUNK_LIST_QUEUE_VERIFICATION_RUNS_FIELDS)

#define TRUNK_LIST_PULL_REQUEST_VERIFICATION_RUNS_FIELDS(X)                                                   \
  X(std::string, id, "id", {}, schema::kPathUuid, "the pull request's id (a UUID)")                           \
  X(std::optional<VerificationRunStatus>, status, "status", {}, schema::kNone, "only runs in this status")    \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListPullRequestVerificationRunsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_PULL_REQUEST_VERIFICATION_RUNS_FIELDS)
  bool operator==(const ListPullRequestVerificationRunsRequest&) const = default;
};
TRUNK_DESCRIBE(ListPullRequestVerificationRunsRequest, "The verification runs that tested a pull request.",
               TRUNK_LIST_PULL_REQUEST_VERIFICATION_RUNS_FIELDS)

#define TRUNK_VERIFICATION_RUN_V2_ANSWER_MODELS(X)                                                             \
  X(PullRequestBrief) X(Check) X(TestBranchPullRequest) X(ImpactedTargetSet) X(VerificationRunImpactedTargets) \
  X(VerificationRun) X(VerificationRunList)
#define TRUNK_VERIFICATION_RUN_V2_REQUEST_MODELS(X) \
  X(VerificationRunRef) X(ListQueueVerificationRunsRequest) X(ListPullRequestVerificationRunsRequest)

}  // namespace trunk
