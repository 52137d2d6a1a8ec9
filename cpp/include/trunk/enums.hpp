#pragma once
// The enumerations of the API, each declared once with its exact wire strings (describe.hpp, TRUNK_ENUM).
// to_wire(E) gives the wire string; enum_from_wire<E>(text) the value, or nullopt when unknown.

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

#include "trunk/describe.hpp"

namespace trunk {

#define TRUNK_QUEUE_STATE_VALUES(X) \
  X(running, "running") X(paused, "paused") X(draining, "draining") X(switching_modes, "switching_modes")
TRUNK_ENUM(QueueState,
           "State of a merge queue. Requests may set running, paused or draining; switching_modes is reported only.",
           TRUNK_QUEUE_STATE_VALUES, .requestable = 3)

#define TRUNK_QUEUE_MODE_VALUES(X) X(single, "single") X(parallel, "parallel")
TRUNK_ENUM(QueueMode, "single tests pull requests one at a time; parallel tests several at once.",
           TRUNK_QUEUE_MODE_VALUES)

#define TRUNK_DIRECT_MERGE_MODE_VALUES(X) X(off, "off") X(always, "always")
TRUNK_ENUM(DirectMergeMode,
           "always lets an up-to-date pull request merge directly instead of being tested in the queue.",
           TRUNK_DIRECT_MERGE_MODE_VALUES)

#define TRUNK_OPTIMIZATION_MODE_VALUES(X) X(off, "off") X(bisection_skip_redundant_tests, "bisection_skip_redundant_tests")
TRUNK_ENUM(OptimizationMode, "bisection_skip_redundant_tests bisects failed batches and skips redundant tests.",
           TRUNK_OPTIMIZATION_MODE_VALUES)

#define TRUNK_MERGE_METHOD_VALUES(X) X(merge_commit, "merge_commit") X(squash, "squash") X(rebase, "rebase")
TRUNK_ENUM(MergeMethod, "The Git strategy used to merge a pull request into the target branch.",
           TRUNK_MERGE_METHOD_VALUES)

#define TRUNK_HEALTH_STATUS_VALUES(X) X(flaky, "FLAKY") X(broken, "BROKEN")
TRUNK_ENUM(HealthStatus,
           "Filter of list_unhealthy_tests; wire strings are upper case, inputs accept any case (\"flaky\" too).",
           TRUNK_HEALTH_STATUS_VALUES, .case_insensitive_input = true)

#define TRUNK_PULL_REQUEST_STATE_VALUES(X)                                                        \
  X(not_ready, "not_ready") X(pending, "pending") X(testing, "testing") X(tests_passed, "tests_passed") \
  X(merged, "merged") X(failed, "failed") X(cancelled, "cancelled") X(pending_failure, "pending_failure")
TRUNK_ENUM(PullRequestState, "Where a pull request stands in a merge queue.", TRUNK_PULL_REQUEST_STATE_VALUES)

#define TRUNK_TEST_HEALTH_VALUES(X) X(healthy, "healthy") X(flaky, "flaky") X(broken, "broken")
TRUNK_ENUM(TestHealth, "A test's health as its status reports it (TestStatus.value; lower case on the wire).",
           TRUNK_TEST_HEALTH_VALUES)

#define TRUNK_QUARANTINED_TEST_STATUS_VALUES(X) X(healthy, "HEALTHY") X(flaky, "FLAKY") X(broken, "BROKEN")
TRUNK_ENUM(QuarantinedTestStatus, "Health of a quarantined test (upper case on the wire).",
           TRUNK_QUARANTINED_TEST_STATUS_VALUES)

#define TRUNK_QUARANTINE_SETTING_VALUES(X) X(always_quarantine, "ALWAYS_QUARANTINE") X(auto_quarantine, "AUTO_QUARANTINE")
TRUNK_ENUM(QuarantineSetting, "Why a test is quarantined: always (by a person) or automatically (by its health).",
           TRUNK_QUARANTINE_SETTING_VALUES)

#define TRUNK_GITHUB_MERGEABILITY_VALUES(X)                                                         \
  X(unspecified, "unspecified") X(in_progress, "in_progress") X(mergeable, "mergeable")              \
  X(not_mergeable, "not_mergeable")
TRUNK_ENUM(GitHubMergeability, "Whether the code host reports the pull request mergeable.",
           TRUNK_GITHUB_MERGEABILITY_VALUES)

#define TRUNK_TESTING_STATUS_VALUES(X) \
  X(in_progress, "in_progress") X(failed, "failed") X(cancelled, "cancelled") X(succeeded, "succeeded")
TRUNK_ENUM(TestingStatus, "Where one merge queue test run stands.", TRUNK_TESTING_STATUS_VALUES)

#define TRUNK_REQUIRED_STATUSES_SOURCE_VALUES(X)                                                          \
  X(trunk_config, "trunk_config") X(repo_provider_branch_protection, "repo_provider_branch_protection")   \
  X(merge_instance, "merge_instance")
TRUNK_ENUM(RequiredStatusesSource, "Where a test run's required statuses came from.",
           TRUNK_REQUIRED_STATUSES_SOURCE_VALUES)

#define TRUNK_ALL_TARGETS_VALUES(X) X(all, "ALL")
TRUNK_ENUM(AllTargets, "Every target of the repository is impacted (setImpactedTargets' \"ALL\").",
           TRUNK_ALL_TARGETS_VALUES, .case_insensitive_input = true)

/// Every enumeration (a new one adds itself here).
#define TRUNK_ALL_ENUMS(X)                                                                                     \
  X(QueueState) X(QueueMode) X(DirectMergeMode) X(OptimizationMode) X(MergeMethod) X(HealthStatus)             \
  X(PullRequestState) X(TestHealth) X(QuarantinedTestStatus) X(QuarantineSetting) X(GitHubMergeability)         \
  X(TestingStatus) X(RequiredStatusesSource) X(AllTargets) TRUNK_V2_ENUMS(X)  /* v2_enums.hpp */

/// The wire string of a value; "" for a value outside the enumeration (only reachable through a cast).
template <schema::DescribedEnum E>
constexpr std::string_view to_wire(E value) noexcept {
  const auto index = static_cast<std::size_t>(value);
  return index < schema::Enum<E>::wire.size() ? schema::Enum<E>::wire[index] : std::string_view{};
}

/// Exact (case-sensitive) match of a wire string; nullopt when the text is not a value of E.
template <schema::DescribedEnum E>
constexpr std::optional<E> enum_from_wire(std::string_view text) noexcept {
  for (std::size_t i = 0; i < schema::Enum<E>::wire.size(); ++i) {
    if (schema::Enum<E>::wire[i] == text) return static_cast<E>(i);
  }
  return std::nullopt;
}

/// Every wire string of E, in declaration order (for error messages and bindings).
template <schema::DescribedEnum E>
constexpr std::span<const std::string_view> enum_wire_values() noexcept {
  return schema::Enum<E>::wire;
}

/// The wire strings a request may carry (all but the reported-only values such as switching_modes).
template <schema::DescribedEnum E>
constexpr std::span<const std::string_view> enum_requestable_values() noexcept {
  constexpr std::size_t n = std::min(schema::Enum<E>::options.requestable, schema::Enum<E>::wire.size());
  return std::span<const std::string_view>(schema::Enum<E>::wire).first(n);
}

}  // namespace trunk
