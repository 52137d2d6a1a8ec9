#pragma once
// The queue-entry history of Trunk's v2 API (docs/reference/v2.md#queue-entry-history): every change of state of a
// pull request's queue entries, with why it changed and, by state, what it waited for or what failed; for one pull
// request, or for up to 50 at once. Answers are read tolerantly (every field optional; unknown keys kept in
// `extra`). `reason` is an open set of codes (the ones the webhooks use), null where a state carries none.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/pull_request_v2.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

#define TRUNK_TRANSITION_ACTOR_FIELDS(X)                                                                      \
  X(std::optional<std::string>, git_hub_login, "gitHubLogin", {}, schema::kNone, "the person's GitHub login")  \
  X(std::optional<std::string>, trunk_user_id, "trunkUserId", {}, schema::kNone, "the person's Trunk user id")

struct TransitionActor {
  TRUNK_MEMBERS(TRUNK_TRANSITION_ACTOR_FIELDS)
  Extras extra;
  bool operator==(const TransitionActor&) const = default;
};
TRUNK_DESCRIBE(TransitionActor, "Who made a change, when a person did.", TRUNK_TRANSITION_ACTOR_FIELDS)

#define TRUNK_TRANSITION_PULL_REQUEST_REF_FIELDS(X)                                                           \
  X(std::optional<std::string>, pull_request_id, "pullRequestId", {}, schema::kRequired, "its id")            \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "its number")                       \
  X(std::optional<std::string>, title, "title", {}, schema::kRequired, "its title")                           \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its API address")                             \
  X(std::optional<OpenEnum<QueueEntryState>>, state, "state", {}, schema::kRequired, "its state then")

struct TransitionPullRequestRef {
  TRUNK_MEMBERS(TRUNK_TRANSITION_PULL_REQUEST_REF_FIELDS)
  Extras extra;
  bool operator==(const TransitionPullRequestRef&) const = default;
};
TRUNK_DESCRIBE(TransitionPullRequestRef, "Another pull request a transition concerns, and its state then.",
               TRUNK_TRANSITION_PULL_REQUEST_REF_FIELDS)

#define TRUNK_FAILURE_CAUSING_CHECK_FIELDS(X)                                                                 \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "the check's name")                      \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its page")                                    \
  X(std::optional<std::string>, conclusion, "conclusion", {}, schema::kNone, "how it ended")

struct FailureCausingCheck {
  TRUNK_MEMBERS(TRUNK_FAILURE_CAUSING_CHECK_FIELDS)
  Extras extra;
  bool operator==(const FailureCausingCheck&) const = default;
};
TRUNK_DESCRIBE(FailureCausingCheck, "A check whose failure failed the entry.", TRUNK_FAILURE_CAUSING_CHECK_FIELDS)

#define TRUNK_CONFLICT_CULPRIT_FIELDS(X)                                                                      \
  X(std::optional<OpenEnum<ConflictCulpritKind>>, kind, "kind", {}, schema::kRequired, "what it conflicted with") \
  X(std::optional<std::string>, sha, "sha", {}, schema::kRequired, "the conflicting commit")                  \
  X(std::optional<std::string>, pull_request_id, "pullRequestId", {}, schema::kNone, "the conflicting pull request") \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kNone, "its number")                           \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its page")

struct ConflictCulprit {
  TRUNK_MEMBERS(TRUNK_CONFLICT_CULPRIT_FIELDS)
  Extras extra;
  bool operator==(const ConflictCulprit&) const = default;
};
TRUNK_DESCRIBE(ConflictCulprit, "What a failed entry conflicted with.", TRUNK_CONFLICT_CULPRIT_FIELDS)

#define TRUNK_NOT_READY_TRANSITION_DETAILS_FIELDS(X)                                                          \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kNone, "its priority")          \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kNone, "its priority's name")      \
  X(std::optional<bool>, allow_batching, "allowBatching", {}, schema::kRequired, "whether it may be batched")

