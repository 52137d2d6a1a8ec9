#pragma once
// The merge queue settings, declared once (docs/reference/service.md#queue-settings,
// docs/reference/merge-queue-settings.md). updateQueue takes them (UpdateQueueRequest, requests.hpp) and
// getQueue/updateQueue answer them (QueueSettings, queue_settings.hpp): both field lists expand these rows, so
// a setting's name, wire name, doc line, request rule and default are written here only, and the Python
// classes and keywords, the stubs, the CLI options, the OpenAPI document and the sandbox's state follow.
//
// A row is  S(X, value, member, "wireName", answer_rules, request_rules, start, "doc"):
//   value          the setting's type. A request holds std::optional<value>, sent only when set; an answer
//                  holds std::optional<value>, an enumeration as OpenEnum<value> (a value this library does not
//                  know is kept raw).
//   answer_rules   kRequired where the contract marks the answer's field required (the tolerant decoder still
//                  reads a missing one as absent); kNone for the four settings of labels and the browser
//                  extension, which a service older than mid-2026 leaves out.
//   request_rules  what updateQueue accepts (each integer 1 to 4294967295).
//   start          what a new queue starts with: the service's documented default where it documents one
//                  (docs/reference/service.md#queue-behaviour), else the sandbox's choice (docs/sandbox.md;
//                  directMergeMode stays off although Trunk enables it, so that a first submission shows a run);
//                  std::nullopt for none: bisectionConcurrency then follows concurrency, and requiredStatuses
//                  come from branch protection.
// S adapts a row to a field row X(type, member, "wireName", init, rules, "doc") of describe.hpp:
// TRUNK_QUEUE_SETTING_IN_REQUEST_ and TRUNK_QUEUE_SETTING_IN_ANSWER_ below; the sandbox has its own.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/open_enum.hpp"

#define TRUNK_QUEUE_SETTING_ROWS(S, X)                                                                           \
  S(X, QueueState, state, "state", ::trunk::schema::kRequired, ::trunk::schema::kNone, QueueState::running,      \
    "queue state")                                                                                                \
  S(X, std::int64_t, concurrency, "concurrency", ::trunk::schema::kRequired, ::trunk::schema::kSetting, 1,        \
    "pull requests or batches tested at once")                                                                    \
  S(X, std::int64_t, bisection_concurrency, "bisectionConcurrency", ::trunk::schema::kRequired,                   \
    ::trunk::schema::kSetting, std::nullopt, "tests run while bisecting a failed batch")                          \
  S(X, std::int64_t, testing_timeout_minutes, "testingTimeoutMinutes", ::trunk::schema::kRequired,                \
    ::trunk::schema::kSetting, 300, "minutes to wait for tests before timing out")                                \
  S(X, std::int64_t, pending_failure_depth, "pendingFailureDepth", ::trunk::schema::kRequired,                    \
    ::trunk::schema::kDepthSetting, 0, "pull requests below a failing one that finish testing before it is removed")  \
  S(X, bool, can_optimistically_merge, "canOptimisticallyMerge", ::trunk::schema::kRequired,                      \
    ::trunk::schema::kNone, false, "a passing pull request also marks those ahead of it as passing")             \
  S(X, bool, batch, "batch", ::trunk::schema::kRequired, ::trunk::schema::kNone, false,                           \
    "batch pull requests for testing")                                                                            \
  S(X, std::int64_t, batching_max_wait_time_minutes, "batchingMaxWaitTimeMinutes", ::trunk::schema::kRequired,    \
    ::trunk::schema::kSetting, 5, "minutes to wait to collect a batch")                                           \
  S(X, std::int64_t, batching_min_size, "batchingMinSize", ::trunk::schema::kRequired, ::trunk::schema::kSetting, \
    1, "pull requests needed to form a batch")                                                                    \
  S(X, QueueMode, mode, "mode", ::trunk::schema::kRequired, ::trunk::schema::kNone, QueueMode::single,            \
    "single: one pull request at a time; parallel: several at once")                                             \
  S(X, bool, comments_enabled, "commentsEnabled", ::trunk::schema::kRequired, ::trunk::schema::kNone, true,       \
    "post comments on pull requests")                                                                             \
  S(X, bool, commands_enabled, "commandsEnabled", ::trunk::schema::kRequired, ::trunk::schema::kNone, true,       \
    "accept the merge slash-command in pull request comments")                                                   \
  S(X, bool, create_prs_for_testing_branches, "createPrsForTestingBranches", ::trunk::schema::kRequired,          \
    ::trunk::schema::kNone, true, "open pull requests for testing branches so CI runs on them")                  \
  S(X, DirectMergeMode, direct_merge_mode, "directMergeMode", ::trunk::schema::kRequired, ::trunk::schema::kNone, \
    DirectMergeMode::off, "always: up-to-date pull requests merge directly")                                     \
  S(X, OptimizationMode, optimization_mode, "optimizationMode", ::trunk::schema::kRequired,                       \
    ::trunk::schema::kNone, OptimizationMode::off, "bisection and skipping of redundant tests")                  \
  S(X, MergeMethod, merge_method, "mergeMethod", ::trunk::schema::kRequired, ::trunk::schema::kNone,              \
    MergeMethod::squash, "git strategy used to merge into the target branch")                                    \
  S(X, bool, status_check_enabled, "statusCheckEnabled", ::trunk::schema::kRequired, ::trunk::schema::kNone,      \
    true, "post a status check showing the queue status")                                                         \
  S(X, bool, extension_enabled, "extensionEnabled", ::trunk::schema::kNone, ::trunk::schema::kNone, false,        \
    "show the merge queue's controls on the repository's pull requests in Trunk's browser extension")           \
  S(X, std::string, enqueueing_label, "enqueueingLabel", ::trunk::schema::kNone, ::trunk::schema::kNone, "",      \
    "the GitHub label whose application submits a pull request to the queue (\"\": none)")                      \
  S(X, bool, label_commands_enabled, "labelCommandsEnabled", ::trunk::schema::kNone, ::trunk::schema::kNone,      \
    false, "accept label commands: adding or removing labels submits or cancels a pull request")                 \
  S(X, bool, state_labels_enabled, "stateLabelsEnabled", ::trunk::schema::kNone, ::trunk::schema::kNone, false,   \
    "label each pull request with its merge queue state")                                                         \
  S(X, std::vector<std::string>, required_statuses, "requiredStatuses", ::trunk::schema::kRequired,               \
    (::trunk::schema::Rules{.non_empty = true}), std::nullopt,                                                    \
    "statuses that must pass during queue testing; a request replaces the list ([] sets it empty)")

namespace trunk::schema {

/// A setting's type in an answer: an enumeration open to values this library does not know, else the value.
template <typename Value>
struct AnswerValue {
  using type = Value;
};
template <DescribedEnum E>
struct AnswerValue<E> {
  using type = OpenEnum<E>;
};
template <typename Value>
using answer_value_t = typename AnswerValue<Value>::type;

}  // namespace trunk::schema

/// A row as a field of updateQueue's request (requests.hpp) and as a field of the answers (queue_settings.hpp).
#define TRUNK_QUEUE_SETTING_IN_REQUEST_(X, value, member, wire, answer_rules, request_rules, start, doc) \
  X(std::optional<value>, member, wire, {}, request_rules, doc)
#define TRUNK_QUEUE_SETTING_IN_ANSWER_(X, value, member, wire, answer_rules, request_rules, start, doc) \
  X(std::optional<::trunk::schema::answer_value_t<value>>, member, wire, {}, answer_rules, doc)
