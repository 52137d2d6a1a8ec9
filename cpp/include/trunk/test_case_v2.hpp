#pragma once
// The tests of Trunk's v2 flaky-test API (docs/reference/v2.md#flaky-tests): a test as a listing shows it
// (TestCaseSummary), the same test read alone (TestCaseV2, with its override, monitors and first and last
// times), its metrics over a period, its labels, and the requests that read and search tests. v1's TestCase is
// another shape (snake_case, rates over fixed windows): v2's carries the V2 suffix, as PullRequestV2 does.
//
// Trunk moved these paths from /v2/test-cases/... to /v2/tests/... after the stored description; the rows use the
// new ones (operations.hpp) and the sandbox answers the old ones as aliases.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

#define TRUNK_TEST_CASE_METRICS_FIELDS(X)                                                                     \
  X(std::optional<double>, failure_rate, "failureRate", {}, schema::kRequired,                                \
    "failing runs over all runs in the period, 0 to 1")                                                      \
  X(std::optional<std::int64_t>, prs_impacted, "prsImpacted", {}, schema::kRequired,                          \
    "distinct pull requests that saw the test fail while it was unhealthy and not quarantined")              \
  X(std::optional<std::int64_t>, run_count, "runCount", {}, schema::kRequired, "runs in the period")          \
  X(std::optional<std::int64_t>, failure_count, "failureCount", {}, schema::kRequired, "failing runs in it")   \
  X(std::optional<std::int64_t>, duration_p95_ms, "durationP95Ms", {}, schema::kRequiredNullable,             \
    "95th-percentile duration in milliseconds (null: nothing measurable ran)")                              \
  X(std::optional<Timestamp>, last_run_at, "lastRunAt", {}, schema::kRequiredNullable, "the period's last run") \
  X(std::optional<Timestamp>, last_failure_at, "lastFailureAt", {}, schema::kRequiredNullable,                \
    "the period's last failing run")

struct TestCaseMetrics {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_METRICS_FIELDS)
  Extras extra;
  bool operator==(const TestCaseMetrics&) const = default;
};
TRUNK_DESCRIBE(TestCaseMetrics, "A test's metrics over the period asked for.", TRUNK_TEST_CASE_METRICS_FIELDS)

#define TRUNK_LABEL_USER_FIELDS(X)                                                                            \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the person's id")                           \
  X(std::optional<std::string>, name, "name", {}, schema::kRequiredNullable, "their name (null if unresolved)")

struct LabelUser {
  TRUNK_MEMBERS(TRUNK_LABEL_USER_FIELDS)
  Extras extra;
  bool operator==(const LabelUser&) const = default;
};
TRUNK_DESCRIBE(LabelUser, "The person who applied a label.", TRUNK_LABEL_USER_FIELDS)

// The description's two kinds of source (a user's, a monitor's) as one shape: `type` says which fields it holds.
#define TRUNK_LABEL_SOURCE_FIELDS(X)                                                                          \
  X(std::optional<OpenEnum<LabelSourceType>>, type, "type", {}, schema::kRequired, "user or monitor")         \
  X(std::optional<LabelUser>, user, "user", {}, schema::kNone,                                                \
    "user sources: who applied it (null when an API key did)")                                               \
  X(std::optional<std::string>, monitor_id, "monitorId", {}, schema::kNone, "monitor sources: the monitor")   \
  X(std::optional<OpenEnum<MonitorType>>, monitor_type, "monitorType", {}, schema::kNone,                     \
    "monitor sources: its type")                                                                             \
  X(std::optional<Timestamp>, assigned_at, "assignedAt", {}, schema::kRequired, "since when this source applies it")

struct LabelSource {
  TRUNK_MEMBERS(TRUNK_LABEL_SOURCE_FIELDS)
  Extras extra;
  bool operator==(const LabelSource&) const = default;
};
TRUNK_DESCRIBE(LabelSource, "Something that put a label on a test: a person or a monitor.", TRUNK_LABEL_SOURCE_FIELDS)

#define TRUNK_LABEL_FIELDS(X)                                                                                 \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the label's id")                            \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "its name (case matters)")               \
  X(std::optional<std::string>, description, "description", {}, schema::kRequired, "its description")         \
  X(std::optional<Timestamp>, assigned_at, "assignedAt", {}, schema::kRequired, "the earliest of its sources") \
  X(std::vector<LabelSource>, sources, "sources", {}, schema::kRequired, "everything that put it on the test")

struct Label {
  TRUNK_MEMBERS(TRUNK_LABEL_FIELDS)
  Extras extra;
  bool operator==(const Label&) const = default;
};
TRUNK_DESCRIBE(Label, "A label on a test, one entry per label whatever put it there.", TRUNK_LABEL_FIELDS)

#define TRUNK_QUARANTINE_OVERRIDE_FIELDS(X)                                                                   \
  X(std::optional<OpenEnum<QuarantineMode>>, mode, "mode", {}, schema::kRequired,                             \
    "alwaysQuarantine or neverQuarantine")                                                                   \
  X(std::optional<std::string>, reason, "reason", {}, schema::kRequiredNullable, "why, as its author said")    \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it was set")

