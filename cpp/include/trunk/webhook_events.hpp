#pragma once
// The events Trunk sends as webhooks (docs/webhooks.md, "Events"), declared once like the API's answers: the
// codec, the Python classes and stubs, and the `webhooks` section of the OpenAPI document derive from these
// rows. Every event is read tolerantly (unknown keys kept in `extra`, unknown enumeration values kept raw,
// every field optional): the service's schemas are only partly published and grow over time.
//
// TRUNK_WEBHOOK_EVENT_TYPES is the one table of event types: wire name -> the model its body is read as. A
// type the table does not know is read as an UnknownEvent (never an error), see webhook_event.hpp.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/test_case.hpp"
#include "trunk/time.hpp"

namespace trunk {

// ---- the enumerations the events carry -------------------------------------------------------------------

#define TRUNK_QUEUE_EVENT_ACTION_VALUES(X)                                                            \
  X(submitted, "submitted") X(queued, "queued") X(testing, "testing") X(merged, "merged") X(failed, "failed") \
  X(canceled, "canceled") X(pending_failure, "pending_failure")
TRUNK_ENUM(QueueEventAction,
           "What moved a pull request or a batch in a merge queue (the suffix of its pull_request.* or "
           "pull_request_batch.* event; \"canceled\" with one l, unlike the API's cancelled).",
           TRUNK_QUEUE_EVENT_ACTION_VALUES)

// The reasons a merge queue event gives, with the values Trunk's webhook schemas publish (docs/webhooks.md,
// "Reasons"). Read as open enumerations: a value Trunk adds later is kept raw, never an error.
#define TRUNK_SUBMITTED_REASON_VALUES(X) \
  X(user_requested, "USER_REQUESTED") X(trunk_admin_requested, "TRUNK_ADMIN_REQUESTED") X(api_requested, "API_REQUESTED")
TRUNK_ENUM(SubmittedReason, "Why a pull request was submitted to the queue.", TRUNK_SUBMITTED_REASON_VALUES)

#define TRUNK_QUEUED_REASON_VALUES(X)                                                                        \
  X(manual_push_to_target_branch, "MANUAL_PUSH_TO_TARGET_BRANCH")                                            \
  X(prerequisite_merge_item_cancelled, "PREREQUISITE_MERGE_ITEM_CANCELLED")                                  \
  X(prerequisite_merge_item_failed, "PREREQUISITE_MERGE_ITEM_FAILED")                                        \
  X(prerequisite_merge_item_manually_merged, "PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED")                      \
  X(merge_item_now_ready, "MERGE_ITEM_NOW_READY") X(tests_restarted_by_user, "TESTS_RESTARTED_BY_USER")     \
  X(tests_restarted_by_api_request, "TESTS_RESTARTED_BY_API_REQUEST")                                        \
  X(skip_the_line_interrupted, "SKIP_THE_LINE_INTERRUPTED") X(bisection_required, "BISECTION_REQUIRED")     \
  X(bisection_test_run_passed, "BISECTION_TEST_RUN_PASSED")
TRUNK_ENUM(QueuedReason, "Why a pull request or batch (re-)entered the line to be tested.", TRUNK_QUEUED_REASON_VALUES)

#define TRUNK_MERGED_REASON_VALUES(X) \
  X(merge_graph_merge, "MERGE_GRAPH_MERGE") X(manual_merge, "MANUAL_MERGE") X(merge_graph_direct_merge, "MERGE_GRAPH_DIRECT_MERGE")
TRUNK_ENUM(MergedReason, "How a pull request or batch merged: by the queue, by hand, or directly without a run.",
           TRUNK_MERGED_REASON_VALUES)

#define TRUNK_QUEUE_FAILURE_REASON_VALUES(X)                                                                 \
  X(start_test_run_invalid_event, "START_TEST_RUN_INVALID_EVENT")                                            \
  X(start_test_run_merge_conflict, "START_TEST_RUN_MERGE_CONFLICT")                                          \
  X(start_test_run_config_not_found, "START_TEST_RUN_CONFIG_NOT_FOUND")                                      \
  X(start_test_run_config_parsing_failure, "START_TEST_RUN_CONFIG_PARSING_FAILURE")                          \
  X(start_test_run_config_missing_required_statuses, "START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES")      \
  X(start_test_run_config_bad_required_statuses, "START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES")              \
  X(start_test_run_config_bad_version, "START_TEST_RUN_CONFIG_BAD_VERSION")                                  \
  X(start_test_run_no_required_statuses, "START_TEST_RUN_NO_REQUIRED_STATUSES")                              \
  X(test_run_required_status_failed, "TEST_RUN_REQUIRED_STATUS_FAILED") X(test_run_timeout, "TEST_RUN_TIMEOUT") \
  X(github_api_merge_pr_failed, "GITHUB_API_MERGE_PR_FAILED")                                                \
  X(github_api_direct_merge_pr_failed, "GITHUB_API_DIRECT_MERGE_PR_FAILED")                                  \
  X(pr_updated_at_merge_time, "PR_UPDATED_AT_MERGE_TIME")                                                    \
  X(start_test_run_retry_exhausted, "START_TEST_RUN_RETRY_EXHAUSTED")                                        \
  X(start_test_run_draft_prs_not_allowed, "START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED")                            \
  X(test_run_failed_by_optimization, "TEST_RUN_FAILED_BY_OPTIMIZATION")
TRUNK_ENUM(QueueFailureReason, "Why a pull request or batch failed (or is pending failure) in the queue.",
           TRUNK_QUEUE_FAILURE_REASON_VALUES)

#define TRUNK_CANCELLATION_REASON_VALUES(X)                                                                  \
  X(user_requested, "USER_REQUESTED") X(pr_closed, "PR_CLOSED") X(pr_pushed_to, "PR_PUSHED_TO")             \
  X(pr_base_branch_changed, "PR_BASE_BRANCH_CHANGED") X(trunk_admin_requested, "TRUNK_ADMIN_REQUESTED")     \
  X(pr_converted_to_draft, "PR_CONVERTED_TO_DRAFT") X(stacked_pr_member_pushed_to, "STACKED_PR_MEMBER_PUSHED_TO") \
  X(stacked_pr_member_closed, "STACKED_PR_MEMBER_CLOSED") X(stacked_pr_member_merged, "STACKED_PR_MEMBER_MERGED") \
  X(stacked_pr_member_base_branch_changed, "STACKED_PR_MEMBER_BASE_BRANCH_CHANGED")
TRUNK_ENUM(CancellationReason, "Why a pull request or batch was taken out of the queue.",
           TRUNK_CANCELLATION_REASON_VALUES)

#define TRUNK_MONITOR_STATUS_VALUES(X) X(active, "active") X(resolved, "resolved")
TRUNK_ENUM(MonitorStatus, "Whether a flaky-test detection monitor is active on a test or has resolved.",
           TRUNK_MONITOR_STATUS_VALUES)

#define TRUNK_QUARANTINING_SETTING_VALUES(X)                                                           \
  X(always_quarantine, "ALWAYS_QUARANTINE") X(never_quarantine, "NEVER_QUARANTINE") X(unspecified, "UNSPECIFIED")
TRUNK_ENUM(QuarantiningSetting,
           "A person's quarantine override of one test; UNSPECIFIED means the repository's default applies.",
           TRUNK_QUARANTINING_SETTING_VALUES)

/// Event type rows: X(enumerator, "wire name", Model). Models may serve several types: the seven pull_request.*
/// share PullRequestEvent, the seven pull_request_batch.* PullRequestBatchEvent; which fields each of those
/// carries, and which it always carries, follows from its action (webhook_event_shapes.hpp).
#define TRUNK_WEBHOOK_EVENT_TYPES(X)                                                                    \
  X(pull_request_submitted, "pull_request.submitted", PullRequestEvent)                                   \
  X(pull_request_queued, "pull_request.queued", PullRequestEvent)                                         \
  X(pull_request_testing, "pull_request.testing", PullRequestEvent)                                       \
  X(pull_request_merged, "pull_request.merged", PullRequestEvent)                                         \
  X(pull_request_failed, "pull_request.failed", PullRequestEvent)                                         \
  X(pull_request_canceled, "pull_request.canceled", PullRequestEvent)                                     \
  X(pull_request_pending_failure, "pull_request.pending_failure", PullRequestEvent)                       \
  X(pull_request_batch_submitted, "pull_request_batch.submitted", PullRequestBatchEvent)                  \
  X(pull_request_batch_queued, "pull_request_batch.queued", PullRequestBatchEvent)                        \
  X(pull_request_batch_testing, "pull_request_batch.testing", PullRequestBatchEvent)                      \
  X(pull_request_batch_merged, "pull_request_batch.merged", PullRequestBatchEvent)                        \
  X(pull_request_batch_failed, "pull_request_batch.failed", PullRequestBatchEvent)                        \
  X(pull_request_batch_canceled, "pull_request_batch.canceled", PullRequestBatchEvent)                    \
  X(pull_request_batch_pending_failure, "pull_request_batch.pending_failure", PullRequestBatchEvent)      \
  X(test_case_status_changed_v2, "v2.test_case.status_changed", TestCaseStatusChangedEvent)               \
  X(test_case_monitor_status_changed, "test_case.monitor_status_changed", TestCaseMonitorStatusChangedEvent) \
  X(test_case_quarantining_setting_changed, "test_case.quarantining_setting_changed",                     \
    TestCaseQuarantiningSettingChangedEvent)                                                               \
  X(test_case_investigation_completed, "test_case.investigation_completed", TestCaseInvestigationCompletedEvent) \
  X(test_case_status_changed, "test_case.status_changed", LegacyTestCaseStatusChangedEvent)

// TRUNK_ENUM takes two-column rows; this table has a third (the model), so the enumeration is spelled out
// here with the same members TRUNK_ENUM gives.
#define TRUNK_WEBHOOK_ENUMERATOR_(enumerator, wire, Event) enumerator,
#define TRUNK_WEBHOOK_WIRE_(enumerator, wire, Event) std::string_view{wire},
#define TRUNK_WEBHOOK_NAME_(enumerator, wire, Event) std::string_view{#enumerator},
enum class WebhookEventType { TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_WEBHOOK_ENUMERATOR_) };
template <>
struct schema::Enum<WebhookEventType> {
  static constexpr std::string_view name = "WebhookEventType";
  static constexpr std::string_view doc =
      "The type of a webhook event (its body's `type`). test_case.status_changed is the legacy form of "
      "v2.test_case.status_changed.";
  static constexpr auto wire = std::array{TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_WEBHOOK_WIRE_)};
  static constexpr auto names = std::array{TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_WEBHOOK_NAME_)};
  static constexpr ::trunk::schema::EnumOptions options{};
};
#undef TRUNK_WEBHOOK_ENUMERATOR_
#undef TRUNK_WEBHOOK_WIRE_
#undef TRUNK_WEBHOOK_NAME_

