// The twin's interval estimates (trunk/twin/intervals.hpp, trunk/twin/duration_fit.hpp): known values from the
// textbooks, every validation rule at its boundary, and coverage: over many seeded samples a 95 % interval holds
// the truth about 95 % of the time (not always, which would mean it is too wide, and not much less).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/twin/duration_fit.hpp"
#include "trunk/twin/intervals.hpp"

namespace {

using trunk::twin::DurationFamily;
using trunk::twin::estimate_mean;
using trunk::twin::estimate_poisson_rate;
using trunk::twin::estimate_proportion;
using trunk::twin::estimate_quantile;
using trunk::twin::fit_durations;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string violated_field(const std::function<void()>& call) {
  try {
    call();
  } catch (const trunk::ValidationError& e) {
    return e.violations().at(0).field;
  }
  return "<nothing thrown>";
}

std::vector<double> lognormal_sample(std::uint64_t seed, std::size_t n, double median, double sigma) {
  std::mt19937_64 dice(seed);
  std::lognormal_distribution<double> draw(std::log(median), sigma);
  std::vector<double> sample(n);
  for (double& x : sample) x = draw(dice);
  return sample;
}

TEST(TwinProportion, WilsonIntervalOfKnownCounts) {
  const auto half = estimate_proportion(5, 10).value();
  EXPECT_DOUBLE_EQ(half.value, 0.5);
  EXPECT_NEAR(half.low, 0.2366, 1e-4);
  EXPECT_NEAR(half.high, 0.7634, 1e-4);
  EXPECT_EQ(half.observations, 10U);
}

TEST(TwinProportion, NoSuccessIsNotAnExactZero) {
  const auto none = estimate_proportion(0, 10).value();
  EXPECT_EQ(none.value, 0.0);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 0.2775, 1e-4);  // z^2 / (n + z^2)
  const auto all = estimate_proportion(10, 10).value();
  EXPECT_EQ(all.high, 1.0);
  EXPECT_NEAR(all.low, 0.7225, 1e-4);
}

TEST(TwinProportion, NoTrialIsNoEstimateAndMoreSuccessesThanTrialsIsRefused) {
  EXPECT_FALSE(estimate_proportion(0, 0).has_value());
  EXPECT_TRUE(estimate_proportion(7, 7).has_value());
  EXPECT_EQ(violated_field([] { (void)estimate_proportion(8, 7); }), "successes");
}

TEST(TwinProportion, CoversTheTruthAboutNinetyFivePercentOfTheTime) {
  std::mt19937_64 dice(7);
  std::bernoulli_distribution flake(0.2);
  int covered = 0;
  constexpr int kSamples = 1000;
  for (int s = 0; s < kSamples; ++s) {
    std::size_t failures = 0;
    for (int run = 0; run < 100; ++run) failures += flake(dice) ? 1 : 0;
    covered += estimate_proportion(failures, 100)->contains(0.2) ? 1 : 0;
  }
  EXPECT_GE(covered, 920);
  EXPECT_LE(covered, 985);
}

TEST(TwinPoissonRate, GarwoodIntervalOfKnownCounts) {
  const auto ten = estimate_poisson_rate(10, 2.0).value();
  EXPECT_DOUBLE_EQ(ten.value, 5.0);
  EXPECT_NEAR(ten.low, 4.7954 / 2, 1e-4);
  EXPECT_NEAR(ten.high, 18.3904 / 2, 1e-4);
  const auto none = estimate_poisson_rate(0, 1.0).value();
  EXPECT_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 3.6889, 1e-4);
}

TEST(TwinPoissonRate, ExposureRules) {
  EXPECT_FALSE(estimate_poisson_rate(3, 0.0).has_value());
  EXPECT_TRUE(estimate_poisson_rate(3, std::numeric_limits<double>::min()).has_value());
  EXPECT_EQ(violated_field([] { (void)estimate_poisson_rate(3, -1e-12); }), "exposure");
  EXPECT_EQ(violated_field([] { (void)estimate_poisson_rate(3, kInfinity); }), "exposure");
  EXPECT_EQ(violated_field([] { (void)estimate_poisson_rate(3, std::nan("")); }), "exposure");
}

TEST(TwinMean, StudentsIntervalOfKnownValuesAndItsThinCases) {
  // 1, 2, 3: mean 2, sd 1, t(2 dof, 97.5 %) = 4.3027, half width 4.3027 / sqrt(3).
  const auto three = estimate_mean({1, 2, 3}).value();
  EXPECT_DOUBLE_EQ(three.value, 2.0);
  EXPECT_NEAR(three.low, 2 - 4.30265 / std::sqrt(3.0), 1e-4);
  EXPECT_NEAR(three.high, 2 + 4.30265 / std::sqrt(3.0), 1e-4);
  EXPECT_EQ(three.observations, 3u);
  EXPECT_FALSE(estimate_mean({}).has_value());
  const auto one = estimate_mean({4}).value();
  EXPECT_EQ(one.value, 4.0);
  EXPECT_EQ(one.low, -kInfinity) << "one value bounds nothing";
  EXPECT_EQ(one.high, kInfinity);
  const auto same = estimate_mean({5, 5, 5}).value();
  EXPECT_EQ(same.low, 5.0);
  EXPECT_EQ(same.high, 5.0);
}

