// Service's quarantine overrides (quarantine_override.hpp): kept per test, applied to v1's answers (the quarantined
// listing, each test's `quarantined`) and handed to v2 through the TestLedger, so both versions agree.
#include "identifiers.hpp"
#include "service.hpp"

namespace trunk::sandbox {

TestLedger::QuarantineChange Service::set_quarantine_override(const std::string& test_id,
                                                              std::optional<QuarantineOverride> override) {
  const std::string key = lower(test_id);
  std::lock_guard lock(quarantine_mutex_);
  QuarantineChange change;
  if (const auto found = quarantine_overrides_.find(key); found != quarantine_overrides_.end()) {
    change.before = found->second;
  }
  // Idempotent by state: the same mode again keeps the override as it was (its reason and time too).
  const bool same = change.before && override ? change.before->always == override->always : !change.before && !override;
  if (same) return change;
  if (override) {
    quarantine_overrides_[key] = std::move(*override);
  } else {
    quarantine_overrides_.erase(key);
  }
  any_quarantine_set_.store(true, std::memory_order_release);
  change.changed = true;
  return change;
}

std::optional<QuarantineOverride> Service::quarantine_override_of(const std::string& test_id) const {
  if (!any_quarantine_set_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(quarantine_mutex_);
  const auto found = quarantine_overrides_.find(lower(test_id));
  if (found == quarantine_overrides_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::uint32_t> Service::quarantined_rows(const RepoIndex& repo) const {
  if (!any_quarantine_set_.load(std::memory_order_acquire)) return repo.quarantined;
  std::map<std::string, QuarantineOverride> overrides;
  {
    std::lock_guard lock(quarantine_mutex_);
    overrides = quarantine_overrides_;
  }
  std::vector<std::uint32_t> rows;
  const auto& tests = repo.data->tests;
  for (std::uint32_t t = 0; t < tests.size(); ++t) {
    const auto found = overrides.find(tests[t].id);  // the history's ids are lower case
    if (is_quarantined(tests[t], found == overrides.end() ? std::nullopt : std::optional(found->second))) {
      rows.push_back(t);
    }
  }
  return rows;
}

std::optional<Service::QuarantineSettingChange> Service::set_quarantine(const std::string& test_id,
                                                                       std::optional<QuarantineOverride> override) {
  for (const RepoIndex& repo : index_) {
    const auto found = repo.by_id.find(lower(test_id));
    if (found == repo.by_id.end()) continue;
    const TestRecord& test = repo.data->tests[found->second];
    const auto change = set_quarantine_override(test.id, override);
    if (!change.changed) return std::nullopt;
    return QuarantineSettingChange{repo.data, &test, effective_facts(repo, found->second), change.before,
                                   std::move(override)};
  }
  throw trunk::ValidationError({{"test_id", "\"" + test_id + "\"", "must be the id of a test of this sandbox"}});
}

}  // namespace trunk::sandbox
