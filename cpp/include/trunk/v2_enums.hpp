#pragma once
// The enumerations of Trunk's v2 API, each declared once with its exact wire strings (describe.hpp,
// TRUNK_ENUM). v2 spells its values in camelCase and renamed some ("single" is "queue", "parallel" is "graph"):
// they are enumerations of their own, not v1's with other spellings, and the one place that maps v1's values to
// them is at the end of this file (docs/reference/v2.md#from-v1-to-v2).

#include <optional>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"

namespace trunk {

#define TRUNK_MERGE_QUEUE_STATE_VALUES(X) \
  X(running, "running") X(paused, "paused") X(draining, "draining") X(switching_modes, "switchingModes")
TRUNK_ENUM(MergeQueueState, "State of a v2 merge queue; switchingModes while a mode change is under way.",
           TRUNK_MERGE_QUEUE_STATE_VALUES)

#define TRUNK_MERGE_QUEUE_MODE_VALUES(X) X(queue, "queue") X(graph, "graph")
TRUNK_ENUM(MergeQueueMode, "queue tests pull requests in one line (v1's single); graph in lanes (v1's parallel).",
           TRUNK_MERGE_QUEUE_MODE_VALUES)

#define TRUNK_MANAGED_STATE_VALUES(X) \
  X(manual, "manual") X(terraform, "terraform") X(terraform_with_drift, "terraformWithDrift")
TRUNK_ENUM(ManagedState, "Who manages a merge queue's configuration: people, or Terraform (and whether it drifted).",
           TRUNK_MANAGED_STATE_VALUES)

#define TRUNK_QUEUE_OPTIMIZATION_VALUES(X) X(off, "off") X(bisection_skip_redundant_tests, "bisectionSkipRedundantTests")
TRUNK_ENUM(QueueOptimization, "bisectionSkipRedundantTests bisects failed batches and skips redundant tests.",
           TRUNK_QUEUE_OPTIMIZATION_VALUES)

#define TRUNK_MERGE_STRATEGY_VALUES(X) X(merge_commit, "mergeCommit") X(squash, "squash") X(rebase, "rebase")
TRUNK_ENUM(MergeStrategy, "The Git strategy used to merge a pull request into the target branch (v2 spelling).",
           TRUNK_MERGE_STRATEGY_VALUES)

#define TRUNK_TEST_BRANCH_CONSTRUCTION_VALUES(X) \
  X(rename_temp_branch, "renameTempBranch") X(push_new_branch_from_temp, "pushNewBranchFromTemp")
TRUNK_ENUM(TestBranchConstruction, "How the merge queue builds the branch it tests.",
           TRUNK_TEST_BRANCH_CONSTRUCTION_VALUES)

#define TRUNK_BATCHING_RULE_POLICY_VALUES(X) X(isolate, "isolate")
TRUNK_ENUM(BatchingRulePolicy, "What a batching rule does to the pull requests it matches: isolate tests them alone.",
           TRUNK_BATCHING_RULE_POLICY_VALUES)

#define TRUNK_QUEUE_ENTRY_STATE_VALUES(X)                                                                    \
  X(not_ready, "notReady") X(pending, "pending") X(testing, "testing") X(tests_passed, "testsPassed")        \
  X(merged, "merged") X(failed, "failed") X(cancelled, "cancelled") X(pending_failure, "pendingFailure")
TRUNK_ENUM(QueueEntryState, "Where a pull request's queue entry stands (v1's PullRequestState, v2 spelling).",
           TRUNK_QUEUE_ENTRY_STATE_VALUES)

#define TRUNK_PULL_REQUEST_PROVIDER_STATE_VALUES(X) X(open, "open") X(closed, "closed") X(merged, "merged")
TRUNK_ENUM(PullRequestProviderState, "A pull request's state on its code host: open, closed or merged.",
           TRUNK_PULL_REQUEST_PROVIDER_STATE_VALUES)

#define TRUNK_MERGEABILITY_VALUES(X) \
  X(mergeable, "mergeable") X(not_mergeable, "notMergeable") X(in_progress, "inProgress") X(unspecified, "unspecified")
TRUNK_ENUM(Mergeability, "Whether the code host would merge a pull request now (v1's GitHubMergeability).",
           TRUNK_MERGEABILITY_VALUES)

#define TRUNK_MERGEABILITY_REASON_CODE_VALUES(X)                                                             \
  X(conflict, "conflict") X(behind, "behind") X(draft, "draft") X(closed, "closed") X(pending, "pending")   \
  X(awaiting_check, "awaitingCheck") X(failing_check, "failingCheck") X(review_required, "reviewRequired")  \
  X(changes_requested, "changesRequested") X(stack_needs_rebase, "stackNeedsRebase") X(other, "other")
TRUNK_ENUM(MergeabilityReasonCode, "Why the code host would not merge a pull request now.",
           TRUNK_MERGEABILITY_REASON_CODE_VALUES)

#define TRUNK_REPOSITORY_PROVIDER_VALUES(X) \
  X(github, "github") X(gitlab, "gitlab") X(bitbucket, "bitbucket") X(unknown, "unknown")
TRUNK_ENUM(RepositoryProvider, "The code host of a repository.", TRUNK_REPOSITORY_PROVIDER_VALUES)

#define TRUNK_VERIFICATION_RUN_STATUS_VALUES(X) \
  X(in_progress, "inProgress") X(failed, "failed") X(cancelled, "cancelled") X(succeeded, "succeeded")
TRUNK_ENUM(VerificationRunStatus, "Where a verification run stands (v1's TestingStatus, v2 spelling).",
           TRUNK_VERIFICATION_RUN_STATUS_VALUES)

#define TRUNK_REQUIRED_STATUSES_SOURCE_V2_VALUES(X)                                                           \
  X(trunk_config, "trunkConfig") X(repo_provider_branch_protection, "repoProviderBranchProtection")          \
  X(merge_instance, "mergeInstance")
TRUNK_ENUM(RequiredStatusesSourceV2, "Where a run's required statuses came from (v1's RequiredStatusesSource).",
           TRUNK_REQUIRED_STATUSES_SOURCE_V2_VALUES)

#define TRUNK_CHECK_KIND_VALUES(X) X(check_run, "checkRun") X(status_check, "statusCheck")
TRUNK_ENUM(CheckKind, "A check run or a commit status.", TRUNK_CHECK_KIND_VALUES)

#define TRUNK_CHECK_STATUS_VALUES(X) X(queued, "queued") X(in_progress, "inProgress") X(completed, "completed")
TRUNK_ENUM(CheckStatus, "Whether a check has finished.", TRUNK_CHECK_STATUS_VALUES)

#define TRUNK_CHECK_CONCLUSION_VALUES(X)                                                                     \
  X(success, "success") X(failure, "failure") X(neutral, "neutral") X(cancelled, "cancelled")               \
  X(skipped, "skipped") X(timeout, "timeout")
TRUNK_ENUM(CheckConclusion, "How a finished check ended.", TRUNK_CHECK_CONCLUSION_VALUES)

#define TRUNK_PROVIDER_CHECK_STATUS_VALUES(X)                                                                \
  X(queued, "QUEUED") X(in_progress, "IN_PROGRESS") X(completed, "COMPLETED") X(pending, "PENDING")         \
  X(waiting, "WAITING") X(requested, "REQUESTED")
TRUNK_ENUM(ProviderCheckStatus, "A check's status as the code host spells it.", TRUNK_PROVIDER_CHECK_STATUS_VALUES)

#define TRUNK_PROVIDER_CHECK_CONCLUSION_VALUES(X)                                                            \
  X(action_required, "ACTION_REQUIRED") X(cancelled, "CANCELLED") X(error, "ERROR") X(failure, "FAILURE")   \
  X(neutral, "NEUTRAL") X(pending, "PENDING") X(skipped, "SKIPPED") X(stale, "STALE") X(success, "SUCCESS") \
  X(timed_out, "TIMED_OUT")
TRUNK_ENUM(ProviderCheckConclusion, "A check's conclusion as the code host spells it.",
           TRUNK_PROVIDER_CHECK_CONCLUSION_VALUES)

#define TRUNK_CONFLICT_CULPRIT_KIND_VALUES(X) \
  X(queue_pull_request, "queuePullRequest") X(base_branch, "baseBranch") X(stacked_pull_request, "stackedPullRequest")
TRUNK_ENUM(ConflictCulpritKind, "What a failed pull request conflicted with.", TRUNK_CONFLICT_CULPRIT_KIND_VALUES)

#define TRUNK_HISTORY_DIRECTION_VALUES(X) X(oldest, "oldest") X(newest, "newest")
TRUNK_ENUM(HistoryDirection, "The order of a queue-entry history: oldest first (the default) or newest first.",
           TRUNK_HISTORY_DIRECTION_VALUES)

#define TRUNK_PENDING_SCHEDULABILITY_VALUES(X) X(schedulable, "schedulable") X(held_behind_failure, "heldBehindFailure")
TRUNK_ENUM(PendingSchedulability, "Whether a pending pull request can start testing, or waits behind a failure.",
           TRUNK_PENDING_SCHEDULABILITY_VALUES)

#define TRUNK_TESTING_OUTCOME_VALUES(X) \
  X(passed, "passed") X(failed, "failed") X(interrupted, "interrupted") X(cancelled, "cancelled")
TRUNK_ENUM(TestingOutcome, "How a stretch of testing ended.", TRUNK_TESTING_OUTCOME_VALUES)

#define TRUNK_QUEUE_ENTRY_CONCLUSION_VALUES(X) X(merged, "merged") X(failed, "failed") X(cancelled, "cancelled")
TRUNK_ENUM(QueueEntryConclusion, "How a queue entry ended.", TRUNK_QUEUE_ENTRY_CONCLUSION_VALUES)

// ---- flaky tests (docs/reference/v2.md#flaky-tests) ------------------------------------------------------------
// A test's status is v1's TestHealth: both versions spell it healthy, flaky, broken.

#define TRUNK_QUARANTINE_STATE_VALUES(X) X(quarantined, "quarantined") X(not_quarantined, "notQuarantined")
TRUNK_ENUM(QuarantineState, "Whether a test is quarantined now: from its status, its collection's settings and any "
           "override.", TRUNK_QUARANTINE_STATE_VALUES)

#define TRUNK_QUARANTINE_MODE_VALUES(X) X(always_quarantine, "alwaysQuarantine") X(never_quarantine, "neverQuarantine")
TRUNK_ENUM(QuarantineMode, "A per-test quarantine override: always quarantined, or never, whatever its status.",
           TRUNK_QUARANTINE_MODE_VALUES)

// What a request may set: either override, or `clear` to remove it (QuarantineMode is what a test then holds).
#define TRUNK_QUARANTINE_OVERRIDE_MODE_VALUES(X)                                                             \
  X(always_quarantine, "alwaysQuarantine") X(never_quarantine, "neverQuarantine") X(clear, "clear")
TRUNK_ENUM(QuarantineOverrideMode,
           "The quarantine override to set on a test: always, never, or clear (its status and its collection's "
           "settings decide again).",
           TRUNK_QUARANTINE_OVERRIDE_MODE_VALUES)

// One enumeration for the description's three lists of monitor types (active, classifying, labelling: subsets of
// this one); answers keep any other value.
#define TRUNK_MONITOR_TYPE_VALUES(X)                                                                         \
  X(failure_rate, "failureRate") X(pass_on_retry, "passOnRetry") X(failure_count, "failureCount")            \
  X(new_test, "newTest") X(skipped_test, "skippedTest") X(slow_test, "slowTest")                              \
  X(timeout_inflation, "timeoutInflation") X(manual, "manual")
TRUNK_ENUM(MonitorType, "What a monitor watches; manual is the 'flag as flaky' mark, which has no monitor resource.",
           TRUNK_MONITOR_TYPE_VALUES)

#define TRUNK_MONITOR_TEST_STATE_VALUES(X) X(active, "active") X(muted, "muted")
TRUNK_ENUM(MonitorTestState, "Where a monitor stands on a test: active (it counts toward the test's status), or muted.",
           TRUNK_MONITOR_TEST_STATE_VALUES)

#define TRUNK_LABEL_SOURCE_TYPE_VALUES(X) X(user, "user") X(monitor, "monitor")
TRUNK_ENUM(LabelSourceType, "What put a label on a test: a person (or an API key), or a monitor.",
           TRUNK_LABEL_SOURCE_TYPE_VALUES)

#define TRUNK_TICKET_PROVIDER_VALUES(X) X(jira_cloud, "jiraCloud") X(linear, "linear") X(asana, "asana")
TRUNK_ENUM(TicketProvider, "The ticketing system a ticket lives in.", TRUNK_TICKET_PROVIDER_VALUES)

#define TRUNK_TEST_RUN_CONCLUSION_VALUES(X) X(success, "success") X(failure, "failure") X(skipped, "skipped")
TRUNK_ENUM(TestRunConclusion, "How one run of a test finished.", TRUNK_TEST_RUN_CONCLUSION_VALUES)

#define TRUNK_METRICS_PERIOD_VALUES(X) \
  X(one_day, "1d") X(seven_days, "7d") X(fourteen_days, "14d") X(thirty_days, "30d")
TRUNK_ENUM(MetricsPeriod, "The window of a test's metrics: the last 1, 7, 14 or 30 days.", TRUNK_METRICS_PERIOD_VALUES)

#define TRUNK_TEST_SORT_VALUES(X)                                                                             \
  X(name, "name") X(failure_rate, "failureRate") X(duration_p95, "durationP95") X(prs_impacted, "prsImpacted") \
  X(last_run_at, "lastRunAt") X(last_failure_at, "lastFailureAt")
TRUNK_ENUM(TestSort, "What a test listing is sorted by: the name, or a metric of the period (worst first).",
           TRUNK_TEST_SORT_VALUES)

#define TRUNK_SORT_DIRECTION_VALUES(X) X(asc, "asc") X(desc, "desc")
TRUNK_ENUM(SortDirection, "Ascending or descending.", TRUNK_SORT_DIRECTION_VALUES)

#define TRUNK_TEST_INCLUDE_VALUES(X) X(metrics, "metrics")
TRUNK_ENUM(TestInclude, "What to embed in a test: its metrics for the period.", TRUNK_TEST_INCLUDE_VALUES)

// ---- Dynamic CI (dynamic_ci_v2.hpp) ----------------------------------------------------------------------
// The independent signals that vote on a job; ignoreSignals names them, and an unknown one is refused so that a
// typo surfaces (the service's rule).
#define TRUNK_CI_SIGNAL_TYPE_VALUES(X)                                                                       \
  X(estimated_cost, "estimated-cost") X(previous_result_on_pr, "previous-result-on-pr")                      \
  X(historical_pass_rate, "historical-pass-rate") X(diff_driven_volatility, "diff-driven-volatility")         \
  X(force_override, "force-override") X(merge_failure, "merge-failure") X(mid_pr_stack, "mid-pr-stack")       \
  X(required_check, "required-check") X(merge_queue_is_required, "merge-queue-is-required")                   \
  X(paths_filter, "paths-filter")
TRUNK_ENUM(CiSignalType, "A signal of Dynamic CI: one independent reason to run or skip a job.",
           TRUNK_CI_SIGNAL_TYPE_VALUES)

// MUST_RUN and NEVER_RUN decide alone (MUST_RUN wins a tie); the votes are weighed; two INCOMPLETE run the job;
// ABSTAIN leaves the tally.
#define TRUNK_CI_SIGNAL_RECOMMENDATION_VALUES(X)                                                             \
  X(must_run, "MUST_RUN") X(vote_run, "VOTE_RUN") X(vote_no_run, "VOTE_NO_RUN") X(never_run, "NEVER_RUN")     \
  X(incomplete, "INCOMPLETE") X(abstain, "ABSTAIN")
TRUNK_ENUM(CiSignalRecommendation, "What one signal contributed to a job's verdict.",
           TRUNK_CI_SIGNAL_RECOMMENDATION_VALUES)

#define TRUNK_CHANGED_FILE_STATUS_VALUES(X)                                                                  \
  X(added, "added") X(modified, "modified") X(removed, "removed") X(renamed, "renamed") X(copied, "copied")    \
  X(changed, "changed") X(unchanged, "unchanged")
TRUNK_ENUM(ChangedFileStatus, "How a file changed, as GitHub reports it (changed, a type change, reads as modified).",
           TRUNK_CHANGED_FILE_STATUS_VALUES)

#define TRUNK_FORCE_OVERRIDE_SCOPE_VALUES(X) X(pull_request, "pullRequest") X(workflow, "workflow") X(job, "job")
TRUNK_ENUM(ForceOverrideScope, "What a force covers: every job of the pull request, of one workflow, or one job.",
           TRUNK_FORCE_OVERRIDE_SCOPE_VALUES)

/// Every enumeration of v2, for the code instantiated per enumeration (beside TRUNK_ALL_ENUMS).
#define TRUNK_V2_ENUMS(X)                                                                                    \
  X(MergeQueueState) X(MergeQueueMode) X(ManagedState) X(QueueOptimization) X(MergeStrategy)               \
  X(TestBranchConstruction) X(BatchingRulePolicy) X(QueueEntryState) X(PullRequestProviderState)           \
  X(Mergeability) X(MergeabilityReasonCode) X(RepositoryProvider) X(VerificationRunStatus)                  \
  X(RequiredStatusesSourceV2) X(CheckKind) X(CheckStatus) X(CheckConclusion) X(ProviderCheckStatus)          \
  X(ProviderCheckConclusion) X(ConflictCulpritKind) X(HistoryDirection) X(PendingSchedulability)            \
  X(TestingOutcome) X(QueueEntryConclusion) X(QuarantineState) X(QuarantineMode) X(QuarantineOverrideMode)  \
  X(MonitorType) X(MonitorTestState) X(LabelSourceType) X(TicketProvider) X(TestRunConclusion) X(MetricsPeriod) X(TestSort)       \
  X(SortDirection) X(TestInclude) X(CiSignalType) X(CiSignalRecommendation) X(ChangedFileStatus)             \
  X(ForceOverrideScope)

// ---- v1 -> v2: the one place that maps v1's values to v2's (the migration guide's table) ------------------
constexpr MergeQueueMode to_v2(QueueMode mode) noexcept {
  return mode == QueueMode::parallel ? MergeQueueMode::graph : MergeQueueMode::queue;
}
constexpr QueueMode to_v1(MergeQueueMode mode) noexcept {
  return mode == MergeQueueMode::graph ? QueueMode::parallel : QueueMode::single;
}
constexpr MergeQueueState to_v2(QueueState state) noexcept {
  switch (state) {
    case QueueState::running: return MergeQueueState::running;
    case QueueState::paused: return MergeQueueState::paused;
    case QueueState::draining: return MergeQueueState::draining;
    case QueueState::switching_modes: return MergeQueueState::switching_modes;
  }
  return MergeQueueState::running;
}
constexpr QueueOptimization to_v2(OptimizationMode mode) noexcept {
  return mode == OptimizationMode::bisection_skip_redundant_tests ? QueueOptimization::bisection_skip_redundant_tests
                                                                   : QueueOptimization::off;
}
constexpr MergeStrategy to_v2(MergeMethod method) noexcept {
  switch (method) {
    case MergeMethod::merge_commit: return MergeStrategy::merge_commit;
    case MergeMethod::squash: return MergeStrategy::squash;
    case MergeMethod::rebase: return MergeStrategy::rebase;
  }
  return MergeStrategy::merge_commit;
}

/// v1's and v2's pull-request states list the same states in the same order: only the spelling differs.
constexpr QueueEntryState to_v2(PullRequestState state) noexcept { return static_cast<QueueEntryState>(state); }
constexpr PullRequestState to_v1(QueueEntryState state) noexcept { return static_cast<PullRequestState>(state); }
static_assert(schema::Enum<QueueEntryState>::names == schema::Enum<PullRequestState>::names,
              "to_v2/to_v1 of the pull-request states cast: both enumerations must name the same states in order");
constexpr Mergeability to_v2(GitHubMergeability mergeability) noexcept {
  switch (mergeability) {
    case GitHubMergeability::mergeable: return Mergeability::mergeable;
    case GitHubMergeability::not_mergeable: return Mergeability::not_mergeable;
    case GitHubMergeability::in_progress: return Mergeability::in_progress;
    case GitHubMergeability::unspecified: return Mergeability::unspecified;
  }
  return Mergeability::unspecified;
}

constexpr VerificationRunStatus to_v2(TestingStatus status) noexcept {
  switch (status) {
    case TestingStatus::in_progress: return VerificationRunStatus::in_progress;
    case TestingStatus::failed: return VerificationRunStatus::failed;
    case TestingStatus::cancelled: return VerificationRunStatus::cancelled;
    case TestingStatus::succeeded: return VerificationRunStatus::succeeded;
  }
  return VerificationRunStatus::in_progress;
}
static_assert(schema::Enum<RequiredStatusesSourceV2>::names == schema::Enum<RequiredStatusesSource>::names,
              "to_v2 of the required statuses' source casts: both enumerations must name the same sources in order");
constexpr RequiredStatusesSourceV2 to_v2(RequiredStatusesSource source) noexcept {
  return static_cast<RequiredStatusesSourceV2>(source);
}

constexpr OptimizationMode to_v1(QueueOptimization mode) noexcept {
  return mode == QueueOptimization::bisection_skip_redundant_tests ? OptimizationMode::bisection_skip_redundant_tests
                                                                   : OptimizationMode::off;
}
constexpr MergeMethod to_v1(MergeStrategy method) noexcept {
  switch (method) {
    case MergeStrategy::merge_commit: return MergeMethod::merge_commit;
    case MergeStrategy::squash: return MergeMethod::squash;
    case MergeStrategy::rebase: return MergeMethod::rebase;
  }
  return MergeMethod::merge_commit;
}

}  // namespace trunk
