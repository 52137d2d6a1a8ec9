#pragma once
// A test case as the flaky-test operations return it (docs/reference/service.md#test-case). No field is promised by the
// contract, so every one is optional; the unhealthy listing omits the failure fields entirely.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk {

#define TRUNK_REPOSITORY_REF_FIELDS(X) \
  X(std::optional<std::string>, html_url, "html_url", {}, schema::kNone, "link to the repository")

struct RepositoryRef {
  TRUNK_MEMBERS(TRUNK_REPOSITORY_REF_FIELDS)
  Extras extra;
  bool operator==(const RepositoryRef&) const = default;
};
TRUNK_DESCRIBE(RepositoryRef, "The repository of a test case.", TRUNK_REPOSITORY_REF_FIELDS)

#define TRUNK_TICKET_REF_FIELDS(X) \
  X(std::optional<std::string>, html_url, "html_url", {}, schema::kNone, "link to the ticket")

struct TicketRef {
  TRUNK_MEMBERS(TRUNK_TICKET_REF_FIELDS)
  Extras extra;
  bool operator==(const TicketRef&) const = default;
};
TRUNK_DESCRIBE(TicketRef, "The ticket linked to a test case.", TRUNK_TICKET_REF_FIELDS)

#define TRUNK_TEST_STATUS_FIELDS(X)                                                                              \
  X(std::optional<OpenEnum<TestHealth>>, value, "value", {}, schema::kNone, "healthy, flaky or broken")              \
  X(std::optional<std::string>, reason, "reason", {}, schema::kNone, "free text; may be \"\" or start with a space") \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone, "when the status was set")

struct TestStatus {
  TRUNK_MEMBERS(TRUNK_TEST_STATUS_FIELDS)
  Extras extra;
  bool operator==(const TestStatus&) const = default;
};
TRUNK_DESCRIBE(TestStatus, "Health status of a test: reason (free text), timestamp, value.", TRUNK_TEST_STATUS_FIELDS)

#define TRUNK_FAILURE_SUMMARY_FIELDS(X)                                                                   \
  X(std::optional<std::string>, summary, "summary", {}, schema::kNone, "the failure message")            \
  X(std::optional<std::int64_t>, occurrence_count, "occurrence_count", {}, schema::kNone, "how often it occurred") \
  X(std::optional<Timestamp>, last_occurrence, "last_occurrence", {}, schema::kNone, "when it last occurred")

struct FailureSummary {
  TRUNK_MEMBERS(TRUNK_FAILURE_SUMMARY_FIELDS)
  Extras extra;
  bool operator==(const FailureSummary&) const = default;
};
TRUNK_DESCRIBE(FailureSummary, "One of the most common failures of a test.", TRUNK_FAILURE_SUMMARY_FIELDS)

// Declared in the order of the flat columns users see (to_pandas(), CSV): identity, place, then numbers.
#define TRUNK_TEST_CASE_FIELDS(X)                                                                                  \
  X(std::optional<std::string>, id, "id", {}, schema::kNone, "test case identifier (UUID)")                         \
  X(std::optional<std::string>, name, "name", {}, schema::kNone, "test name")                                       \
  X(std::optional<std::string>, variant, "variant", {}, schema::kNone, "variant of the test")                       \
  X(std::optional<std::string>, classname, "classname", {}, schema::kNone, "class of the test")                     \
  X(std::optional<std::string>, file_path, "file_path", {}, schema::kNone, "file of the test")                      \
  X(std::optional<std::string>, parent, "parent", {}, schema::kNone, "parent suite")                                \
  X(std::optional<std::string>, html_url, "html_url", {}, schema::kNone, "link to the test")                        \
  X(std::optional<RepositoryRef>, repository, "repository", {}, schema::kNone, "the repository of the test")        \
  X(std::optional<TestStatus>, status, "status", {}, schema::kNone, "health status")                                \
  X(std::optional<double>, failure_rate_last_7d, "failure_rate_last_7d", {}, schema::kNone, "fraction in [0, 1]")   \
  X(std::optional<double>, failure_rate_last_24h, "failure_rate_last_24h", {}, schema::kNone, "fraction in [0, 1]") \
  X(std::optional<std::int64_t>, pull_requests_impacted_last_7d, "pull_requests_impacted_last_7d", {},              \
    schema::kNone, "pull requests the test impacted in the last 7 days")                                            \
  X(std::optional<bool>, quarantined, "quarantined", {}, schema::kNone, "whether the test is quarantined")          \
  X(std::optional<std::vector<std::string>>, codeowners, "codeowners", {}, schema::kNone, "owners of the test")     \
  X(std::optional<TicketRef>, ticket, "ticket", {}, schema::kNone, "the linked ticket")                             \
  X(std::optional<std::vector<FailureSummary>>, most_common_failures, "most_common_failures", {}, schema::kNone,    \
    "the most common failures (failing-test listing and details only)")

struct TestCase {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_FIELDS)
  Extras extra;
  bool operator==(const TestCase&) const = default;
};
TRUNK_DESCRIBE(TestCase, "A test case; every field under its wire name, None when absent.", TRUNK_TEST_CASE_FIELDS)

}  // namespace trunk