// ---- shared parts ------------------------------------------------------------------------------------------

#define TRUNK_QUEUE_EVENT_REPOSITORY_FIELDS(X)                                                             \
  X(std::optional<std::string>, host, "host", {}, schema::kRequired, "github.com or another code host")        \
  X(std::optional<std::string>, owner, "owner", {}, schema::kRequired, "the user or organization owning it")  \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "the repository's name")

struct QueueEventRepository {
  TRUNK_MEMBERS(TRUNK_QUEUE_EVENT_REPOSITORY_FIELDS)
  Extras extra;
  bool operator==(const QueueEventRepository&) const = default;
};
TRUNK_DESCRIBE(QueueEventRepository, "The repository of a merge queue event: host, owner and name.",
               TRUNK_QUEUE_EVENT_REPOSITORY_FIELDS)

#define TRUNK_EVENT_REPOSITORY_FIELDS(X)                                                                   \
  X(std::optional<std::string>, id, "id", {}, schema::kNone, "Trunk's id of the repository (UUID)")          \
  X(std::optional<std::string>, html_url, "html_url", {}, schema::kNone, "link to the repository")

struct EventRepository {
  TRUNK_MEMBERS(TRUNK_EVENT_REPOSITORY_FIELDS)
  Extras extra;
  bool operator==(const EventRepository&) const = default;
};
TRUNK_DESCRIBE(EventRepository, "The repository of a flaky-test event: its id and link.",
               TRUNK_EVENT_REPOSITORY_FIELDS)

