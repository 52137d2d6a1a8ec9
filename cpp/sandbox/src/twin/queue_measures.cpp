#include "trunk/twin/queue_measures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace trunk::twin {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

double minutes_between(Timestamp from, Timestamp to) {
  return std::chrono::duration<double, std::ratio<60>>(to - from).count();
}

bool inside(Timestamp t, Timestamp from, Timestamp to) { return t >= from && t < to; }

}  // namespace

double nearest_rank(std::vector<double> values, double q) {
  if (values.empty()) return kNever;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const std::size_t index = std::clamp<std::size_t>(rank, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return values[index];
}

QueueMeasures measure(const QueueRecord& record, Timestamp from, Timestamp to) {
  QueueMeasures m;
  std::vector<double> minutes;
  std::unordered_map<std::int64_t, EntryEnd> end_of;  // a number submitted twice: its latest entry speaks
  for (const EntryRecord& entry : record.entries) {
    end_of[entry.number] = entry.end;
    if (entry.end == EntryEnd::merged && entry.concluded_at && inside(*entry.concluded_at, from, to)) ++m.merged;
    if (!inside(entry.submitted_at, from, to)) continue;
    ++m.submitted;
    switch (entry.end) {
      case EntryEnd::merged:
        ++m.concluded;
        minutes.push_back(entry.concluded_at ? minutes_between(entry.submitted_at, *entry.concluded_at) : kNever);
        break;
      case EntryEnd::failed:
        ++m.concluded;
        ++m.failed;
        break;
      case EntryEnd::open:
        minutes.push_back(kNever);
        break;
      case EntryEnd::cancelled:
        break;
    }
  }
  for (const RunRecord& run : record.runs) {
    if (!inside(run.ended_at, from, to)) continue;
    ++m.runs;
    if (run.bisection || !run.finished) continue;
    const bool all_merged = std::all_of(run.pull_requests.begin(), run.pull_requests.end(), [&](std::int64_t n) {
      const auto it = end_of.find(n);
      return it != end_of.end() && it->second == EntryEnd::merged;
    });
    if (!all_merged) continue;
    ++m.clean_runs;
    m.clean_failed += run.failed ? 1 : 0;
  }
  const double days = std::chrono::duration<double, std::ratio<86400>>(to - from).count();
  m.minutes_in_queue_p50 = nearest_rank(minutes, 0.5);
  m.minutes_in_queue_p90 = nearest_rank(minutes, 0.9);
  m.merged_per_day = days > 0 ? static_cast<double>(m.merged) / days : 0;
  m.runs_per_merged = m.merged == 0 ? kNever : static_cast<double>(m.runs) / static_cast<double>(m.merged);
  return m;
}

}  // namespace trunk::twin
