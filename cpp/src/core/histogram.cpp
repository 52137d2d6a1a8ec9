// Histogram::quantile: PromQL's histogram_quantile on one series (the rules are listed in histogram.hpp).
#include "trunk/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "trunk/error.hpp"

namespace trunk {

namespace {

/// The cumulative count of `histogram` at bound `le`: that of its largest bucket at most le (0 below them all).
double count_at(const Histogram& histogram, double le) {
  double count = 0;
  for (const auto& bucket : histogram.buckets) {
    if (bucket.le <= le) count = std::max(count, bucket.count);
  }
  return count;
}

}  // namespace

Histogram Histogram::merge(const std::vector<Histogram>& histograms) {
  Histogram merged;
  if (histograms.empty()) return merged;
  merged.name = histograms.front().name;
  merged.labels = histograms.front().labels;
  std::vector<double> bounds;
  for (const auto& histogram : histograms) {
    for (const auto& bucket : histogram.buckets) bounds.push_back(bucket.le);
    merged.sum += histogram.sum;
    merged.count += histogram.count;
    if (histogram.name != merged.name) merged.name.clear();
    for (auto it = merged.labels.begin(); it != merged.labels.end();) {
      const bool shared = histogram.labels.is_object() && histogram.labels.contains(it.key()) &&
                          histogram.labels[it.key()] == *it;
      it = shared ? std::next(it) : merged.labels.erase(it);
    }
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  // Histograms with the same bounds (the documented ones) add exactly; a bound one of them lacks takes its
  // count at the bound below, which never overstates.
  for (const double le : bounds) {
    HistogramBucket bucket;
    bucket.le = le;
    for (const auto& histogram : histograms) bucket.count += count_at(histogram, le);
    merged.buckets.push_back(bucket);
  }
  return merged;
}

double Histogram::quantile(double q) const {
  if (std::isnan(q) || q < 0 || q > 1) {
    throw ValidationError({Violation{"q", std::to_string(q), "must be between 0 and 1"}});
  }
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<HistogramBucket> sorted = buckets;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.le < b.le; });
  if (sorted.size() < 2 || !std::isinf(sorted.back().le) || sorted.back().le < 0) return kNaN;
  double highest = 0;
  for (auto& bucket : sorted) highest = bucket.count = std::max(bucket.count, highest);
  const double observations = sorted.back().count;
  if (!(observations > 0)) return kNaN;

  const double rank = q * observations;
  // The first bucket reaching the rank and holding an observation (the latter only matters for q = 0).
  std::size_t b = 0;
  while (b + 1 < sorted.size() && (sorted[b].count < rank || sorted[b].count == 0)) ++b;
  if (b + 1 == sorted.size()) return sorted[b - 1].le;  // in the +Inf bucket: the highest finite bound
  if (b == 0 && sorted[0].le <= 0) return sorted[0].le;
  const double start = b == 0 ? 0.0 : sorted[b - 1].le;
  const double below = b == 0 ? 0.0 : sorted[b - 1].count;
  const double in_bucket = sorted[b].count - below;
  return start + (sorted[b].le - start) * ((rank - below) / in_bucket);
}

}  // namespace trunk