// ---- merge queue ------------------------------------------------------------------------------------------

// The fields of the merge queue events, as Trunk's webhook schemas publish them. Every one is optional here (older
// bodies lack `type` and `timestamp`; the reader is tolerant); which ones each event type always carries is in
// webhook_event_shapes.hpp, from which the events' JSON schemas are generated.
#define TRUNK_QUEUE_EVENT_REASON_FIELDS(X)                                                                       \
  X(std::optional<OpenEnum<SubmittedReason>>, submitted_reason, "submitted_reason", {}, schema::kNone,           \
    "submitted only: why it was submitted, e.g. API_REQUESTED")                                                  \
  X(std::optional<OpenEnum<QueuedReason>>, queued_reason, "queued_reason", {}, schema::kNone,                    \
    "queued only: why it (re-)entered the line, e.g. BISECTION_REQUIRED")                                        \
  X(std::optional<OpenEnum<MergedReason>>, merged_reason, "merged_reason", {}, schema::kNone,                    \
    "merged only: how it merged, e.g. MERGE_GRAPH_MERGE")                                                        \
  X(std::optional<OpenEnum<QueueFailureReason>>, failure_reason, "failure_reason", {}, schema::kNone,            \
    "failed and pending_failure only: why, e.g. TEST_RUN_REQUIRED_STATUS_FAILED")                                \
  X(std::optional<OpenEnum<CancellationReason>>, cancellation_reason, "cancellation_reason", {}, schema::kNone,  \
    "canceled only: why, e.g. USER_REQUESTED")

