#pragma once
// The sandbox's Dynamic CI rules (docs/sandbox.md#dynamic-ci), pure: what CI every repository has, and how a job's
// verdict follows from what is known of a run. The service's answers (v2_dynamic_ci.cpp) gather the facts (the
// impacted targets uploaded for the commit, the forces of the pull request) and call these.
//
// Every repository has the same two CI definitions: a GitHub Actions workflow "CI" (.github/workflows/ci.yaml) and
// a Buildkite pipeline named by the repository's owner and name (organization and pipeline slugs). Both define the
// jobs of kCiJobs: three keyed jobs, each testing the build target of its key, and one whose key Trunk has not
// resolved, which gets no verdict and so always runs.
//
// A job's verdict is the tally of its signals (every SignalType, in the enumeration's order, abstentions included):
//   force-override           MUST_RUN when a force of the pull request covers the job;
//   merge-queue-is-required  MUST_RUN on a merge queue's test branch (trunk-merge/...), which tests everything;
//   paths-filter             the impacted targets uploaded for the commit built: VOTE_RUN when they hold the job's
//                            key (or are ALL), VOTE_NO_RUN when not; INCOMPLETE without an upload, or off a pull
//                            request;
//   diff-driven-volatility   the changed files sent: NEVER_RUN when none changed, VOTE_RUN for a change of
//                            kLargeChangeLines lines or more, else VOTE_NO_RUN; INCOMPLETE when none were sent (the
//                            sandbox cannot fetch a diff from GitHub);
//   the others               ABSTAIN: the sandbox keeps no costs, job outcomes, stacks or required checks.
// The tally, as the description states it: an unignored MUST_RUN runs the job, else a NEVER_RUN skips it, else two
// INCOMPLETE run it, else the votes decide and a tie (no votes included) runs it. An ignored signal keeps its
// recommendation, marked `ignored`, and leaves the tally.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/dynamic_ci_v2.hpp"

namespace trunk::sandbox::ci {

/// One job of the sandbox's CI definitions. An empty key: one Trunk has not resolved.
struct JobDefinition {
  std::string_view key;
  std::string_view name;
};
inline constexpr std::array<JobDefinition, 4> kCiJobs{{
    {"lint", "Lint"},
    {"unit-tests", "Unit Tests"},
    {"integration-tests", "Integration Tests"},
    {"", "Deploy Preview"},
}};

/// The GitHub Actions workflow every repository has.
inline constexpr std::string_view kWorkflowPath = ".github/workflows/ci.yaml";
inline constexpr std::string_view kWorkflowName = "CI";
/// A change of this many lines (added and removed) or more votes to run every job.
inline constexpr std::int64_t kLargeChangeLines = 500;
/// The branches of a merge queue's test runs.
inline constexpr std::string_view kMergeQueueBranchPrefix = "trunk-merge/";

/// A workflow (or pipeline) of a repository, with the ids the API shows.
struct Workflow {
  std::string id;
  std::string name;
  std::optional<std::string> path;  ///< none for a Buildkite pipeline
  /// Buildkite's organization and pipeline slugs; empty for the GitHub workflow.
  std::string organization_slug, pipeline_slug;
};
/// The repository's two CI definitions ("host/owner/name" key), the GitHub workflow first.
std::vector<Workflow> workflows_of(const std::string& repo_key, const std::string& owner, const std::string& name);
/// The id of a job of a workflow (kCiJobs' name tells the unresolved one apart).
std::string job_id(const Workflow& workflow, const JobDefinition& job);
/// The workflow and its jobs as pr_jobs lists them.
trunk::CiWorkflow to_ci_workflow(const Workflow& workflow);

/// What is known of the run being planned, for every job alike.
struct RunFacts {
  bool pull_request = false;  ///< prNumber was given
  std::string commit_sha;
  std::string branch;
  bool has_base = false;  ///< baseSha was given
  /// The impacted targets uploaded for the pull request at commit_sha: nullopt when none were; all for ALL.
  std::optional<std::vector<std::string>> targets;
  bool all_targets = false;
  std::optional<trunk::ChangedFiles> changed_files;
  std::vector<trunk::CiSignalType> ignored;
};

/// The verdict on one keyed job; `forced`: a force of the pull request covers it.
trunk::JobVerdict verdict(const JobDefinition& job, const RunFacts& facts, bool forced);

}  // namespace trunk::sandbox::ci