struct NotReadyTransitionDetails {
  TRUNK_MEMBERS(TRUNK_NOT_READY_TRANSITION_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const NotReadyTransitionDetails&) const = default;
};
TRUNK_DESCRIBE(NotReadyTransitionDetails, "How an entry was submitted.", TRUNK_NOT_READY_TRANSITION_DETAILS_FIELDS)

#define TRUNK_PENDING_TRANSITION_DETAILS_FIELDS(X)                                                            \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kNone, "its priority")          \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kNone, "its priority's name")      \
  X(std::optional<std::string>, used_default_priority_name, "usedDefaultPriorityName", {}, schema::kNone,     \
    "the default priority it got")                                                                           \
  X(std::optional<std::vector<TransitionPullRequestRef>>, prerequisite_pull_requests, "prerequisitePullRequests", \
    {}, schema::kRequired, "the pull requests it must wait for")

struct PendingTransitionDetails {
  TRUNK_MEMBERS(TRUNK_PENDING_TRANSITION_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const PendingTransitionDetails&) const = default;
};
TRUNK_DESCRIBE(PendingTransitionDetails, "What an entry waits for in the line.", TRUNK_PENDING_TRANSITION_DETAILS_FIELDS)

#define TRUNK_TESTS_PASSED_TRANSITION_DETAILS_FIELDS(X)                                                       \
  X(std::optional<std::int64_t>, batch_size, "batchSize", {}, schema::kRequired, "pull requests tested together") \
  X(std::optional<std::string>, bisection_id, "bisectionId", {}, schema::kNone, "the bisection that cleared it") \
  X(std::optional<std::string>, successor_pull_request_id, "successorPullRequestId", {}, schema::kNone,       \
    "the later pull request whose passing run passed it")                                                    \
  X(std::optional<std::vector<TransitionPullRequestRef>>, other_tested_pull_requests, "otherTestedPullRequests", \
    {}, schema::kRequired, "the others in its batch")                                                        \
  X(std::optional<std::vector<TransitionPullRequestRef>>, waiting_for, "waitingFor", {}, schema::kRequired,   \
    "what must merge before it")

struct TestsPassedTransitionDetails {
  TRUNK_MEMBERS(TRUNK_TESTS_PASSED_TRANSITION_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const TestsPassedTransitionDetails&) const = default;
};
TRUNK_DESCRIBE(TestsPassedTransitionDetails, "How an entry's tests passed.", TRUNK_TESTS_PASSED_TRANSITION_DETAILS_FIELDS)

#define TRUNK_PENDING_FAILURE_TRANSITION_DETAILS_FIELDS(X)                                                    \
  X(std::optional<std::string>, eventual_failure_reason, "eventualFailureReason", {}, schema::kNone,          \
    "why it will fail")                                                                                      \
  X(std::optional<std::vector<TransitionPullRequestRef>>, waiting_for, "waitingFor", {}, schema::kRequired,   \
    "what it waits for before it fails")                                                                     \
  X(std::optional<std::vector<FailureCausingCheck>>, failure_causing_checks, "failureCausingChecks", {},      \
    schema::kRequired, "the checks that failed")

struct PendingFailureTransitionDetails {
  TRUNK_MEMBERS(TRUNK_PENDING_FAILURE_TRANSITION_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const PendingFailureTransitionDetails&) const = default;
};
TRUNK_DESCRIBE(PendingFailureTransitionDetails, "Why an entry will fail, and what it waits for first.",
               TRUNK_PENDING_FAILURE_TRANSITION_DETAILS_FIELDS)

#define TRUNK_FAILED_TRANSITION_DETAILS_FIELDS(X)                                                             \
  X(std::optional<std::string>, api_failure_message, "apiFailureMessage", {}, schema::kNone,                  \
    "the code host's message, when it refused")                                                              \
  X(std::optional<std::vector<FailureCausingCheck>>, failure_causing_checks, "failureCausingChecks", {},      \
    schema::kRequired, "the checks that failed")                                                             \
  X(std::optional<std::vector<MergeabilityReason>>, block_reasons, "blockReasons", {}, schema::kNone,         \
    "why the code host would not merge it")                                                                  \
  X(std::optional<ConflictCulprit>, conflict_culprit, "conflictCulprit", {}, schema::kNone, "what it conflicted with")

