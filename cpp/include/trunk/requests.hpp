#pragma once
// The four request messages (interface.md §4). Fields the caller leaves as nullopt are not sent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/enums.hpp"
#include "trunk/page.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"

namespace trunk {

/// POST /v1/flaky-tests/list-failing-tests. Window: start inclusive, end exclusive, 0 < end - start <= 7 days.
struct ListFailingTestsRequest {
  Repo repo;
  std::string org_url_slug;
  Timestamp start_time;
  Timestamp end_time;
  PageQuery page_query;
  bool operator==(const ListFailingTestsRequest&) const = default;
};

/// POST /v1/flaky-tests/list-unhealthy-tests.
struct ListUnhealthyTestsRequest {
  Repo repo;
  std::string org_url_slug;
  HealthStatus status = HealthStatus::flaky;
  PageQuery page_query;
  bool operator==(const ListUnhealthyTestsRequest&) const = default;
};

/// POST /v1/flaky-tests/get-test-details.
struct GetTestDetailsRequest {
  Repo repo;
  std::string org_url_slug;
  std::string test_id;  ///< UUID, 8-4-4-4-12 hex digits, either case
  bool operator==(const GetTestDetailsRequest&) const = default;
};

/// POST /v1/updateQueue. Only repo and target_branch are required; every other field is sent only when set.
/// The integer settings are int64 so that out-of-range values (0, 4294967296) can be represented and
/// rejected by validation rather than silently wrapped.
struct UpdateQueueRequest {
  Repo repo;
  std::string target_branch;
  std::optional<QueueState> state;  ///< running, paused or draining (switching_modes is rejected)
  std::optional<std::int64_t> concurrency;
  std::optional<std::int64_t> bisection_concurrency;
  std::optional<std::int64_t> testing_timeout_minutes;
  std::optional<std::int64_t> pending_failure_depth;
  std::optional<bool> can_optimistically_merge;
  std::optional<bool> batch;
  std::optional<std::int64_t> batching_max_wait_time_minutes;
  std::optional<std::int64_t> batching_min_size;
  std::optional<QueueMode> mode;
  std::optional<bool> comments_enabled;
  std::optional<bool> commands_enabled;
  std::optional<bool> create_prs_for_testing_branches;
  std::optional<DirectMergeMode> direct_merge_mode;
  std::optional<OptimizationMode> optimization_mode;
  std::optional<MergeMethod> merge_method;
  std::optional<bool> status_check_enabled;
  std::optional<std::vector<std::string>> required_statuses;  ///< [] is sent as [] (set to empty)
  std::optional<bool> delete_required_statuses;  ///< true together with required_statuses is invalid
  bool operator==(const UpdateQueueRequest&) const = default;
};

}  // namespace trunk
