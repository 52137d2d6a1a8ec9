#pragma once
// What happened to one test, in Trunk's v2 flaky-test API (docs/reference/v2.md#flaky-tests): the changes of its
// status (newest first, one row per change) and its individual runs (newest first, with where each ran).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/test_case_v2.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

#define TRUNK_CLASSIFYING_MONITOR_FIELDS(X)                                                                   \
  X(std::optional<std::string>, monitor_id, "monitorId", {}, schema::kRequiredNullable,                       \
    "the monitor (null for manual)")                                                                          \
  X(std::optional<OpenEnum<MonitorType>>, monitor_type, "monitorType", {}, schema::kRequired,                 \
    "failureRate, passOnRetry, failureCount or manual")

struct ClassifyingMonitor {
  TRUNK_MEMBERS(TRUNK_CLASSIFYING_MONITOR_FIELDS)
  Extras extra;
  bool operator==(const ClassifyingMonitor&) const = default;
};
TRUNK_DESCRIBE(ClassifyingMonitor, "A monitor that classified a test when its status changed.",
               TRUNK_CLASSIFYING_MONITOR_FIELDS)

#define TRUNK_STATUS_HISTORY_ENTRY_FIELDS(X)                                                                  \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the change's id")                           \
  X(std::optional<OpenEnum<TestHealth>>, from_status, "fromStatus", {}, schema::kRequired, "the status it left") \
  X(std::optional<OpenEnum<TestHealth>>, to_status, "toStatus", {}, schema::kRequired, "the status it took")  \
  X(std::vector<ClassifyingMonitor>, active_monitors, "activeMonitors", {}, schema::kRequired,                \
    "the monitors active right after the change, as recorded then")                                          \
  X(std::optional<Timestamp>, started_at, "startedAt", {}, schema::kRequired, "when the new status began")

struct StatusHistoryEntry {
  TRUNK_MEMBERS(TRUNK_STATUS_HISTORY_ENTRY_FIELDS)
  Extras extra;
  bool operator==(const StatusHistoryEntry&) const = default;
};
TRUNK_DESCRIBE(StatusHistoryEntry, "One change of a test's status.", TRUNK_STATUS_HISTORY_ENTRY_FIELDS)

#define TRUNK_STATUS_HISTORY_ENTRY_LIST_FIELDS(X)                                                             \
  X(std::vector<StatusHistoryEntry>, data, "data", {}, schema::kRequired, "the changes of this page")         \
  TRUNK_V2_PAGE_FIELDS(X)

struct StatusHistoryEntryList {
  TRUNK_MEMBERS(TRUNK_STATUS_HISTORY_ENTRY_LIST_FIELDS)
  Extras extra;
  bool operator==(const StatusHistoryEntryList&) const = default;
};
TRUNK_DESCRIBE(StatusHistoryEntryList, "One page of a test's status changes.", TRUNK_STATUS_HISTORY_ENTRY_LIST_FIELDS)

#define TRUNK_TEST_RUN_PULL_REQUEST_FIELDS(X)                                                                 \
  X(std::optional<std::int64_t>, number, "number", {}, schema::kRequired, "its number")                       \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its address, when Trunk has it")

struct TestRunPullRequest {
  TRUNK_MEMBERS(TRUNK_TEST_RUN_PULL_REQUEST_FIELDS)
  Extras extra;
  bool operator==(const TestRunPullRequest&) const = default;
};
TRUNK_DESCRIBE(TestRunPullRequest, "The pull request a test run ran for.", TRUNK_TEST_RUN_PULL_REQUEST_FIELDS)