struct FailedTransitionDetails {
  TRUNK_MEMBERS(TRUNK_FAILED_TRANSITION_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const FailedTransitionDetails&) const = default;
};
TRUNK_DESCRIBE(FailedTransitionDetails, "Why an entry failed.", TRUNK_FAILED_TRANSITION_DETAILS_FIELDS)

#define TRUNK_QUEUE_ENTRY_STATE_TRANSITION_FIELDS(X)                                                          \
  X(std::optional<std::string>, pull_request_id, "pullRequestId", {}, schema::kRequired, "whose entry changed") \
  X(std::optional<OpenEnum<QueueEntryState>>, state, "state", {}, schema::kRequired, "the state it entered")  \
  X(std::optional<Timestamp>, changed_at, "changedAt", {}, schema::kRequired, "when")                         \
  X(std::optional<std::string>, reason, "reason", {}, (schema::Rules{.required = true, .nullable = true}),    \
    "why, as a code (an open set; null for testing and pendingFailure)")                                     \
  X(std::optional<std::string>, verification_run_id, "verificationRunId", {}, schema::kNone,                  \
    "the run concerned")                                                                                     \
  X(std::optional<TransitionActor>, actor, "actor", {}, schema::kNone, "who, when a person did it")           \
  X(std::optional<std::string>, prerequisite_pull_request_id, "prerequisitePullRequestId", {}, schema::kNone, \
    "the pull request whose change caused it")                                                               \
  X(std::optional<NotReadyTransitionDetails>, not_ready, "notReady", {}, schema::kNone, "for notReady")        \
  X(std::optional<PendingTransitionDetails>, pending, "pending", {}, schema::kNone, "for pending")             \
  X(std::optional<TestsPassedTransitionDetails>, tests_passed, "testsPassed", {}, schema::kNone, "for testsPassed") \
  X(std::optional<PendingFailureTransitionDetails>, pending_failure, "pendingFailure", {}, schema::kNone,     \
    "for pendingFailure")                                                                                    \
  X(std::optional<FailedTransitionDetails>, failed, "failed", {}, schema::kNone, "for failed")

struct QueueEntryStateTransition {
  TRUNK_MEMBERS(TRUNK_QUEUE_ENTRY_STATE_TRANSITION_FIELDS)
  Extras extra;
  bool operator==(const QueueEntryStateTransition&) const = default;
};
TRUNK_DESCRIBE(QueueEntryStateTransition, "One change of state of a pull request's queue entry.",
               TRUNK_QUEUE_ENTRY_STATE_TRANSITION_FIELDS)

#define TRUNK_QUEUE_ENTRY_HISTORY_LIST_FIELDS(X)                                                              \
  X(std::vector<QueueEntryStateTransition>, data, "data", {}, schema::kRequired, "the transitions of this page") \
  TRUNK_V2_PAGE_FIELDS(X)

struct QueueEntryHistoryList {
  TRUNK_MEMBERS(TRUNK_QUEUE_ENTRY_HISTORY_LIST_FIELDS)
  Extras extra;
  bool operator==(const QueueEntryHistoryList&) const = default;
};
TRUNK_DESCRIBE(QueueEntryHistoryList, "One page of a pull request's queue-entry history.",
               TRUNK_QUEUE_ENTRY_HISTORY_LIST_FIELDS)

#define TRUNK_PULL_REQUEST_QUEUE_ENTRY_HISTORY_FIELDS(X)                                                      \
  X(std::optional<std::string>, pull_request_id, "pullRequestId", {}, schema::kRequired, "the pull request")  \
  X(std::optional<std::vector<QueueEntryStateTransition>>, transitions, "transitions", {}, schema::kRequired, \
    "its transitions (empty: never submitted, or not the caller's)")

