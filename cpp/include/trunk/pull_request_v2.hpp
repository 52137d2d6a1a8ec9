#pragma once
// The pull requests of Trunk's v2 API (docs/reference/v2.md#pull-requests): a pull request with its queue entry
// and what the entry waits for, a page of them, and the requests of the pullRequests operations and of the queue's
// submit and listing (operations.hpp). Answers are read tolerantly (every field optional; unknown keys kept in
// `extra`); requests send only what the caller set.
//
// Names: v2's "PullRequest", "Readiness" and "SubmitPullRequestRequest" are v1's names for other shapes; the v2
// types carry "V2" at the end (PullRequestV2, ReadinessV2, ...). Everything new to v2 keeps its own name.

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

namespace schema {
/// v2's pull-request numbers: 1..10,000,000.
inline constexpr Rules kPullRequestNumberV2{.min = 1, .max = 10000000};
/// v2's priorities: a value 0..32767 (0 is urgent: it skips the line) or a name; at most one of the two.
inline constexpr Rules kPriorityValueV2{.min = 0, .max = 32767};
}  // namespace schema

#define TRUNK_MERGEABILITY_REASON_FIELDS(X)                                                                   \
  X(std::optional<OpenEnum<MergeabilityReasonCode>>, code, "code", {}, schema::kRequired, "why, as a code")    \
  X(std::optional<std::string>, message, "message", {}, schema::kRequired, "why, for people")                 \
  X(std::optional<std::int64_t>, have, "have", {}, schema::kNone, "how many it has (approvals, ...)")         \
  X(std::optional<std::int64_t>, need, "need", {}, schema::kNone, "how many it needs")                        \
  X(std::optional<std::string>, check, "check", {}, schema::kNone, "the check concerned")                     \
  X(std::optional<std::int64_t>, onto_pr_number, "ontoPrNumber", {}, schema::kNone,                           \
    "the pull request it must be rebased onto")

struct MergeabilityReason {
  TRUNK_MEMBERS(TRUNK_MERGEABILITY_REASON_FIELDS)
  Extras extra;
  bool operator==(const MergeabilityReason&) const = default;
};
TRUNK_DESCRIBE(MergeabilityReason, "One reason the code host would not merge a pull request now.",
               TRUNK_MERGEABILITY_REASON_FIELDS)

#define TRUNK_MERGEABILITY_DETAILS_FIELDS(X)                                                                  \
  X(std::optional<std::string>, provider, "provider", {}, schema::kRequired, "the code host that said so")    \
  X(std::optional<std::vector<MergeabilityReason>>, reasons, "reasons", {}, schema::kRequired, "its reasons")

struct MergeabilityDetails {
  TRUNK_MEMBERS(TRUNK_MERGEABILITY_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const MergeabilityDetails&) const = default;
};
TRUNK_DESCRIBE(MergeabilityDetails, "What the code host says of a pull request's mergeability.",
               TRUNK_MERGEABILITY_DETAILS_FIELDS)

#define TRUNK_READINESS_V2_FIELDS(X)                                                                          \
  X(std::optional<bool>, requires_impacted_targets, "requiresImpactedTargets", {}, schema::kRequired,         \
    "whether it needs impacted targets to be tested (graph mode)")                                           \
  X(std::optional<bool>, has_impacted_targets, "hasImpactedTargets", {}, schema::kNone,                       \
    "whether targets were uploaded for its head commit")                                                     \
  X(std::optional<bool>, does_base_branch_match, "doesBaseBranchMatch", {}, schema::kRequired,                \
    "whether it targets the queue's branch")                                                                 \
  X(std::optional<OpenEnum<Mergeability>>, mergeability, "mergeability", {}, schema::kRequired,               \
    "whether the code host would merge it now")                                                              \
  X(std::optional<MergeabilityDetails>, mergeability_details, "mergeabilityDetails", {}, schema::kNone,       \
    "why not, when it would not")

struct ReadinessV2 {
  TRUNK_MEMBERS(TRUNK_READINESS_V2_FIELDS)
  Extras extra;
  bool operator==(const ReadinessV2&) const = default;
};
TRUNK_DESCRIBE(ReadinessV2, "What a queue entry still waits for before it can be tested.", TRUNK_READINESS_V2_FIELDS)