TEST(TwinMean, CoversTheTruthAboutNinetyFivePercentOfTheTime) {
  std::mt19937_64 dice(11);
  std::exponential_distribution<double> draw(1.0);  // skewed, as batch sizes are: the t interval still holds
  int covered = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<double> sample(40);
    for (double& x : sample) x = draw(dice);
    const auto mean = estimate_mean(sample).value();
    covered += mean.low <= 1.0 && 1.0 <= mean.high;
  }
  EXPECT_GE(covered, 920);
  EXPECT_LE(covered, 980);
}

TEST(TwinDurations, RecoversALognormalsMedianAndSpread) {
  const auto fit = fit_durations(lognormal_sample(1, 2000, 15.0, 0.35));
  ASSERT_TRUE(fit.lognormal.has_value());
  EXPECT_TRUE(fit.lognormal->median_minutes.contains(15.0));
  EXPECT_LT(fit.lognormal->median_minutes.width(), 1.0);
  ASSERT_TRUE(fit.lognormal->sigma.has_value());
  EXPECT_TRUE(fit.lognormal->sigma->contains(0.35));
  EXPECT_GT(fit.lognormal->ks_p_value, 0.05);
  EXPECT_EQ(fit.preferred(), DurationFamily::empirical);
}

TEST(TwinDurations, MedianIntervalCoversTheTruthAboutNinetyFivePercentOfTheTime) {
  int covered = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    covered += fit_durations(lognormal_sample(seed, 20, 15.0, 0.5)).lognormal->median_minutes.contains(15.0) ? 1 : 0;
  }
  EXPECT_GE(covered, 930);
  EXPECT_LE(covered, 970);
}

TEST(TwinDurations, ABimodalCiIsNotTakenForALognormal) {
  std::vector<double> sample;
  std::mt19937_64 dice(3);
  std::normal_distribution<double> noise(0.0, 0.5);
  for (int i = 0; i < 200; ++i) sample.push_back((i % 2 == 0 ? 8.0 : 40.0) + noise(dice));
  const auto fit = fit_durations(sample);
  EXPECT_LT(fit.lognormal->ks_p_value, 0.001);
  EXPECT_EQ(fit.preferred(), DurationFamily::empirical);
}

TEST(TwinDurations, ThinAndOddSamplesGiveHonestAnswers) {
  const std::vector<double> odd{0.0, -1.0, std::nan(""), kInfinity, 12.0};
  const auto one = fit_durations(odd);
  EXPECT_EQ(one.ignored, 4U);
  ASSERT_EQ(one.minutes, std::vector<double>{12.0});
  EXPECT_DOUBLE_EQ(one.lognormal->median_minutes.value, 12.0);
  EXPECT_EQ(one.lognormal->median_minutes.low, 0.0);
  EXPECT_EQ(one.lognormal->median_minutes.high, kInfinity);
  EXPECT_FALSE(one.lognormal->sigma.has_value());

  EXPECT_FALSE(fit_durations(std::vector<double>{}).lognormal.has_value());
  const auto same = fit_durations(std::vector<double>(5, 10.0));  // no spread: a point, not a crash
  EXPECT_DOUBLE_EQ(same.lognormal->sigma->value, 0.0);
  EXPECT_DOUBLE_EQ(same.lognormal->median_minutes.low, 10.0);
}

TEST(TwinDurations, TheEmpiricalSampleIsPreferredFromThirtyRuns) {
  EXPECT_EQ(fit_durations(lognormal_sample(2, trunk::twin::kEmpiricalFrom - 1, 15, 0.3)).preferred(),
            DurationFamily::lognormal);
  EXPECT_EQ(fit_durations(lognormal_sample(2, trunk::twin::kEmpiricalFrom, 15, 0.3)).preferred(),
            DurationFamily::empirical);
}

TEST(TwinQuantile, OrderStatisticsBracketTheQuantile) {
  std::vector<double> sorted;
  for (int i = 1; i <= 100; ++i) sorted.push_back(i);
  const auto median = estimate_quantile(sorted, 0.5).value();
  EXPECT_EQ(median.value, 50.0);
  EXPECT_GE(median.low, 38.0);
  EXPECT_LE(median.low, 42.0);
  EXPECT_GE(median.high, 59.0);
  EXPECT_LE(median.high, 63.0);
  EXPECT_EQ(estimate_quantile(sorted, 0.0)->value, 1.0);
  EXPECT_EQ(estimate_quantile(sorted, 0.0)->low, 0.0);
  EXPECT_EQ(estimate_quantile(sorted, 1.0)->value, 100.0);
  EXPECT_EQ(estimate_quantile(sorted, 1.0)->high, kInfinity);
  EXPECT_FALSE(estimate_quantile(std::vector<double>{}, 0.5).has_value());
}

TEST(TwinQuantile, PMustBeAProbability) {
  const std::vector<double> sorted{1, 2, 3};
  EXPECT_EQ(violated_field([&] { (void)estimate_quantile(sorted, -0.0001); }), "p");
  EXPECT_EQ(violated_field([&] { (void)estimate_quantile(sorted, 1.0001); }), "p");
  EXPECT_EQ(violated_field([&] { (void)estimate_quantile(sorted, std::nan("")); }), "p");
}

TEST(TwinQuantile, NinetiethPercentileIntervalCoversTheTruth) {
  const double truth = 15.0 * std::exp(0.5 * 1.2815515655446004);  // lognormal p90
  int covered = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    auto sample = lognormal_sample(seed, 200, 15.0, 0.5);
    std::sort(sample.begin(), sample.end());
    covered += estimate_quantile(sample, 0.9)->contains(truth) ? 1 : 0;
  }
  EXPECT_GE(covered, 930);
  EXPECT_LE(covered, 985);
}

}  // namespace