#define TRUNK_PULL_REQUEST_EVENT_FIELDS(X)                                                                       \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "the event type, e.g. pull_request.failed") \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone,                                         \
    "when the transition happened (older payloads lack it: use the delivery's svix-timestamp)")                   \
  X(std::optional<OpenEnum<QueueEventAction>>, action, "action", {}, schema::kNone, "what happened (the type's suffix)") \
  X(std::optional<OpenEnum<QueueEventAction>>, status, "status", {}, schema::kNone, "where the pull request stands now") \
  X(std::optional<std::string>, author, "author", {}, schema::kNone, "login of the pull request's author")      \
  X(std::optional<std::int64_t>, pr_number, "pr_number", {}, (schema::Rules{.min = 0}), "the pull request's number") \
  X(std::optional<QueueEventRepository>, repository, "repository", {}, schema::kNone, "host, owner and name")        \
  X(std::optional<std::string>, target_branch, "target_branch", {}, schema::kNone, "the branch the queue merges into") \
  X(std::optional<std::string>, http_details_url, "http_details_url", {}, schema::kNone,          \
    "the pull request's page in Trunk's web app")                                                                \
  X(std::optional<bool>, batched, "batched", {}, schema::kNone, "it was tested as part of a batch")              \
  X(std::optional<bool>, is_bisection, "is_bisection", {}, schema::kNone, "the event belongs to a bisection run") \
  X(std::optional<std::string>, test_branch, "test_branch", {}, schema::kNone, "the branch it was tested on")     \
  X(std::optional<std::string>, test_branch_sha, "test_branch_sha", {}, schema::kNone, "head commit of test_branch") \
  X(std::optional<std::int64_t>, test_pr_number, "test_pr_number", {}, (schema::Rules{.min = 0}),               \
    "the pull request Trunk opened to run the test")                                                             \
  TRUNK_QUEUE_EVENT_REASON_FIELDS(X)

