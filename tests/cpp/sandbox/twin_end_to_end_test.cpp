// The twin end to end (docs/twin.md, "How it is checked"): a sandbox with hidden parameters plays a team's
// service for a month: CI durations from a bimodal list (quick unit runs or a slow integration suite), pull
// requests arriving on a working-hours profile with impacted targets and priorities, broken pull requests and
// flaky runs at rates of their own, and a queue configuration. The twin is calibrated from it through the HTTP API only
// (v2's testing results and pull requests), fitted, and backtested against the same history; then four other
// configurations run on the "service" itself (fresh sandboxes, other seeds, the same hidden team) as the ground
// truth the twin's predictions must contain and rank alike. None of these distributions is the sandbox's default
// (lognormal durations, flat arrivals), so nothing of the fit leans on the generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <string>
#include <vector>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/twin/backtest.hpp"
#include "trunk/twin/calibration.hpp"
#include "trunk/twin/queue_history.hpp"
#include "trunk/twin/team_fit.hpp"
#include "trunk/twin/what_if.hpp"
#include "v2_service.hpp"

namespace sandbox_test {
namespace {

using namespace std::chrono_literals;
namespace sb = trunk::sandbox;
namespace tw = trunk::twin;

// ---- the hidden team ----------------------------------------------------------------------------------------

constexpr double kBrokenRate = 0.08;
constexpr double kFlakyRate = 0.05;
/// A hotfix now and then skips the line (0); some changes go in as high (10); the rest take the default.
const std::vector<sb::PriorityChance> kPriorities{{0, 0.02}, {10, 0.15}};

/// Two kinds of change: 70 % run the unit tests (9 to 13 minutes), 30 % the integration suite (35 to 45).
std::vector<double> bimodal_durations() {
  std::vector<double> minutes;
  for (int i = 0; i < 70; ++i) minutes.push_back(9 + 4.0 * i / 69);
  for (int i = 0; i < 30; ++i) minutes.push_back(35 + 10.0 * i / 29);
  return minutes;
}

/// A working day in UTC: 5 an hour from 08:00 to 18:00, 1.5 in the evening, 0.3 at night (2.9 a day's average).
std::vector<double> working_hours() {
  std::vector<double> per_hour(24, 0.3);
  for (int h = 8; h < 18; ++h) per_hour[h] = 5;
  for (int h = 18; h < 22; ++h) per_hour[h] = 1.5;
  return per_hour;
}

sb::QueueControls hidden_controls() {
  sb::QueueControls controls;
  controls.run_duration = sb::EmpiricalRunDuration{bimodal_durations()};
  controls.flaky_run_rate = kFlakyRate;
  controls.broken_pull_request_rate = kBrokenRate;
  controls.arrivals = sb::Arrivals{sb::HourlyArrivals{working_hours()}, {{"//app", 0.6}, {"//lib", 0.3}}, 1000,
                                   kPriorities};
  return controls;
}

/// The configuration the team runs: up to three pull requests tested at once, predictively.
trunk::UpdateMergeQueueConfigRequest teams_configuration(const std::string& id) {
  trunk::UpdateMergeQueueConfigRequest c;
  c.id = id;
  c.concurrency = 3;
  c.allow_batching = false;
  return c;
}

/// The alternatives the team asks about, as the twin takes them and as the service is configured.
struct Alternative {
  std::string name;
  std::int64_t concurrency;
  bool batching;
  std::int64_t batch_size;
  bool parallel = false;  ///< lanes by impacted targets (v2's graph mode)
};
const std::vector<Alternative> kAlternatives = {
    {"one at a time", 1, false, 1},
    {"batches of 4", 2, true, 4},
    {"two at once", 2, false, 1},
    {"parallel lanes, two at once", 2, false, 1, true},
};

trunk::QueueSettings settings_of(const Alternative& a) {
  trunk::QueueSettings s;
  if (a.parallel) s.mode = trunk::QueueMode::parallel;
  s.concurrency = a.concurrency;
  s.batch = a.batching;
  if (a.batching) {
    s.batching_min_size = a.batch_size;
    s.batching_max_wait_time_minutes = 10;
  }
  return s;
}

// ---- the service: a sandbox playing the team for 32 days -------------------------------------------------------

constexpr auto kDays = std::chrono::days(30);

struct Service {
  std::unique_ptr<sb::Sandbox> sandbox;
  std::unique_ptr<trunk::Client> client;
  std::string queue_id;
  tw::QueueHistory history;  ///< the last 30 days, read through v2

