// Pull requests that arrive by themselves (trunk/sandbox/arrivals.hpp): the plan's draws against the process it
// states (counts within 4 standard deviations of the Poisson mean, no arrival in an hour of rate 0, scheduled
// times exactly), its checks at every boundary, and a queue submitting its arrivals on the virtual clock with
// their targets, directly and through the HTTP control route. No wall-clock time is asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "arrival_plan.hpp"
#include "queue_harness.hpp"
#include "sandbox_support.hpp"
#include "trunk/twin/arrival_fit.hpp"

namespace sandbox_test {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using trunk::sandbox::ArrivalPlan;
using trunk::sandbox::Arrivals;
using trunk::sandbox::HourlyArrivals;
using trunk::sandbox::PoissonArrivals;
using trunk::sandbox::ScheduledArrivals;
using trunk::sandbox::TargetChance;

/// Every arrival of `plan` up to `until`, with its targets.
std::vector<std::pair<trunk::Timestamp, ArrivalPlan::Arrival>> drain(ArrivalPlan& plan, trunk::Timestamp until) {
  std::vector<std::pair<trunk::Timestamp, ArrivalPlan::Arrival>> out;
  while (plan.next() && *plan.next() <= until) {
    const trunk::Timestamp at = *plan.next();
    out.emplace_back(at, plan.take());
  }
  return out;
}

/// |count - mean| within 4 Poisson standard deviations.
void expect_poisson_count(double count, double mean) {
  EXPECT_LE(std::abs(count - mean), 4 * std::sqrt(mean)) << "count " << count << ", mean " << mean;
}

Arrivals poisson(double per_hour, std::vector<TargetChance> targets = {}) {
  return Arrivals{PoissonArrivals{per_hour}, std::move(targets), 1, {}};
}

TEST(ArrivalPlan, APoissonRateGivesItsMeanCountAndExponentialGaps) {
  ArrivalPlan plan(poisson(6), 7, fixed_now());
  const auto arrivals = drain(plan, fixed_now() + hours(1000));
  expect_poisson_count(static_cast<double>(arrivals.size()), 6000);
  // Exponential gaps: the share longer than the mean (10 minutes) is e^-1.
  std::size_t longer = 0;
  for (std::size_t i = 1; i < arrivals.size(); ++i) longer += arrivals[i].first - arrivals[i - 1].first > minutes(10);
  const double n = static_cast<double>(arrivals.size() - 1);
  EXPECT_NEAR(longer / n, std::exp(-1.0), 4 * std::sqrt(std::exp(-1.0) * (1 - std::exp(-1.0)) / n));
  EXPECT_GT(arrivals.front().first, fixed_now()) << "strictly after the moment they were set";
}

TEST(ArrivalPlan, ADailyProfileNeverArrivesInAnHourOfRateZeroAndMatchesEachHoursRate) {
  std::vector<double> profile(24, 0.0);
  for (int h = 9; h < 17; ++h) profile[h] = 10;  // working hours, UTC
  profile[12] = 2;                                // lunch
  ArrivalPlan plan(Arrivals{HourlyArrivals{profile}, {}, 1, {}}, 11, fixed_now());
  const int days = 60;
  std::map<std::size_t, double> by_hour;
  for (const auto& [at, arrival] : drain(plan, fixed_now() + hours(24 * days))) {
    ++by_hour[trunk::twin::hour_of_week(at) % 24];
  }
  for (std::size_t h = 0; h < 24; ++h) {
    if (profile[h] == 0) {
      EXPECT_EQ(by_hour[h], 0) << "hour " << h;
    } else {
      expect_poisson_count(by_hour[h], profile[h] * days);
    }
  }
}

TEST(ArrivalPlan, AWeeklyProfileStartsOnMondayMidnightUtc) {
  std::vector<double> profile(168, 0.0);
  profile[10] = 30;  // Monday 10:00-11:00 UTC only
  ArrivalPlan plan(Arrivals{HourlyArrivals{profile}, {}, 1, {}}, 3, fixed_now());
  const auto arrivals = drain(plan, fixed_now() + hours(24 * 7 * 20));
  expect_poisson_count(static_cast<double>(arrivals.size()), 30 * 20);
  for (const auto& [at, arrival] : arrivals) {
    const auto day = std::chrono::floor<std::chrono::days>(at);
    EXPECT_EQ(std::chrono::weekday(day), std::chrono::Monday);
    EXPECT_EQ(std::chrono::floor<hours>(at - day), hours(10));
  }
}

TEST(ArrivalPlan, ScheduledTimesArriveExactlyInOrderAndThePastIsSkipped) {
  const trunk::Timestamp t0 = fixed_now();
  ArrivalPlan plan(Arrivals{ScheduledArrivals{{t0 + minutes(30), t0 - minutes(5), t0 + minutes(10), t0 + minutes(10), t0}},
                            {}, 1, {}},
                   1, t0);
  std::vector<trunk::Timestamp> times;
  for (const auto& [at, arrival] : drain(plan, t0 + hours(1))) times.push_back(at);
  EXPECT_EQ(times, (std::vector<trunk::Timestamp>{t0 + minutes(10), t0 + minutes(10), t0 + minutes(30)}));
  EXPECT_FALSE(plan.next()) << "the list is used up";
}

TEST(ArrivalPlan, ARateOfZeroNeverArrivesAndTheSameDiceRepeatTheSameArrivals) {
  ArrivalPlan none(poisson(0), 1, fixed_now());
  EXPECT_FALSE(none.next());
  ArrivalPlan flat_zero(Arrivals{HourlyArrivals{std::vector<double>(168, 0.0)}, {}, 1, {}}, 1, fixed_now());
  EXPECT_FALSE(flat_zero.next());
  ArrivalPlan a(poisson(3), 99, fixed_now()), b(poisson(3), 99, fixed_now()), c(poisson(3), 100, fixed_now());
  std::vector<trunk::Timestamp> ta, tb, tc;
  for (const auto& [at, x] : drain(a, fixed_now() + hours(48))) ta.push_back(at);
  for (const auto& [at, x] : drain(b, fixed_now() + hours(48))) tb.push_back(at);
  for (const auto& [at, x] : drain(c, fixed_now() + hours(48))) tc.push_back(at);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
}

TEST(ArrivalPlan, EachTargetIsDrawnWithItsChanceAndNoneGivenMeansAll) {
  ArrivalPlan plan(poisson(60, {{"//app", 0.0}, {"//lib", 1.0}, {"//web", 0.3}}), 5, fixed_now());
  const auto arrivals = drain(plan, fixed_now() + hours(50));
  ASSERT_GT(arrivals.size(), 2000u);
  double web = 0;
  for (const auto& [at, arrival] : arrivals) {
    EXPECT_FALSE(arrival.all_targets);
    const std::set<std::string> names(arrival.targets.begin(), arrival.targets.end());
    EXPECT_FALSE(names.contains("//app"));
    EXPECT_TRUE(names.contains("//lib"));
    web += names.contains("//web");
  }
  const double n = static_cast<double>(arrivals.size());
  EXPECT_NEAR(web / n, 0.3, 4 * std::sqrt(0.3 * 0.7 / n));
  ArrivalPlan all(poisson(60), 5, fixed_now());
  EXPECT_TRUE(all.take().all_targets);
}

TEST(ArrivalPlan, EachArrivalDrawsOnePriorityWithItsChanceAndTheRestTakeTheDefault) {
  Arrivals arrivals = poisson(60);
  arrivals.priorities = {{0, 0.1}, {10, 0.3}};
  ArrivalPlan plan(arrivals, 9, fixed_now());
  const auto drawn = drain(plan, fixed_now() + hours(50));
  ASSERT_GT(drawn.size(), 2000u);
  std::map<std::int64_t, double> counts;
  double none = 0;
  for (const auto& [at, arrival] : drawn) {
    if (arrival.priority) ++counts[*arrival.priority];
    else ++none;
  }
  const double n = static_cast<double>(drawn.size());
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[0] / n, 0.1, 4 * std::sqrt(0.1 * 0.9 / n));
  EXPECT_NEAR(counts[10] / n, 0.3, 4 * std::sqrt(0.3 * 0.7 / n));
  EXPECT_NEAR(none / n, 0.6, 4 * std::sqrt(0.6 * 0.4 / n));
  // The priority's die is its own: the same times and targets as without priorities.
  ArrivalPlan plain(poisson(60), 9, fixed_now());
  const auto plain_drawn = drain(plain, fixed_now() + hours(50));
  ASSERT_EQ(plain_drawn.size(), drawn.size());
  EXPECT_EQ(plain_drawn.back().first, drawn.back().first);
  EXPECT_FALSE(plain_drawn.front().second.priority);
}

