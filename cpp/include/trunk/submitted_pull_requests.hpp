#pragma once
// getSubmittedPullRequests' answer: the pull requests the queue knows among those asked for, and the numbers it
// does not know (docs/reference/service.md#get-submitted-pull-requests).

#include <cstdint>
#include <optional>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/pull_request.hpp"

namespace trunk {

#define TRUNK_PULL_REQUEST_NOT_FOUND_FIELDS(X) \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "the pull request number asked for")

/// An item of notFound: a pull request asked for that was never submitted to this queue. An object like the
/// request's items, so that the service may say more about it later (kept in `extra`).
struct PullRequestNotFound {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_NOT_FOUND_FIELDS)
  Extras extra;
  bool operator==(const PullRequestNotFound&) const = default;
};
TRUNK_DESCRIBE(PullRequestNotFound, "A pull request asked for that the merge queue does not know.",
               TRUNK_PULL_REQUEST_NOT_FOUND_FIELDS)

#define TRUNK_SUBMITTED_PULL_REQUESTS_FIELDS(X)                                                              \
  X(std::vector<SubmittedPullRequest>, pull_requests, "pullRequests", {}, schema::kRequired,                \
    "the pull requests found, each as getSubmittedPullRequest answers it, in the order asked")              \
  X(std::vector<PullRequestNotFound>, not_found, "notFound", {}, schema::kRequired,                         \
    "the pull requests asked for that were never submitted to this queue")

/// getSubmittedPullRequests' answer. A number the queue does not know is not an error of the whole call.
struct SubmittedPullRequests {
  TRUNK_MEMBERS(TRUNK_SUBMITTED_PULL_REQUESTS_FIELDS)
  Extras extra;
  bool operator==(const SubmittedPullRequests&) const = default;
};
TRUNK_DESCRIBE(SubmittedPullRequests, "Several pull requests of one merge queue, and those it does not know.",
               TRUNK_SUBMITTED_PULL_REQUESTS_FIELDS)

#define TRUNK_SUBMITTED_PULL_REQUESTS_ANSWER_MODELS(X) X(PullRequestNotFound) X(SubmittedPullRequests)

}  // namespace trunk
