// A queue's history read through v1 (trunk::twin::collect_queue_history_v1), for teams on v1 tokens: the same
// sandbox's week read through v2 and through v1 with a client holding only the v1 token, compared field by field
// where v1 says the same thing, and shown to differ only where docs/twin.md says v1 cannot say it (submission
// times, hence arrivals' instants and time in queue).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "trunk/error.hpp"
#include "trunk/twin/backtest.hpp"
#include "trunk/twin/calibration.hpp"
#include "trunk/twin/queue_history.hpp"
#include "trunk/twin/team_fit.hpp"
#include "v2_fixture.hpp"

namespace sandbox_test {
namespace {

using namespace std::chrono_literals;
namespace sb = trunk::sandbox;
namespace tw = trunk::twin;

class TwinHistoryV1 : public V2Fixture {
 protected:
  sb::SandboxOptions sandbox_options() const override {
    auto options = V2Fixture::sandbox_options();
    options.flaky_failure_rate = 0.05;
    options.broken_pull_request_rate = 0.08;
    return options;
  }

  void SetUp() override {
    V2Fixture::SetUp();
    trunk::UpdateMergeQueueConfigRequest config;
    config.id = main_id();
    config.concurrency = 2;
    client_->update_merge_queue_config(config);
    sb::QueueControls controls;
    controls.run_duration = sb::EmpiricalRunDuration{{10, 10, 10, 30}};
    controls.arrivals = sb::Arrivals{sb::PoissonArrivals{2.5}, {{"//app", 0.5}}, 1, {{0, 0.05}, {10, 0.2}}};
    sandbox_->set_queue_controls(repo(), "main", controls);
    sandbox_->advance(24h * 9);
    until_ = sandbox_->clock_now() - 24h;
    since_ = until_ - 24h * 7;

    trunk::ClientOptions options;  // v1's token only: v2 would refuse it
    options.base_url = sandbox_->url();
    options.token = sandbox_->token();
    options.retry.max_retries = 0;
    v1_client_ = std::make_unique<trunk::Client>(std::move(options));
  }

