#pragma once
// The sandbox's monitors and their mutes (docs/sandbox.md#monitors). Each collection has two monitors that
// classify: failureCount (a streak of failures: broken) and failureRate (failures among passes: flaky); the one of a
// test's status is active on it. Muting that monitor for the test (v2's POST /v2/monitors/{monitorId}/tests/{testId}/
// mute) stops it from counting toward the test's status, which is then healthy until the mute ends. Pure rules:
// Service applies them to v1's answers and hands the mutes to v2 (TestLedger), so both versions agree.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "history.hpp"
#include "test_timeline.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk::sandbox {

/// One monitor muted for one test.
struct MonitorMute {
  trunk::Timestamp since;                 ///< when it was muted
  std::optional<trunk::Timestamp> until;  ///< when the mute ends; none: no end
  std::optional<std::string> reason;      ///< as its author gave it

  bool in_force(trunk::Timestamp now) const noexcept { return since <= now && (!until || now < *until); }
};

/// A test's mutes, by monitor id (the latest of each monitor: a mute that ended is replaced by the next one).
using TestMutes = std::map<std::string, MonitorMute>;

/// The mute of `monitor_id` in force at `now` among a test's mutes; nullptr for none.
inline const MonitorMute* mute_in_force(const TestMutes& mutes, const std::string& monitor_id, trunk::Timestamp now) {
  const auto found = mutes.find(monitor_id);
  return found != mutes.end() && found->second.in_force(now) ? &found->second : nullptr;
}

/// A monitor of the sandbox: its id and type.
struct SandboxMonitor {
  std::string id;
  trunk::MonitorType type = trunk::MonitorType::failure_rate;
};

/// The collection's monitor that classifies a test in this status (none while healthy): failureCount for broken,
/// failureRate for flaky.
std::optional<SandboxMonitor> classifying_monitor(const std::string& collection_id, Health health);
/// Both monitors of a collection (failureCount, failureRate), for finding one by its id.
std::vector<SandboxMonitor> collection_monitors(const std::string& collection_id);

/// The status a test shows at `now`: `unmuted` (its runs', or one set since) unless the monitor that classifies
/// it has a mute in force, which makes it healthy. The mute that does so, if any.
struct ShownHealth {
  Health health = Health::healthy;
  const MonitorMute* muted_by = nullptr;
};
ShownHealth shown_health(Health unmuted, const std::string& collection_id, const TestMutes& mutes,
                         trunk::Timestamp now);

/// A test's status changes with its mutes applied, oldest first: `unmuted` (its status changes without mutes,
/// oldest first) evaluated again at every moment a mute began or ended up to `now_us`, keeping only the moments the
/// shown status changed. A test starts healthy.
std::vector<StatusChange> apply_mutes(const std::vector<StatusChange>& unmuted, const std::string& collection_id,
                                      const TestMutes& mutes, std::int64_t now_us);

}  // namespace trunk::sandbox
