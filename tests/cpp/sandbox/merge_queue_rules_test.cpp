// The merge queue's documented rules (docs/sandbox.md, "The merge queue"), one test per rule, on a MergeQueue
// driven directly on the virtual clock: modes and lanes, capacity, pause, pending failure, bisection beside the
// main queue and its optimization, urgent priority during a bisection, timeout, direct merge, and the
// transition record.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "queue_harness.hpp"

namespace sandbox_test {
namespace {

using State = trunk::PullRequestState;
using trunk::sandbox::QueueType;

TEST(MergeQueueRules, SingleModeTestsUpToConcurrencyEachOnTopOfThoseAhead) {
  QueueHarness h;
  h.settings.concurrency = 3;
  for (int n = 1; n <= 5; ++n) ASSERT_FALSE(h.submit(n));
  h.minutes(1);
  EXPECT_EQ(h.queue().testing(QueueType::main), 3U);
  EXPECT_EQ(h.ahead_of(1), std::vector<std::int64_t>{});
  EXPECT_EQ(h.ahead_of(3), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(h.state(4), State::pending);
}

TEST(MergeQueueRules, ParallelLanesComeFromImpactedTargets) {
  // The documented example: A [frontend], B [backend], C [frontend, backend], D [docs].
  QueueHarness h;
  h.settings.mode = trunk::QueueMode::parallel;
  h.settings.concurrency = 5;
  for (int n = 1; n <= 5; ++n) ASSERT_FALSE(h.submit(n));
  h.targets(1, std::vector<std::string>{"frontend"});
  h.targets(2, std::vector<std::string>{"backend"});
  h.targets(3, std::vector<std::string>{"backend", "frontend"});
  h.targets(4, std::vector<std::string>{"docs"});
  h.minutes(1);
  for (int n = 1; n <= 4; ++n) EXPECT_EQ(h.state(n), State::testing) << n;
  EXPECT_EQ(h.ahead_of(1), std::vector<std::int64_t>{});
  EXPECT_EQ(h.ahead_of(2), std::vector<std::int64_t>{});
  EXPECT_EQ(h.ahead_of(3), (std::vector<std::int64_t>{1, 2})) << "on top of both lanes it overlaps";
  EXPECT_EQ(h.ahead_of(4), std::vector<std::int64_t>{});
  EXPECT_EQ(h.state(5), State::pending) << "no impacted targets: not processed";
  EXPECT_TRUE(h.pr(5).readiness->requires_impacted_targets.value_or(false));
  EXPECT_EQ(h.queue().awaiting_mergeability(), 1U);
  EXPECT_EQ(h.queue().depth(QueueType::main), 4U);
  h.targets(5, std::nullopt);  // ALL: on top of everything
  EXPECT_EQ(h.state(5), State::testing) << "processed as soon as its targets are uploaded";
  EXPECT_EQ(h.ahead_of(5), (std::vector<std::int64_t>{1, 2, 3, 4}));
  h.minutes(5 * 60);
  for (int n = 1; n <= 5; ++n) EXPECT_EQ(h.state(n), State::merged) << n;
}

TEST(MergeQueueRules, AFailureRestartsOnlyWhatWasTestedOnTopOfIt) {
  QueueHarness h(0, 0.3);
  const auto broken = h.numbers(true, 1).front();
  const auto good = h.numbers(false, 2);
  h.settings.mode = trunk::QueueMode::parallel;
  h.settings.concurrency = 3;
  for (const auto n : {broken, good[0], good[1]}) ASSERT_FALSE(h.submit(n));
  h.targets(broken, std::vector<std::string>{"frontend"});
  h.targets(good[0], std::vector<std::string>{"backend"});
  h.targets(good[1], std::vector<std::string>{"frontend"});
  h.minutes(1);
  const std::string other_lane_run = h.run_of(good[0]);
  const std::string same_lane_run = h.run_of(good[1]);
  h.minutes(6 * 60);
  EXPECT_EQ(h.state(broken), State::failed);
  EXPECT_EQ(h.reason(broken), "TEST_RUN_REQUIRED_STATUS_FAILED");
  EXPECT_EQ(h.state(good[0]), State::merged);
  EXPECT_EQ(h.run_of(good[0]), other_lane_run) << "the other lane's run was never restarted";
  EXPECT_EQ(h.state(good[1]), State::merged);
  EXPECT_NE(h.run_of(good[1]), same_lane_run) << "tested on top of the failure: restarted";
}

TEST(MergeQueueRules, ASlotIsHeldUntilItsPullRequestLeavesTheQueue) {
  // Over seeds, find the second run ending before the first: the passed one keeps its slot.
  int seen = 0;
  for (std::uint64_t seed = 1; seed <= 40 && seen == 0; ++seed) {
    QueueHarness h(0, 0, seed);
    h.settings.concurrency = 2;
    for (int n = 1; n <= 3; ++n) ASSERT_FALSE(h.submit(n));
    for (int minute = 0; minute < 120; ++minute) {
      h.minutes(1);
      EXPECT_LE(h.queue().slots_held(QueueType::main), 2U);
      if (h.state(2) == State::tests_passed && h.state(1) == State::testing) {
        EXPECT_EQ(h.state(3), State::pending) << "seed " << seed << ": a slot is free only when 2 leaves";
        ++seen;
      }
    }
  }
  EXPECT_GT(seen, 0);
}

TEST(MergeQueueRules, NoRunStartsOnTopOfAKnownFailureButOtherLanesGoOn) {
  int seen = 0;
  for (std::uint64_t seed = 1; seed <= 40 && seen == 0; ++seed) {
    QueueHarness h(0, 0.3, seed);
    const auto broken = h.numbers(true, 1).front();
    const auto good = h.numbers(false, 3);
    h.settings.mode = trunk::QueueMode::parallel;
    h.settings.concurrency = 4;
    h.settings.pending_failure_depth = 1;  // the failure waits for the one behind it
    for (const auto n : {broken, good[0]}) ASSERT_FALSE(h.submit(n));
    h.targets(broken, std::vector<std::string>{"x"});
    h.targets(good[0], std::vector<std::string>{"x"});
    h.minutes(1);
    bool submitted = false;
    for (int minute = 0; minute < 300; ++minute) {
      h.minutes(1);
      if (!submitted && h.state(broken) == State::pending_failure) {
        ASSERT_FALSE(h.submit(good[1]));
        ASSERT_FALSE(h.submit(good[2]));
        h.targets(good[1], std::vector<std::string>{"x"});
        h.targets(good[2], std::vector<std::string>{"y"});
        submitted = true;
      }
      if (!submitted || h.state(broken) != State::pending_failure) continue;
      EXPECT_NE(h.state(good[1]), State::testing) << "seed " << seed << ": would be tested on top of a failure";
      if (h.state(good[2]) == State::testing) ++seen;  // another lane is not held up
    }
  }
  EXPECT_GT(seen, 0);
}

TEST(MergeQueueRules, PausedTestsAndMergesNothingButAcceptsSubmissions) {
  QueueHarness h;
  ASSERT_FALSE(h.submit(1));
  h.minutes(1);
  ASSERT_EQ(h.state(1), State::testing);
  h.settings.state = trunk::QueueState::paused;
  h.apply();
  EXPECT_FALSE(h.submit(2)) << "submissions are accepted while paused";
  h.minutes(5 * 60);
  EXPECT_EQ(h.state(1), State::tests_passed) << "its run finished, but nothing merges while paused";
  EXPECT_EQ(h.state(2), State::pending) << "and nothing starts";
  h.settings.state = trunk::QueueState::running;
  h.apply();
  EXPECT_EQ(h.state(1), State::merged) << "it merges on resume";
  EXPECT_EQ(h.state(2), State::testing);
}

TEST(MergeQueueRules, AFailedBatchWaitsInPendingFailureBeforeItsBisection) {
  // Over seeds (run durations differ), find the failed batch held while the batch on top of it still tests.
  bool held = false;
  for (std::uint64_t seed = 1; seed <= 30 && !held; ++seed) {
    QueueHarness h(0, 0.3, seed);
    const auto broken = h.numbers(true, 1).front();
    const auto good = h.numbers(false, 7);
    h.settings.concurrency = 2;
    h.settings.batch = true;
    h.settings.batching_min_size = 4;
    h.settings.pending_failure_depth = 1;
    for (const auto n : {good[0], broken, good[1], good[2]}) ASSERT_FALSE(h.submit(n));
    h.minutes(1);  // the first batch starts; the second is tested on top of it
    for (const auto n : {good[3], good[4], good[5], good[6]}) ASSERT_FALSE(h.submit(n));
    for (int minute = 0; minute < 10 * 60; ++minute) {
      h.minutes(1);
      if (h.state(broken) == State::pending_failure && h.queue().tally().bisection_runs_started == 0) {
        for (const auto n : {good[0], good[1], good[2]}) EXPECT_EQ(h.state(n), State::pending_failure) << n;
        EXPECT_EQ(h.state(good[3]), State::testing) << "the level of successors it waits for";
        held = true;
      }
    }
    EXPECT_EQ(h.state(broken), State::failed);
    EXPECT_EQ(h.queue_type(broken), "bisection") << "found by the bisection";
    for (const auto n : good) EXPECT_EQ(h.state(n), State::merged) << n;
  }
  EXPECT_TRUE(held) << "the batch showed pending_failure before any bisection run";
}

TEST(MergeQueueRules, BisectionRunsBesideTheMainQueueAndUrgentStillGoesFirst) {
  QueueHarness h(0, 0.3);
  const auto broken = h.numbers(true, 1).front();
  const auto good = h.numbers(false, 6);
  h.settings.concurrency = 2;
  h.settings.batch = true;
  h.settings.batching_min_size = 4;
  for (const auto n : {good[0], broken, good[1], good[2]}) ASSERT_FALSE(h.submit(n));
  h.minutes(1);
  for (int minute = 0; minute < 300 && h.queue().testing(QueueType::bisection) == 0; ++minute) h.minutes(1);
  ASSERT_GT(h.queue().testing(QueueType::bisection), 0U);
  EXPECT_EQ(h.queue().slots_held(QueueType::bisection), 2U) << "bisection concurrency defaults to concurrency";
  h.settings.batching_min_size = 1;
  ASSERT_FALSE(h.submit(good[3]));
  ASSERT_FALSE(h.submit(good[4], trunk::Priority{std::string("urgent")}));
  h.minutes(1);
  EXPECT_EQ(h.state(good[4]), State::testing) << "urgent starts at once, bisection or not";
  EXPECT_EQ(h.queue_type(good[4]), "main");
  EXPECT_GT(h.queue().testing(QueueType::bisection), 0U) << "while the bisection goes on beside it";
  h.minutes(10 * 60);
  EXPECT_EQ(h.state(broken), State::failed);
  for (const auto n : {good[0], good[1], good[2], good[3], good[4]}) EXPECT_EQ(h.state(n), State::merged) << n;
}

/// Bisection runs to find a culprit at the end of a batch of 8, with or without the optimization.
std::uint64_t bisection_runs(trunk::OptimizationMode mode, bool* culprit_failed, bool* innocents_merged) {
  QueueHarness h(0, 0.3);
  const auto broken = h.numbers(true, 1).front();
  auto members = h.numbers(false, 7);
  members.push_back(broken);
  h.settings.batch = true;
  h.settings.batching_min_size = 8;
  h.settings.bisection_concurrency = 2;
  h.settings.optimization_mode = mode;
  for (const auto n : members) EXPECT_FALSE(h.submit(n));
  h.minutes(12 * 60);
  *culprit_failed = h.state(broken) == State::failed;
  *innocents_merged = true;
  for (std::size_t i = 0; i + 1 < members.size(); ++i) *innocents_merged &= h.state(members[i]) == State::merged;
  return h.queue().tally().bisection_runs_started;
}

TEST(MergeQueueRules, OptimizationModeFindsTheCulpritWithFewerBisectionRuns) {
  bool failed = false, merged = false;
  const auto plain = bisection_runs(trunk::OptimizationMode::off, &failed, &merged);
  EXPECT_TRUE(failed && merged);
  const auto optimized = bisection_runs(trunk::OptimizationMode::bisection_skip_redundant_tests, &failed, &merged);
  EXPECT_TRUE(failed && merged);
  // 8 -> 4+4 -> 2+2 -> 1+1: six runs; the optimization runs only the first half each time: three.
  EXPECT_EQ(plain, 6U);
  EXPECT_EQ(optimized, 3U);
}

TEST(MergeQueueRules, ARunPastTheTimeoutFailsThePullRequestWithATimeoutReason) {
  QueueHarness h;
  h.settings.testing_timeout_minutes = 2;  // runs last at least a minute, most far longer
  ASSERT_FALSE(h.submit(1));
  h.minutes(60);
  EXPECT_EQ(h.state(1), State::failed);
  EXPECT_EQ(h.reason(1), "TEST_RUN_TIMEOUT");
  EXPECT_EQ(h.run(h.run_of(1)).extra.value("failureCause", ""), "timeout");
}

TEST(MergeQueueRules, DirectMergeMergesAnUpToDatePullRequestOnAnEmptyQueueWithoutARun) {
  QueueHarness h;
  h.settings.direct_merge_mode = trunk::DirectMergeMode::always;
  ASSERT_FALSE(h.submit(1));
  ASSERT_FALSE(h.submit(2));
  h.minutes(1);
  EXPECT_EQ(h.state(1), State::testing) << "not alone in the queue: tested";
  h.minutes(4 * 60);
  ASSERT_EQ(h.state(2), State::merged);
  ASSERT_FALSE(h.submit(3));
  h.minutes(1);
  EXPECT_EQ(h.state(3), State::merged);
  EXPECT_EQ(h.reason(3), "MERGE_GRAPH_DIRECT_MERGE");
  EXPECT_EQ(h.run_of(3), "") << "no run";
  EXPECT_EQ(h.queue().tally().runs_started, 2U);
}

TEST(MergeQueueRules, EveryChangeOfStateIsRecordedOnceWithItsReason) {
  QueueHarness h(0.2, 0.2);
  std::vector<trunk::sandbox::Transition> seen;
  h.queue().on_transition([&](const trunk::sandbox::Transition& t) { seen.push_back(t); });
  h.settings.concurrency = 2;
  h.settings.batch = true;
  h.settings.batching_min_size = 2;
  for (int n = 1; n <= 6; ++n) ASSERT_FALSE(h.submit(n));
  h.minutes(8 * 60);
  // Replaying the record from not_ready gives every pull request's state now.
  std::map<std::int64_t, State> replay;
  std::set<std::int64_t> submitted;
  for (const auto& t : seen) {
    const auto it = replay.find(t.number);
    if (t.submission) {  // announced first (the webhooks' pull_request.submitted), with no change of state
      EXPECT_TRUE(submitted.insert(t.number).second) << t.number;
      EXPECT_TRUE(it == replay.end()) << t.number;
      EXPECT_EQ(t.from, State::not_ready);
      EXPECT_EQ(t.to, State::not_ready);
      continue;
    }
    EXPECT_EQ(submitted.count(t.number), 1U) << "announced before it moves: " << t.number;
    EXPECT_EQ(it == replay.end() ? State::not_ready : it->second, t.from) << t.number;
    EXPECT_NE(t.from, t.to);
    EXPECT_FALSE(t.reason.empty());
    replay[t.number] = t.to;
  }
  EXPECT_EQ(submitted.size(), 6U);
  for (int n = 1; n <= 6; ++n) EXPECT_EQ(replay[n], h.state(n)) << n;
  EXPECT_LE(h.queue().recent_transitions().size(), seen.size()) << "the kept record covers only the last hour";
  for (const auto& t : h.queue().recent_transitions()) EXPECT_FALSE(t.submission) << "a submission changes no state";
}

}  // namespace
}  // namespace sandbox_test