  trunk::Timestamp since_, until_;
  std::unique_ptr<trunk::Client> v1_client_;
};

TEST_F(TwinHistoryV1, AV1TokenReadsTheSameRunsOutcomesPrioritiesAndTargetsAsV2) {
  const tw::QueueHistory v2 = tw::collect_queue_history(*client_, main_id(), since_, until_);
  const tw::QueueHistory v1 = tw::collect_queue_history_v1(*v1_client_, repo(), "main", since_, until_);
  EXPECT_EQ(v1.source, tw::HistorySource::v1);
  EXPECT_EQ(v1.queue_id, repo().to_string() + " main");
  EXPECT_EQ(v1.settings.concurrency, v2.settings.concurrency);
  EXPECT_EQ(v1.settings.mode, v2.settings.mode);
  EXPECT_EQ(v1.settings, v2.settings) << "the configuration alone: not the queue's contents, branch or state";

  // The same runs, each pull request's result in it, with the same outcomes and durations.
  ASSERT_GT(v2.testing_results.size(), 300U);
  EXPECT_EQ(v1.testing_results.size(), v2.testing_results.size());
  const tw::Calibration c1 = tw::calibrate(v1);
  const tw::Calibration c2 = tw::calibrate(v2);
  EXPECT_EQ(c1.runs, c2.runs);
  EXPECT_EQ(c1.durations.minutes, c2.durations.minutes);

  // Each submission v1 can date is v2's, dated at its first test: never before v2's submission.
  std::map<std::int64_t, const trunk::QueueEntry*> entry_v2;
  for (const auto& pr : v2.pull_requests) entry_v2[*pr.number] = &*pr.queue_entry;
  ASSERT_GT(v1.pull_requests.size(), v2.pull_requests.size() * 9 / 10) << "only the never-tested are missing";
  std::size_t waited = 0;
  for (const auto& pr : v1.pull_requests) {
    const auto it = entry_v2.find(*pr.number);
    if (it == entry_v2.end()) continue;  // submitted just before the window, first tested inside it
    EXPECT_GE(*pr.queue_entry->created_at, *it->second->created_at) << *pr.number;
    waited += *pr.queue_entry->created_at > *it->second->created_at + 1min;
    EXPECT_EQ(pr.queue_entry->priority_value, it->second->priority_value) << *pr.number;
    EXPECT_EQ(pr.queue_entry->state, it->second->state) << *pr.number;
  }
  EXPECT_GT(waited, 0U) << "two at a time, some waited in line: v1 does not see that wait";

  // Failures, priorities and targets read alike.
  ASSERT_TRUE(c1.failed_entries && c2.failed_entries);
  EXPECT_NEAR(c1.failed_entries->value, c2.failed_entries->value, 0.03);
  ASSERT_EQ(c1.priorities.size(), c2.priorities.size());
  for (std::size_t i = 0; i < c1.priorities.size(); ++i) {
    EXPECT_EQ(c1.priorities[i].value, c2.priorities[i].value);
    EXPECT_NEAR(c1.priorities[i].share.value, c2.priorities[i].share.value, 0.03);
  }
  ASSERT_GT(c1.targets_sampled, 100U);
  ASSERT_EQ(c1.targets.size(), 1U);
  EXPECT_EQ(c1.targets[0].target, "//app");
  EXPECT_TRUE(c1.targets[0].share.contains(0.5));
  EXPECT_NEAR(c1.arrivals.per_hour.value, c2.arrivals.per_hour.value, 0.1 * c2.arrivals.per_hour.value);

  // What v1 cannot say is said, not guessed.
  EXPECT_TRUE(std::any_of(c1.warnings.begin(), c1.warnings.end(),
                          [](const std::string& w) { return w.find("read through v1") != std::string::npos; }));
  EXPECT_FALSE(std::any_of(c2.warnings.begin(), c2.warnings.end(),
                           [](const std::string& w) { return w.find("read through v1") != std::string::npos; }));
}

TEST_F(TwinHistoryV1, TheBacktestOfAV1HistoryComparesCostAndThroughputButNotTimeInQueue) {
  const tw::QueueHistory v1 = tw::collect_queue_history_v1(*v1_client_, repo(), "main", since_, until_);
  const tw::Calibration calibration = tw::calibrate(v1);
  tw::TeamFitOptions fit;
  fit.seeds = 4;
  const tw::FittedTeam fitted = tw::fit_team(calibration, v1.settings, fit);
  tw::WhatIfOptions options;
  options.seeds = 6;
  const tw::Backtest back = tw::backtest(fitted.team, v1, options);
  EXPECT_TRUE(std::isnan(back.observed.minutes_in_queue_p50));
  EXPECT_TRUE(std::isnan(back.p50_error));
  EXPECT_TRUE(std::isnan(back.p90_error));
  EXPECT_GT(back.observed.merged, 200U);  // five days after the drain, at 2.5 an hour
  EXPECT_LT(std::abs(back.runs_per_merged_error), 0.10) << back.predicted.runs_per_merged.value << " vs "
                                                          << back.observed.runs_per_merged;
  EXPECT_LT(std::abs(back.merged_per_day_error), 0.10);
}

TEST_F(TwinHistoryV1, TheWindowIsCheckedBeforeAnythingIsSentAndV2sKeyIsNotNeeded) {
  sandbox_->clear_requests();
  EXPECT_THROW(tw::collect_queue_history_v1(*v1_client_, repo(), "main", until_, until_), trunk::ValidationError);
  EXPECT_THROW(tw::collect_queue_history_v1(*v1_client_, repo(), "main", until_ - 24h * 45 - 1s, until_),
               trunk::ValidationError);
  EXPECT_TRUE(sandbox_->requests().empty());
  const auto longest = tw::collect_queue_history_v1(*v1_client_, repo(), "main", until_ - 24h * 45, until_, 0);
  EXPECT_TRUE(longest.sampled_runs.empty()) << "a sample of 0 fetches no run";
  for (const auto& request : sandbox_->requests()) EXPECT_EQ(request.path.rfind("/v1/", 0), 0U) << request.path;
}

}  // namespace
}  // namespace sandbox_test