struct PullRequestEvent {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_EVENT_FIELDS)
  Extras extra;
  bool operator==(const PullRequestEvent&) const = default;
};
TRUNK_DESCRIBE(PullRequestEvent,
               "A pull request moved in a merge queue: pull_request.submitted, queued, testing, merged, failed, "
               "canceled or pending_failure.",
               TRUNK_PULL_REQUEST_EVENT_FIELDS)

#define TRUNK_PULL_REQUEST_BATCH_EVENT_FIELDS(X)                                                                 \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "the event type")               \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone, "when it happened")                    \
  X(std::optional<OpenEnum<QueueEventAction>>, action, "action", {}, schema::kNone, "what happened (the type's suffix)") \
  X(std::optional<OpenEnum<QueueEventAction>>, status, "status", {}, schema::kNone, "where the batch stands now") \
  X(std::optional<std::vector<std::int64_t>>, pr_numbers, "pr_numbers", {}, (schema::Rules{.min = 0}),           \
    "the pull requests of the batch this event is about")                                                        \
  X(std::optional<std::vector<std::int64_t>>, pr_numbers_in_batch, "pr_numbers_in_batch", {}, (schema::Rules{.min = 0}), \
    "every pull request tested together in the batch (more than pr_numbers when some did not merge)")           \
  X(std::optional<QueueEventRepository>, repository, "repository", {}, schema::kNone, "host, owner and name")        \
  X(std::optional<std::string>, target_branch, "target_branch", {}, schema::kNone, "the branch the queue merges into") \
  X(std::optional<bool>, is_bisection, "is_bisection", {}, schema::kNone, "the batch is a bisection run's")      \
  X(std::optional<std::string>, test_branch, "test_branch", {}, schema::kNone, "the branch the batch was tested on") \
  X(std::optional<std::string>, test_branch_sha, "test_branch_sha", {}, schema::kNone, "head commit of test_branch") \
  X(std::optional<std::int64_t>, test_pr_number, "test_pr_number", {}, (schema::Rules{.min = 0}),               \
    "the pull request Trunk opened to test the batch")                                                           \
  TRUNK_QUEUE_EVENT_REASON_FIELDS(X)

struct PullRequestBatchEvent {
  TRUNK_MEMBERS(TRUNK_PULL_REQUEST_BATCH_EVENT_FIELDS)
  Extras extra;
  bool operator==(const PullRequestBatchEvent&) const = default;
};
TRUNK_DESCRIBE(PullRequestBatchEvent,
               "A batch of pull requests moved in a merge queue: pull_request_batch.submitted, queued, testing, "
               "merged, failed, canceled or pending_failure.",
               TRUNK_PULL_REQUEST_BATCH_EVENT_FIELDS)

// ---- flaky tests ------------------------------------------------------------------------------------------

#define TRUNK_STATUS_TRIGGER_FIELDS(X)                                                                           \
  X(std::optional<std::string>, monitor_id, "monitor_id", {}, schema::kNone, "the monitor that caused it (UUID)") \
  X(std::optional<std::string>, monitor_type, "monitor_type", {}, schema::kNone, "e.g. pass_on_retry")          \
  X(std::optional<OpenEnum<MonitorStatus>>, monitor_status, "monitor_status", {}, schema::kNone,                 \
    "the monitor's status then")

struct StatusTrigger {
  TRUNK_MEMBERS(TRUNK_STATUS_TRIGGER_FIELDS)
  Extras extra;
  bool operator==(const StatusTrigger&) const = default;
};
TRUNK_DESCRIBE(StatusTrigger, "The monitor that changed a test's status.", TRUNK_STATUS_TRIGGER_FIELDS)

