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

/// Every enumeration of v2, for the code instantiated per enumeration (beside TRUNK_ALL_ENUMS).
#define TRUNK_V2_ENUMS(X)                                                                                    \
  X(MergeQueueState) X(MergeQueueMode) X(ManagedState) X(QueueOptimization) X(MergeStrategy)               \
  X(TestBranchConstruction) X(BatchingRulePolicy)

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
