#pragma once
// A monitor's tests in Trunk's v2 flaky-test API (docs/reference/v2.md#monitors): the tests a monitor holds (those
// it is active on, and those whose mute on it is in force), and muting it for one test. Both are newer than the
// stored description: their paths and shapes are those Trunk's docs pages show (GET /v2/monitors/{monitorId}/tests,
// POST /v2/monitors/{monitorId}/tests/{testId}/mute). A muted monitor no longer counts toward the test's status.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/test_case_v2.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

/// The longest reason a mute takes (Trunk's docs: 1 to 1000 characters).
inline constexpr std::size_t kMaxMuteReasonLength = 1000;
/// How far ahead a mute may end (Trunk's docs: "at most 30 days away"); the service checks it against its clock.
inline constexpr int kMaxMuteDays = 30;

#define TRUNK_MONITOR_TEST_FIELDS(X)                                                                          \
  X(std::optional<std::string>, monitor_id, "monitorId", {}, schema::kRequired, "the monitor")                \
  X(std::optional<std::string>, test_id, "testId", {}, schema::kRequired, "the test")                         \
  X(std::optional<OpenEnum<MonitorTestState>>, state, "state", {}, schema::kRequired,                         \
    "active (counts toward the test's status) or muted (a mute is in force)")                                 \
  X(std::optional<bool>, is_muted, "isMuted", {}, schema::kRequired, "a mute is in force (state muted)")       \
  X(std::optional<Timestamp>, muted_until, "mutedUntil", {}, schema::kRequiredNullable,                       \
    "when the mute ends (null: not muted, or a mute with no end)")

struct MonitorTest {
  TRUNK_MEMBERS(TRUNK_MONITOR_TEST_FIELDS)
  Extras extra;
  bool operator==(const MonitorTest&) const = default;
};
TRUNK_DESCRIBE(MonitorTest, "A test a monitor holds: one it is active on, or one whose mute on it is in force.",
               TRUNK_MONITOR_TEST_FIELDS)

#define TRUNK_MONITOR_TEST_LIST_FIELDS(X)                                                                     \
  X(std::vector<MonitorTest>, data, "data", {}, schema::kRequired, "the tests of this page")                  \
  TRUNK_V2_PAGE_FIELDS(X)

struct MonitorTestList {
  TRUNK_MEMBERS(TRUNK_MONITOR_TEST_LIST_FIELDS)
  Extras extra;
  bool operator==(const MonitorTestList&) const = default;
};
TRUNK_DESCRIBE(MonitorTestList, "One page of a monitor's tests.", TRUNK_MONITOR_TEST_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_MONITOR_ID_FIELD(X) X(std::string, monitor_id, "monitorId", {}, schema::kPathId, "the monitor's id")

#define TRUNK_LIST_MONITOR_TESTS_FIELDS(X)                                                                    \
  TRUNK_MONITOR_ID_FIELD(X)                                                                                   \
  X(std::optional<MonitorTestState>, state, "state", {}, schema::kNone, "only tests in this state")           \
  X(std::optional<bool>, is_muted, "isMuted", {}, schema::kNone,                                              \
    "true: only muted tests; false: only the others (state, said another way)")                               \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListMonitorTestsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_MONITOR_TESTS_FIELDS)
  bool operator==(const ListMonitorTestsRequest&) const = default;
};
TRUNK_DESCRIBE(ListMonitorTestsRequest, "The tests a monitor holds, ordered by test.", TRUNK_LIST_MONITOR_TESTS_FIELDS)

#define TRUNK_MUTE_MONITOR_FOR_TEST_FIELDS(X)                                                                 \
  TRUNK_MONITOR_ID_FIELD(X)                                                                                   \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(std::optional<Timestamp>, mute_until, "muteUntil", {}, schema::kNone,                                     \
    "when the mute ends: in the future, at most 30 days away (absent: no end)")                               \
  X(std::optional<std::string>, reason, "reason", {},                                                         \
    (schema::Rules{.non_empty = true, .max_length = kMaxMuteReasonLength}),                                   \
    "why, shown with the mute (1 to 1000 characters)")

struct MuteMonitorForTestRequest {
  TRUNK_MEMBERS(TRUNK_MUTE_MONITOR_FOR_TEST_FIELDS)
  bool operator==(const MuteMonitorForTestRequest&) const = default;
};
TRUNK_DESCRIBE(MuteMonitorForTestRequest,
               "Mutes a monitor for one test (a test already muted keeps its mute, end and reason).",
               TRUNK_MUTE_MONITOR_FOR_TEST_FIELDS)

#define TRUNK_MONITOR_TESTS_V2_ANSWER_MODELS(X) X(MonitorTest) X(MonitorTestList)
#define TRUNK_MONITOR_TESTS_V2_REQUEST_MODELS(X) X(ListMonitorTestsRequest) X(MuteMonitorForTestRequest)

}  // namespace trunk
