// The sandbox's monitors in v2 (docs/sandbox.md#monitors): a monitor's tests, and muting it for one test. The
// monitors and the rules of a mute are monitor_mutes.hpp's; the mutes are kept by Service (the TestLedger), which
// applies them to both versions' answers and tells the Sandbox of a status a mute changed (the webhook).
#include <algorithm>
#include <chrono>

#include "monitor_mutes.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

/// Where a monitor stands on a test at `now`: muted while a mute of it is in force, else active.
trunk::MonitorTest monitor_test_of(const std::string& monitor_id, const std::string& test_id, const TestMutes& mutes,
                                   trunk::Timestamp now) {
  trunk::MonitorTest out;
  out.monitor_id = monitor_id;
  out.test_id = test_id;
  const MonitorMute* mute = mute_in_force(mutes, monitor_id, now);
  out.state = mute ? trunk::MonitorTestState::muted : trunk::MonitorTestState::active;
  out.is_muted = mute != nullptr;
  if (mute) out.muted_until = mute->until;  // absent (null on the wire): no end
  return out;
}

/// Whether the monitor holds the test at `now`: it classifies the test's status without mutes, or a mute of it is
/// in force (a mute outlives the detection it silenced).
bool holds(const SandboxMonitor& monitor, const std::string& collection_id, const TestLedger::Entry& entry,
           trunk::Timestamp now) {
  const auto classifying = classifying_monitor(collection_id, entry.unmuted_health());
  if (classifying && classifying->id == monitor.id) return true;
  return mute_in_force(entry.mutes, monitor.id, now) != nullptr;
}

}  // namespace

std::optional<V2Service::MonitorKey> V2Service::find_monitor(const std::string& id) const {
  for (const trunk::Repo& repo : repos_) {
    const std::string collection = test_collection_id(repo.to_string());
    for (SandboxMonitor& monitor : collection_monitors(collection)) {
      if (monitor.id == id) return MonitorKey{std::move(monitor), collection, repo.to_string()};
    }
  }
  return std::nullopt;
}

template <>
Reply V2Service::answer<trunk::op::ListMonitorTests>(const trunk::ListMonitorTestsRequest& request) {
  const auto monitor = find_monitor(request.monitor_id);
  if (!monitor) return v2_error(404, "MONITOR_NOT_FOUND", "no monitor has the id " + request.monitor_id);
  const trunk::Timestamp now = tests_.clock_now();
  std::vector<trunk::MonitorTest> rows;
  tests_.for_each_test([&](const TestLedger::Entry& entry) {
    if (entry.repo->repo.to_string() != monitor->repo_key) return;
    if (!holds(monitor->monitor, monitor->collection_id, entry, now)) return;
    trunk::MonitorTest row = monitor_test_of(monitor->monitor.id, entry.test->id, entry.mutes, now);
    const bool muted = row.state == trunk::MonitorTestState::muted;
    if (request.state && (*request.state == trunk::MonitorTestState::muted) != muted) return;
    if (request.is_muted && *request.is_muted != muted) return;
    rows.push_back(std::move(row));
  });
  // "Ordered by test": by the test's id.
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return *a.test_id < *b.test_id; });
  return v2::page_reply(v2::page_of<trunk::MonitorTestList>(std::move(rows), request,
                                                            v2::filter_of("monitor tests", request)));
}

template <>
Reply V2Service::answer<trunk::op::MuteMonitorForTest>(const trunk::MuteMonitorForTestRequest& request) {
  const auto monitor = find_monitor(request.monitor_id);
  if (!monitor) return v2_error(404, "MONITOR_NOT_FOUND", "no monitor has the id " + request.monitor_id);
  const auto entry = tests_.find_test(request.test_id);
  if (!entry || entry->repo->repo.to_string() != monitor->repo_key) {
    return v2_error(404, "TEST_NOT_FOUND", "no test of the monitor's collection has the id " + request.test_id);
  }
  const trunk::Timestamp now = tests_.clock_now();
  if (request.mute_until &&
      (*request.mute_until <= now || *request.mute_until > now + std::chrono::hours(24 * trunk::kMaxMuteDays))) {
    return v2_error(400, "VALIDATION_FAILED",
                    "muteUntil: \"" + trunk::format_rfc3339(*request.mute_until) +
                        "\" must be in the future and at most 30 days away (now " + trunk::format_rfc3339(now) + ")");
  }
  // A mute in force is kept as it is (idempotent by state); else the monitor must be active on the test.
  if (!mute_in_force(entry->mutes, monitor->monitor.id, now)) {
    const auto classifying = classifying_monitor(monitor->collection_id, entry->unmuted_health());
    if (!classifying || classifying->id != monitor->monitor.id) {
      return v2_error(409, "MONITOR_NOT_ACTIVE", "the monitor " + monitor->monitor.id + " is not active on the test " +
                                                     entry->test->id);
    }
    tests_.mute_monitor(entry->test->id, monitor->monitor.id, MonitorMute{now, request.mute_until, request.reason});
  }
  return json_reply(v2::answer_json(
      monitor_test_of(monitor->monitor.id, entry->test->id, tests_.find_test(entry->test->id)->mutes, now)));
}

}  // namespace trunk::sandbox
