// MergeQueueMetrics' typed access to the documented series (gauges by labels, histograms, quantiles), read from
// tests/fixtures/merge_queue_metrics.prom: an exposition written from the documented format (every series with
// repo, branch and queue_type; histogram buckets 60 ... 7200, +Inf), plus a series and a label value of our own.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fixtures.hpp"
#include "trunk/error.hpp"
#include "trunk/merge_queue_answers.hpp"

namespace trunk {
namespace {

MergeQueueMetrics documented() { return MergeQueueMetrics::parse(testing::fixture_text("merge_queue_metrics.prom")); }

Histogram histogram_of(const std::string& text) {
  const auto histogram = MergeQueueMetrics::parse(text).histogram("x");
  if (!histogram) throw std::runtime_error("no histogram x in the text");
  return *histogram;
}

TEST(MergeQueueMetricsSeries, GaugesAreSummedOverTheSeriesTheLabelsSelect) {
  const MergeQueueMetrics metrics = documented();
  EXPECT_EQ(metrics.gauge("mq_depth_current", {{"branch", "main"}, {"queue_type", "main"}}), 7);
  EXPECT_EQ(metrics.gauge("mq_depth_current", {{"branch", "main"}}), 9);  // main + bisection
  EXPECT_EQ(metrics.gauge("mq_depth_current"), 10);                       // every branch
  EXPECT_EQ(metrics.gauge("mq_awaiting_mergeability", {{"repo", "acme/widgets"}}), 3);
  EXPECT_EQ(metrics.gauge("mq_testing_slots_active", {{"queue_type", "bisection"}}), 1);
  EXPECT_EQ(metrics.gauge("mq_pr_conclusions_1h_total", {{"conclusion", "merged"}}), 12);
  EXPECT_EQ(metrics.gauge("mq_pr_conclusions_1h_total", {{"conclusion", "failed"}}), 2);
  EXPECT_EQ(metrics.gauge("mq_pr_conclusions_1h_total", {{"conclusion", "cancelled"}}), 1);
  EXPECT_EQ(metrics.gauge("mq_pr_restarts_1h_total", {{"branch", "main"}}), 3);
}

TEST(MergeQueueMetricsSeries, UnknownSeriesAndLabelValuesAreKeptAndMissingOnesAreAbsent) {
  const MergeQueueMetrics metrics = documented();
  EXPECT_EQ(metrics.gauge("mq_pr_conclusions_1h_total", {{"conclusion", "timed_out_in_future"}}), 5);
  EXPECT_EQ(metrics.gauge("mq_prs_submitted_total", {{"source", "api"}}), 40);
  EXPECT_EQ(metrics.types.at("mq_prs_submitted_total"), "counter");
  EXPECT_EQ(metrics.gauge("mq_not_sent"), std::nullopt);
  EXPECT_EQ(metrics.gauge("mq_depth_current", {{"branch", "nowhere"}}), std::nullopt);  // not 0: absent
  EXPECT_EQ(metrics.histogram("mq_not_sent"), std::nullopt);
  EXPECT_TRUE(metrics.histograms("mq_pr_wait_duration_1h_seconds", {{"queue_type", "bisection"}}).empty());
}

TEST(MergeQueueMetricsSeries, AHistogramHasItsBucketsSumCountAndLabelsWithoutLe) {
  const auto histogram = documented().histogram("mq_pr_time_in_queue_1h_seconds", {{"branch", "main"}});
  ASSERT_TRUE(histogram);
  EXPECT_EQ(histogram->name, "mq_pr_time_in_queue_1h_seconds");
  EXPECT_EQ(histogram->labels, Json({{"repo", "acme/widgets"}, {"branch", "main"}, {"queue_type", "main"}}));
  ASSERT_EQ(histogram->buckets.size(), 9U);
  const double bounds[] = {60, 300, 600, 900, 1800, 3600, 5400, 7200};
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(histogram->buckets[i].le, bounds[i]) << i;
  EXPECT_TRUE(std::isinf(histogram->buckets[8].le));
  EXPECT_EQ(histogram->buckets[3].count, 30);
  EXPECT_EQ(histogram->sum, 100000);
  EXPECT_EQ(histogram->count, 40);
}

TEST(MergeQueueMetricsSeries, QuantilesInterpolateInsideTheBucketAndStopAtTheHighestFiniteBound) {
  const auto in_queue = *documented().histogram("mq_pr_time_in_queue_1h_seconds");
  // 0 <= 60, 0 <= 300, 10 <= 600, 30 <= 900, ..., 34 <= 7200, 40 in all.
  EXPECT_DOUBLE_EQ(in_queue.quantile(0.5), 750);    // rank 20: halfway through (600, 900]
  EXPECT_DOUBLE_EQ(in_queue.quantile(0.25), 600);   // rank 10: the top of (300, 600]
  EXPECT_DOUBLE_EQ(in_queue.quantile(0.8), 6300);   // rank 32: 2 of the 4 in (5400, 7200]
  EXPECT_DOUBLE_EQ(in_queue.quantile(0.9), 7200);   // rank 36: beyond 7200, the highest finite bound
  EXPECT_DOUBLE_EQ(in_queue.quantile(1), 7200);
  EXPECT_DOUBLE_EQ(in_queue.quantile(0), 300);      // the lower bound of the first bucket with an observation
  const auto waiting = *documented().histogram("mq_pr_wait_duration_1h_seconds");
  EXPECT_DOUBLE_EQ(waiting.quantile(0), 0);         // observations in the first bucket: its lower bound, 0
  EXPECT_DOUBLE_EQ(waiting.quantile(0.5), 100);     // rank 5: 1 of the 6 in (60, 300]
  EXPECT_DOUBLE_EQ(waiting.quantile(1), 300);       // every observation at most 300
}

TEST(MergeQueueMetricsSeries, HistogramsOfSeveralSeriesMergeBucketByBucket) {
  const MergeQueueMetrics metrics = documented();
  EXPECT_EQ(metrics.histograms("mq_pr_test_duration_1h_seconds").size(), 2U);
  const auto merged = *metrics.histogram("mq_pr_test_duration_1h_seconds", {{"branch", "main"}});
  EXPECT_EQ(merged.labels, Json({{"repo", "acme/widgets"}, {"branch", "main"}}));  // queue_type differs
  EXPECT_EQ(merged.count, 24);
  EXPECT_EQ(merged.sum, 20000);
  EXPECT_EQ(merged.buckets[3].count, 20);
  EXPECT_EQ(merged.buckets[4].count, 24);
  EXPECT_DOUBLE_EQ(merged.quantile(0.5), 780);  // rank 12 of the 20 in (600, 900]
  const auto bisection = *metrics.histogram("mq_pr_test_duration_1h_seconds", {{"queue_type", "bisection"}});
  EXPECT_DOUBLE_EQ(bisection.quantile(0.5), 1350);
}

TEST(MergeQueueMetricsSeries, HourlyWindowsMergeIntoTheHistogramOfTheWholeRun) {
  const auto first = histogram_of("x_bucket{b=\"1\",le=\"60\"} 1\nx_bucket{b=\"1\",le=\"+Inf\"} 2\nx_sum{b=\"1\"} 70\n");
  const auto second = histogram_of("x_bucket{b=\"1\",le=\"300\"} 3\nx_bucket{b=\"1\",le=\"+Inf\"} 3\nx_count{b=\"1\"} 3\n");
  const Histogram run = Histogram::merge({first, second});
  EXPECT_EQ(run.name, "x");
  EXPECT_EQ(run.labels, Json({{"b", "1"}}));
  ASSERT_EQ(run.buckets.size(), 3U);
  EXPECT_EQ(run.buckets[0].count, 1);  // the second has no 60 bucket: it counts nothing at or below 60
  EXPECT_EQ(run.buckets[1].count, 4);  // the first counts 1 at or below 300 (its 60 bucket)
  EXPECT_EQ(run.buckets[2].count, 5);
  EXPECT_EQ(run.sum, 70);
  EXPECT_EQ(run.count, 3);
  EXPECT_TRUE(Histogram::merge({}).buckets.empty());
}

TEST(MergeQueueMetricsQuantile, HistogramsWithNothingToEstimateFromAnswerNaN) {
  // No observation.
  EXPECT_TRUE(std::isnan(histogram_of("x_bucket{le=\"60\"} 0\nx_bucket{le=\"+Inf\"} 0\n").quantile(0.5)));
  // Only the +Inf bucket: no finite bound to interpolate to.
  EXPECT_TRUE(std::isnan(histogram_of("x_bucket{le=\"+Inf\"} 5\nx_sum 10\nx_count 5\n").quantile(0.5)));
  // No +Inf bucket: the number of observations is unknown.
  EXPECT_TRUE(std::isnan(histogram_of("x_bucket{le=\"60\"} 5\nx_bucket{le=\"300\"} 6\n").quantile(0.5)));
  // Sum and count only.
  EXPECT_TRUE(std::isnan(histogram_of("x_sum 10\nx_count 5\n").quantile(0.5)));
}

TEST(MergeQueueMetricsQuantile, EdgeBucketsFollowPromQL) {
  // Everything beyond the last finite bound: any rank lands in +Inf, answered by that bound.
  const auto beyond = histogram_of("x_bucket{le=\"60\"} 0\nx_bucket{le=\"300\"} 0\nx_bucket{le=\"+Inf\"} 3\n");
  EXPECT_DOUBLE_EQ(beyond.quantile(0), 300);
  EXPECT_DOUBLE_EQ(beyond.quantile(0.5), 300);
  // A first bound at or below 0 is answered as it is (no lower bound to interpolate from).
  const auto negative = histogram_of("x_bucket{le=\"-5\"} 2\nx_bucket{le=\"10\"} 4\nx_bucket{le=\"+Inf\"} 4\n");
  EXPECT_DOUBLE_EQ(negative.quantile(0.25), -5);
  EXPECT_DOUBLE_EQ(negative.quantile(0.75), 2.5);  // rank 3: halfway through (-5, 10]
  // Counts that decrease (malformed) are raised to the running maximum; buckets out of order are sorted.
  const auto bumpy = histogram_of("x_bucket{le=\"+Inf\"} 10\nx_bucket{le=\"300\"} 4\nx_bucket{le=\"60\"} 10\n");
  EXPECT_DOUBLE_EQ(bumpy.quantile(0.5), 30);  // 60, 300 both hold 10: rank 5 is halfway through (0, 60]
}

TEST(MergeQueueMetricsQuantile, AQuantileOutsideZeroToOneIsAValidationErrorNamingQ) {
  const auto histogram = *documented().histogram("mq_pr_time_in_queue_1h_seconds");
  for (const double q : {-0.01, 1.01, std::nan("")}) {
    try {
      (void)histogram.quantile(q);
      FAIL() << "expected ValidationError for " << q;
    } catch (const ValidationError& error) {
      ASSERT_EQ(error.violations().size(), 1U);
      EXPECT_EQ(error.violations()[0].field, "q");
      EXPECT_EQ(error.violations()[0].rule, "must be between 0 and 1");
    }
  }
}

TEST(MergeQueueMetricsParse, AHistogramBucketWithoutANumericLeIsADecodeErrorNamingTheLine) {
  for (const std::string bucket : {"x_bucket{le=\"soon\"} 1", "x_bucket 1"}) {
    try {
      (void)MergeQueueMetrics::parse("# TYPE x histogram\n\n" + bucket + "\n");
      FAIL() << "expected DecodeError for " << bucket;
    } catch (const DecodeError& error) {
      EXPECT_EQ(error.path(), "line 3") << bucket;
      EXPECT_NE(std::string(error.what()).find("x_bucket"), std::string::npos) << error.what();
    }
  }
  // Not declared a histogram: an unknown series, kept as it is.
  EXPECT_EQ(MergeQueueMetrics::parse("x_bucket{le=\"soon\"} 1\n").samples.size(), 1U);
}

TEST(MergeQueueMetricsParse, TextThatIsNotAnExpositionNamesTheLineAndWhatItFound) {
  try {
    (void)MergeQueueMetrics::parse("mq_depth_current 1\n{branch=\"main\"} 2\n");
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    EXPECT_EQ(error.path(), "line 2");
    EXPECT_NE(std::string(error.what()).find("{branch"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace trunk
