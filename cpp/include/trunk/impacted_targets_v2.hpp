#pragma once
// The impacted targets of Trunk's v2 API (docs/reference/v2.md#impacted-targets): the upload (PUT, answered 202:
// stored, readiness re-evaluated later) of the build targets a pull request's head commit impacts, and the read of
// the latest upload for a pull request (from the newer docs; not in the stored description).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"

namespace trunk {

#define TRUNK_UPLOAD_IMPACTED_TARGETS_FIELDS(X)                                                               \
  X(std::string, repository_id, "repositoryId", {}, schema::kRequiredUuid, "the repository's id (a UUID)")    \
  X(std::string, target_branch, "targetBranch", {}, schema::kRequiredText, "the queue's branch")              \
  X(std::string, sha, "sha", {}, schema::kRequiredText, "the head commit the targets were computed for (letters and digits)") \
  X(std::optional<std::int64_t>, number, "number", {}, (schema::Rules{.min = 1, .max = 10000000}),            \
    "the pull request's number; exactly one of number and branch")                                          \
  X(std::optional<std::string>, branch, "branch", {}, (schema::Rules{.non_empty = true}),                     \
    "the pull request's head branch; exactly one of number and branch")                                      \
  X(std::optional<std::vector<std::string>>, impacted_targets, "impactedTargets", {},                         \
    (schema::Rules{.non_empty = true}), "the impacted targets ([] impacts nothing); exactly one of this and "  \
    "impacts_all_targets")                                                                                   \
  X(std::optional<bool>, impacts_all_targets, "impactsAllTargets", {}, schema::kNone,                         \
    "true: every target is impacted (v1's \"ALL\"); exactly one of this and impacted_targets")

struct UploadImpactedTargetsRequest {
  TRUNK_MEMBERS(TRUNK_UPLOAD_IMPACTED_TARGETS_FIELDS)
  bool operator==(const UploadImpactedTargetsRequest&) const = default;
};
TRUNK_DESCRIBE(UploadImpactedTargetsRequest, "The build targets a pull request's head commit impacts.",
               TRUNK_UPLOAD_IMPACTED_TARGETS_FIELDS)

#define TRUNK_PULL_REQUEST_IMPACTED_TARGETS_FIELDS(X)                                                         \
  X(std::optional<std::string>, sha, "sha", {}, schema::kRequired, "the head commit they were uploaded for")    \
  X(std::optional<bool>, impacts_all_targets, "impactsAllTargets", {}, schema::kRequired,                     \
    "whether every target is impacted")                                                                      \
  X(std::optional<std::vector<std::string>>, impacted_targets, "impactedTargets", {}, schema::kRequired,      \
    "the targets, sorted (empty when all are, or none)")                                                    \
  X(std::optional<std::int64_t>, total_impacted_targets, "totalImpactedTargets", {}, schema::kNone,           \
    "how many there are")

struct PullRequestImpactedTargets {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_IMPACTED_TARGETS_FIELDS)
  Extras extra;
  bool operator==(const PullRequestImpactedTargets&) const = default;
};
TRUNK_DESCRIBE(PullRequestImpactedTargets, "The impacted targets last uploaded for a pull request's head commit.",
               TRUNK_PULL_REQUEST_IMPACTED_TARGETS_FIELDS)

#define TRUNK_IMPACTED_TARGETS_V2_ANSWER_MODELS(X) X(PullRequestImpactedTargets)
#define TRUNK_IMPACTED_TARGETS_V2_REQUEST_MODELS(X) X(UploadImpactedTargetsRequest)

}  // namespace trunk
