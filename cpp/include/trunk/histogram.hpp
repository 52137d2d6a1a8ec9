#pragma once
// A Prometheus histogram read back from its samples (name_bucket{le=...}, name_sum, name_count), and the
// quantile estimate PromQL's histogram_quantile gives for it. getMergeQueueMetrics' duration series are
// histograms (docs/guides/automation.md, "Metrics"); MergeQueueMetrics::histogram() assembles them.

#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"

namespace trunk {

#define TRUNK_HISTOGRAM_BUCKET_FIELDS(X)                                                                   \
  X(double, le, "le", {}, schema::kRequired, "the bucket's inclusive upper bound (+Inf for the last)")     \
  X(double, count, "count", {}, schema::kRequired, "observations at most le (cumulative, as exposed)")

/// One cumulative bucket: how many observations were at most `le`.
struct HistogramBucket {
  TRUNK_MEMBERS(TRUNK_HISTOGRAM_BUCKET_FIELDS)
  Extras extra;
  bool operator==(const HistogramBucket&) const = default;
};
TRUNK_DESCRIBE(HistogramBucket, "One cumulative bucket of a histogram: observations at most le.",
               TRUNK_HISTOGRAM_BUCKET_FIELDS)

#define TRUNK_HISTOGRAM_FIELDS(X)                                                                             \
  X(std::string, name, "name", {}, schema::kRequired, "the family's name, without _bucket, _sum or _count")   \
  X(Json, labels, "labels", {}, schema::kNone, "the series' labels (le excluded); those shared when merged")  \
  X(std::vector<HistogramBucket>, buckets, "buckets", {}, schema::kRequired,                                  \
    "cumulative buckets by ascending le, +Inf last when exposed")                                             \
  X(double, sum, "sum", {}, schema::kNone, "the sum of the observations (_sum)")                               \
  X(double, count, "count", {}, schema::kNone, "how many observations (_count)")

/// One histogram series of a Prometheus exposition.
struct Histogram {
  TRUNK_MEMBERS(TRUNK_HISTOGRAM_FIELDS)
  Extras extra;
  bool operator==(const Histogram&) const = default;

  /// The q-quantile (0 <= q <= 1) estimated as PromQL's histogram_quantile does: find the bucket where the
  /// q-th observation falls (rank q * observations, observations = the +Inf bucket's count) and interpolate
  /// linearly between its lower bound (the previous bucket's le, 0 for the first) and its le, assuming the
  /// observations are spread evenly inside it. Rules at the edges:
  ///   - the rank falls in the +Inf bucket: the highest finite le (nothing tells how far beyond it);
  ///   - no +Inf bucket, no finite bucket beside it, or no observation: NaN (nothing to estimate from);
  ///   - q = 0: the lower bound of the first bucket holding an observation (PromQL divides 0 by 0 there
  ///     when the first bucket is empty and answers NaN; this answers what the buckets do say);
  ///   - counts that decrease (a malformed exposition) are raised to the running maximum, as PromQL does.
  /// Throws ValidationError (field "q") for q outside [0, 1] or NaN: that is a caller's mistake, where PromQL
  /// would answer -Inf or +Inf.
  double quantile(double q) const;

  /// The histograms added bucket by bucket (PromQL's sum by (le)): the series of several branches, or the
  /// hourly windows of one series read an hour apart. Counts are added per le (a bound one of them lacks
  /// counts what it has below that bound), sum and count are added; labels are those all share, the name
  /// theirs when they share it. No histogram: an empty one.
  static Histogram merge(const std::vector<Histogram>& histograms);
};
TRUNK_DESCRIBE(Histogram, "A histogram series: cumulative buckets, sum and count; quantile(q) estimates.",
               TRUNK_HISTOGRAM_FIELDS)

}  // namespace trunk
