// v2's monitors against the sandbox, through the C++ client (docs/reference/v2.md#monitors): a monitor's tests,
// muting it for one test, and what a mute changes: the test's status in both versions, its status history, the
// v2.test_case.status_changed webhook, until the mute ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <tuple>

#include "monitor_mutes.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "trunk/webhook_signature.hpp"
#include "v2_fixture.hpp"
#include "webhook_receiver.hpp"

namespace sandbox_test {
namespace {

using namespace std::chrono_literals;
using trunk::MonitorTestState;
using trunk::TestHealth;

class MonitorsV2 : public V2Fixture {
 protected:
  trunk::sandbox::SandboxOptions sandbox_options() const override {
    auto options = V2Fixture::sandbox_options();
    options.tests = 120;
    return options;
  }

  /// A test of the first repository in this status, and the monitor active on it.
  std::pair<std::string, std::string> test_and_monitor(TestHealth status) {
    trunk::ListTestCasesRequest request;
    request.test_collection_id = trunk::sandbox::test_collection_id(repo().to_string());
    request.status = std::vector<TestHealth>{status};
    request.limit = 1;
    const auto page = client_->list_test_cases(request);
    if (page.data.empty()) return {};
    const std::string id = *page.data.front().id;
    const auto test = get(id);
    return {id, test.active_monitors.empty() ? std::string() : *test.active_monitors.front().monitor_id};
  }

  trunk::TestCaseV2 get(const std::string& id) {
    trunk::GetTestCaseRequest request;
    request.test_id = id;
    return client_->get_test_case(request);
  }

  trunk::MonitorTest mute(const std::string& monitor, const std::string& test,
                          std::optional<trunk::Timestamp> until = std::nullopt,
                          std::optional<std::string> reason = std::nullopt) {
    trunk::MuteMonitorForTestRequest request;
    request.monitor_id = monitor;
    request.test_id = test;
    request.mute_until = until;
    request.reason = std::move(reason);
    return client_->mute_monitor_for_test(request);
  }

  std::vector<trunk::MonitorTest> held(const std::string& monitor, std::optional<MonitorTestState> state = {},
                                       std::optional<bool> is_muted = {}) {
    trunk::ListMonitorTestsRequest request;
    request.monitor_id = monitor;
    request.state = state;
    request.is_muted = is_muted;
    request.limit = 7;  // several pages
    std::vector<trunk::MonitorTest> out;
    for (const auto& row : client_->pager<trunk::op::ListMonitorTests>(request)) out.push_back(row);
    return out;
  }

  static const trunk::MonitorTest* row_of(const std::vector<trunk::MonitorTest>& rows, const std::string& test) {
    const auto found = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return *row.test_id == test; });
    return found == rows.end() ? nullptr : &*found;
  }

  std::set<std::string> v1_flaky() { return v1_unhealthy(repo(), trunk::HealthStatus::flaky); }

  std::vector<trunk::StatusHistoryEntry> history(const std::string& id) {
    trunk::TestStatusHistoryRequest request;
    request.test_id = id;
    std::vector<trunk::StatusHistoryEntry> out;
    for (const auto& row : client_->pager<trunk::op::ListTestStatusHistory>(request)) out.push_back(row);
    return out;  // newest first
  }
};

