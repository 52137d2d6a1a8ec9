// Service as the TestLedger v2's tests read (test_ledger.hpp): the same tests, set statuses, tickets, quarantine
// overrides and monitor mutes that v1's answers show.
#include "identifiers.hpp"
#include "service.hpp"

namespace trunk::sandbox {

std::optional<TestLedger::Entry> Service::find_test(std::string_view id) const {
  const std::string key = lower(std::string(id));
  for (const RepoIndex& repo : index_) {
    const auto found = repo.by_id.find(key);
    if (found == repo.by_id.end()) continue;
    Entry entry(repo.data, &repo.data->tests[found->second], &repo.facts[found->second]);
    const auto set = status_override(key);
    if (set) {
      entry.set_health = set->health;
      entry.set_at = set->since;
    }
    entry.mutes = mutes_of(key);
    if (const auto shown = shown_status(repo, found->second, set, entry.mutes); shown && shown->muted) {
      entry.muted_since = shown->since;
    }
    if (any_ticket_linked_.load(std::memory_order_acquire)) {
      std::lock_guard lock(tickets_mutex_);
      if (const auto linked = tickets_.find(key); linked != tickets_.end()) entry.ticket = linked->second;
    }
    entry.quarantine_override = quarantine_override_of(key);
    return entry;
  }
  return std::nullopt;
}

void Service::for_each_test(const std::function<void(const Entry&)>& f) const {
  // The changes are copied once per walk, not looked up once per test under the locks.
  std::map<std::string, StatusOverride> statuses;
  std::map<std::string, std::string> tickets;
  std::map<std::string, QuarantineOverride> quarantines;
  if (any_quarantine_set_.load(std::memory_order_acquire)) {
    std::lock_guard lock(quarantine_mutex_);
    quarantines = quarantine_overrides_;
  }
  if (any_status_set_.load(std::memory_order_acquire)) {
    std::lock_guard lock(status_mutex_);
    statuses = status_overrides_;
  }
  if (any_ticket_linked_.load(std::memory_order_acquire)) {
    std::lock_guard lock(tickets_mutex_);
    tickets = tickets_;
  }
  const std::map<std::string, TestMutes> mutes = all_mutes();
  for (const RepoIndex& repo : index_) {
    for (std::uint32_t t = 0; t < repo.facts.size(); ++t) {
      Entry entry(repo.data, &repo.data->tests[t], &repo.facts[t]);
      if (!statuses.empty() || !tickets.empty() || !quarantines.empty() || !mutes.empty()) {
        const std::string key = lower(repo.data->tests[t].id);
        std::optional<StatusOverride> set;
        if (const auto found = statuses.find(key); found != statuses.end()) {
          set = found->second;
          entry.set_health = set->health;
          entry.set_at = set->since;
        }
        if (const auto linked = tickets.find(key); linked != tickets.end()) entry.ticket = linked->second;
        if (const auto found = quarantines.find(key); found != quarantines.end()) entry.quarantine_override = found->second;
        if (const auto found = mutes.find(key); found != mutes.end()) {
          entry.mutes = found->second;
          if (const auto shown = shown_status(repo, t, set, entry.mutes); shown && shown->muted) {
            entry.muted_since = shown->since;
          }
        }
      }
      f(entry);
    }
  }
}

std::string Service::test_url(const Entry& entry) const {
  return test_html_url(*entry.repo, *entry.test, org_url_slug_);
}

void Service::link_ticket(const std::string& test_id, const std::string& external_ticket_id) {
  // Shown from now on as the test's `ticket` (served_test_json; v2's Ticket); a later link replaces an earlier one.
  std::lock_guard lock(tickets_mutex_);
  tickets_[lower(test_id)] = external_ticket_id;
  any_ticket_linked_.store(true, std::memory_order_release);
}

std::string Service::ticket_url(const std::string& external_ticket_id) const {
  // The address of an external ticket in the sandbox's issue tracker (the service links to the organization's own
  // tracker, which the sandbox does not have). An address given as the ticket is its own.
  if (external_ticket_id.starts_with("https://") || external_ticket_id.starts_with("http://")) {
    return external_ticket_id;
  }
  return "https://" + org_url_slug_ + ".atlassian.net/browse/" + external_ticket_id;
}

}  // namespace trunk::sandbox