#define TRUNK_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS(X)                                                           \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "v2.test_case.status_changed")  \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone, "when it happened")                    \
  X(std::optional<OpenEnum<QuarantinedTestStatus>>, previous_status, "previous_status", {}, schema::kNone,       \
    "HEALTHY, FLAKY or BROKEN")                                                                                  \
  X(std::optional<OpenEnum<QuarantinedTestStatus>>, new_status, "new_status", {}, schema::kNone,                 \
    "HEALTHY, FLAKY or BROKEN")                                                                                  \
  X(std::optional<StatusTrigger>, triggered_by, "triggered_by", {}, schema::kNone, "the monitor that caused it") \
  X(std::optional<EventRepository>, repository, "repository", {}, schema::kNone, "id and html_url")             \
  X(std::optional<TestCase>, test_case, "test_case", {}, schema::kNone, "the test")

struct TestCaseStatusChangedEvent {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS)
  Extras extra;
  bool operator==(const TestCaseStatusChangedEvent&) const = default;
};
TRUNK_DESCRIBE(TestCaseStatusChangedEvent,
               "A test's health status changed because a monitor activated or resolved (v2.test_case.status_changed).",
               TRUNK_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS)

#define TRUNK_MONITOR_FIELDS(X)                                                                                  \
  X(std::optional<std::string>, id, "id", {}, schema::kNone, "the monitor (UUID)")                              \
  X(std::optional<std::string>, type, "type", {}, schema::kNone, "its kind, e.g. pass_on_retry")                \
  X(std::optional<OpenEnum<MonitorStatus>>, status, "status", {}, schema::kNone, "active or resolved")

struct Monitor {
  TRUNK_MEMBERS(TRUNK_MONITOR_FIELDS)
  Extras extra;
  bool operator==(const Monitor&) const = default;
};
TRUNK_DESCRIBE(Monitor, "A flaky-test detection monitor on one test.", TRUNK_MONITOR_FIELDS)

#define TRUNK_TEST_CASE_MONITOR_STATUS_CHANGED_EVENT_FIELDS(X)                                                   \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "test_case.monitor_status_changed") \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone, "when it happened")                    \
  X(std::optional<Monitor>, monitor, "monitor", {}, schema::kNone, "the monitor and its new status")            \
  X(std::optional<Json>, evidence, "evidence", {}, schema::kNone, "supporting data; its shape depends on the monitor") \
  X(std::optional<EventRepository>, repository, "repository", {}, schema::kNone, "id and html_url")             \
  X(std::optional<TestCase>, test_case, "test_case", {}, schema::kNone, "the test")

struct TestCaseMonitorStatusChangedEvent {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_MONITOR_STATUS_CHANGED_EVENT_FIELDS)
  Extras extra;
  bool operator==(const TestCaseMonitorStatusChangedEvent&) const = default;
};
TRUNK_DESCRIBE(TestCaseMonitorStatusChangedEvent,
               "A detection monitor activated or resolved on a test (test_case.monitor_status_changed).",
               TRUNK_TEST_CASE_MONITOR_STATUS_CHANGED_EVENT_FIELDS)

#define TRUNK_ACTOR_FIELDS(X)                                                                                    \
  X(std::optional<std::string>, email, "email", {}, schema::kNone, "e-mail address")                            \
  X(std::optional<std::string>, full_name, "full_name", {}, schema::kNone, "name")

struct Actor {
  TRUNK_MEMBERS(TRUNK_ACTOR_FIELDS)
  Extras extra;
  bool operator==(const Actor&) const = default;
};
TRUNK_DESCRIBE(Actor, "The person who made a change.", TRUNK_ACTOR_FIELDS)

#define TRUNK_QUARANTINE_SETTING_CHANGE_FIELDS(X)                                                                \
  X(std::optional<Actor>, actor, "actor", {}, schema::kNone, "who changed it")                                  \
  X(std::optional<OpenEnum<QuarantiningSetting>>, previous_quarantining_setting, "previous_quarantining_setting", {}, \
    schema::kNone, "the setting before")                                                                         \
  X(std::optional<OpenEnum<QuarantiningSetting>>, updated_quarantining_setting, "updated_quarantining_setting", {},   \
    schema::kNone, "the setting now")                                                                            \
  X(std::optional<std::string>, reason, "reason", {}, (schema::Rules{.nullable = true}),                          \
    "free text the person gave (null when none)")                                                                \
  X(std::optional<Timestamp>, timestamp, "timestamp", {}, schema::kNone, "when it changed")

