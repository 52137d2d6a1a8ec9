// Service's set statuses (Sandbox::set_test_status): a health set as a detection monitor would, kept per test and
// applied to every answer that shows the test (details, the unhealthy listings, quarantined tests), and handed to v2
// through the TestLedger.
#include "identifiers.hpp"
#include "service.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

std::optional<Service::StatusOverride> Service::status_override(const std::string& test_id) const {
  if (!any_status_set_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(status_mutex_);
  const auto found = status_overrides_.find(lower(test_id));
  if (found == status_overrides_.end()) return std::nullopt;
  return found->second;
}

std::optional<Service::ShownStatus> Service::shown_status(const RepoIndex& repo, std::uint32_t t,
                                                          const std::optional<StatusOverride>& set,
                                                          const TestMutes& mutes) const {
  if (!mutes.empty()) {
    const Health unmuted = set ? set->health : repo.facts[t].health;
    const ShownHealth shown = shown_health(unmuted, test_collection_id(repo.data->repo.to_string()), mutes, clock_());
    if (shown.muted_by) return ShownStatus{shown.health, shown.muted_by->since, kMutedReason, true};
  }
  if (set) return ShownStatus{set->health, set->since, kSetStatusReason};
  return std::nullopt;
}

DerivedFacts Service::effective_facts(const RepoIndex& repo, std::uint32_t t) const {
  DerivedFacts facts = repo.facts[t];
  const std::string& id = repo.data->tests[t].id;
  if (const auto shown = shown_status(repo, t, status_override(id), mutes_of(id))) {
    facts.health = shown->health;
    facts.reason = std::string(shown->reason);
    facts.status_since = shown->since;
  }
  return facts;
}

std::vector<std::uint32_t> Service::unhealthy_rows(const RepoIndex& repo, Health health) const {
  std::map<std::string, StatusOverride> overrides;
  {
    std::lock_guard lock(status_mutex_);  // once per listing, not once per test
    overrides = status_overrides_;
  }
  const std::map<std::string, TestMutes> mutes = all_mutes();
  std::vector<std::uint32_t> rows;
  for (std::uint32_t t = 0; t < repo.facts.size(); ++t) {
    Health shown = repo.facts[t].health;
    if (!overrides.empty() || !mutes.empty()) {
      const std::string key = lower(repo.data->tests[t].id);
      const auto set = overrides.find(key);
      const auto muted = mutes.find(key);
      const auto status = shown_status(repo, t, set == overrides.end() ? std::nullopt : std::optional(set->second),
                                       muted == mutes.end() ? TestMutes{} : muted->second);
      if (status) shown = status->health;
    }
    if (shown == health) rows.push_back(t);
  }
  return rows;
}

std::optional<Service::StatusChange> Service::set_test_status(const std::string& test_id, Health health,
                                                              trunk::Timestamp at) {
  for (const RepoIndex& repo : index_) {
    const auto found = repo.by_id.find(lower(test_id));
    if (found == repo.by_id.end()) continue;
    const Health previous = effective_facts(repo, found->second).health;
    if (previous == health) return std::nullopt;
    {
      std::lock_guard lock(status_mutex_);
      status_overrides_[lower(test_id)] = StatusOverride{health, at};
    }
    any_status_set_.store(true, std::memory_order_release);
    const TestRecord& test = repo.data->tests[found->second];
    return StatusChange{repo.data, &test, previous, effective_facts(repo, found->second),
                        is_quarantined(test, quarantine_override_of(test.id))};
  }
  throw trunk::ValidationError({{"test_id", "\"" + test_id + "\"", "must be the id of a test of this sandbox"}});
}

}  // namespace trunk::sandbox
