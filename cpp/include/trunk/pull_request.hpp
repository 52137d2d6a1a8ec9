#pragma once
// A pull request in a merge queue: the items of getQueue's enqueuedPullRequests and of listPullRequests
// (service-v1-endpoints.md, "Pull request object").

#include <cstdint>
#include <optional>
#include <string>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"

namespace trunk {

#define TRUNK_PULL_REQUEST_FIELDS(X)                                                                            \
  X(std::optional<OpenEnum<PullRequestState>>, state, "state", {}, schema::kNone, "where it stands in the queue") \
  X(std::optional<std::string>, state_changed_at, "stateChangedAt", {}, schema::kRequired,                      \
    "when the state last changed")                                                                            \
  X(std::optional<std::int64_t>, priority_value, "priorityValue", {}, schema::kRequired, "priority (higher first)") \
  X(std::optional<std::string>, priority_name, "priorityName", {}, schema::kRequired, "name of the priority")    \
  X(std::optional<bool>, skip_the_line, "skipTheLine", {}, schema::kRequired, "whether it skipped the line")     \
  X(std::optional<bool>, no_batch, "noBatch", {}, schema::kRequired, "whether it is tested outside batches")     \
  X(std::optional<std::int64_t>, pr_number, "prNumber", {}, schema::kRequired, "pull request number")            \
  X(std::optional<std::string>, pr_title, "prTitle", {}, schema::kRequired, "title")                             \
  X(std::optional<std::string>, pr_sha, "prSha", {}, schema::kRequired, "head commit")                           \
  X(std::optional<std::string>, pr_base_branch, "prBaseBranch", {}, schema::kRequired, "base branch")            \
  X(std::optional<std::string>, pr_author, "prAuthor", {}, schema::kRequired, "author")

struct PullRequest {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_FIELDS)
  Extras extra;
  bool operator==(const PullRequest&) const = default;
};
TRUNK_DESCRIBE(PullRequest, "A pull request in a merge queue.", TRUNK_PULL_REQUEST_FIELDS)

}  // namespace trunk
