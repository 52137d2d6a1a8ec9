#pragma once
// What v2 reports of a test over time, from its runs (docs/sandbox.md#flaky-tests-in-v2): the changes of its
// status (health_at replayed at every moment it can change), its metrics over a period, and each run's duration.
// Pure functions of the history, so v1's listings and v2's read the same classification, counts and rates.

#include <cstdint>
#include <optional>
#include <vector>

#include "history.hpp"

namespace trunk::sandbox {

/// A change of a test's derived status: at `at_us` it went from `from` to `to`.
struct StatusChange {
  std::int64_t at_us = 0;
  Health from = Health::healthy;
  Health to = Health::healthy;
};

/// Every change of the status health_at gives the test before `now_us`, oldest first. The status can change only
/// when a run ends (it enters the window and the streak) or a failure leaves the 7-day window, so those are the
/// moments evaluated. A test starts healthy.
std::vector<StatusChange> status_changes(const TestRecord& test, std::int64_t now_us);

/// A test's metrics over [now - period, now) (v2's TestCaseMetrics). failures over runs is v1's failure rate over
/// the same window; prs_impacted counts the distinct pull requests of its failing runs, as v1's
/// pull_requests_impacted_last_7d does, so 7d agrees with v1. nullopt: no run in the period.
struct PeriodMetrics {
  std::int64_t runs = 0;
  std::int64_t failures = 0;
  std::int64_t prs_impacted = 0;
  std::int64_t duration_p95_ms = 0;
  std::int64_t last_run_us = 0;
  std::optional<std::int64_t> last_failure_us;
  double failure_rate() const noexcept { return runs == 0 ? 0.0 : static_cast<double>(failures) / runs; }
};
std::optional<PeriodMetrics> metrics_over(const TestRecord& test, std::int64_t now_us, std::int64_t period_us);

/// How long run `index` of the test took, in milliseconds: the history keeps no durations, so one is derived from
/// the test's id and the run (a test's own typical time, 20 ms to 2 s, varied by up to +60 %), stable across
/// restarts.
std::int64_t run_duration_ms(const TestRecord& test, std::size_t index) noexcept;

}  // namespace trunk::sandbox