TEST_F(MonitorsV2, MutingTheMonitorOfAFlakyTestMakesItHealthyInBothVersionsUntilTheMuteEnds) {
  std::string test, monitor;  // not a structured binding: clang 14 cannot capture one in a lambda
  std::tie(test, monitor) = test_and_monitor(TestHealth::flaky);
  ASSERT_FALSE(test.empty());
  ASSERT_FALSE(monitor.empty());
  EXPECT_EQ(get(test).active_monitors.front().monitor_type, trunk::MonitorType::failure_rate);
  const auto before = held(monitor);
  const auto* listed = row_of(before, test);
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ(listed->state, MonitorTestState::active);
  EXPECT_EQ(listed->is_muted, false);
  EXPECT_FALSE(listed->muted_until.has_value());
  EXPECT_TRUE(std::is_sorted(before.begin(), before.end(),
                             [](const auto& a, const auto& b) { return *a.test_id < *b.test_id; }));
  for (const auto& row : before) EXPECT_EQ(get(*row.test_id).status, TestHealth::flaky) << *row.test_id;
  const std::size_t history_before = history(test).size();
  ASSERT_TRUE(v1_flaky().contains(test));

  const trunk::Timestamp now = sandbox_->clock_now();
  const trunk::Timestamp until = now + 48h;
  const auto muted = mute(monitor, test, until, "known flake; TRUNK-1234");
  EXPECT_EQ(muted.monitor_id, monitor);
  EXPECT_EQ(muted.test_id, test);
  EXPECT_EQ(muted.state, MonitorTestState::muted);
  EXPECT_EQ(muted.is_muted, true);
  EXPECT_EQ(muted.muted_until, until);

  // Healthy in both versions, the monitor no longer active on it, and the change in its history.
  const auto shown = get(test);
  EXPECT_EQ(shown.status, TestHealth::healthy);
  EXPECT_TRUE(shown.active_monitors.empty());
  EXPECT_FALSE(v1_flaky().contains(test));
  const auto v1 = v1_details(test);
  EXPECT_EQ(v1.status->value, trunk::TestHealth::healthy);
  EXPECT_EQ(v1.status->reason, std::string(trunk::sandbox::kMutedReason));
  EXPECT_EQ(v1.status->timestamp, now);
  const auto changes = history(test);
  ASSERT_EQ(changes.size(), history_before + 1);
  EXPECT_EQ(changes.front().from_status, TestHealth::flaky);
  EXPECT_EQ(changes.front().to_status, TestHealth::healthy);
  EXPECT_EQ(changes.front().started_at, now);
  EXPECT_TRUE(changes.front().active_monitors.empty());

  // The monitor still holds the test, muted; the filters say the same thing two ways.
  ASSERT_NE(row_of(held(monitor, MonitorTestState::muted), test), nullptr);
  ASSERT_NE(row_of(held(monitor, std::nullopt, true), test), nullptr);
  EXPECT_EQ(row_of(held(monitor, MonitorTestState::active), test), nullptr);
  EXPECT_EQ(row_of(held(monitor, std::nullopt, false), test), nullptr);
  EXPECT_EQ(held(monitor).size(), before.size());

  // Idempotent by state: muting again keeps the mute as it was, its end included.
  EXPECT_EQ(mute(monitor, test, now + 72h, "again").muted_until, until);
  EXPECT_EQ(history(test).size(), history_before + 1);

  // When the mute ends, the monitor counts again.
  sandbox_->advance(49h);
  EXPECT_EQ(get(test).status, TestHealth::flaky);
  EXPECT_EQ(get(test).active_monitors.size(), 1u);
  EXPECT_TRUE(v1_flaky().contains(test));
  const auto after = history(test);
  ASSERT_EQ(after.size(), history_before + 2);
  EXPECT_EQ(after.front().to_status, TestHealth::flaky);
  EXPECT_EQ(after.front().started_at, until);
  EXPECT_EQ(row_of(held(monitor), test)->state, MonitorTestState::active);

  // A mute with no end lasts.
  EXPECT_FALSE(mute(monitor, test).muted_until.has_value());
  sandbox_->advance(24h * 40);
  EXPECT_EQ(get(test).status, TestHealth::healthy);
}

