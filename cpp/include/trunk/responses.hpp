#pragma once
// The response envelopes: both test listings answer with a TestPage, get-test-details with a TestDetails, the
// quarantined listing with a QuarantinedTestPage; updateQueue and getQueue with QueueSettings.

#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/merge_queue_testing_results.hpp"
#include "trunk/service_status.hpp"
#include "trunk/page.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/quarantined_test.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/submitted_pull_requests.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

#define TRUNK_TEST_PAGE_FIELDS(X)                                                              \
  X(std::vector<TestCase>, tests, "tests", {}, schema::kRequired, "the tests of this page")  \
  X(PageInfo, page, "page", {}, schema::kRequired, "page information")

/// One page of a listing: list-failing-tests and list-unhealthy-tests responses.
struct TestPage {
  TRUNK_MEMBERS(TRUNK_TEST_PAGE_FIELDS)
  Extras extra;
  bool operator==(const TestPage&) const = default;
};
TRUNK_DESCRIBE(TestPage, "One page of a listing: tests and page information.", TRUNK_TEST_PAGE_FIELDS)

#define TRUNK_TEST_DETAILS_FIELDS(X) X(TestCase, test, "test", {}, schema::kRequired, "the test case")

/// get-test-details response.
struct TestDetails {
  TRUNK_MEMBERS(TRUNK_TEST_DETAILS_FIELDS)
  Extras extra;
  bool operator==(const TestDetails&) const = default;
};
TRUNK_DESCRIBE(TestDetails, "The details of one test case.", TRUNK_TEST_DETAILS_FIELDS)

#define TRUNK_QUARANTINED_TEST_PAGE_FIELDS(X)                                                       \
  X(std::vector<QuarantinedTest>, quarantined_tests, "quarantined_tests", {}, schema::kRequired,  \
    "the quarantined tests of this page")                                                         \
  X(PageInfo, page, "page", {}, schema::kRequired, "page information")

/// list-quarantined-tests response.
struct QuarantinedTestPage {
  TRUNK_MEMBERS(TRUNK_QUARANTINED_TEST_PAGE_FIELDS)
  Extras extra;
  bool operator==(const QuarantinedTestPage&) const = default;
};
TRUNK_DESCRIBE(QuarantinedTestPage, "One page of quarantined tests.", TRUNK_QUARANTINED_TEST_PAGE_FIELDS)

/// Every answer model, parts before the wholes that hold them (the order Python registers classes in).
#define TRUNK_ANSWER_MODELS(X)                                                                                \
  X(RepositoryRef) X(TicketRef) X(TestStatus) X(FailureSummary) X(TestCase) X(PageInfo) X(TestPage) X(TestDetails) \
  X(QuarantinedTest) X(QuarantinedTestPage) X(PullRequest) X(QueueSettings) X(Readiness) X(SubmittedPullRequest)      \
  TRUNK_SUBMITTED_PULL_REQUESTS_ANSWER_MODELS(X)                                                             \
  X(Acknowledgement) X(PullRequestPage) X(TestRunDetails) TRUNK_MERGE_QUEUE_TESTING_RESULTS_ANSWER_MODELS(X)  \
  X(MetricSample) X(HistogramBucket) TRUNK_SERVICE_STATUS_ANSWER_MODELS(X)                                                                        \
  X(Histogram) X(MergeQueueMetrics) TRUNK_MERGE_QUEUE_V2_ANSWER_MODELS(X)                     \
  TRUNK_PULL_REQUEST_V2_ANSWER_MODELS(X) TRUNK_REPOSITORY_V2_ANSWER_MODELS(X)                     \
  TRUNK_VERIFICATION_RUN_V2_ANSWER_MODELS(X) TRUNK_QUEUE_ENTRY_HISTORY_V2_ANSWER_MODELS(X)               \
  TRUNK_MERGE_QUEUE_ORDER_V2_ANSWER_MODELS(X) TRUNK_TESTING_RESULT_V2_ANSWER_MODELS(X)                     \
  TRUNK_IMPACTED_TARGETS_V2_ANSWER_MODELS(X) TRUNK_TEST_COLLECTION_V2_ANSWER_MODELS(X)                     \
  TRUNK_TEST_CASE_V2_ANSWER_MODELS(X) TRUNK_TEST_ACTIVITY_V2_ANSWER_MODELS(X) TRUNK_TICKET_V2_ANSWER_MODELS(X)  \
  TRUNK_DYNAMIC_CI_V2_ANSWER_MODELS(X) TRUNK_MONITOR_TESTS_V2_ANSWER_MODELS(X)

}  // namespace trunk
