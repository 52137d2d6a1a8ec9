#pragma once
// The flaky-test state both API versions read (docs/sandbox.md#flaky-tests-in-v2): the tests of the history with
// what was changed since (a status set by set_test_status, a linked ticket, a quarantine override). Service owns it and answers v1 from it;
// V2Service reads it through this interface, so a test reads the same through either version at any moment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "history.hpp"
#include "quarantine_override.hpp"

namespace trunk::sandbox {

class TestLedger {
 public:
  /// One test now: its history, its derived facts, and what was set on it since.
  struct Entry {
    const RepoHistory* repo = nullptr;
    const TestRecord* test = nullptr;
    const DerivedFacts* derived = nullptr;    ///< from its runs at the history's now
    std::optional<Health> set_health;         ///< set by set_test_status ...
    std::optional<trunk::Timestamp> set_at;   ///< ... at this moment
    std::optional<std::string> ticket;        ///< the external id of the ticket linked to it
    std::optional<QuarantineOverride> quarantine_override;

    Health health() const noexcept { return set_health.value_or(derived->health); }
    bool quarantined() const noexcept { return is_quarantined(*test, quarantine_override); }
  };

  virtual ~TestLedger() = default;
  /// The moment the history describes (its runs are all before it).
  virtual trunk::Timestamp tests_now() const = 0;
  /// The test with this id (any case); nullopt for none.
  virtual std::optional<Entry> find_test(std::string_view id) const = 0;
  /// Calls f for every test of every repository, in the listings' order.
  virtual void for_each_test(const std::function<void(const Entry&)>& f) const = 0;
  /// The test's page in Trunk's web app (v1's html_url).
  virtual std::string test_url(const Entry& entry) const = 0;
  /// Links a ticket to a test, replacing any (what v1's link-ticket-to-test-case does). The test must exist.
  virtual void link_ticket(const std::string& test_id, const std::string& external_ticket_id) = 0;
  /// Sets a test's quarantine override, or clears it (nullopt); the override it had before. Setting the mode it
  /// already has changes nothing, its reason and time included (Trunk's overrides are idempotent by state). The
  /// test must exist.
  struct QuarantineChange {
    std::optional<QuarantineOverride> before;
    bool changed = false;
  };
  virtual QuarantineChange set_quarantine_override(const std::string& test_id,
                                                   std::optional<QuarantineOverride> override) = 0;
  /// The address of a ticket's page in the sandbox's tracker (what v1 shows as ticket.html_url).
  virtual std::string ticket_url(const std::string& external_ticket_id) const = 0;
};

}  // namespace trunk::sandbox