TEST_F(MonitorsV2, AMutesRulesAreCheckedAtTheirBoundaries) {
  std::string test, monitor;  // not a structured binding: clang 14 cannot capture one in a lambda
  std::tie(test, monitor) = test_and_monitor(TestHealth::flaky);
  ASSERT_FALSE(test.empty());
  const trunk::Timestamp now = sandbox_->clock_now();
  // muteUntil: in the future, at most 30 days away (the service's clock).
  EXPECT_EQ(error_code([&] { mute(monitor, test, now); }, 400), "VALIDATION_FAILED");
  EXPECT_EQ(error_code([&] { mute(monitor, test, now + 24h * 30 + 1s); }, 400), "VALIDATION_FAILED");
  EXPECT_EQ(get(test).status, TestHealth::flaky);  // nothing was muted
  // reason: 1 to 1000 characters, checked before anything is sent.
  for (const std::string& bad : {std::string(), std::string(trunk::kMaxMuteReasonLength + 1, 'r')}) {
    try {
      mute(monitor, test, std::nullopt, bad);
      ADD_FAILURE() << "a reason of " << bad.size() << " characters was sent";
    } catch (const trunk::ValidationError& e) {
      ASSERT_EQ(e.violations().size(), 1u) << e.what();
      EXPECT_EQ(e.violations()[0].field, "reason");
    }
  }
  try {
    mute("", test);
    ADD_FAILURE() << "an empty monitor id was sent";
  } catch (const trunk::ValidationError& e) {
    EXPECT_EQ(e.violations().at(0).field, "monitorId");
  }
  EXPECT_EQ(mute(monitor, test, now + 24h * 30, std::string(trunk::kMaxMuteReasonLength, 'r')).state,
            MonitorTestState::muted);
}

TEST_F(MonitorsV2, OnlyAMonitorActiveOnTheTestIsMutedAndTheKeyNeedsItsPermission) {
  std::string flaky, rate_monitor;  // not a structured binding: clang 14 cannot capture one in a lambda
  std::tie(flaky, rate_monitor) = test_and_monitor(TestHealth::flaky);
  ASSERT_FALSE(flaky.empty());
  const auto monitors = trunk::sandbox::collection_monitors(trunk::sandbox::test_collection_id(repo().to_string()));
  const auto count_monitor = std::find_if(monitors.begin(), monitors.end(), [](const auto& m) {
    return m.type == trunk::MonitorType::failure_count;
  })->id;
  // The collection's other monitor does not classify a flaky test.
  EXPECT_EQ(error_code([&] { mute(count_monitor, flaky); }, 409), "MONITOR_NOT_ACTIVE");
  std::string healthy, none;  // not a structured binding: clang 14 cannot capture one in a lambda
  std::tie(healthy, none) = test_and_monitor(TestHealth::healthy);
  ASSERT_FALSE(healthy.empty());
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(error_code([&] { mute(rate_monitor, healthy); }, 409), "MONITOR_NOT_ACTIVE");
  EXPECT_EQ(row_of(held(rate_monitor), healthy), nullptr);
  EXPECT_EQ(not_found_code([&] { mute("nosuchid", flaky); }), "MONITOR_NOT_FOUND");
  EXPECT_EQ(not_found_code([&] { held("nosuchid"); }), "MONITOR_NOT_FOUND");
  // A test of another repository's collection.
  const std::string other = sandbox_->test_ids(sandbox_->repos().at(1)).front();
  EXPECT_EQ(not_found_code([&] { mute(rate_monitor, other); }), "TEST_NOT_FOUND");

  trunk::MuteMonitorForTestRequest request;
  request.monitor_id = rate_monitor;
  request.test_id = flaky;
  EXPECT_THROW(client_with({trunk::sandbox::Permission::quarantine_tests})->mute_monitor_for_test(request),
               trunk::PermissionDeniedError);
  EXPECT_EQ(get(flaky).status, TestHealth::flaky);
  EXPECT_EQ(client_with({trunk::sandbox::Permission::mute_monitors})->mute_monitor_for_test(request).state,
            MonitorTestState::muted);
  // Reading a monitor's tests needs no permission.
  trunk::ListMonitorTestsRequest list;
  list.monitor_id = rate_monitor;
  list.limit = 100;
  EXPECT_NE(row_of(client_with({})->list_monitor_tests(list).data, flaky), nullptr);
}