struct QuarantineSettingChange {
  TRUNK_MEMBERS(TRUNK_QUARANTINE_SETTING_CHANGE_FIELDS)
  Extras extra;
  bool operator==(const QuarantineSettingChange&) const = default;
};
TRUNK_DESCRIBE(QuarantineSettingChange, "A change of a test's quarantine override.",
               TRUNK_QUARANTINE_SETTING_CHANGE_FIELDS)

#define TRUNK_TEST_CASE_QUARANTINING_SETTING_CHANGED_EVENT_FIELDS(X)                                             \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone,                                 \
    "test_case.quarantining_setting_changed")                                                                    \
  X(std::optional<QuarantineSettingChange>, quarantine_setting_changed, "quarantine_setting_changed", {},        \
    schema::kNone, "who changed what, when and why (the event's time is its timestamp)")                         \
  X(std::optional<TestCase>, test_case, "test_case", {}, schema::kNone, "the test, its repository inside")

struct TestCaseQuarantiningSettingChangedEvent {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_QUARANTINING_SETTING_CHANGED_EVENT_FIELDS)
  Extras extra;
  bool operator==(const TestCaseQuarantiningSettingChangedEvent&) const = default;
};
TRUNK_DESCRIBE(TestCaseQuarantiningSettingChangedEvent,
               "Someone changed a test's quarantine override (test_case.quarantining_setting_changed).",
               TRUNK_TEST_CASE_QUARANTINING_SETTING_CHANGED_EVENT_FIELDS)

#define TRUNK_INVESTIGATION_FACT_FIELDS(X)                                                                       \
  X(std::optional<std::string>, fact_type, "fact_type", {}, schema::kNone, "e.g. GIT_BLAME, CI_LOGS, COMMIT (open set)") \
  X(std::optional<std::string>, content, "content", {}, schema::kNone, "Markdown")                              \
  X(std::optional<double>, confidence, "confidence", {}, schema::kNone, "0 to 1")

struct InvestigationFact {
  TRUNK_MEMBERS(TRUNK_INVESTIGATION_FACT_FIELDS)
  Extras extra;
  bool operator==(const InvestigationFact&) const = default;
};
TRUNK_DESCRIBE(InvestigationFact, "One finding of an investigation.", TRUNK_INVESTIGATION_FACT_FIELDS)

#define TRUNK_TEST_CASE_INVESTIGATION_COMPLETED_EVENT_FIELDS(X)                                                  \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "test_case.investigation_completed") \
  X(std::optional<std::string>, investigation_id, "investigation_id", {}, schema::kNone, "the investigation (UUID)") \
  X(std::optional<double>, confidence, "confidence", {}, schema::kNone, "overall confidence, 0 to 1")            \
  X(std::optional<Timestamp>, created_at, "created_at", {}, schema::kNone, "when it completed")                 \
  X(std::optional<std::string>, markdown_summary, "markdown_summary", {}, schema::kNone, "the summary, Markdown") \
  X(std::optional<std::string>, failure_message, "failure_message", {}, schema::kNone,                           \
    "the failure that started the investigation")                                                               \
  X(std::optional<std::vector<InvestigationFact>>, facts, "facts", {}, schema::kNone, "the findings")           \
  X(std::optional<EventRepository>, repository, "repository", {}, schema::kNone, "id and html_url")             \
  X(std::optional<TestCase>, test_case, "test_case", {}, schema::kNone, "the test")

struct TestCaseInvestigationCompletedEvent {
  TRUNK_MEMBERS(TRUNK_TEST_CASE_INVESTIGATION_COMPLETED_EVENT_FIELDS)
  Extras extra;
  bool operator==(const TestCaseInvestigationCompletedEvent&) const = default;
};
TRUNK_DESCRIBE(TestCaseInvestigationCompletedEvent,
               "An AI investigation of a flaky test finished (test_case.investigation_completed).",
               TRUNK_TEST_CASE_INVESTIGATION_COMPLETED_EVENT_FIELDS)

