#pragma once
// The testing results of a v2 merge queue (docs/reference/v2.md#testing-results): each finished stretch of testing
// of each pull request over a window of at most 45 days (the service keeps no more), what a model of a team's own
// queue is calibrated from. Answers are read tolerantly (every field optional; unknown keys kept in `extra`).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

/// The longest window testing results cover (`since` at most this long before `until`).
inline constexpr std::chrono::hours kTestingResultsWindow{24 * 45};

#define TRUNK_TESTING_RESULT_FIELDS(X)                                                                        \
  X(std::optional<std::int64_t>, pull_request_number, "pullRequestNumber", {}, schema::kRequired,             \
    "the pull request tested")                                                                               \
  X(std::optional<Timestamp>, ended_at, "endedAt", {}, schema::kRequired, "when its testing ended")           \
  X(std::optional<std::int64_t>, testing_duration_ms, "testingDurationMs", {}, schema::kRequired,             \
    "how long it tested (milliseconds)")                                                                     \
  X(std::optional<OpenEnum<TestingOutcome>>, outcome, "outcome", {}, schema::kNone, "how the testing ended")  \
  X(std::optional<OpenEnum<QueueEntryConclusion>>, entry_conclusion, "entryConclusion", {}, schema::kNone,    \
    "how its queue entry ended, once it has")                                                                \
  X(std::optional<bool>, is_bisection, "isBisection", {}, schema::kRequired, "whether it was a bisection run") \
  X(std::optional<bool>, started_bisection, "startedBisection", {}, schema::kRequired,                        \
    "whether its failure started a bisection")                                                               \
  X(std::optional<std::string>, verification_run_id, "verificationRunId", {}, schema::kNone, "the run")

struct TestingResult {
  TRUNK_MEMBERS(TRUNK_TESTING_RESULT_FIELDS)
  Extras extra;
  bool operator==(const TestingResult&) const = default;
};
TRUNK_DESCRIBE(TestingResult, "One finished stretch of testing of one pull request.", TRUNK_TESTING_RESULT_FIELDS)

#define TRUNK_TESTING_RESULT_LIST_FIELDS(X)                                                                   \
  X(std::vector<TestingResult>, data, "data", {}, schema::kRequired, "the results of this page")              \
  TRUNK_V2_PAGE_FIELDS(X)

struct TestingResultList {
  TRUNK_MEMBERS(TRUNK_TESTING_RESULT_LIST_FIELDS)
  Extras extra;
  bool operator==(const TestingResultList&) const = default;
};
TRUNK_DESCRIBE(TestingResultList, "One page of testing results.", TRUNK_TESTING_RESULT_LIST_FIELDS)

#define TRUNK_LIST_TESTING_RESULTS_FIELDS(X)                                                                  \
  X(std::string, id, "id", {}, schema::kPathId, "the merge queue's id")                                       \
  X(Timestamp, since, "since", {}, schema::kRequired, "only testing that ended at or after this instant")     \
  X(std::optional<Timestamp>, until, "until", {}, schema::kNone,                                              \
    "only testing that ended at or before this instant (service default: when the first page is read); "    \
    "at most 45 days after since")                                                                           \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListTestingResultsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_TESTING_RESULTS_FIELDS)
  bool operator==(const ListTestingResultsRequest&) const = default;
};
TRUNK_DESCRIBE(ListTestingResultsRequest, "A merge queue's finished testing over a window of at most 45 days.",
               TRUNK_LIST_TESTING_RESULTS_FIELDS)

#define TRUNK_TESTING_RESULT_V2_ANSWER_MODELS(X) X(TestingResult) X(TestingResultList)
#define TRUNK_TESTING_RESULT_V2_REQUEST_MODELS(X) X(ListTestingResultsRequest)

}  // namespace trunk
