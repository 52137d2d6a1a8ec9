#pragma once
// Dynamic CI in Trunk's v2 API (docs/reference/v2.md#dynamic-ci): a per-job verdict for one CI run (which jobs a
// change makes it safe to skip, and the signals behind each), the workflows and jobs Trunk knows of a repository,
// and the forces that make jobs run whatever the signals say.
//
// The contract a caller must keep: a job absent from a plan's `jobs` must be run, and any answer but 200 means
// "run everything" (fail open). The plan requests' `baseSha` and `prNumber` are required but may be null (a run
// that is not for a pull request): they are declared required and nullable, so the encoder writes `null` for one
// left unset rather than leaving the key out (describe.hpp, Rules::nullable).

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

/// The description's limits on what a plan request carries.
inline constexpr std::size_t kMaxCiPathLength = 4096;     ///< a changed file's path, and the diff's base
inline constexpr std::size_t kMaxChangedFiles = 200;      ///< files listed (totalFiles counts them all)
inline constexpr std::size_t kMaxCiListItems = 1000;      ///< jobKeys, prLabels, overrides
inline constexpr std::size_t kMaxCiLabelLength = 256;     ///< one pull-request label
inline constexpr std::size_t kMaxIgnoredSignals = 64;
inline constexpr std::size_t kMaxBuildkiteSlugLength = 200;

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_PLAN_REPO_FIELDS(X)                                                                             \
  X(std::optional<std::string>, host, "host", {}, schema::kNone,                                              \
    "the code host; github.com (the service's default) is the only one supported")                           \
  X(std::string, owner, "owner", {}, schema::kRequired, "the repository's owner")                             \
  X(std::string, name, "name", {}, schema::kRequired, "the repository's name")

struct PlanRepo {
  TRUNK_MEMBERS(TRUNK_PLAN_REPO_FIELDS)
  bool operator==(const PlanRepo&) const = default;
};
TRUNK_DESCRIBE(PlanRepo, "A repository as Dynamic CI names it: host (github.com when absent), owner, name.",
               TRUNK_PLAN_REPO_FIELDS)

inline constexpr schema::Rules kCiPathRules{.required = true, .non_empty = true, .max_length = kMaxCiPathLength};
inline constexpr schema::Rules kCiCountRules{.required = true, .min = 0};

#define TRUNK_CHANGED_FILE_FIELDS(X)                                                                          \
  X(std::string, path, "path", {}, kCiPathRules, "the file's path (1 to 4096 characters)")                   \
  X(std::optional<std::string>, previous_path, "previousPath", {},                                            \
    (schema::Rules{.non_empty = true, .max_length = kMaxCiPathLength}), "its old path, when renamed or copied") \
  X(ChangedFileStatus, status, "status", {}, schema::kRequired, "how it changed")                             \
  X(std::int64_t, additions, "additions", {}, kCiCountRules, "lines added (0 for a binary file)")            \
  X(std::int64_t, deletions, "deletions", {}, kCiCountRules, "lines removed (0 for a binary file)")

struct ChangedFile {
  TRUNK_MEMBERS(TRUNK_CHANGED_FILE_FIELDS)
  bool operator==(const ChangedFile&) const = default;
};
TRUNK_DESCRIBE(ChangedFile, "One changed file of a diff (no contents).", TRUNK_CHANGED_FILE_FIELDS)

#define TRUNK_CHANGED_FILES_FIELDS(X)                                                                         \
  X(std::string, base, "base", {}, kCiPathRules, "the commit or ref the diff was taken from")                 \
  X(std::int64_t, total_files, "totalFiles", {}, kCiCountRules, "how many files changed, before the 200-file cap") \
  X(std::int64_t, total_additions, "totalAdditions", {}, kCiCountRules, "lines added in every file")          \
  X(std::int64_t, total_deletions, "totalDeletions", {}, kCiCountRules, "lines removed in every file")        \
  X(std::vector<ChangedFile>, files, "files", {}, (schema::Rules{.required = true, .max_items = kMaxChangedFiles}), \
    "the first 200 changed files: exactly min(totalFiles, 200) of them")

struct ChangedFiles {
  TRUNK_MEMBERS(TRUNK_CHANGED_FILES_FIELDS)
  bool operator==(const ChangedFiles&) const = default;
};
TRUNK_DESCRIBE(ChangedFiles,
               "The files changed between base and the commit built (base...commit). Leave it out when you cannot "
               "compute the diff: an empty list says nothing changed, the strongest reason to skip.",
               TRUNK_CHANGED_FILES_FIELDS)

