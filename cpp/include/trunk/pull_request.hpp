#pragma once
// A pull request in a merge queue: the items of getQueue's enqueuedPullRequests and of listPullRequests
// (docs/reference/service.md#pull-request).

#include <cstdint>
#include <optional>
#include <string>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk {

/// The fields a queued pull request and a submitted one (getSubmittedPullRequest) share.
#define TRUNK_PULL_REQUEST_COMMON_FIELDS(X)                                                                     \
  X(std::optional<OpenEnum<PullRequestState>>, state, "state", {}, schema::kNone, "where it stands in the queue") \
  X(std::optional<Timestamp>, state_changed_at, "stateChangedAt", {}, schema::kRequired,                        \
    "when the state last changed")                                                                            \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kRequired, "priority (lower first; 0 is urgent)") \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kRequired, "name of the priority")    \
  X(std::optional<bool>, skip_the_line, "skipTheLine", {}, schema::kRequired, "whether it skipped the line")     \
  X(std::optional<std::int64_t>, pr_number, "prNumber", {}, schema::kRequired, "pull request number")            \
  X(std::optional<std::string>, pr_title, "prTitle", {}, schema::kRequired, "title")                             \
  X(std::optional<std::string>, pr_sha, "prSha", {}, schema::kRequired, "head commit")                           \
  X(std::optional<std::string>, pr_base_branch, "prBaseBranch", {}, schema::kRequired, "base branch")            \
  X(std::optional<std::string>, pr_author, "prAuthor", {}, schema::kRequired, "author")

#define TRUNK_PULL_REQUEST_FIELDS(X)     \
  TRUNK_PULL_REQUEST_COMMON_FIELDS(X)    \
  X(std::optional<bool>, no_batch, "noBatch", {}, schema::kRequired, "whether it is tested outside batches")

struct PullRequest {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_FIELDS)
  Extras extra;
  bool operator==(const PullRequest&) const = default;
};
TRUNK_DESCRIBE(PullRequest, "A pull request in a merge queue.", TRUNK_PULL_REQUEST_FIELDS)

#define TRUNK_READINESS_FIELDS(X)                                                                            \
  X(std::optional<bool>, has_impacted_targets, "hasImpactedTargets", {}, schema::kNone,                     \
    "impacted targets have been set for its head commit")                                                   \
  X(std::optional<bool>, requires_impacted_targets, "requiresImpactedTargets", {}, schema::kNone,           \
    "the queue waits for impacted targets before testing")                                                  \
  X(std::optional<bool>, does_base_branch_match, "doesBaseBranchMatch", {}, schema::kNone,                  \
    "its base branch is the queue's branch")                                                                \
  X(std::optional<OpenEnum<GitHubMergeability>>, git_hub_mergeability, "gitHubMergeability", {}, schema::kNone, \
    "whether the code host reports it mergeable")

/// What a pull request still waits for before it may be tested.
struct Readiness {
  TRUNK_MEMBERS(TRUNK_READINESS_FIELDS)
  Extras extra;
  bool operator==(const Readiness&) const = default;
};
TRUNK_DESCRIBE(Readiness,
               "What a pull request waits for: it is tested once its base branch matches, the host reports it "
               "mergeable and, when the queue requires them, impacted targets are set.",
               TRUNK_READINESS_FIELDS)

#define TRUNK_SUBMITTED_PULL_REQUEST_FIELDS(X)                                                               \
  X(std::optional<std::string>, id, "id", {}, schema::kNone, "the service's id of this submission")         \
  TRUNK_PULL_REQUEST_COMMON_FIELDS(X)                                                                        \
  X(std::optional<Readiness>, readiness, "readiness", {}, schema::kNone, "what it still waits for")          \
  X(std::optional<bool>, is_currently_submitted_to_queue, "isCurrentlySubmittedToQueue", {}, schema::kRequired, \
    "it is in the queue now (false once merged, failed or cancelled)")                                     \
  X(std::optional<bool>, force_enqueued, "forceEnqueued", {}, schema::kRequired,                             \
    "it was put in the queue without waiting for readiness")                                               \
  X(std::optional<std::string>, used_default_priority_name, "usedDefaultPriorityName", {}, schema::kNone,    \
    "the priority it got when the submission named none")

/// getSubmittedPullRequest's answer: one pull request as the queue sees it.
struct SubmittedPullRequest {
  TRUNK_MEMBERS(TRUNK_SUBMITTED_PULL_REQUEST_FIELDS)
  Extras extra;
  bool operator==(const SubmittedPullRequest&) const = default;
};
TRUNK_DESCRIBE(SubmittedPullRequest, "A pull request submitted to a merge queue, with its readiness.",
               TRUNK_SUBMITTED_PULL_REQUEST_FIELDS)

}  // namespace trunk