#define TRUNK_QUEUE_ENTRY_FIELDS(X)                                                                           \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the entry's id (one per submission)")       \
  X(std::optional<std::string>, merge_queue_id, "mergeQueueId", {}, schema::kRequired, "the queue's id")      \
  X(std::optional<OpenEnum<QueueEntryState>>, state, "state", {}, schema::kRequired, "where it stands")       \
  X(std::optional<Timestamp>, state_changed_at, "stateChangedAt", {}, schema::kRequired,                      \
    "when it entered that state")                                                                            \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kNone, "its priority (lower first)") \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kNone, "its priority's name")      \
  X(std::optional<std::string>, used_default_priority_name, "usedDefaultPriorityName", {}, schema::kNone,     \
    "the default priority it got, when none was asked")                                                      \
  X(std::optional<bool>, skips_the_line, "skipsTheLine", {}, schema::kRequired, "whether it skips the line")  \
  X(std::optional<bool>, allow_batching, "allowBatching", {}, schema::kRequired,                              \
    "whether it may be tested in a batch")                                                                   \
  X(std::optional<bool>, direct, "direct", {}, schema::kRequired, "whether it may merge without a test run")   \
  X(std::optional<std::string>, verified_by_verification_run_id, "verifiedByVerificationRunId", {},           \
    schema::kNone, "the verification run that tested it, once passed")                                       \
  X(std::optional<ReadinessV2>, readiness, "readiness", {}, schema::kRequired, "what it still waits for")     \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it was submitted")        \
  X(std::optional<Timestamp>, updated_at, "updatedAt", {}, schema::kRequired, "when it last changed")

struct QueueEntry {
  TRUNK_MEMBERS(TRUNK_QUEUE_ENTRY_FIELDS)
  Extras extra;
  bool operator==(const QueueEntry&) const = default;
};
TRUNK_DESCRIBE(QueueEntry, "A pull request's submission to a merge queue.", TRUNK_QUEUE_ENTRY_FIELDS)

#define TRUNK_PULL_REQUEST_V2_FIELDS(X)                                                                       \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the pull request's id (a UUID)")            \
  X(std::optional<std::string>, repository_id, "repositoryId", {}, schema::kRequired, "its repository's id")  \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "its number on the code host")      \
  X(std::optional<std::string>, title, "title", {}, schema::kRequired, "its title")                           \
  X(std::optional<std::string>, branch, "branch", {}, schema::kRequired, "its head branch")                   \
  X(std::optional<std::string>, sha, "sha", {}, schema::kRequired, "its head commit")                         \
  X(std::optional<std::string>, base_branch, "baseBranch", {}, schema::kRequired, "the branch it targets")    \
  X(std::optional<std::string>, author, "author", {}, schema::kRequired, "its author's login")                \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its API address")                             \
  X(std::optional<OpenEnum<PullRequestProviderState>>, state, "state", {}, schema::kNone,                     \
    "open, closed or merged on the code host")                                                              \
  X(std::optional<bool>, is_currently_submitted_to_queue, "isCurrentlySubmittedToQueue", {}, schema::kRequired, \
    "whether it is in a queue now")                                                                          \
  X(std::optional<QueueEntry>, queue_entry, "queueEntry", {}, schema::kNone, "its latest queue entry")        \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when Trunk first saw it")      \
  X(std::optional<std::string>, html_url, "htmlUrl", {}, schema::kNone, "its page on the code host")          \
  X(std::optional<bool>, viewer_is_author, "viewerIsAuthor", {}, schema::kNone,                               \
    "whether the caller wrote it")

struct PullRequestV2 {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_V2_FIELDS)
  Extras extra;
  bool operator==(const PullRequestV2&) const = default;
};
TRUNK_DESCRIBE(PullRequestV2, "A v2 pull request and its latest queue entry.", TRUNK_PULL_REQUEST_V2_FIELDS)

#define TRUNK_PULL_REQUEST_LIST_FIELDS(X)                                                                     \
  X(std::vector<PullRequestV2>, data, "data", {}, schema::kRequired, "the pull requests of this page")        \
  TRUNK_V2_PAGE_FIELDS(X)

struct PullRequestList {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_LIST_FIELDS)
  Extras extra;
  bool operator==(const PullRequestList&) const = default;
};
TRUNK_DESCRIBE(PullRequestList, "One page of v2 pull requests.", TRUNK_PULL_REQUEST_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_PULL_REQUEST_ID_FIELD(X) \
  X(std::string, id, "id", {}, schema::kPathUuid, "the pull request's id (a UUID)")
#define TRUNK_PRIORITY_V2_FIELDS(X)                                                                           \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kPriorityValueV2,               \
    "priority 0..32767, lower first (0 skips the line); not with priority_name")                             \
  X(std::optional<std::string>, priority_name, "priorityName", {}, (schema::Rules{.non_empty = true}),        \
    "a named priority (urgent, high, medium, low, lowest); not with priority_value")

#define TRUNK_SUBMIT_PULL_REQUEST_V2_FIELDS(X)                                                                \
  X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")                                       \
  X(std::int64_t, number, "number", {}, (schema::Rules{.required = true, .min = 1, .max = 10000000}),         \
    "the pull request's number")                                                                             \
  X(std::optional<bool>, allow_batching, "allowBatching", {}, schema::kNone,                                  \
    "whether it may be tested in a batch (v1's noBatch, negated)")                                           \
  TRUNK_PRIORITY_V2_FIELDS(X)                                                                                 \
  X(std::optional<bool>, direct, "direct", {}, schema::kNone, "merge it without a test run when it can")