  /// target_sample: runs fetched by id for their targets (the ground truths need none).
  Service(std::uint64_t seed, const std::function<void(trunk::UpdateMergeQueueConfigRequest&)>& configure,
          bool parallel = false, std::size_t target_sample = tw::kTargetSample) {
    auto options = small_options(50);
    options.clock = sb::ClockMode::virtual_time;
    options.seed = seed;
    sandbox = start_sandbox(options);
    trunk::ClientOptions client_options;
    client_options.base_url = sandbox->url();
    client_options.token = sandbox->token();
    client_options.api_key = sandbox->api_key();
    client_options.retry.max_retries = 0;
    client = std::make_unique<trunk::Client>(std::move(client_options));
    const trunk::Repo repo = sandbox->repos().at(0);
    queue_id = sb::merge_queue_id(repo.to_string(), "main");
    auto config = teams_configuration(queue_id);
    configure(config);
    client->update_merge_queue_config(config);
    if (parallel) {
      trunk::SwitchModesRequest switch_modes;
      switch_modes.id = queue_id;
      switch_modes.mode = trunk::MergeQueueMode::graph;
      client->switch_merge_queue_mode(switch_modes);
      sandbox->advance(1min);  // an empty queue switches at once
    }
    sandbox->set_queue_controls(repo, "main", hidden_controls());
    sandbox->advance(std::chrono::duration_cast<std::chrono::milliseconds>(kDays + 48h));
    const trunk::Timestamp until = sandbox->clock_now();
    history = tw::collect_queue_history(*client, queue_id, until - kDays, until, target_sample);
  }
};

std::string text(const tw::Estimate& e) {
  return std::to_string(e.value) + " [" + std::to_string(e.low) + ", " + std::to_string(e.high) + "]";
}

void record(const std::string& name, double truth, const tw::Estimate& e) {
  ::testing::Test::RecordProperty(name, "truth " + std::to_string(truth) + ", estimate " + text(e));
  std::printf("%-34s truth %10.3f  estimate %s\n", name.c_str(), truth, text(e).c_str());
}

TEST(TwinEndToEnd, CalibratedThroughTheApiItRecoversTheTeamBacktestsAndPredictsOtherConfigurations) {
  // TRUNK_TWIN_SEED runs it with another seed, to see how often each interval holds over many: over seeds 1 to
  // 30 (docs/twin.md, "How it is checked"), 95 % intervals held 27 to 30 times each, the backtest stayed under
  // 10 % and the ranking held in 29; with this many checks some seeds fail one of them, as 95 % intervals must.
  // Seed 1 passes every one.
  const char* seed_text = std::getenv("TRUNK_TWIN_SEED");
  const std::uint64_t seed = seed_text != nullptr ? std::strtoull(seed_text, nullptr, 10) : 1;
  const Service service(seed, [](auto&) {});
  ASSERT_GT(service.history.pull_requests.size(), 1500U) << "a month of a working team";
  // Calibration and fit, from the HTTP API's answers only.
  const tw::Calibration calibration = tw::calibrate(service.history);
  const trunk::QueueSettings todays = tw::settings_of(service.history.queue);
  EXPECT_EQ(todays.concurrency, 3);
  const tw::FittedTeam fitted = tw::fit_team(calibration, todays);
  for (const auto& w : calibration.warnings) std::printf("calibration warning: %s\n", w.c_str());
  for (const auto& w : fitted.warnings) std::printf("fit warning: %s\n", w.c_str());

  // Each recovered parameter within its stated interval.
  const std::vector<double> hourly = working_hours();
  double mean_rate = 0;
  for (const double r : hourly) mean_rate += r / 24;
  record("arrivals per hour", mean_rate, calibration.arrivals.per_hour);
  EXPECT_TRUE(calibration.arrivals.per_hour.contains(mean_rate));
  std::size_t hours_inside = 0;
  for (std::size_t h = 0; h < 24; ++h) {
    hours_inside += calibration.arrivals.by_hour_of_day[h]->contains(hourly[h]) ? 1 : 0;
  }
  ::testing::Test::RecordProperty("hours of the day inside their interval", std::to_string(hours_inside) + " of 24");
  std::printf("hours of the day inside their interval: %zu of 24\n", hours_inside);
  EXPECT_GE(hours_inside, 21U) << "95 % intervals: 22.8 of 24 expected, fewer than 21 has a chance under 3 %";
  EXPECT_LT(calibration.arrivals.flat_p_value, 1e-6) << "a working day is not flat";

  // Impacted targets, from runs of one pull request fetched by id (v2 lists no targets).
  ASSERT_GT(calibration.targets_sampled, 100U);
  for (const auto& expected : {std::pair<std::string, double>{"//app", 0.6}, {"//lib", 0.3}}) {
    // Named, not a structured binding: clang before 16 cannot capture one in a lambda (the ASan tree is clang 14).
    const std::string& target = expected.first;
    const double chance = expected.second;
    const auto found = std::find_if(calibration.targets.begin(), calibration.targets.end(),
                                    [&](const tw::TargetShare& t) { return t.target == target; });
    ASSERT_NE(found, calibration.targets.end()) << target;
    record("target " + target, chance, found->share);
    EXPECT_TRUE(found->share.contains(chance)) << target;
  }
  EXPECT_EQ(calibration.targets.size(), 2U);

  // Priorities: the hidden ones, and the queue's default (medium, 100) for the rest, which the queue names.
  ASSERT_EQ(calibration.priorities.size(), kPriorities.size() + 1);
  double given = 0;
  for (const sb::PriorityChance& chance : kPriorities) {
    const auto found = std::find_if(calibration.priorities.begin(), calibration.priorities.end(),
                                    [&](const tw::PriorityShare& p) { return p.value == chance.value; });
    ASSERT_NE(found, calibration.priorities.end()) << chance.value;
    record("priority " + std::to_string(chance.value), chance.probability, found->share);
    EXPECT_TRUE(found->share.contains(chance.probability)) << chance.value;
    given += chance.probability;
  }
  EXPECT_EQ(calibration.priorities.front().value, 100);
  EXPECT_TRUE(calibration.priorities.front().share.contains(1 - given));
  ASSERT_TRUE(fitted.broken_rate && fitted.flaky_rate);
  std::printf("failures: entries %.4f observed, %.4f simulated; clean runs %.4f observed, %.4f simulated\n",
              calibration.failed_entries->value, fitted.simulated_failed_entries, calibration.failed_clean_runs->value,
              fitted.simulated_failed_clean_runs);
  record("broken rate", kBrokenRate, *fitted.broken_rate);
  record("flaky rate", kFlakyRate, *fitted.flaky_rate);
  EXPECT_TRUE(fitted.broken_rate->contains(kBrokenRate));
  EXPECT_TRUE(fitted.flaky_rate->contains(kFlakyRate));

  // The durations: the Kaplan-Meier distribution against the hidden list, within the
  // Dvoretzky-Kiefer-Wolfowitz band of its sample (the band a distribution's estimate states).
  const auto* replayed = std::get_if<sb::EmpiricalRunDuration>(&fitted.team.run_duration);
  ASSERT_NE(replayed, nullptr) << "a month of runs is resampled, not forced into a lognormal";
  std::vector<double> truth = bimodal_durations();
  std::sort(truth.begin(), truth.end());
  std::vector<double> fitted_minutes = replayed->minutes;
  std::sort(fitted_minutes.begin(), fitted_minutes.end());
  double ks = 0;
  for (double x = 8; x <= 46; x += 0.25) {
    const auto cdf = [&](const std::vector<double>& v) {
      return static_cast<double>(std::upper_bound(v.begin(), v.end(), x) - v.begin()) / static_cast<double>(v.size());
    };
    ks = std::max(ks, std::abs(cdf(truth) - cdf(fitted_minutes)));
  }
  const double n = static_cast<double>(calibration.durations.minutes.size());
  const double band = std::sqrt(std::log(2 / 0.05) / (2 * n));
  std::printf("durations: KS distance %.4f, DKW band %.4f (%zu finished, %zu stopped)\n", ks, band,
              calibration.durations.minutes.size(), calibration.durations.censored);
  ::testing::Test::RecordProperty("durations KS distance / band", std::to_string(ks) + " / " + std::to_string(band));
  EXPECT_LT(ks, band);

  // The backtest: today's configuration replayed over the same month.
  tw::WhatIfOptions options;
  const tw::Backtest back = tw::backtest(fitted.team, service.history, options);
  std::printf("backtest p50: observed %.2f, twin %s, error %+.1f %%\n", back.observed.minutes_in_queue_p50,
              text(back.predicted.minutes_in_queue_p50).c_str(), 100 * back.p50_error);
  std::printf("backtest runs per merged: observed %.3f, twin %s, error %+.1f %%\n", back.observed.runs_per_merged,
              text(back.predicted.runs_per_merged).c_str(), 100 * back.runs_per_merged_error);
  ::testing::Test::RecordProperty("backtest p50 error", std::to_string(back.p50_error));
  ::testing::Test::RecordProperty("backtest runs per merged error", std::to_string(back.runs_per_merged_error));
  EXPECT_LT(std::abs(back.p50_error), 0.10);
  EXPECT_LT(std::abs(back.runs_per_merged_error), 0.10);

  // Three other configurations: the twin's predictions against the service run under each.
  std::vector<trunk::QueueSettings> alternatives;
  for (const Alternative& a : kAlternatives) alternatives.push_back(settings_of(a));
  options.start = service.history.since - options.warm_up;  // the same hours of the week as the history
  options.window = std::chrono::duration_cast<std::chrono::hours>(kDays);
  const auto predicted = tw::compare(fitted.team, alternatives, options);
  std::vector<double> true_p50, predicted_p50;
  for (std::size_t i = 0; i < kAlternatives.size(); ++i) {
    const Alternative& a = kAlternatives[i];
    const Service truth_service(
        seed * 10 + 1 + i,
        [&](trunk::UpdateMergeQueueConfigRequest& c) {
          c.concurrency = a.concurrency;
          c.allow_batching = a.batching;
          if (a.batching) {
            c.batching_min_size = a.batch_size;
            c.batching_max_wait_time_minutes = 10;
          }
        },
        a.parallel, 0);
    const tw::QueueMeasures truth_measures =
        tw::measure(tw::record_of(truth_service.history), truth_service.history.since,
                    truth_service.history.until - 48h);
    record(a.name + ": p50 minutes", truth_measures.minutes_in_queue_p50, predicted[i].minutes_in_queue_p50);
    record(a.name + ": runs per merged", truth_measures.runs_per_merged, predicted[i].runs_per_merged);
    EXPECT_TRUE(predicted[i].minutes_in_queue_p50.contains(truth_measures.minutes_in_queue_p50)) << a.name;
    EXPECT_TRUE(predicted[i].runs_per_merged.contains(truth_measures.runs_per_merged)) << a.name;
    true_p50.push_back(truth_measures.minutes_in_queue_p50);
    predicted_p50.push_back(predicted[i].minutes_in_queue_p50.value);
  }
  const auto order = [](const std::vector<double>& v) {
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    return idx;
  };
  EXPECT_EQ(order(predicted_p50), order(true_p50)) << "the twin ranks the configurations as the service does";
}

}  // namespace
}  // namespace sandbox_test
