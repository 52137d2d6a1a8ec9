#pragma once
// Merge queue settings as updateQueue returns them (interface.md §4.4 response).
// The contract marks every field required, but the decoder is tolerant: a field the service leaves out
// is absent (nullopt) rather than an error, and enum values this library does not know are kept raw.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/json_fwd.hpp"
#include "trunk/open_enum.hpp"

namespace trunk {

struct QueueSettings {
  std::optional<OpenEnum<QueueState>> state;
  std::optional<std::string> branch;
  std::optional<std::int64_t> concurrency;
  std::optional<std::int64_t> testing_timeout_minutes;
  std::optional<OpenEnum<QueueMode>> mode;
  std::optional<bool> can_optimistically_merge;
  std::optional<std::int64_t> pending_failure_depth;
  std::optional<bool> batch;
  std::optional<std::int64_t> batching_max_wait_time_minutes;
  std::optional<std::int64_t> batching_min_size;
  std::optional<bool> create_prs_for_testing_branches;
  std::optional<bool> comments_enabled;
  std::optional<bool> commands_enabled;
  std::optional<bool> status_check_enabled;
  std::optional<std::int64_t> bisection_concurrency;
  std::optional<std::vector<std::string>> required_statuses;
  std::optional<OpenEnum<DirectMergeMode>> direct_merge_mode;
  std::optional<OpenEnum<OptimizationMode>> optimization_mode;
  std::optional<OpenEnum<MergeMethod>> merge_method;
  Extras extra;

  bool operator==(const QueueSettings&) const = default;
};

}  // namespace trunk
