// The twin's calibration (trunk/twin/calibration.hpp) from a sandbox's history read through v2 only
// (trunk/twin/queue_history.hpp): what it recovers, and the warnings a thin or odd history gives instead of a crash
// or false precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "trunk/error.hpp"
#include "trunk/twin/calibration.hpp"
#include "trunk/twin/queue_history.hpp"
#include "v2_fixture.hpp"

namespace sandbox_test {
namespace {

using namespace std::chrono_literals;

bool warns(const trunk::twin::Calibration& c, std::string_view words) {
  return std::any_of(c.warnings.begin(), c.warnings.end(),
                     [&](const std::string& w) { return w.find(words) != std::string::npos; });
}

class TwinCalibration : public V2Fixture {
 protected:
  trunk::sandbox::SandboxOptions sandbox_options() const override {
    auto options = V2Fixture::sandbox_options();
    options.flaky_failure_rate = 0.15;
    options.broken_pull_request_rate = 0.2;
    return options;
  }
};

TEST_F(TwinCalibration, ReadsABusyAfternoonThroughV2) {
  trunk::UpdateMergeQueueConfigRequest config;
  config.id = main_id();
  config.concurrency = 3;
  config.allow_batching = false;
  client_->update_merge_queue_config(config);
  const trunk::Timestamp start = sandbox_->clock_now();
  for (std::int64_t n = 1; n <= 40; ++n) {
    if (n % 4 == 0) {  // one in four high, the rest without a priority (the queue's default, medium = 100)
      trunk::SubmitPullRequestRequestV2 request;
      request.id = main_id();
      request.number = n;
      request.priority_name = "high";
      client_->submit_to_merge_queue(request);
    } else {
      submit(n);
    }
    sandbox_->advance(10min);
  }
  sandbox_->advance(12h);
  const trunk::Timestamp until = sandbox_->clock_now();

  const auto history = trunk::twin::collect_queue_history(*client_, main_id(), start - 1h, until);
  EXPECT_EQ(history.pull_requests.size(), 40U);
  EXPECT_GE(history.testing_results.size(), 40U);
  const auto c = trunk::twin::calibrate(history);

  EXPECT_EQ(c.arrivals.arrivals, 40U);
  EXPECT_NEAR(c.arrivals.per_hour.value * c.arrivals.observed_hours, 40.0, 1e-9);
  EXPECT_LT(c.arrivals.flat_p_value, 0.001);  // six an hour for under seven hours, then none for twelve
  ASSERT_TRUE(c.durations.lognormal.has_value());
  EXPECT_TRUE(c.durations.lognormal->median_minutes.contains(15.0)) << c.durations.lognormal->median_minutes.low
                                                                    << " " << c.durations.lognormal->median_minutes.high;
  const double total = std::accumulate(c.durations.empirical.begin(), c.durations.empirical.end(), 0.0,
                                       [](double sum, const auto& atom) { return sum + atom.probability; });
  EXPECT_NEAR(total, 1.0, 1e-9);
  ASSERT_TRUE(c.failed_entries.has_value());
  EXPECT_GT(c.failed_entries->value, 0.0);
  EXPECT_LE(c.failed_entries->observations, 40U);
  ASSERT_TRUE(c.failed_clean_runs.has_value());
  EXPECT_DOUBLE_EQ(c.batch_size->value, 1.0);
  EXPECT_EQ(c.urgent_submissions->value, 0.0);
  ASSERT_EQ(c.priorities.size(), 2U);  // the queue names the default it applied, so every entry has a value
  EXPECT_EQ(c.priorities[0].value, 100);
  EXPECT_DOUBLE_EQ(c.priorities[0].share.value, 0.75);
  EXPECT_EQ(c.priorities[1].value, 10);
  EXPECT_DOUBLE_EQ(c.priorities[1].share.value, 0.25);
  EXPECT_TRUE(c.priorities[1].share.contains(0.25));
  EXPECT_GT(c.priorities[1].share.high - c.priorities[1].share.low, 0.2) << "40 submissions say little";
  EXPECT_EQ(c.ignored_results, 0U);
  EXPECT_TRUE(warns(c, "some hours of the week are never observed"));
  EXPECT_TRUE(warns(c, "no run tested more than one pull request"));
  EXPECT_TRUE(warns(c, "the queue changed at"));  // the configuration above, inside the window
}

TEST_F(TwinCalibration, AnIdleQueueGivesWarningsNotACrash) {
  const trunk::Timestamp until = sandbox_->clock_now();
  const auto c = trunk::twin::calibrate(trunk::twin::collect_queue_history(*client_, main_id(), until - 24h, until));
  EXPECT_EQ(c.runs, 0U);
  EXPECT_FALSE(c.failed_entries.has_value());
  EXPECT_FALSE(c.failed_clean_runs.has_value());
  EXPECT_FALSE(c.durations.lognormal.has_value());
  EXPECT_EQ(c.arrivals.per_hour.value, 0.0);
  EXPECT_GT(c.arrivals.per_hour.high, 0.0);
  EXPECT_TRUE(warns(c, "no testing results"));
  EXPECT_TRUE(warns(c, "no submission in the window"));
}

TEST_F(TwinCalibration, TheWindowIsCheckedBeforeAnythingIsSent) {
  const trunk::Timestamp until = sandbox_->clock_now();
  const auto violated = [&](trunk::Timestamp since) {
    try {
      (void)trunk::twin::collect_queue_history(*client_, main_id(), since, until);
    } catch (const trunk::ValidationError& e) {
      return e.violations().at(0).field;
    }
    return std::string("<nothing thrown>");
  };
  const std::size_t before = sandbox_->requests().size();
  EXPECT_EQ(violated(until), "since");
  EXPECT_EQ(violated(until + 1us), "since");
  EXPECT_EQ(violated(until - trunk::kTestingResultsWindow - 1us), "since");
  EXPECT_EQ(sandbox_->requests().size(), before);
  EXPECT_EQ(violated(until - trunk::kTestingResultsWindow), "<nothing thrown>");
}

}  // namespace
}  // namespace sandbox_test
