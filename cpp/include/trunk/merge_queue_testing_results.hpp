#pragma once
// POST /v1/listMergeQueueTestingResults: the testing a v1 merge queue completed in a time range, newest first,
// an offset and a count at a time (docs/reference/service.md#list-merge-queue-testing-results). The request's
// fields, their defaults and bounds are the documentation page's; the answer's keys are the project's reading of
// it (the page names a list of entries and a total, and each entry's testRunId).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk {

/// offset: 0 or more (the page: "Number of results to skip. Defaults to 0"); sent only when given.
inline constexpr schema::Rules kOffsetRules{.min = 0};

#define TRUNK_LIST_MERGE_QUEUE_TESTING_RESULTS_FIELDS(X)                                                       \
  TRUNK_REPO_FIELD(X)                                                                                          \
  TRUNK_TARGET_BRANCH_FIELD(X)                                                                                 \
  X(Timestamp, since, "since", {}, schema::kRequired,                                                         \
    "only testing that finished at or after this instant (the service keeps 45 days)")                       \
  X(std::optional<Timestamp>, until, "until", {}, schema::kNone,                                              \
    "only testing that finished at or before this instant (service default: now)")                            \
  X(std::optional<std::int64_t>, offset, "offset", {}, kOffsetRules, "results to skip, 0 or more (default 0)") \
  X(std::int64_t, take, "take", {50}, kTakeRules, "results to return, 1..100")

struct ListMergeQueueTestingResultsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_MERGE_QUEUE_TESTING_RESULTS_FIELDS)
  bool operator==(const ListMergeQueueTestingResultsRequest&) const = default;
};
TRUNK_DESCRIBE(ListMergeQueueTestingResultsRequest,
               "The testing a merge queue completed in a time range, newest first, an offset and a count at a time.",
               TRUNK_LIST_MERGE_QUEUE_TESTING_RESULTS_FIELDS)

// The entry mirrors v2's testing result (testing_result.hpp), with v1's run id: the one getMergeQueueTestingDetails
// takes, so that each entry leads to its run's details.
#define TRUNK_MERGE_QUEUE_TESTING_RESULT_FIELDS(X)                                                            \
  X(std::optional<std::string>, test_run_id, "testRunId", {}, schema::kRequired,                              \
    "the test run (getMergeQueueTestingDetails' testRunId)")                                                  \
  X(std::optional<std::int64_t>, pr_number, "prNumber", {}, schema::kRequired, "the pull request tested")     \
  X(std::optional<Timestamp>, ended_at, "endedAt", {}, schema::kRequired, "when its testing ended")           \
  X(std::optional<std::int64_t>, testing_duration_ms, "testingDurationMs", {}, schema::kNone,                 \
    "how long it tested (milliseconds)")                                                                     \
  X(std::optional<OpenEnum<TestingOutcome>>, outcome, "outcome", {}, schema::kNone, "how the testing ended")  \
  X(std::optional<bool>, is_bisection, "isBisection", {}, schema::kNone, "whether it was a bisection run")

/// One completed stretch of testing of one pull request. Read tolerantly: every field optional, unknown keys in
/// `extra`, an outcome the client does not know kept as its text.
struct MergeQueueTestingResult {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_TESTING_RESULT_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueTestingResult&) const = default;
};
TRUNK_DESCRIBE(MergeQueueTestingResult, "One completed stretch of merge queue testing of one pull request.",
               TRUNK_MERGE_QUEUE_TESTING_RESULT_FIELDS)

#define TRUNK_MERGE_QUEUE_TESTING_RESULTS_FIELDS(X)                                                           \
  X(std::vector<MergeQueueTestingResult>, results, "results", {}, schema::kRequired,                          \
    "the completed testing asked for, newest first")                                                          \
  X(std::optional<std::int64_t>, total, "total", {}, schema::kRequired,                                       \
    "how many results match the request, offset and take aside")

/// listMergeQueueTestingResults' answer: one window of the results, and how many there are in all.
struct MergeQueueTestingResults {
  TRUNK_MEMBERS(TRUNK_MERGE_QUEUE_TESTING_RESULTS_FIELDS)
  Extras extra;
  bool operator==(const MergeQueueTestingResults&) const = default;
};
TRUNK_DESCRIBE(MergeQueueTestingResults, "Completed merge queue testing of a time range, and how much in all.",
               TRUNK_MERGE_QUEUE_TESTING_RESULTS_FIELDS)

#define TRUNK_MERGE_QUEUE_TESTING_RESULTS_ANSWER_MODELS(X) X(MergeQueueTestingResult) X(MergeQueueTestingResults)
#define TRUNK_MERGE_QUEUE_TESTING_RESULTS_REQUEST_MODELS(X) X(ListMergeQueueTestingResultsRequest)

}  // namespace trunk
