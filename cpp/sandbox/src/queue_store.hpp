#pragma once
// Merge queue settings per (repository, target branch), as updateQueue changes them.
//
// Semantics (service-facts.md decisions):
//  - a queue never configured starts from the defaults of Queue below; omitted request fields leave a setting
//    unchanged;
//  - requiredStatuses: [...] sets a manual list (possibly empty); deleteRequiredStatuses: true drops the
//    manual list, after which the statuses come from branch protection (kBranchProtectionStatuses here);
//  - a change of mode reports switching_modes for `switching_duration`, then the requested state. The clock
//    is injectable so the state machine can be tested without sleeping.
//  - with a state file, every change is written atomically before the answer is sent; load() reads it back.
//    An ongoing switch is not persisted: after a restart the switch is complete.

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trunk/enums.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/requests.hpp"

namespace trunk::sandbox {

inline const std::vector<std::string> kBranchProtectionStatuses = {"ci/build", "ci/test"};

class QueueStore {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  QueueStore(std::string state_file, std::chrono::milliseconds switching_duration, Clock clock = {});

  /// Reads the state file when there is one and it exists; throws trunk::Error naming the file and problem.
  void load();
  /// Applies a validated request and returns the settings after it (persisted first when there is a file).
  trunk::QueueSettings update(const trunk::UpdateQueueRequest& request);
  /// Current settings of a queue (defaults when never configured).
  trunk::QueueSettings get(const trunk::Repo& repo, const std::string& branch) const;

 private:
  struct Queue {
    trunk::QueueState state = trunk::QueueState::running;
    trunk::QueueMode mode = trunk::QueueMode::single;
    std::int64_t concurrency = 1;
    std::int64_t bisection_concurrency = 1;
    std::int64_t testing_timeout_minutes = 240;
    std::int64_t pending_failure_depth = 1;
    bool can_optimistically_merge = false;
    bool batch = false;
    std::int64_t batching_max_wait_time_minutes = 5;
    std::int64_t batching_min_size = 1;
    bool comments_enabled = true;
    bool commands_enabled = true;
    bool create_prs_for_testing_branches = true;
    bool status_check_enabled = true;
    trunk::DirectMergeMode direct_merge_mode = trunk::DirectMergeMode::off;
    trunk::OptimizationMode optimization_mode = trunk::OptimizationMode::off;
    trunk::MergeMethod merge_method = trunk::MergeMethod::squash;
    std::optional<std::vector<std::string>> manual_required_statuses;  ///< nullopt = from branch protection
    std::chrono::steady_clock::time_point switching_until{};
  };
  using Key = std::pair<std::string, std::string>;  // ("host/owner/name", branch)

  trunk::QueueSettings settings_of(const Queue& queue, const std::string& branch) const;
  void persist() const;  // caller holds mutex_

  std::string state_file_;
  std::chrono::milliseconds switching_duration_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::map<Key, Queue> queues_;
};

}  // namespace trunk::sandbox