struct SubmitPullRequestRequestV2 {
  TRUNK_MEMBERS(TRUNK_SUBMIT_PULL_REQUEST_V2_FIELDS)
  bool operator==(const SubmitPullRequestRequestV2&) const = default;
};
TRUNK_DESCRIBE(SubmitPullRequestRequestV2,
               "Submits a pull request to a merge queue (409 PR_ALREADY_ENQUEUED when it is in it).",
               TRUNK_SUBMIT_PULL_REQUEST_V2_FIELDS)

#define TRUNK_LIST_QUEUE_PULL_REQUESTS_FIELDS(X)                                                              \
  X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")                                       \
  X(std::optional<std::vector<QueueEntryState>>, state, "state", {}, schema::kNone,                           \
    "only entries in one of these states")                                                                   \
  X(std::optional<std::string>, author, "author", {}, (schema::Rules{.non_empty = true}), "only this author's") \
  X(std::optional<Timestamp>, concluded_after, "concludedAfter", {}, schema::kNone,                           \
    "only entries concluded after this instant")                                                             \
  X(std::optional<Timestamp>, concluded_before, "concludedBefore", {}, schema::kNone,                         \
    "only entries concluded before this instant")                                                            \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListQueuePullRequestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_QUEUE_PULL_REQUESTS_FIELDS)
  bool operator==(const ListQueuePullRequestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListQueuePullRequestsRequest, "The pull requests of a merge queue, newest submission first.",
               TRUNK_LIST_QUEUE_PULL_REQUESTS_FIELDS)

#define TRUNK_RESOLVE_PULL_REQUESTS_FIELDS(X)                                                                 \
  X(std::string, repository_id, "repositoryId", {}, schema::kRequiredUuid, "the repository's id (a UUID)")    \
  X(std::optional<std::vector<std::int64_t>>, number, "number", {}, schema::kPullRequestNumberV2,             \
    "up to 50 pull-request numbers; not with branch")                                                        \
  X(std::optional<std::string>, branch, "branch", {}, (schema::Rules{.non_empty = true}),                     \
    "a head branch: its open pull request, else its newest; not with number")                                \
  X(std::optional<std::string>, base_branch, "baseBranch", {}, (schema::Rules{.non_empty = true}),            \
    "with branch: only pull requests into this branch")                                                      \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ResolvePullRequestsRequest {
  TRUNK_MEMBERS(TRUNK_RESOLVE_PULL_REQUESTS_FIELDS)
  bool operator==(const ResolvePullRequestsRequest&) const = default;
};
TRUNK_DESCRIBE(ResolvePullRequestsRequest, "The pull requests of a repository, by number or by head branch.",
               TRUNK_RESOLVE_PULL_REQUESTS_FIELDS)

/// The request of every operation that names one pull request and nothing else (get, dequeue, restart-tests).
struct PullRequestRefV2 {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_ID_FIELD)
  bool operator==(const PullRequestRefV2&) const = default;
};
TRUNK_DESCRIBE(PullRequestRefV2, "A pull request, by id.", TRUNK_PULL_REQUEST_ID_FIELD)

#define TRUNK_REPRIORITIZE_FIELDS(X) TRUNK_PULL_REQUEST_ID_FIELD(X) TRUNK_PRIORITY_V2_FIELDS(X)

struct ReprioritizeRequest {
  TRUNK_MEMBERS(TRUNK_REPRIORITIZE_FIELDS)
  bool operator==(const ReprioritizeRequest&) const = default;
};
TRUNK_DESCRIBE(ReprioritizeRequest, "Gives a queued pull request another priority (exactly one of the two).",
               TRUNK_REPRIORITIZE_FIELDS)

#define TRUNK_UPDATE_QUEUE_ENTRY_FIELDS(X)                                                                    \
  TRUNK_PULL_REQUEST_ID_FIELD(X)                                                                              \
  TRUNK_PRIORITY_V2_FIELDS(X)                                                                                 \
  X(std::optional<bool>, direct, "direct", {}, schema::kNone, "merge it without a test run when it can")      \
  X(std::optional<bool>, allow_batching, "allowBatching", {}, schema::kNone, "whether it may be tested in a batch")

struct UpdateQueueEntryRequest {
  TRUNK_MEMBERS(TRUNK_UPDATE_QUEUE_ENTRY_FIELDS)
  bool operator==(const UpdateQueueEntryRequest&) const = default;
};
TRUNK_DESCRIBE(UpdateQueueEntryRequest, "Changes what is given of a queued pull request's entry (at least one).",
               TRUNK_UPDATE_QUEUE_ENTRY_FIELDS)

/// Every described struct of the v2 pull requests: answers, then requests.
#define TRUNK_PULL_REQUEST_V2_ANSWER_MODELS(X) \
  X(MergeabilityReason) X(MergeabilityDetails) X(ReadinessV2) X(QueueEntry) X(PullRequestV2) X(PullRequestList)
#define TRUNK_PULL_REQUEST_V2_REQUEST_MODELS(X)                                                                \
  X(SubmitPullRequestRequestV2) X(ListQueuePullRequestsRequest) X(ResolvePullRequestsRequest) X(PullRequestRefV2) \
  X(ReprioritizeRequest) X(UpdateQueueEntryRequest)

}  // namespace trunk
