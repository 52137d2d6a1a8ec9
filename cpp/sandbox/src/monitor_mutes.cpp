#include "monitor_mutes.hpp"

#include <algorithm>

#include "trunk/enums.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

SandboxMonitor monitor_of(const std::string& collection_id, trunk::MonitorType type) {
  return {short_id_of("monitor\n" + collection_id + "\n" + std::string(trunk::to_wire(type))), type};
}

/// The status `unmuted` gives at `at_us`: the last change at or before it (healthy before the first).
Health unmuted_at(const std::vector<StatusChange>& unmuted, std::int64_t at_us) {
  Health health = Health::healthy;
  for (const StatusChange& change : unmuted) {
    if (change.at_us > at_us) break;
    health = change.to;
  }
  return health;
}

}  // namespace

std::optional<SandboxMonitor> classifying_monitor(const std::string& collection_id, Health health) {
  if (health == Health::healthy) return std::nullopt;
  return monitor_of(collection_id,
                    health == Health::broken ? trunk::MonitorType::failure_count : trunk::MonitorType::failure_rate);
}

std::vector<SandboxMonitor> collection_monitors(const std::string& collection_id) {
  return {monitor_of(collection_id, trunk::MonitorType::failure_count),
          monitor_of(collection_id, trunk::MonitorType::failure_rate)};
}

ShownHealth shown_health(Health unmuted, const std::string& collection_id, const TestMutes& mutes,
                         trunk::Timestamp now) {
  if (mutes.empty()) return {unmuted, nullptr};
  const auto monitor = classifying_monitor(collection_id, unmuted);
  if (!monitor) return {unmuted, nullptr};
  const MonitorMute* mute = mute_in_force(mutes, monitor->id, now);
  return mute ? ShownHealth{Health::healthy, mute} : ShownHealth{unmuted, nullptr};
}

std::vector<StatusChange> apply_mutes(const std::vector<StatusChange>& unmuted, const std::string& collection_id,
                                      const TestMutes& mutes, std::int64_t now_us) {
  if (mutes.empty()) return unmuted;
  // The shown status can change only where the unmuted one does or a mute begins or ends.
  std::vector<std::int64_t> moments;
  for (const StatusChange& change : unmuted) moments.push_back(change.at_us);
  for (const auto& [monitor, mute] : mutes) {
    moments.push_back(to_micros(mute.since));
    if (mute.until) moments.push_back(to_micros(*mute.until));
  }
  std::sort(moments.begin(), moments.end());
  moments.erase(std::unique(moments.begin(), moments.end()), moments.end());
  std::vector<StatusChange> shown;
  Health before = Health::healthy;
  for (const std::int64_t at_us : moments) {
    if (at_us > now_us) break;
    const Health now = shown_health(unmuted_at(unmuted, at_us), collection_id, mutes, from_micros(at_us)).health;
    if (now != before) shown.push_back({at_us, before, now});
    before = now;
  }
  return shown;
}

}  // namespace trunk::sandbox