#define TRUNK_LEGACY_STATUS_CHANGE_FIELDS(X)                                                                     \
  X(std::optional<OpenEnum<TestHealth>>, previous_status, "previous_status", {}, schema::kNone,                  \
    "the status before: healthy, flaky or broken (lower case)")                                                 \
  X(std::optional<TestStatus>, current_status, "current_status", {}, schema::kNone,                              \
    "the status now, with its reason and when it was set")

struct LegacyStatusChange {
  TRUNK_MEMBERS(TRUNK_LEGACY_STATUS_CHANGE_FIELDS)
  Extras extra;
  bool operator==(const LegacyStatusChange&) const = default;
};
TRUNK_DESCRIBE(LegacyStatusChange, "The status change of the legacy test_case.status_changed event.",
               TRUNK_LEGACY_STATUS_CHANGE_FIELDS)

#define TRUNK_LEGACY_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS(X)                                                    \
  X(std::optional<OpenEnum<WebhookEventType>>, type, "type", {}, schema::kNone, "test_case.status_changed")     \
  X(std::optional<LegacyStatusChange>, status_change, "status_change", {}, schema::kNone,                        \
    "before and after (the event's time is current_status.timestamp)")                                          \
  X(std::optional<TestCase>, test_case, "test_case", {}, schema::kNone, "the test, its repository inside")

struct LegacyTestCaseStatusChangedEvent {
  TRUNK_MEMBERS(TRUNK_LEGACY_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS)
  Extras extra;
  bool operator==(const LegacyTestCaseStatusChangedEvent&) const = default;
};
TRUNK_DESCRIBE(LegacyTestCaseStatusChangedEvent,
               "A test's health status changed (test_case.status_changed, the form before "
               "v2.test_case.status_changed).",
               TRUNK_LEGACY_TEST_CASE_STATUS_CHANGED_EVENT_FIELDS)

#define TRUNK_UNKNOWN_EVENT_FIELDS(X)                                                                            \
  X(std::optional<Json>, type, "type", {}, schema::kNone, "the event type as sent (a string unless malformed)")

/// An event whose type this library does not know (or a body without a type): everything but `type` is in
/// `extra`, so nothing is lost and a newer event never fails a receiver.
struct UnknownEvent {
  TRUNK_MEMBERS(TRUNK_UNKNOWN_EVENT_FIELDS)
  Extras extra;
  bool operator==(const UnknownEvent&) const = default;
};
TRUNK_DESCRIBE(UnknownEvent, "An event of a type this library does not know; its fields are in extra.",
               TRUNK_UNKNOWN_EVENT_FIELDS)

/// Every event model and its parts, parts first (the order Python registers classes in). Kept apart from
/// TRUNK_ANSWER_MODELS: the code instantiated per model takes this list beside that one (the codec in
/// webhook_codec.cpp, the OpenAPI components, the Python classes, enumerations and schema).
#define TRUNK_WEBHOOK_MODELS(X)                                                                                 \
  X(QueueEventRepository) X(EventRepository) X(PullRequestEvent) X(PullRequestBatchEvent) X(StatusTrigger) X(TestCaseStatusChangedEvent) \
  X(Monitor) X(TestCaseMonitorStatusChangedEvent) X(Actor) X(QuarantineSettingChange)                           \
  X(TestCaseQuarantiningSettingChangedEvent) X(InvestigationFact) X(TestCaseInvestigationCompletedEvent)        \
  X(LegacyStatusChange) X(LegacyTestCaseStatusChangedEvent) X(UnknownEvent)

/// The enumerations of the events.
#define TRUNK_WEBHOOK_ENUMS(X)                                                                                  \
  X(QueueEventAction) X(SubmittedReason) X(QueuedReason) X(MergedReason) X(QueueFailureReason) X(CancellationReason) \
  X(MonitorStatus) X(QuarantiningSetting) X(WebhookEventType)

}  // namespace trunk