/// The fields both plan requests share, before their workflow's identity.
#define TRUNK_CI_PLAN_COMMON_FIELDS(X)                                                                        \
  X(PlanRepo, repo, "repo", {}, schema::kRequired, "the repository")                                          \
  X(std::string, commit_sha, "commitSha", {}, schema::kRequired, "the commit being built")                    \
  X(std::optional<std::string>, base_sha, "baseSha", {}, schema::kRequiredNullable,                           \
    "the commit to diff against; None (sent as null) for a run that is not for a pull request")              \
  X(std::string, branch, "branch", {}, schema::kRequired, "the branch being built")                           \
  X(std::optional<std::int64_t>, pr_number, "prNumber", {}, schema::kRequiredNullable,                        \
    "the pull request's number; None (sent as null) for a run that is not for a pull request")               \
  X(std::string, run_id, "runId", {}, schema::kRequired, "the CI run's id (recorded to score the plan later)") \
  X(std::int64_t, run_attempt, "runAttempt", {}, schema::kRequired, "which attempt of the run, from 1")       \
  X(std::optional<std::string>, triggering_actor, "triggeringActor", {}, schema::kNone, "who started the run") \
  X(std::optional<std::string>, event_name, "eventName", {}, schema::kNone, "what started it (pull_request)")  \
  X(std::optional<std::vector<std::string>>, pr_labels, "prLabels", {},                                       \
    (schema::Rules{.max_items = kMaxCiListItems, .max_length = kMaxCiLabelLength}),                          \
    "the pull request's label names (at most 1000, each at most 256 characters)")                            \
  X(std::optional<std::vector<std::string>>, job_keys, "jobKeys", {}, (schema::Rules{.max_items = kMaxCiListItems}), \
    "the jobs to decide, by key; absent or empty: every keyed job")                                          \
  X(std::optional<std::vector<CiSignalType>>, ignore_signals, "ignoreSignals", {},                            \
    (schema::Rules{.max_items = kMaxIgnoredSignals}), "signals to leave out of the tally (at most 64)")       \
  X(std::optional<ChangedFiles>, changed_files, "changedFiles", {}, schema::kNone,                            \
    "the diff, when you can compute it (else the service fetches it from GitHub)")

#define TRUNK_CI_PLAN_REQUEST_FIELDS(X)                                                                       \
  TRUNK_CI_PLAN_COMMON_FIELDS(X)                                                                              \
  X(std::string, workflow_path, "workflowPath", {}, schema::kRequired,                                        \
    "the workflow file whose jobs are decided (.github/workflows/ci.yaml)")                                  \
  X(std::optional<std::string>, workflow_name, "workflowName", {}, schema::kNone,                             \
    "the workflow's name (github.workflow): Trunk's action sends it, the stored description lacks it")

struct CiPlanRequest {
  TRUNK_MEMBERS(TRUNK_CI_PLAN_REQUEST_FIELDS)
  bool operator==(const CiPlanRequest&) const = default;
};
TRUNK_DESCRIBE(CiPlanRequest, "One GitHub Actions run whose jobs Dynamic CI decides.", TRUNK_CI_PLAN_REQUEST_FIELDS)

inline constexpr schema::Rules kBuildkiteSlugRules{
    .required = true, .non_empty = true, .max_length = kMaxBuildkiteSlugLength};

#define TRUNK_BUILDKITE_PLAN_REQUEST_FIELDS(X)                                                                \
  TRUNK_CI_PLAN_COMMON_FIELDS(X)                                                                              \
  X(std::string, buildkite_organization_slug, "buildkiteOrganizationSlug", {}, kBuildkiteSlugRules,           \
    "the Buildkite organization (BUILDKITE_ORGANIZATION_SLUG)")                                              \
  X(std::string, buildkite_pipeline_slug, "buildkitePipelineSlug", {}, kBuildkiteSlugRules,                   \
    "the pipeline (BUILDKITE_PIPELINE_SLUG)")

