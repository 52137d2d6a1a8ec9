// QueuePolicy::of, the one place the merge queue's settings are read: start values for what the settings do not
// hold, the clamps that keep the simulation runnable, and what each queue state allows.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "queue_policy.hpp"
#include "queue_setting_starts.hpp"

namespace sandbox_test {
namespace {

using trunk::sandbox::QueuePolicy;

TEST(QueuePolicy, SettingsNotHeldTakeTheirStartValues) {
  const QueuePolicy empty = QueuePolicy::of(trunk::QueueSettings{});
  const QueuePolicy started = QueuePolicy::of(trunk::sandbox::start_settings());
  for (const QueuePolicy& policy : {empty, started}) {
    EXPECT_TRUE(policy.accepts_submissions && policy.admits_new_units && policy.runs_start && policy.outcomes_apply);
    EXPECT_FALSE(policy.parallel || policy.optimize_bisection || policy.direct_merge_always);
    EXPECT_EQ(policy.concurrency, 1U);
    EXPECT_EQ(policy.bisection_concurrency, 1U) << "bisectionConcurrency absent follows concurrency";
    EXPECT_FALSE(policy.batching.on);
    EXPECT_EQ(policy.batching.min_size, 1U);
    EXPECT_EQ(policy.batching.max_size, 16U);
    EXPECT_EQ(policy.batching.max_wait, std::chrono::minutes(5));
    EXPECT_EQ(policy.pending_failure_depth, 0U);
    EXPECT_FALSE(policy.optimistic_merge);
    EXPECT_EQ(policy.testing_timeout, std::chrono::minutes(300));
  }
}

TEST(QueuePolicy, NumbersAreClampedToWhatTheSimulationCanRun) {
  trunk::QueueSettings settings;
  settings.concurrency = 0;
  settings.batching_min_size = -3;
  settings.pending_failure_depth = -1;
  QueuePolicy policy = QueuePolicy::of(settings);
  EXPECT_EQ(policy.concurrency, 1U);
  EXPECT_EQ(policy.bisection_concurrency, 1U);
  EXPECT_EQ(policy.batching.min_size, 1U);
  EXPECT_EQ(policy.pending_failure_depth, 0U);

  settings.concurrency = 6;
  settings.bisection_concurrency = 0;
  settings.batching_min_size = 40;
  policy = QueuePolicy::of(settings);
  EXPECT_EQ(policy.concurrency, 6U);
  EXPECT_EQ(policy.bisection_concurrency, 1U);
  EXPECT_EQ(policy.batching.max_size, 40U) << "a batch may always reach batchingMinSize";

  settings.bisection_concurrency.reset();
  EXPECT_EQ(QueuePolicy::of(settings).bisection_concurrency, 6U);
}

TEST(QueuePolicy, EachStateAllowsWhatTheDocumentationSays) {
  struct Row {
    trunk::QueueState state;
    bool accepts_submissions, admits_new_units, runs_start, outcomes_apply;
  };
  const Row rows[] = {
      {trunk::QueueState::running, true, true, true, true},
      {trunk::QueueState::paused, true, false, false, false},
      {trunk::QueueState::draining, false, false, true, true},
      {trunk::QueueState::switching_modes, false, false, true, true},
  };
  for (const Row& row : rows) {
    trunk::QueueSettings settings;
    settings.state = row.state;
    const QueuePolicy policy = QueuePolicy::of(settings);
    SCOPED_TRACE(std::string(trunk::to_wire(row.state)));
    EXPECT_EQ(policy.accepts_submissions, row.accepts_submissions);
    EXPECT_EQ(policy.admits_new_units, row.admits_new_units);
    EXPECT_EQ(policy.runs_start, row.runs_start);
    EXPECT_EQ(policy.outcomes_apply, row.outcomes_apply);
  }
}

TEST(QueuePolicy, AnEnumValueThisLibraryDoesNotKnowReadsAsThePlainBehaviour) {
  trunk::QueueSettings settings;
  settings.state = trunk::OpenEnum<trunk::QueueState>::from_wire("hibernating");
  settings.mode = trunk::OpenEnum<trunk::QueueMode>::from_wire("diagonal");
  settings.direct_merge_mode = trunk::OpenEnum<trunk::DirectMergeMode>::from_wire("sometimes");
  settings.optimization_mode = trunk::OpenEnum<trunk::OptimizationMode>::from_wire("magic");
  const QueuePolicy policy = QueuePolicy::of(settings);
  EXPECT_TRUE(policy.admits_new_units) << "an unknown state reads as running";
  EXPECT_FALSE(policy.parallel);
  EXPECT_FALSE(policy.direct_merge_always);
  EXPECT_FALSE(policy.optimize_bisection);
}

}  // namespace
}  // namespace sandbox_test
