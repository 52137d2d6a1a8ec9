// The small fault soak (the full one is scripts/soak): same faults, fewer items, so it runs in seconds.
#include <gtest/gtest.h>

#include "soak.hpp"

namespace {

TEST(FaultSoak, NoTestLostOrDuplicatedNoSettingLostEveryDetailArrives) {
  trunk::reliability::SoakOptions options;
  options.failing_tests = 600;
  options.page_size = 25;
  options.queue_updates = 40;
  options.details = 150;
  options.threads = 4;
  const auto report = trunk::reliability::run_soak(options);
  SCOPED_TRACE(report.summary());

  EXPECT_EQ(report.walked, 600U);
  EXPECT_EQ(report.walked_unique, 600U);
  EXPECT_TRUE(report.walk_matches_reference);
  EXPECT_TRUE(report.queue_mismatches.empty());
  EXPECT_EQ(report.queue_updates, 40);
  EXPECT_EQ(report.details_arrived, 150U);
  EXPECT_TRUE(report.detail_failures.empty());
  // The soak only means something if every kind of fault really happened.
  for (const char* kind : {"error", "rate_limit", "drop", "truncate"}) {
    EXPECT_GT(report.faults.count(kind) ? report.faults.at(kind) : 0U, 0U) << kind;
  }
  EXPECT_TRUE(report.ok());
}

}  // namespace