struct BuildkitePlanRequest {
  TRUNK_MEMBERS(TRUNK_BUILDKITE_PLAN_REQUEST_FIELDS)
  bool operator==(const BuildkitePlanRequest&) const = default;
};
TRUNK_DESCRIBE(BuildkitePlanRequest, "One Buildkite build whose steps (by key) Dynamic CI decides.",
               TRUNK_BUILDKITE_PLAN_REQUEST_FIELDS)

/// The repository of a Dynamic CI listing, in its query.
#define TRUNK_CI_REPO_QUERY_FIELDS(X)                                                                         \
  X(std::optional<std::string>, host, "host", {}, schema::kNone, "the code host (github.com, the only one)")  \
  X(std::string, owner, "owner", {}, schema::kRequiredText, "the repository's owner")                         \
  X(std::string, name, "name", {}, schema::kRequiredText, "the repository's name")

#define TRUNK_LIST_CI_PR_JOBS_FIELDS(X) TRUNK_CI_REPO_QUERY_FIELDS(X) TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListCiPrJobsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_CI_PR_JOBS_FIELDS)
  bool operator==(const ListCiPrJobsRequest&) const = default;
};
TRUNK_DESCRIBE(ListCiPrJobsRequest, "The workflows that ran on a repository's pull requests lately, with their jobs.",
               TRUNK_LIST_CI_PR_JOBS_FIELDS)

inline constexpr schema::Rules kCiPullRequestNumber{.required = true, .min = 1};

#define TRUNK_LIST_CI_FORCE_OVERRIDES_FIELDS(X)                                                               \
  TRUNK_CI_REPO_QUERY_FIELDS(X)                                                                               \
  X(std::int64_t, pr_number, "prNumber", {}, kCiPullRequestNumber, "the pull request's number")               \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListCiForceOverridesRequest {
  TRUNK_MEMBERS(TRUNK_LIST_CI_FORCE_OVERRIDES_FIELDS)
  bool operator==(const ListCiForceOverridesRequest&) const = default;
};
TRUNK_DESCRIBE(ListCiForceOverridesRequest, "The forces active on a pull request.",
               TRUNK_LIST_CI_FORCE_OVERRIDES_FIELDS)

#define TRUNK_FORCE_OVERRIDE_REQUEST_FIELDS(X)                                                                \
  X(ForceOverrideScope, scope, "scope", {}, schema::kRequired, "pullRequest, workflow or job")                \
  X(std::optional<std::string>, workflow_id, "workflowId", {}, (schema::Rules{.uuid = true}),                 \
    "the workflow (a UUID from pr_jobs): required for workflow and job, refused for pullRequest")            \
  X(std::optional<std::string>, job_id, "jobId", {}, (schema::Rules{.uuid = true}),                           \
    "the job (a UUID from pr_jobs): required for job, refused otherwise")

struct ForceOverrideRequest {
  TRUNK_MEMBERS(TRUNK_FORCE_OVERRIDE_REQUEST_FIELDS)
  bool operator==(const ForceOverrideRequest&) const = default;
};
TRUNK_DESCRIBE(ForceOverrideRequest, "One force to keep active: what it covers.", TRUNK_FORCE_OVERRIDE_REQUEST_FIELDS)

#define TRUNK_SET_CI_FORCE_OVERRIDES_FIELDS(X)                                                                \
  X(PlanRepo, repo, "repo", {}, schema::kRequired, "the repository")                                          \
  X(std::int64_t, pr_number, "prNumber", {}, kCiPullRequestNumber, "the pull request's number")               \
  X(std::string, head_sha, "headSha", {}, schema::kRequiredText,                                              \
    "the pull request's head commit, recorded with each new force")                                          \
  X(std::vector<ForceOverrideRequest>, overrides, "overrides", {},                                            \
    (schema::Rules{.required = true, .max_items = kMaxCiListItems}),                                         \
    "the complete set to keep: a force left out is revoked, [] revokes them all")

struct SetCiForceOverridesRequest {
  TRUNK_MEMBERS(TRUNK_SET_CI_FORCE_OVERRIDES_FIELDS)
  bool operator==(const SetCiForceOverridesRequest&) const = default;
};
TRUNK_DESCRIBE(SetCiForceOverridesRequest,
               "Replaces the forces of a pull request with this set (an unchanged force is kept as it was).",
               TRUNK_SET_CI_FORCE_OVERRIDES_FIELDS)