struct QuarantineOverride {
  TRUNK_MEMBERS(TRUNK_QUARANTINE_OVERRIDE_FIELDS)
  Extras extra;
  bool operator==(const QuarantineOverride&) const = default;
};
TRUNK_DESCRIBE(QuarantineOverride, "The quarantine override in effect on a test.", TRUNK_QUARANTINE_OVERRIDE_FIELDS)

#define TRUNK_ACTIVE_MONITOR_FIELDS(X)                                                                        \
  X(std::optional<std::string>, monitor_id, "monitorId", {}, schema::kRequiredNullable,                       \
    "the monitor (null for manual, which has no monitor resource)")                                          \
  X(std::optional<OpenEnum<MonitorType>>, monitor_type, "monitorType", {}, schema::kRequired, "its type")     \
  X(std::optional<Timestamp>, active_since, "activeSince", {}, schema::kRequired,                             \
    "active on the test since at least this time")

struct ActiveMonitor {
  TRUNK_MEMBERS(TRUNK_ACTIVE_MONITOR_FIELDS)
  Extras extra;
  bool operator==(const ActiveMonitor&) const = default;
};
TRUNK_DESCRIBE(ActiveMonitor, "A monitor watching a test.", TRUNK_ACTIVE_MONITOR_FIELDS)

// Declared in the order of the flat columns users see (to_pandas()): identity, place, status, then metrics.
#define TRUNK_TEST_CASE_SUMMARY_FIELDS(X)                                                                     \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired,                                              \
    "the test's id: stable across repositories and collections (v1's test id)")                              \
  X(std::optional<std::string>, test_collection_id, "testCollectionId", {}, schema::kRequired, "its collection") \
  X(std::optional<std::string>, repo_id, "repoId", {}, schema::kRequired,                                     \
    "the repository it was uploaded for (the nil UUID for none)")                                            \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "test name")                             \
  X(std::optional<std::string>, parent_name, "parentName", {}, schema::kRequired, "parent suite")             \
  X(std::optional<std::string>, class_name, "className", {}, schema::kRequired, "class of the test")          \
  X(std::optional<std::string>, file, "file", {}, schema::kRequired, "file of the test")                      \
  X(std::optional<std::string>, target, "target", {}, schema::kRequired, "the build target that ran it, if reported") \
  X(std::optional<std::string>, variant, "variant", {}, schema::kRequired, "variant of the test")             \
  X(std::optional<std::string>, cross_variant_id, "crossVariantId", {}, schema::kRequiredNullable,            \
    "groups the same test across variants")                                                                  \
  X(std::vector<std::string>, codeowners, "codeowners", {}, schema::kRequired, "owners of the test")          \
  X(std::optional<OpenEnum<TestHealth>>, status, "status", {}, schema::kRequired,                             \
    "healthy, flaky or broken, across every active monitor")                                                 \
  X(std::optional<Timestamp>, status_since, "statusSince", {}, schema::kRequiredNullable,                     \
    "when the status last changed (null: never classified)")                                                 \
  X(std::optional<OpenEnum<QuarantineState>>, quarantine_state, "quarantineState", {}, schema::kRequired,     \
    "quarantined or notQuarantined")                                                                         \
  X(std::vector<Label>, labels, "labels", {}, schema::kRequired, "its labels")                                \
  X(std::optional<TestCaseMetrics>, metrics, "metrics", {}, (schema::Rules{.nullable = true}),                \
    "with include=metrics: its metrics for the period (null: no run in it)")                                 \
  X(std::optional<std::string>, url, "url", {}, schema::kNone, "its page in Trunk's web app (docs, 2026-10)")  \
  X(std::optional<Timestamp>, quarantined_since, "quarantinedSince", {}, (schema::Rules{.nullable = true}),   \
    "when its current quarantine started (docs, 2026-10; null: not quarantined)")

struct TestCaseSummary {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_SUMMARY_FIELDS)
  Extras extra;
  bool operator==(const TestCaseSummary&) const = default;
};
TRUNK_DESCRIBE(TestCaseSummary, "A test as a v2 listing shows it.", TRUNK_TEST_CASE_SUMMARY_FIELDS)

#define TRUNK_TEST_CASE_V2_FIELDS(X)                                                                          \
  TRUNK_TEST_CASE_SUMMARY_FIELDS(X)                                                                           \
  X(std::optional<QuarantineOverride>, quarantine_override, "quarantineOverride", {}, schema::kRequiredNullable, \
    "the override in effect (null: none)")                                                                   \
  X(std::vector<ActiveMonitor>, active_monitors, "activeMonitors", {}, schema::kRequired,                     \
    "the monitors classifying it now")                                                                       \
  X(std::optional<Timestamp>, first_seen_at, "firstSeenAt", {}, schema::kRequiredNullable, "when it was first ingested") \
  X(std::optional<Timestamp>, last_failure_at, "lastFailureAt", {}, schema::kRequiredNullable,                \
    "its latest failing run Trunk still holds")