struct PullRequestQueueEntryHistory {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_QUEUE_ENTRY_HISTORY_FIELDS)
  Extras extra;
  bool operator==(const PullRequestQueueEntryHistory&) const = default;
};
TRUNK_DESCRIBE(PullRequestQueueEntryHistory, "One pull request's whole queue-entry history.",
               TRUNK_PULL_REQUEST_QUEUE_ENTRY_HISTORY_FIELDS)

#define TRUNK_BATCH_QUEUE_ENTRY_HISTORY_LIST_FIELDS(X)                                                        \
  X(std::vector<PullRequestQueueEntryHistory>, data, "data", {}, schema::kRequired,                           \
    "the pull requests of this page, each with its history")                                                 \
  TRUNK_V2_PAGE_FIELDS(X)

struct BatchQueueEntryHistoryList {
  TRUNK_MEMBERS(TRUNK_BATCH_QUEUE_ENTRY_HISTORY_LIST_FIELDS)
  Extras extra;
  bool operator==(const BatchQueueEntryHistoryList&) const = default;
};
TRUNK_DESCRIBE(BatchQueueEntryHistoryList, "One page of several pull requests' queue-entry histories.",
               TRUNK_BATCH_QUEUE_ENTRY_HISTORY_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_QUEUE_ENTRY_HISTORY_FIELDS(X)                                                                   \
  X(std::string, id, "id", {}, schema::kPathUuid, "the pull request's id (a UUID)")                           \
  X(std::optional<HistoryDirection>, direction, "direction", {}, schema::kNone,                               \
    "oldest first (the service's default) or newest first")                                                  \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct QueueEntryHistoryRequest {
  TRUNK_MEMBERS(TRUNK_QUEUE_ENTRY_HISTORY_FIELDS)
  bool operator==(const QueueEntryHistoryRequest&) const = default;
};
TRUNK_DESCRIBE(QueueEntryHistoryRequest, "A pull request's queue-entry history.", TRUNK_QUEUE_ENTRY_HISTORY_FIELDS)

#define TRUNK_BATCH_QUEUE_ENTRY_HISTORY_FIELDS(X)                                                             \
  X(std::vector<std::string>, pull_request_ids, "pullRequestIds", {}, (schema::Rules{.required = true, .uuid = true}), \
    "up to 50 pull-request ids (UUIDs)")                                                                     \
  X(std::optional<HistoryDirection>, direction, "direction", {}, schema::kNone,                               \
    "oldest first (the service's default) or newest first")                                                  \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct BatchQueueEntryHistoryRequest {
  TRUNK_MEMBERS(TRUNK_BATCH_QUEUE_ENTRY_HISTORY_FIELDS)
  bool operator==(const BatchQueueEntryHistoryRequest&) const = default;
};
TRUNK_DESCRIBE(BatchQueueEntryHistoryRequest, "The queue-entry histories of several pull requests.",
               TRUNK_BATCH_QUEUE_ENTRY_HISTORY_FIELDS)

#define TRUNK_QUEUE_ENTRY_HISTORY_V2_ANSWER_MODELS(X)                                                          \
  X(TransitionActor) X(TransitionPullRequestRef) X(FailureCausingCheck) X(ConflictCulprit)                    \
  X(NotReadyTransitionDetails) X(PendingTransitionDetails) X(TestsPassedTransitionDetails)                     \
  X(PendingFailureTransitionDetails) X(FailedTransitionDetails) X(QueueEntryStateTransition)                    \
  X(QueueEntryHistoryList) X(PullRequestQueueEntryHistory) X(BatchQueueEntryHistoryList)
#define TRUNK_QUEUE_ENTRY_HISTORY_V2_REQUEST_MODELS(X) X(QueueEntryHistoryRequest) X(BatchQueueEntryHistoryRequest)

}  // namespace trunk
