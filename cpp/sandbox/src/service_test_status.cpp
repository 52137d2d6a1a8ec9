// Service's set statuses (Sandbox::set_test_status): a health set as a detection monitor would, kept per test and
// applied to every answer that shows the test (details, the unhealthy listings, quarantined tests), and handed to v2
// through the TestLedger.
#include "identifiers.hpp"
#include "service.hpp"
#include "trunk/error.hpp"

namespace trunk::sandbox {

std::optional<Service::StatusOverride> Service::status_override(const std::string& test_id) const {
  if (!any_status_set_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(status_mutex_);
  const auto found = status_overrides_.find(lower(test_id));
  if (found == status_overrides_.end()) return std::nullopt;
  return found->second;
}

DerivedFacts Service::effective_facts(const RepoIndex& repo, std::uint32_t t) const {
  DerivedFacts facts = repo.facts[t];
  if (const auto status = status_override(repo.data->tests[t].id)) {
    facts.health = status->health;
    facts.reason = std::string(kSetStatusReason);
    facts.status_since = status->since;
  }
  return facts;
}

std::vector<std::uint32_t> Service::unhealthy_rows(const RepoIndex& repo, Health health) const {
  std::map<std::string, StatusOverride> overrides;
  {
    std::lock_guard lock(status_mutex_);  // once per listing, not once per test
    overrides = status_overrides_;
  }
  std::vector<std::uint32_t> rows;
  for (std::uint32_t t = 0; t < repo.facts.size(); ++t) {
    const auto set = overrides.find(lower(repo.data->tests[t].id));
    if ((set == overrides.end() ? repo.facts[t].health : set->second.health) == health) rows.push_back(t);
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