struct TestCaseV2 {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_V2_FIELDS)
  Extras extra;
  bool operator==(const TestCaseV2&) const = default;
};
TRUNK_DESCRIBE(TestCaseV2, "A test read alone: a listing's row, with its override, monitors, first and last times.",
               TRUNK_TEST_CASE_V2_FIELDS)

#define TRUNK_TEST_CASE_LIST_FIELDS(X)                                                                        \
  X(std::vector<TestCaseSummary>, data, "data", {}, schema::kRequired, "the tests of this page")              \
  TRUNK_V2_PAGE_FIELDS(X)

struct TestCaseList {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_LIST_FIELDS)
  Extras extra;
  bool operator==(const TestCaseList&) const = default;
};
TRUNK_DESCRIBE(TestCaseList, "One page of tests.", TRUNK_TEST_CASE_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
/// A test's id in a path: opaque text (the sandbox's, and Trunk's examples, are UUIDs).
#define TRUNK_TEST_ID_FIELD(X) X(std::string, test_id, "testId", {}, schema::kPathId, "the test's id")

#define TRUNK_GET_TEST_CASE_FIELDS(X)                                                                         \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(std::optional<TestInclude>, include, "include", {}, schema::kNone, "metrics: embed its metrics for period") \
  X(std::optional<MetricsPeriod>, period, "period", {}, schema::kNone,                                        \
    "the metrics' window: 1d, 7d, 14d or 30d (needed by include)")

struct GetTestCaseRequest {
  TRUNK_MEMBERS(TRUNK_GET_TEST_CASE_FIELDS)
  bool operator==(const GetTestCaseRequest&) const = default;
};
TRUNK_DESCRIBE(GetTestCaseRequest, "A test, by id, with its metrics when asked.", TRUNK_GET_TEST_CASE_FIELDS)

#define TRUNK_LIST_TEST_CASES_FIELDS(X)                                                                       \
  X(std::optional<std::string>, test_collection_id, "testCollectionId", {}, (schema::Rules{.non_empty = true}), \
    "only this collection's tests (default: every collection)")                                              \
  X(std::optional<std::vector<TestHealth>>, status, "status", {}, schema::kNone,                              \
    "only tests in these statuses (sent comma-separated)")                                                   \
  X(std::optional<std::string>, q, "q", {}, (schema::Rules{.non_empty = true}),                               \
    "words each found in the name, file, class or parent (any case); file:, class:, parent:, name: qualify one") \
  X(std::optional<std::string>, file, "file", {}, (schema::Rules{.non_empty = true}), "a part of the file path") \
  X(std::optional<std::string>, owner, "owner", {}, (schema::Rules{.non_empty = true}), "exactly one of its code owners") \
  X(std::optional<std::string>, variant, "variant", {}, (schema::Rules{.non_empty = true}), "exactly its variant") \
  X(std::optional<TestInclude>, include, "include", {}, schema::kNone, "metrics: embed each test's for period")  \
  X(std::optional<std::string>, label, "label", {}, (schema::Rules{.non_empty = true}),                       \
    "only tests carrying this label (exact name, case included)")                                            \
  X(std::optional<QuarantineState>, quarantine_state, "quarantineState", {}, schema::kNone,                   \
    "only tests quarantined now, or only those not")                                                         \
  X(std::optional<bool>, marked_flaky, "markedFlaky", {}, schema::kNone, "whether the manual flaky mark is set") \
  X(std::optional<bool>, newly_flaky, "newlyFlaky", {}, schema::kNone,                                        \
    "only tests that first became flaky in period (needs period)")                                          \
  X(std::optional<MetricsPeriod>, period, "period", {}, schema::kNone,                                        \
    "the window of include, of a metric sort and of newlyFlaky")                                             \
  X(std::optional<TestSort>, sort, "sort", {}, schema::kNone, "name (default) or a metric of period")         \
  X(std::optional<SortDirection>, direction, "direction", {}, schema::kNone,                                  \
    "asc or desc (default: asc for name, desc, worst first, for a metric)")                                 \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListTestCasesRequest {
  TRUNK_MEMBERS(TRUNK_LIST_TEST_CASES_FIELDS)
  bool operator==(const ListTestCasesRequest&) const = default;
};
TRUNK_DESCRIBE(ListTestCasesRequest, "Searches, filters and sorts the tests of every collection or of one.",
               TRUNK_LIST_TEST_CASES_FIELDS)

#define TRUNK_TEST_CASE_V2_ANSWER_MODELS(X) \
  X(TestCaseMetrics) X(LabelUser) X(LabelSource) X(Label) X(QuarantineOverride) X(ActiveMonitor) \
  X(TestCaseSummary) X(TestCaseV2) X(TestCaseList)
#define TRUNK_TEST_CASE_V2_REQUEST_MODELS(X) X(GetTestCaseRequest) X(ListTestCasesRequest)

}  // namespace trunk
