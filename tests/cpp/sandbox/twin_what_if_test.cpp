// The twin's what-if (trunk/twin/what_if.hpp): configurations run on the sandbox's queue model over seeds, each
// answer a mean with its interval. Checked against queueing theory where it has an answer (a single queue with
// fixed CI and Poisson arrivals is M/D/1), against the direction every merge-queue user knows (batching trades
// latency for CI runs; failures cost runs), for determinism, and for its rules at their boundaries.
#include <gtest/gtest.h>

#include <cmath>

#include "trunk/error.hpp"
#include "trunk/twin/backtest.hpp"
#include "trunk/twin/what_if.hpp"

namespace sandbox_test {
namespace {

using trunk::sandbox::Arrivals;
using trunk::sandbox::FixedRunDuration;
using trunk::sandbox::PoissonArrivals;
using trunk::twin::compare;
using trunk::twin::ConfigurationOutcome;
using trunk::twin::TeamModel;
using trunk::twin::WhatIfOptions;

TeamModel team(double per_hour, double run_minutes, double broken = 0, double flaky = 0) {
  return TeamModel{Arrivals{PoissonArrivals{per_hour}, {}, 1, {}}, FixedRunDuration{run_minutes}, broken, flaky, {}};
}

WhatIfOptions quick(std::size_t seeds = 8) {
  WhatIfOptions options;
  options.seeds = seeds;
  options.window = std::chrono::hours(24 * 10);
  return options;
}

trunk::QueueSettings single() { return {}; }  // a new queue's settings: single mode, concurrency 1, no batching

trunk::QueueSettings batching(std::int64_t size) {
  trunk::QueueSettings settings;
  settings.batch = true;
  settings.batching_min_size = size;
  settings.batching_max_wait_time_minutes = 10;
  return settings;
}

/// The figures in the test report (--gtest_output=json), for the docs and notes that quote them.
void record(const std::string& name, const ConfigurationOutcome& o) {
  const auto text = [](const trunk::twin::Estimate& e) {
    return std::to_string(e.value) + " [" + std::to_string(e.low) + ", " + std::to_string(e.high) + "]";
  };
  ::testing::Test::RecordProperty(name + ".p50", text(o.minutes_in_queue_p50));
  ::testing::Test::RecordProperty(name + ".p90", text(o.minutes_in_queue_p90));
  ::testing::Test::RecordProperty(name + ".merged_per_day", text(o.merged_per_day));
  ::testing::Test::RecordProperty(name + ".runs_per_merged", text(o.runs_per_merged));
  ::testing::Test::RecordProperty(name + ".failed_share", text(o.failed_share));
}

void expect_ordered(const trunk::twin::Estimate& e) {
  EXPECT_LE(e.low, e.value);
  EXPECT_LE(e.value, e.high);
}

TEST(TwinWhatIf, ASingleQueueWithFixedCiIsMD1) {
  // 3 an hour, 10-minute runs: utilisation 0.5. M/D/1's mean wait is rho * D / (2 (1 - rho)) = 5 minutes, so a
  // pull request spends 1 (mergeability) + 5 + 10 = 16 minutes on average; its median is below the mean (many
  // find the queue empty: 1 + 10), and no failure means one run per merge at most (a pull request alone on an
  // up-to-date branch may merge without one).
  const auto outcome = compare(team(3, 10), {single()}, quick()).at(0);
  EXPECT_GE(outcome.minutes_in_queue_p50.value, 11.0);
  EXPECT_LE(outcome.minutes_in_queue_p50.value, 16.0);
  EXPECT_GT(outcome.minutes_in_queue_p90.value, outcome.minutes_in_queue_p50.value);
  EXPECT_LE(outcome.runs_per_merged.value, 1.0 + 1e-9);
  EXPECT_NEAR(outcome.merged_per_day.value, 72, 4 * std::sqrt(72.0 / 10 / 8));  // Poisson over 8 x 10 days
  EXPECT_LE(outcome.merged_per_day.low, 72);
  EXPECT_GE(outcome.merged_per_day.high, 72);
  EXPECT_EQ(outcome.failed_share.value, 0);
  for (const auto* e : {&outcome.minutes_in_queue_p50, &outcome.minutes_in_queue_p90, &outcome.merged_per_day,
                        &outcome.runs_per_merged}) {
    expect_ordered(*e);
  }
  EXPECT_EQ(outcome.seeds, 8u);
  record("md1", outcome);
}

TEST(TwinWhatIf, BatchingTradesLatencyForCiRunsAndFailuresCostRuns) {
  // 5 an hour on 15-minute runs overloads a single queue without batching (utilisation 1.25); batches of 4
  // test them in a quarter of the runs.
  const auto outcomes = compare(team(5, 15, 0.02, 0.02), {single(), batching(4)}, quick());
  const ConfigurationOutcome& one_by_one = outcomes.at(0);
  const ConfigurationOutcome& batched = outcomes.at(1);
  EXPECT_LT(batched.runs_per_merged.high, one_by_one.runs_per_merged.low);
  EXPECT_LT(batched.minutes_in_queue_p50.high, one_by_one.minutes_in_queue_p50.low) << "the overloaded queue grows";
  EXPECT_GT(one_by_one.runs_per_merged.value, 0.9) << "failures are retried, so runs per merge near or above one";
  EXPECT_GT(batched.failed_share.value, 0);
  record("single", one_by_one);
  record("batches_of_4", batched);
}

TEST(TwinWhatIf, TheSameSeedsGiveTheSameAnswers) {
  const auto a = compare(team(4, 12, 0.05, 0.05), {single(), batching(2)}, quick(3));
  const auto b = compare(team(4, 12, 0.05, 0.05), {single(), batching(2)}, quick(3));
  ASSERT_EQ(a.size(), 2u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].minutes_in_queue_p50.value, b[i].minutes_in_queue_p50.value);
    EXPECT_EQ(a[i].runs_per_merged.value, b[i].runs_per_merged.value);
  }
}

