// Service's monitor mutes (monitor_mutes.hpp): kept per test, applied to v1's answers (a test's status, the
// listings of flaky and broken tests) and handed to v2 through the TestLedger, so both versions agree.
#include "identifiers.hpp"
#include "service.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

TestMutes Service::mutes_of(const std::string& test_id) const {
  if (!any_mute_set_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mutes_mutex_);
  const auto found = mutes_.find(lower(test_id));
  return found == mutes_.end() ? TestMutes{} : found->second;
}

std::map<std::string, TestMutes> Service::all_mutes() const {
  if (!any_mute_set_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mutes_mutex_);
  return mutes_;
}

TestLedger::MuteChange Service::mute_monitor(const std::string& test_id, const std::string& monitor_id,
                                             MonitorMute mute) {
  for (const RepoIndex& repo : index_) {
    const auto found = repo.by_id.find(lower(test_id));
    if (found == repo.by_id.end()) continue;
    const TestRecord& test = repo.data->tests[found->second];
    const DerivedFacts before = effective_facts(repo, found->second);
    MuteChange change;
    {
      std::lock_guard lock(mutes_mutex_);
      TestMutes& mutes = mutes_[test.id];  // the history's ids are lower case
      // Idempotent by state: a mute in force is kept, its end and reason too.
      if (const MonitorMute* held = mute_in_force(mutes, monitor_id, mute.since)) return {*held, false};
      mutes[monitor_id] = mute;
      change = {std::move(mute), true};
    }
    any_mute_set_.store(true, std::memory_order_release);
    const DerivedFacts after = effective_facts(repo, found->second);
    if (after.health != before.health && mute_listener_) {
      const std::string collection = test_collection_id(repo.data->repo.to_string());
      for (const SandboxMonitor& monitor : collection_monitors(collection)) {
        if (monitor.id != monitor_id) continue;
        mute_listener_(MuteStatusChange{
            StatusChange{repo.data, &test, before.health, after, is_quarantined(test, quarantine_override_of(test.id))},
            monitor, change.mute.since});
      }
    }
    return change;
  }
  throw trunk::ValidationError({{"test_id", "\"" + test_id + "\"", "must be the id of a test of this sandbox"}});
}

}  // namespace trunk::sandbox