std::vector<std::string> fields_of(const std::vector<trunk::Violation>& violations) {
  std::vector<std::string> out;
  for (const auto& v : violations) out.push_back(v.field + ": " + v.value + ": " + v.rule);
  return out;
}

TEST(ArrivalPlan, EveryRuleIsCheckedAtItsBoundaries) {
  using V = std::vector<std::string>;
  const auto check = [](const Arrivals& a) { return fields_of(trunk::sandbox::arrivals_violations(a, "arrivals")); };
  EXPECT_EQ(check(poisson(0)), V{});
  EXPECT_EQ(check(poisson(3600)), V{});
  EXPECT_EQ(check(poisson(-0.0001)), V{"arrivals.per_hour: -0.0001: must be from 0 to 3600 per hour"});
  EXPECT_EQ(check(poisson(3600.001)), V{"arrivals.per_hour: 3600: must be from 0 to 3600 per hour"});
  EXPECT_EQ(check(poisson(std::numeric_limits<double>::quiet_NaN())), V{"arrivals.per_hour: nan: must be from 0 to 3600 per hour"});
  for (const std::size_t size : {23u, 25u, 167u, 169u, 0u}) {
    EXPECT_EQ(check(Arrivals{HourlyArrivals{std::vector<double>(size, 1.0)}, {}, 1, {}}),
              V{"arrivals.per_hour: " + std::to_string(size) +
                " rates: must hold 24 rates (each day alike) or 168 (Monday 00:00 UTC first)"});
  }
  EXPECT_EQ(check(Arrivals{HourlyArrivals{std::vector<double>(24, 1.0)}, {}, 1, {}}), V{});
  EXPECT_EQ(check(Arrivals{HourlyArrivals{std::vector<double>(168, 1.0)}, {}, 1, {}}), V{});
  std::vector<double> one_bad(24, 1.0);
  one_bad[5] = -1;
  EXPECT_EQ(check(Arrivals{HourlyArrivals{one_bad}, {}, 1, {}}), V{"arrivals.per_hour[5]: -1: must be from 0 to 3600 per hour"});
  EXPECT_EQ(check(Arrivals{ScheduledArrivals{std::vector<trunk::Timestamp>(100'000, fixed_now())}, {}, 1, {}}), V{});
  EXPECT_EQ(check(Arrivals{ScheduledArrivals{std::vector<trunk::Timestamp>(100'001, fixed_now())}, {}, 1, {}}),
            V{"arrivals.at: 100001 times: must hold at most 100000 times"});
  EXPECT_EQ(check(poisson(1, {{"a", 0}, {"b", 1}})), V{});
  EXPECT_EQ(check(poisson(1, {{"a", -0.01}, {"", 0.5}, {"c", 1.01}})),
            (V{"arrivals.targets[0].probability: -0.01: must be from 0 to 1", "arrivals.targets[1].target: \"\": must not be empty",
               "arrivals.targets[2].probability: 1.01: must be from 0 to 1"}));
  EXPECT_EQ(check(poisson(1, std::vector<TargetChance>(1000, {"t", 0.5}))), V{});
  EXPECT_EQ(check(poisson(1, std::vector<TargetChance>(1001, {"t", 0.5}))),
            V{"arrivals.targets: 1001 targets: must hold at most 1000 targets"});
  EXPECT_EQ(check(Arrivals{PoissonArrivals{1}, {}, 0, {}}), V{"arrivals.first_number: 0: must be a pull request number, at least 1"});
  EXPECT_EQ(check(Arrivals{PoissonArrivals{1}, {}, 1, {}}), V{});
  const auto with_priorities = [](std::vector<trunk::sandbox::PriorityChance> priorities) {
    Arrivals a = poisson(1);
    a.priorities = std::move(priorities);
    return a;
  };
  EXPECT_EQ(check(with_priorities({{0, 0.5}, {4'294'967'295, 0.5}})), V{}) << "the bounds, and chances summing to 1";
  EXPECT_EQ(check(with_priorities({{-1, 0.1}, {4'294'967'296, 0.1}})),
            (V{"arrivals.priorities[0].value: -1: must be a priority from 0 to 4294967295",
               "arrivals.priorities[1].value: 4294967296: must be a priority from 0 to 4294967295"}));
  EXPECT_EQ(check(with_priorities({{1, -0.01}, {2, 1.01}})),
            (V{"arrivals.priorities[0].probability: -0.01: must be from 0 to 1",
               "arrivals.priorities[1].probability: 1.01: must be from 0 to 1"}));
  EXPECT_EQ(check(with_priorities({{1, 0.5}, {2, 0.51}})),
            V{"arrivals.priorities: chances summing to 1.01: must sum to 1 at most (one priority per pull request)"});
  EXPECT_EQ(check(with_priorities({{7, 0.1}, {7, 0.1}})), V{"arrivals.priorities[1].value: 7: must not be given twice"});
  std::vector<trunk::sandbox::PriorityChance> many;
  for (std::int64_t v = 0; v < 257; ++v) many.push_back({v, 0.001});
  EXPECT_EQ(check(with_priorities(many)), V{"arrivals.priorities: 257 priorities: must hold at most 256 priorities"});
  many.pop_back();
  EXPECT_EQ(check(with_priorities(many)), V{});
}

TEST(QueueArrivals, AScheduledListSubmitsAtEachTimeWithItsTargetsAndSkipsNumbersInUse) {
  QueueHarness h;
  h.settings.mode = trunk::QueueMode::parallel;
  h.apply();
  ASSERT_FALSE(h.submit(2)) << "submitted through the API before the arrivals";
  const trunk::Timestamp t0 = fixed_now();
  trunk::sandbox::QueueControls controls;
  controls.arrivals = Arrivals{ScheduledArrivals{{t0 + minutes(5), t0 + minutes(7), t0 + minutes(9)}},
                               {{"//app", 1.0}}, 1, {}};
  h.queue().set_controls(controls);
  h.minutes(6);
  auto entries = h.queue().entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].number, 1);
  EXPECT_EQ(entries[1].submitted_at, t0 + minutes(5));
  EXPECT_EQ(entries[1].targets, (std::optional<std::vector<std::string>>{{"//app"}}));
  h.minutes(10);
  entries = h.queue().entries();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[2].number, 3) << "2 was in use";
  EXPECT_EQ(entries[2].submitted_at, t0 + minutes(7));
  EXPECT_EQ(entries[3].number, 4);
  EXPECT_EQ(entries[3].submitted_at, t0 + minutes(9));
  h.minutes(24 * 60);
  for (const std::int64_t n : {1, 3, 4}) EXPECT_EQ(h.state(n), trunk::PullRequestState::merged) << n;
}

TEST(QueueArrivals, SettingTheSameArrivalsAgainKeepsTheirCourseAndClearingStopsThem) {
  const auto run = [](bool reset_midway) {
    QueueHarness h;
    trunk::sandbox::QueueControls controls;
    controls.arrivals = poisson(4);
    h.queue().set_controls(controls);
    h.minutes(300);
    if (reset_midway) {
      controls.flaky_run_rate = 0;  // another control changes; the arrivals are the same
      h.queue().set_controls(controls);
    }
    h.minutes(300);
    std::vector<trunk::Timestamp> times;
    for (const auto& e : h.queue().entries()) times.push_back(e.submitted_at);
    return times;
  };
  const auto straight = run(false);
  EXPECT_EQ(straight, run(true));
  expect_poisson_count(static_cast<double>(straight.size()), 40);

  QueueHarness h;
  trunk::sandbox::QueueControls controls;
  controls.arrivals = poisson(60);
  h.queue().set_controls(controls);
  h.minutes(60);
  const std::size_t before = h.queue().entries().size();
  EXPECT_GT(before, 0u);
  h.queue().set_controls({});
  h.minutes(600);
  EXPECT_EQ(h.queue().entries().size(), before);
}

TEST(QueueArrivals, ADrainingQueueLosesTheArrivalsItRefusesAPausedOneKeepsThem) {
  QueueHarness h;
  h.settings.state = trunk::QueueState::paused;
  h.apply();
  trunk::sandbox::QueueControls controls;
  controls.arrivals = poisson(60);
  h.queue().set_controls(controls);
  h.minutes(120);
  // A paused queue still accepts submissions (it only stops testing); a draining one refuses them.
  const std::size_t paused = h.queue().entries().size();
  EXPECT_GT(paused, 60u);
  h.settings.state = trunk::QueueState::draining;
  h.apply();
  h.minutes(120);
  EXPECT_EQ(h.queue().entries().size(), paused);
}

}  // namespace
}  // namespace sandbox_test
