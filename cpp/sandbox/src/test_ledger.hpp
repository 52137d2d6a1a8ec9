#pragma once
// The flaky-test state both API versions read (docs/sandbox.md#flaky-tests-in-v2): the tests of the history with
// what was changed since (a status set by set_test_status, a linked ticket, a quarantine override, a monitor muted
// for it). Service owns it and answers v1 from it;
// V2Service reads it through this interface, so a test reads the same through either version at any moment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "history.hpp"
#include "monitor_mutes.hpp"
#include "quarantine_override.hpp"

namespace trunk::sandbox {

class TestLedger {
 public:
  /// One test now: its history, its derived facts, and what was set on it since.
  struct Entry {
    Entry(const RepoHistory* repo_history, const TestRecord* record, const DerivedFacts* facts)
        : repo(repo_history), test(record), derived(facts) {}

    const RepoHistory* repo = nullptr;
    const TestRecord* test = nullptr;
    const DerivedFacts* derived = nullptr;    ///< from its runs at the history's now
    std::optional<Health> set_health;         ///< set by set_test_status ...
    std::optional<trunk::Timestamp> set_at;   ///< ... at this moment
    std::optional<std::string> ticket;        ///< the external id of the ticket linked to it
    std::optional<QuarantineOverride> quarantine_override;
    TestMutes mutes;                              ///< the monitors muted for it, in force or ended
    std::optional<trunk::Timestamp> muted_since;  ///< a mute in force makes it healthy: since when

    /// Its status without mutes: its runs', or the one set since.
    Health unmuted_health() const noexcept { return set_health.value_or(derived->health); }
    /// Its status as both versions show it now.
    Health health() const noexcept { return muted_since ? Health::healthy : unmuted_health(); }
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
  /// Mutes a monitor for a test (the test must exist), unless a mute of that monitor is in force for it already,
  /// which is kept as it is (Trunk's mutes are idempotent by state). The caller checks that the monitor is active on
  /// the test. A change of the status the test shows sends v2.test_case.status_changed (Service::on_mute_status_change).
  struct MuteChange {
    MonitorMute mute;  ///< the mute in force after the call
    bool changed = false;
  };
  virtual MuteChange mute_monitor(const std::string& test_id, const std::string& monitor_id, MonitorMute mute) = 0;
  /// The sandbox's clock (mutes begin and end by it).
  virtual trunk::Timestamp clock_now() const = 0;
  /// The address of a ticket's page in the sandbox's tracker (what v1 shows as ticket.html_url).
  virtual std::string ticket_url(const std::string& external_ticket_id) const = 0;
};

}  // namespace trunk::sandbox