std::vector<std::string> violations_of(const TeamModel& model, const WhatIfOptions& options) {
  try {
    (void)compare(model, {single()}, options);
  } catch (const trunk::ValidationError& e) {
    std::vector<std::string> out;
    for (const auto& v : e.violations()) out.push_back(v.field + ": " + v.rule);
    return out;
  }
  return {};
}

TEST(TwinWhatIf, EveryRuleIsCheckedAtItsBoundaries) {
  using V = std::vector<std::string>;
  WhatIfOptions one = quick(1);
  one.window = std::chrono::hours(1);
  one.warm_up = one.drain = std::chrono::hours(0);
  EXPECT_EQ(violations_of(team(1, 10, 0, 1), one), V{});
  EXPECT_EQ(violations_of(team(1, 10, -0.001, 0), one), V{"team.broken_rate: must be from 0 to 1"});
  EXPECT_EQ(violations_of(team(1, 10, 0, 1.001), one), V{"team.flaky_rate: must be from 0 to 1"});
  EXPECT_EQ(violations_of(team(-1, 10), one), V{"team.arrivals.per_hour: must be from 0 to 3600 per hour"});
  EXPECT_EQ(violations_of(team(1, 0.5), one), V{"team.run_duration.minutes: must be from 1 to 10080 minutes"});
  WhatIfOptions none = one;
  none.seeds = 0;
  EXPECT_EQ(violations_of(team(1, 10), none), V{"seeds: must be at least 1"});
  WhatIfOptions empty = one;
  empty.window = std::chrono::hours(0);
  EXPECT_EQ(violations_of(team(1, 10), empty), V{"window: must be at least 1 hour"});
  WhatIfOptions negative = one;
  negative.drain = std::chrono::hours(-1);
  EXPECT_EQ(violations_of(team(1, 10), negative), V{"drain: must not be negative"});
}

TEST(TwinWhatIf, AnInterruptionEndsItAtItsNextQuestion) {
  WhatIfOptions options = quick(5);
  options.threads = 1;  // one thread asks (before each seed and between simulated days), so the count is exact
  int asked = 0;
  options.interrupted = [&] { return ++asked == 3; };
  EXPECT_THROW((void)compare(team(3, 10), {single()}, options), trunk::CancelledError);
  EXPECT_EQ(asked, 3) << "nothing ran, and nothing asked, after the answer was yes";
}

TEST(TwinWhatIf, NoArrivalIsNoMergeAndSaysSoWithoutInventingANumber) {
  const auto outcome = compare(team(0, 10), {single()}, quick(2)).at(0);
  EXPECT_EQ(outcome.merged_per_day.value, 0);
  EXPECT_TRUE(std::isinf(outcome.minutes_in_queue_p50.value)) << "no pull request merged: no time in queue";
  EXPECT_TRUE(std::isinf(outcome.runs_per_merged.value));
}

TEST(TwinBacktest, AHistoryUnderAnHourLongIsMeasuredWithoutADrain) {
  trunk::twin::QueueHistory history;
  history.since = trunk::Timestamp{} + std::chrono::days(4);
  history.until = history.since + std::chrono::minutes(30);
  WhatIfOptions options = quick(2);
  const auto back = trunk::twin::backtest(team(1, 10), history, options);
  EXPECT_EQ(back.from, history.since);
  EXPECT_EQ(back.to, history.until) << "no drain: the whole half hour is measured";
  EXPECT_EQ(back.observed.submitted, 0U);
  EXPECT_TRUE(std::isnan(back.p50_error)) << "nothing observed to divide by";
  EXPECT_EQ(back.predicted.seeds, 2U);
}

}  // namespace
}  // namespace sandbox_test