#define TRUNK_TEST_RUN_V2_FIELDS(X)                                                                           \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the run's id")                              \
  X(std::optional<OpenEnum<TestRunConclusion>>, conclusion, "conclusion", {}, schema::kRequired,              \
    "success, failure or skipped")                                                                           \
  X(std::optional<std::string>, branch, "branch", {}, schema::kRequired, "the branch it ran on")               \
  X(std::optional<bool>, is_pull_request, "isPullRequest", {}, schema::kRequired, "whether on a pull request's branch") \
  X(std::optional<std::string>, sha, "sha", {}, schema::kRequired, "the commit")                              \
  X(std::optional<OpenEnum<QuarantineState>>, quarantine_state, "quarantineState", {}, schema::kRequired,     \
    "whether the test was quarantined then")                                                                 \
  X(std::optional<OpenEnum<TestHealth>>, status_at_run_time, "statusAtRunTime", {}, schema::kRequired,        \
    "the test's status then")                                                                                \
  X(std::optional<Timestamp>, started_at, "startedAt", {}, schema::kRequired, "when it started")             \
  X(std::optional<Timestamp>, ended_at, "endedAt", {}, schema::kRequired, "when it ended")                    \
  X(std::optional<TestRunPullRequest>, pull_request, "pullRequest", {}, schema::kRequiredNullable,            \
    "its pull request (null off pull requests)")                                                             \
  X(std::optional<std::string>, build_url, "buildUrl", {}, schema::kRequiredNullable,                         \
    "the CI job that reported it (null for older runs)")                                                     \
  X(std::optional<std::string>, workflow, "workflow", {}, schema::kRequiredNullable, "its CI workflow")       \
  X(std::optional<std::string>, job_name, "jobName", {}, schema::kRequiredNullable, "its CI job")

struct TestRunV2 {
  TRUNK_MEMBERS(TRUNK_TEST_RUN_V2_FIELDS)
  Extras extra;
  bool operator==(const TestRunV2&) const = default;
};
TRUNK_DESCRIBE(TestRunV2, "One run of a test: how it ended, where and when it ran.", TRUNK_TEST_RUN_V2_FIELDS)

#define TRUNK_TEST_RUN_LIST_FIELDS(X)                                                                         \
  X(std::vector<TestRunV2>, data, "data", {}, schema::kRequired, "the runs of this page")                     \
  TRUNK_V2_PAGE_FIELDS(X)

struct TestRunList {
  TRUNK_MEMBERS(TRUNK_TEST_RUN_LIST_FIELDS)
  Extras extra;
  bool operator==(const TestRunList&) const = default;
};
TRUNK_DESCRIBE(TestRunList, "One page of a test's runs.", TRUNK_TEST_RUN_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_TEST_STATUS_HISTORY_FIELDS(X)                                                                   \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(std::optional<Timestamp>, started_after, "startedAfter", {}, schema::kNone, "only changes at or after this") \
  X(std::optional<Timestamp>, started_before, "startedBefore", {}, schema::kNone, "only changes before this") \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct TestStatusHistoryRequest {
  TRUNK_MEMBERS(TRUNK_TEST_STATUS_HISTORY_FIELDS)
  bool operator==(const TestStatusHistoryRequest&) const = default;
};
TRUNK_DESCRIBE(TestStatusHistoryRequest, "A test's status changes, newest first.", TRUNK_TEST_STATUS_HISTORY_FIELDS)

#define TRUNK_LIST_TEST_RUNS_FIELDS(X)                                                                        \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(std::optional<TestRunConclusion>, conclusion, "conclusion", {}, schema::kNone, "only runs that ended so")  \
  X(std::optional<std::vector<std::string>>, branches, "branches", {}, (schema::Rules{.non_empty = true}),    \
    "only runs on branches matching these globs (* any text, ? one character; sent comma-separated)")        \
  X(std::optional<bool>, pull_request_only, "pullRequestOnly", {}, schema::kNone,                            \
    "only runs on pull-request branches (not with branches)")                                                \
  X(std::optional<QuarantineState>, quarantine_state, "quarantineState", {}, schema::kNone,                   \
    "only runs recorded while the test was so")                                                              \
  X(std::optional<Timestamp>, started_after, "startedAfter", {}, schema::kNone, "only runs started at or after this") \
  X(std::optional<Timestamp>, started_before, "startedBefore", {}, schema::kNone, "only runs started before this") \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListTestRunsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_TEST_RUNS_FIELDS)
  bool operator==(const ListTestRunsRequest&) const = default;
};
TRUNK_DESCRIBE(ListTestRunsRequest, "A test's runs, newest first.", TRUNK_LIST_TEST_RUNS_FIELDS)

#define TRUNK_TEST_ACTIVITY_V2_ANSWER_MODELS(X)                                                               \
  X(ClassifyingMonitor) X(StatusHistoryEntry) X(StatusHistoryEntryList) X(TestRunPullRequest) X(TestRunV2)    \
  X(TestRunList)
#define TRUNK_TEST_ACTIVITY_V2_REQUEST_MODELS(X) X(TestStatusHistoryRequest) X(ListTestRunsRequest)

}  // namespace trunk
