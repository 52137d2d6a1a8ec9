#include "test_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "failure_model.hpp"
#include "random.hpp"

namespace trunk::sandbox {

std::vector<StatusChange> status_changes(const TestRecord& test, std::int64_t now_us) {
  // The moments just after a run ends, and just after a failure leaves the 7-day window.
  std::vector<std::int64_t> moments;
  for (const Run& run : test.runs) {
    if (run.time_us >= now_us) break;
    moments.push_back(run.time_us);
    if (run.failed() && run.time_us + kWeekUs < now_us) moments.push_back(run.time_us + kWeekUs);
  }
  std::sort(moments.begin(), moments.end());
  moments.erase(std::unique(moments.begin(), moments.end()), moments.end());
  std::vector<StatusChange> changes;
  Health current = Health::healthy;
  for (const std::int64_t at : moments) {
    const Health next = health_at(test, at + 1);  // health_at reads the runs strictly before its time
    if (next == current) continue;
    changes.push_back({at, current, next});
    current = next;
  }
  return changes;
}

std::optional<PeriodMetrics> metrics_over(const TestRecord& test, std::int64_t now_us, std::int64_t period_us) {
  PeriodMetrics out;
  std::set<std::uint32_t> prs;
  std::vector<std::int64_t> durations;
  for (std::size_t i = 0; i < test.runs.size(); ++i) {
    const Run& run = test.runs[i];
    if (run.time_us < now_us - period_us) continue;
    if (run.time_us >= now_us) break;
    ++out.runs;
    out.last_run_us = run.time_us;
    durations.push_back(run_duration_ms(test, i));
    if (!run.failed()) continue;
    ++out.failures;
    out.last_failure_us = run.time_us;
    prs.insert(run.pull_request);
  }
  if (out.runs == 0) return std::nullopt;
  out.prs_impacted = static_cast<std::int64_t>(prs.size());
  // Nearest rank: the smallest duration at least 95 % of the runs do not exceed.
  std::sort(durations.begin(), durations.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(durations.size())));
  out.duration_p95_ms = durations[std::max<std::size_t>(rank, 1) - 1];
  return out;
}

std::int64_t run_duration_ms(const TestRecord& test, std::size_t index) noexcept {
  const std::uint64_t own = text_hash(test.id);
  const std::int64_t typical = 20 + static_cast<std::int64_t>(own % 1981);           // 20 .. 2000 ms
  const std::int64_t extra = static_cast<std::int64_t>(mix64(own + index) % 61);    // 0 .. 60 %
  return typical + typical * extra / 100;
}

}  // namespace trunk::sandbox