// ---- answers -------------------------------------------------------------------------------------------------
#define TRUNK_CI_SIGNAL_RESULT_FIELDS(X)                                                                      \
  X(std::optional<OpenEnum<CiSignalType>>, type, "type", {}, schema::kRequired, "the signal")                 \
  X(std::optional<OpenEnum<CiSignalRecommendation>>, recommendation, "recommendation", {}, schema::kRequired, \
    "what it contributed (or would have, when ignored)")                                                     \
  X(std::optional<std::string>, message, "message", {}, schema::kRequired, "its evidence, in words")          \
  X(std::optional<bool>, ignored, "ignored", {}, schema::kRequired, "whether ignoreSignals left it out")

struct CiSignalResult {
  TRUNK_MEMBERS(TRUNK_CI_SIGNAL_RESULT_FIELDS)
  Extras extra;
  bool operator==(const CiSignalResult&) const = default;
};
TRUNK_DESCRIBE(CiSignalResult, "One signal's contribution to a job's verdict.", TRUNK_CI_SIGNAL_RESULT_FIELDS)

#define TRUNK_JOB_VERDICT_FIELDS(X)                                                                           \
  X(std::optional<std::string>, job_key, "jobKey", {}, schema::kRequired, "the job's key")                    \
  X(std::optional<bool>, run, "run", {}, schema::kRequired, "whether it should run")                          \
  X(std::optional<std::string>, summary, "summary", {}, schema::kRequired, "why, in one line")                \
  X(std::vector<CiSignalResult>, signals, "signals", {}, schema::kRequired, "every signal, abstentions included")

struct JobVerdict {
  TRUNK_MEMBERS(TRUNK_JOB_VERDICT_FIELDS)
  Extras extra;
  bool operator==(const JobVerdict&) const = default;
};
TRUNK_DESCRIBE(JobVerdict, "Whether one job should run, and the signals behind it.", TRUNK_JOB_VERDICT_FIELDS)

#define TRUNK_PLAN_NOTICE_FIELDS(X)                                                                           \
  X(std::optional<std::string>, code, "code", {}, schema::kRequired,                                          \
    "why every job runs (an open set: ORG_NOT_ENABLED, REPO_NOT_ENABLED, REPO_IN_SHADOW_MODE, "              \
    "ENGINE_UNAVAILABLE, WORKFLOW_NOT_RECOGNIZED)")                                                           \
  X(std::optional<std::string>, message, "message", {}, schema::kRequired, "the same in words, to show as is")

struct PlanNotice {
  TRUNK_MEMBERS(TRUNK_PLAN_NOTICE_FIELDS)
  Extras extra;
  bool operator==(const PlanNotice&) const = default;
};
TRUNK_DESCRIBE(PlanNotice, "Why a plan has the shape it has, when its jobs cannot say it.", TRUNK_PLAN_NOTICE_FIELDS)

#define TRUNK_CI_PLAN_FIELDS(X)                                                                               \
  X(std::vector<JobVerdict>, jobs, "jobs", {}, schema::kRequired,                                             \
    "one verdict per job; a job absent from it must be run")                                                 \
  X(std::optional<PlanNotice>, notice, "notice", {}, schema::kNone,                                           \
    "present only when every job runs for a reason the verdicts cannot express")

struct CiPlan {
  TRUNK_MEMBERS(TRUNK_CI_PLAN_FIELDS)
  Extras extra;
  bool operator==(const CiPlan&) const = default;
};
TRUNK_DESCRIBE(CiPlan, "Dynamic CI's plan for one run: a verdict per job it recognises.", TRUNK_CI_PLAN_FIELDS)

#define TRUNK_CI_JOB_FIELDS(X)                                                                                \
  X(std::optional<std::string>, job_id, "jobId", {}, schema::kRequired, "Trunk's lasting id of the job")      \
  X(std::optional<std::string>, job_key, "jobKey", {}, schema::kRequiredNullable,                             \
    "its jobs: key; null until Trunk resolves it (such a job always runs)")                                  \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "its display name (may change: address it by id or key)")

struct CiJob {
  TRUNK_MEMBERS(TRUNK_CI_JOB_FIELDS)
  Extras extra;
  bool operator==(const CiJob&) const = default;
};
TRUNK_DESCRIBE(CiJob, "A job of a workflow, as Dynamic CI knows it.", TRUNK_CI_JOB_FIELDS)