TEST_F(MonitorsV2, AMuteThatChangesATestsStatusSendsTheV2WebhookAndARepeatSendsNone) {
  Receiver receiver;
  const auto endpoint = sandbox_->add_webhook(
      {receiver.url(), std::nullopt, std::vector<std::string>{"v2.test_case.status_changed"}});
  std::string test, monitor;  // not a structured binding: clang 14 cannot capture one in a lambda
  std::tie(test, monitor) = test_and_monitor(TestHealth::flaky);
  ASSERT_FALSE(test.empty());
  mute(monitor, test);
  sandbox_->advance(1s);
  const auto received = receiver.received();
  ASSERT_EQ(received.size(), 1u);
  const trunk::WebhookEvent event = trunk::verify_webhook(
      endpoint.secret, {received[0].id, received[0].timestamp, received[0].signature}, received[0].body);
  const auto* changed = std::get_if<trunk::TestCaseStatusChangedEvent>(&event);
  ASSERT_NE(changed, nullptr) << received[0].body;
  EXPECT_EQ(changed->previous_status->wire(), "FLAKY");
  EXPECT_EQ(changed->new_status->wire(), "HEALTHY");
  EXPECT_EQ(changed->test_case->id, test);
  EXPECT_EQ(changed->triggered_by->monitor_id, monitor);
  EXPECT_EQ(changed->triggered_by->monitor_type, "failure_rate");
  EXPECT_EQ(changed->triggered_by->monitor_status->wire(), "resolved");

  mute(monitor, test);  // already muted: nothing changes, nothing is sent
  sandbox_->advance(1s);
  EXPECT_EQ(receiver.received().size(), 1u);
  // Stopped before the receiver, whose server would otherwise wait out the sender's keep-alive connection.
  sandbox_.reset();
}

TEST(MonitorMutes, TheShownStatusChangesOnlyWhereAMuteOfTheClassifyingMonitorBeginsOrEnds) {
  using trunk::sandbox::Health;
  using trunk::sandbox::StatusChange;
  const std::string collection = "abcdefgh";
  const auto rate = trunk::sandbox::classifying_monitor(collection, Health::flaky)->id;
  const auto count = trunk::sandbox::classifying_monitor(collection, Health::broken)->id;
  EXPECT_NE(rate, count);
  EXPECT_FALSE(trunk::sandbox::classifying_monitor(collection, Health::healthy).has_value());
  const auto at = [](std::int64_t us) { return trunk::sandbox::from_micros(us); };
  // flaky at 10, broken at 50, flaky at 70; the failureRate monitor muted from 20 to 60.
  const std::vector<StatusChange> unmuted{{10, Health::healthy, Health::flaky},
                                          {50, Health::flaky, Health::broken},
                                          {70, Health::broken, Health::flaky}};
  trunk::sandbox::TestMutes mutes{{rate, {at(20), at(60), std::nullopt}}};
  const auto shown = trunk::sandbox::apply_mutes(unmuted, collection, mutes, 100);
  ASSERT_EQ(shown.size(), 4u);
  EXPECT_EQ(shown[0].at_us, 10);
  EXPECT_EQ(shown[1].at_us, 20);  // muted: healthy
  EXPECT_EQ(shown[1].to, Health::healthy);
  EXPECT_EQ(shown[2].at_us, 50);  // broken: another monitor, not muted
  EXPECT_EQ(shown[2].from, Health::healthy);
  EXPECT_EQ(shown[2].to, Health::broken);
  EXPECT_EQ(shown[3].at_us, 70);  // the mute ended at 60 while it was broken: flaky shows at 70
  EXPECT_EQ(shown[3].to, Health::flaky);
  // Up to now only: a mute beginning later changes nothing yet; no mutes, no change.
  EXPECT_EQ(trunk::sandbox::apply_mutes(unmuted, collection, {{rate, {at(200), std::nullopt, {}}}}, 100).size(), 3u);
  EXPECT_EQ(trunk::sandbox::apply_mutes(unmuted, collection, {}, 100).size(), 3u);
  // The mute's end is exclusive, its start inclusive.
  EXPECT_EQ(trunk::sandbox::shown_health(Health::flaky, collection, mutes, at(20)).health, Health::healthy);
  EXPECT_EQ(trunk::sandbox::shown_health(Health::flaky, collection, mutes, at(60)).health, Health::flaky);
  EXPECT_EQ(trunk::sandbox::shown_health(Health::broken, collection, mutes, at(30)).health, Health::broken);
}

}  // namespace
}  // namespace sandbox_test
