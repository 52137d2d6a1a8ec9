// From testing results to the twin's runs and durations (trunk/twin/observed_run.hpp, the Kaplan-Meier part of
// trunk/twin/duration_fit.hpp): batches regrouped by their verification run, incomplete results counted and left
// out, and stopped runs taken as lower bounds instead of being dropped.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "trunk/testing_result.hpp"
#include "trunk/twin/duration_fit.hpp"
#include "trunk/twin/observed_run.hpp"

namespace {

using trunk::TestingOutcome;
using trunk::TestingResult;
using trunk::twin::fit_durations;
using trunk::twin::observed_runs;
using trunk::twin::WeightedDuration;

const trunk::Timestamp kNoon = trunk::parse_rfc3339("2026-11-30T12:00:00Z");

TestingResult result(std::int64_t number, std::optional<std::string> run, std::int64_t ms, TestingOutcome outcome) {
  TestingResult r;
  r.pull_request_number = number;
  r.verification_run_id = std::move(run);
  r.testing_duration_ms = ms;
  r.ended_at = kNoon + std::chrono::milliseconds(ms);
  r.outcome = outcome;
  r.is_bisection = false;
  return r;
}

TEST(TwinObservedRuns, ABatchsResultsAreOneRun) {
  std::vector<TestingResult> results{result(1, "run-a", 600'000, TestingOutcome::failed),
                                     result(2, "run-b", 900'000, TestingOutcome::passed),
                                     result(3, "run-a", 600'000, TestingOutcome::failed)};
  results[0].is_bisection = true;
  const auto observed = observed_runs(results);
  ASSERT_EQ(observed.runs.size(), 2U);
  EXPECT_EQ(observed.runs[0].id, "run-a");
  EXPECT_EQ(observed.runs[0].pull_requests, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(observed.runs[0].outcome, TestingOutcome::failed);
  EXPECT_DOUBLE_EQ(observed.runs[0].minutes, 10.0);
  EXPECT_TRUE(observed.runs[0].bisection);
  EXPECT_TRUE(observed.runs[0].finished());
  EXPECT_DOUBLE_EQ(observed.runs[1].minutes, 15.0);
  EXPECT_EQ(observed.ignored, 0U);
}

TEST(TwinObservedRuns, IncompleteResultsAreCountedNotGuessed) {
  std::vector<TestingResult> results(4, result(1, std::nullopt, 60'000, TestingOutcome::passed));
  results[1].pull_request_number.reset();
  results[2].ended_at.reset();
  results[3].testing_duration_ms.reset();
  const auto observed = observed_runs(results);
  EXPECT_EQ(observed.runs.size(), 1U);
  EXPECT_EQ(observed.ignored, 3U);
}

TEST(TwinObservedRuns, ResultsWithoutARunIdAreRunsOfTheirOwn) {
  const std::vector<TestingResult> results{result(1, std::nullopt, 60'000, TestingOutcome::passed),
                                           result(2, "", 60'000, TestingOutcome::passed)};
  EXPECT_EQ(observed_runs(results).runs.size(), 2U);
}

TEST(TwinObservedRuns, AnOutcomeUnknownHereIsKeptAndTheRunIsNotFinished) {
  auto r = result(1, "run", 60'000, TestingOutcome::passed);
  r.outcome = trunk::OpenEnum<TestingOutcome>::from_wire("timed_out_politely");
  auto missing = result(2, "other", 60'000, TestingOutcome::passed);
  missing.outcome.reset();
  const auto observed = observed_runs(std::vector<TestingResult>{r, missing});
  EXPECT_EQ(observed.runs[0].outcome.wire(), "timed_out_politely");
  EXPECT_FALSE(observed.runs[0].finished());
  EXPECT_EQ(observed.runs[1].outcome, TestingOutcome::interrupted);
  EXPECT_FALSE(observed.runs[1].finished());
}

TEST(TwinKaplanMeier, WithoutStoppedRunsEachRunWeighsTheSame) {
  const auto fit = fit_durations(std::vector<double>{3, 1, 2, 2});
  EXPECT_EQ(fit.empirical, (std::vector<WeightedDuration>{{1, 0.25}, {2, 0.5}, {3, 0.25}}));
  EXPECT_EQ(fit.censored, 0U);
}

TEST(TwinKaplanMeier, AStoppedRunMovesItsWeightToLongerRuns) {
  // Finished 1, 3, 4; stopped at 2 (it would have taken longer than 2): its share goes to 3 and 4.
  const auto fit = fit_durations(std::vector<double>{1, 3, 4}, std::vector<double>{2});
  ASSERT_EQ(fit.empirical.size(), 3U);
  EXPECT_DOUBLE_EQ(fit.empirical[0].probability, 0.25);
  EXPECT_DOUBLE_EQ(fit.empirical[1].probability, 0.375);
  EXPECT_DOUBLE_EQ(fit.empirical[2].probability, 0.375);
  EXPECT_EQ(fit.censored, 1U);
}

TEST(TwinKaplanMeier, ARunStoppedAtAFinishedDurationStillCountsAsAtRisk) {
  // Stopped at 2 ran at least 2: at 2, three runs are at risk and one ends.
  const auto fit = fit_durations(std::vector<double>{2, 5}, std::vector<double>{2});
  EXPECT_DOUBLE_EQ(fit.empirical[0].probability, 1.0 / 3);
  EXPECT_DOUBLE_EQ(fit.empirical[1].probability, 2.0 / 3);
}

TEST(TwinKaplanMeier, MassBeyondTheLongestStoppedRunSitsOnIt) {
  const auto fit = fit_durations(std::vector<double>{1}, std::vector<double>{5, 7, -1});
  ASSERT_EQ(fit.empirical.size(), 2U);
  EXPECT_EQ(fit.empirical[0].minutes, 1.0);
  EXPECT_DOUBLE_EQ(fit.empirical[0].probability, 1.0 / 3);
  EXPECT_EQ(fit.empirical[1].minutes, 7.0);
  EXPECT_DOUBLE_EQ(fit.empirical[1].probability, 2.0 / 3);
  EXPECT_EQ(fit.ignored, 1U);
  const auto only_stopped = fit_durations(std::vector<double>{}, std::vector<double>{4});
  EXPECT_EQ(only_stopped.empirical, (std::vector<WeightedDuration>{{4, 1.0}}));
  EXPECT_FALSE(only_stopped.lognormal.has_value());
}

TEST(TwinKaplanMeier, CorrectsTheBiasOfDroppingInterruptedRuns) {
  // Runs of a bimodal CI, each interrupted at a uniform time with chance 1/2: long runs are interrupted more
  // often, so the finished ones alone make the CI look faster than it is.
  std::mt19937_64 dice(9);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> finished;
  std::vector<double> stopped;
  for (int i = 0; i < 20'000; ++i) {
    const double length = unit(dice) < 0.5 ? 8.0 : 40.0;
    const double interrupt_at = unit(dice) * 60;
    if (unit(dice) < 0.5 && interrupt_at < length) {
      stopped.push_back(interrupt_at);
    } else {
      finished.push_back(length);
    }
  }
  const auto fit = fit_durations(finished, stopped);
  double mean = 0;
  for (const auto& atom : fit.empirical) mean += atom.minutes * atom.probability;
  EXPECT_NEAR(mean, 24.0, 0.5);
  const double naive = std::accumulate(finished.begin(), finished.end(), 0.0) / static_cast<double>(finished.size());
  EXPECT_LT(naive, 22.0);
}

}  // namespace