#define TRUNK_CI_WORKFLOW_FIELDS(X)                                                                           \
  X(std::optional<std::string>, workflow_id, "workflowId", {}, schema::kRequired, "its id")                   \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "its name")                              \
  X(std::optional<std::string>, path, "path", {}, schema::kRequiredNullable,                                  \
    "its file (null when Trunk has not seen one)")                                                           \
  X(std::vector<CiJob>, jobs, "jobs", {}, schema::kRequired, "the jobs it defines")

struct CiWorkflow {
  TRUNK_MEMBERS(TRUNK_CI_WORKFLOW_FIELDS)
  Extras extra;
  bool operator==(const CiWorkflow&) const = default;
};
TRUNK_DESCRIBE(CiWorkflow, "A workflow that ran on the repository's pull requests, with its jobs.",
               TRUNK_CI_WORKFLOW_FIELDS)

#define TRUNK_CI_WORKFLOW_LIST_FIELDS(X)                                                                      \
  X(std::vector<CiWorkflow>, data, "data", {}, schema::kRequired, "the workflows of this page")               \
  TRUNK_V2_PAGE_FIELDS(X)

struct CiWorkflowList {
  TRUNK_MEMBERS(TRUNK_CI_WORKFLOW_LIST_FIELDS)
  Extras extra;
  bool operator==(const CiWorkflowList&) const = default;
};
TRUNK_DESCRIBE(CiWorkflowList, "One page of workflows.", TRUNK_CI_WORKFLOW_LIST_FIELDS)

#define TRUNK_FORCE_OVERRIDE_FIELDS(X)                                                                        \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the force's id")                            \
  X(std::optional<OpenEnum<ForceOverrideScope>>, scope, "scope", {}, schema::kRequired, "what it covers")     \
  X(std::optional<std::string>, workflow_id, "workflowId", {}, schema::kNone,                                 \
    "its workflow (absent for a pullRequest scope)")                                                         \
  X(std::optional<std::string>, job_id, "jobId", {}, schema::kNone, "its job (only for a job scope)")         \
  X(std::optional<std::string>, head_sha_at_save, "headShaAtSave", {}, schema::kRequired,                     \
    "the pull request's head commit when it was saved")                                                      \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it was saved")

struct ForceOverride {
  TRUNK_MEMBERS(TRUNK_FORCE_OVERRIDE_FIELDS)
  Extras extra;
  bool operator==(const ForceOverride&) const = default;
};
TRUNK_DESCRIBE(ForceOverride, "A force active on a pull request: the jobs it makes run.", TRUNK_FORCE_OVERRIDE_FIELDS)

#define TRUNK_FORCE_OVERRIDE_LIST_FIELDS(X)                                                                   \
  X(std::vector<ForceOverride>, data, "data", {}, schema::kRequired, "the forces of this page")               \
  TRUNK_V2_PAGE_FIELDS(X)

struct ForceOverrideList {
  TRUNK_MEMBERS(TRUNK_FORCE_OVERRIDE_LIST_FIELDS)
  Extras extra;
  bool operator==(const ForceOverrideList&) const = default;
};
TRUNK_DESCRIBE(ForceOverrideList, "One page of a pull request's active forces.", TRUNK_FORCE_OVERRIDE_LIST_FIELDS)

#define TRUNK_DYNAMIC_CI_V2_ANSWER_MODELS(X)                                                                  \
  X(CiSignalResult) X(JobVerdict) X(PlanNotice) X(CiPlan) X(CiJob) X(CiWorkflow) X(CiWorkflowList)           \
  X(ForceOverride) X(ForceOverrideList)
/// The parts of a request that a caller gives whole rather than field by field (Python binds them as classes with
/// a keyword constructor checked by the declaration's rules).
#define TRUNK_DYNAMIC_CI_V2_REQUEST_PARTS(X) X(ChangedFile) X(ChangedFiles) X(ForceOverrideRequest)
#define TRUNK_DYNAMIC_CI_V2_REQUEST_MODELS(X)                                                                 \
  X(PlanRepo) X(ChangedFile) X(ChangedFiles) X(CiPlanRequest) X(BuildkitePlanRequest) X(ListCiPrJobsRequest)  \
  X(ListCiForceOverridesRequest) X(ForceOverrideRequest) X(SetCiForceOverridesRequest)

}  // namespace trunk
