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
    /// Every setting as stored (state never switching_modes; required_statuses is computed by settings_of).
    trunk::QueueSettings settings;
    std::optional<std::vector<std::string>> manual_required_statuses;  ///< nullopt = from branch protection
    std::chrono::steady_clock::time_point switching_until{};
  };
  /// A queue never configured.
  static Queue default_queue();
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
