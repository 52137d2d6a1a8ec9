#pragma once
// The answers of the merge-queue operations beyond the settings
// (docs/reference/service.md#merge-queue-operations): the empty
// acknowledgement of the writes, a page of listPullRequests, the details of one test run, and the
// Prometheus metrics of getMergeQueueMetrics.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/histogram.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/time.hpp"

namespace trunk {

#define TRUNK_ACKNOWLEDGEMENT_FIELDS(X)

/// The answer of a write whose 200 body has no documented fields (createQueue, submitPullRequest, ...):
/// whatever keys the service sends are kept in `extra`.
struct Acknowledgement {
  TRUNK_MEMBERS(TRUNK_ACKNOWLEDGEMENT_FIELDS)
  Extras extra;
  bool operator==(const Acknowledgement&) const = default;
};
TRUNK_DESCRIBE(Acknowledgement, "The service accepted the request; any keys it answered are in extra.",
               TRUNK_ACKNOWLEDGEMENT_FIELDS)

#define TRUNK_PULL_REQUEST_PAGE_FIELDS(X)                                                                  \
  X(std::vector<PullRequest>, pull_requests, "pullRequests", {}, schema::kRequired,                      \
    "the pull requests of this page")                                                                     \
  X(std::optional<std::string>, next_cursor, "nextCursor", {}, (schema::Rules{.uuid = true}),              \
    "cursor of the next page; absent on the last page")

/// listPullRequests' answer.
struct PullRequestPage {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_PAGE_FIELDS)
  Extras extra;
  bool operator==(const PullRequestPage&) const = default;
};
TRUNK_DESCRIBE(PullRequestPage, "One page of the pull requests of a merge queue.", TRUNK_PULL_REQUEST_PAGE_FIELDS)

// The description names checkSuites, statusChecks, testedPullRequests, dependentPrs and the impacted targets
// without giving their shape: they are kept as the JSON the service sends (Python: lists and dicts).
#define TRUNK_TEST_RUN_DETAILS_FIELDS(X)                                                                      \
  X(std::optional<std::vector<std::string>>, required_statuses, "requiredStatuses", {}, schema::kRequired,   \
    "statuses that must pass")                                                                              \
  X(std::optional<OpenEnum<RequiredStatusesSource>>, required_statuses_source, "requiredStatusesSource", {}, \
    schema::kNone, "where the required statuses came from")                                                 \
  X(std::optional<std::string>, test_branch, "testBranch", {}, schema::kRequired, "the branch under test")   \
  X(std::optional<std::string>, test_branch_sha, "testBranchSha", {}, schema::kRequired,                     \
    "the commit under test")                                                                                \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kNone, "when the test run started")       \
  X(std::optional<OpenEnum<TestingStatus>>, status, "status", {}, schema::kNone, "where the test run stands") \
  X(std::optional<Json>, check_suites, "checkSuites", {}, schema::kRequired, "check suites of the run")       \
  X(std::optional<Json>, status_checks, "statusChecks", {}, schema::kRequired, "status checks of the run")    \
  X(std::optional<Json>, tested_pull_requests, "testedPullRequests", {}, schema::kRequired,                   \
    "the pull requests this run tests")                                                                     \
  X(std::optional<Json>, impacted_targets, "impactedTargets", {}, schema::kNone, "targets the run tests")     \
  X(std::optional<Json>, impacted_targets_for_tested_prs, "impactedTargetsForTestedPrs", {}, schema::kNone,   \
    "impacted targets of each tested pull request")                                                         \
  X(std::optional<Json>, dependent_prs, "dependentPrs", {}, schema::kNone,                                    \
    "pull requests whose testing depends on this run")

/// getMergeQueueTestingDetails' answer.
struct TestRunDetails {
  TRUNK_MEMBERS(TRUNK_TEST_RUN_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const TestRunDetails&) const = default;
};
TRUNK_DESCRIBE(TestRunDetails, "One merge queue test run: what it tests and how it stands.",
               TRUNK_TEST_RUN_DETAILS_FIELDS)

#define TRUNK_METRIC_SAMPLE_FIELDS(X)                                                                   \
  X(std::string, name, "name", {}, schema::kRequired, "metric name (with _bucket, _sum... for histograms)") \
  X(Json, labels, "labels", {}, schema::kNone, "label name to value (an object; {} when none)")          \
  X(double, value, "value", {}, schema::kRequired, "the sample's value (NaN and infinities allowed)")      \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone,                                  \
    "when the sample was taken, when the exposition gives it (in milliseconds since 1970)")

/// One sample of the Prometheus text exposition. A timestamp beyond the years 0000..9999 (no RFC 3339 time holds
/// it) leaves `timestamp` absent and is kept in extra["timestamp"], as the milliseconds the text gave.
struct MetricSample {
  TRUNK_MEMBERS(TRUNK_METRIC_SAMPLE_FIELDS)
  Extras extra;
  bool operator==(const MetricSample&) const = default;
};
TRUNK_DESCRIBE(MetricSample, "One sample of a Prometheus metric: name, labels, value.", TRUNK_METRIC_SAMPLE_FIELDS)

#define TRUNK_MERGE_QUEUE_METRICS_FIELDS(X)                                                                 \
  X(std::string, text, "text", {}, schema::kRequired, "the exposition as the service sent it")              \
  X(std::vector<MetricSample>, samples, "samples", {}, schema::kRequired, "every sample, in the text's order") \
  X(Json, types, "types", {}, schema::kNone, "metric family name to its # TYPE (counter, gauge, histogram...)")

/// getMergeQueueMetrics' answer: the Prometheus text and its parsed samples.
struct MergeQueueMetrics {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_METRICS_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueMetrics&) const = default;

  /// Parses the Prometheus text exposition format (version 0.0.4). Throws DecodeError naming the line of a
  /// sample it cannot read (and of a histogram bucket whose le is not a number); comments other than # TYPE
  /// and # HELP are skipped. Series and labels it does not know are kept as they are.
  static MergeQueueMetrics parse(std::string_view text);
  /// The value of the first sample named `name` whose labels include every pair of `labels`; nullopt if none.
  std::optional<double> value_of(std::string_view name, const Json& labels = Json::object()) const;
  /// The gauge `name` summed over the series whose labels include every pair of `labels` (as PromQL's sum():
  /// mq_depth_current with {"branch": "main"} adds the main and bisection queue types); nullopt when no series
  /// matches, so a series the server does not send is absent rather than 0.
  std::optional<double> gauge(std::string_view name, const Json& labels = Json::object()) const;
  /// Every histogram series of family `name` (from name_bucket, name_sum, name_count) whose labels include
  /// every pair of `labels`, in the order the text first names them; labels other than le are kept.
  std::vector<Histogram> histograms(std::string_view name, const Json& labels = Json::object()) const;
  /// The histograms(name, labels) merged into one (PromQL's sum by (le)): counts added per le, sum and count
  /// added, labels those every series shares; nullopt when none matches.
  std::optional<Histogram> histogram(std::string_view name, const Json& labels = Json::object()) const;
};
TRUNK_DESCRIBE(MergeQueueMetrics, "Merge queue metrics: the Prometheus text and its samples.",
               TRUNK_MERGE_QUEUE_METRICS_FIELDS)

/// How an answer arrives on the wire: JSON unless the answer type says otherwise.
template <typename Response>
inline constexpr bool kTextAnswer = false;
template <>
inline constexpr bool kTextAnswer<MergeQueueMetrics> = true;

}  // namespace trunk
