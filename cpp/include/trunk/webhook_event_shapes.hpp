#pragma once
// Which fields each merge queue event carries, as Trunk's webhook schemas publish them (docs/webhooks.md,
// "Events"). The fourteen types pull_request.* and pull_request_batch.* share two models (webhook_events.hpp);
// what tells one type from another is its family (a pull request or a batch) and its action (the type's
// suffix). So the shapes are two short tables rather than fourteen field lists:
//   - per family, one row per field saying when it is there (always, optionally, once tested, ...);
//   - per action, which reason field it gives, whether it says is_bisection, and whether a pull request's event
//     carries the test run it follows.
// Derived from them: each event's JSON schema (the OpenAPI document's webhooks section, openapi.cpp), and the
// sandbox's events, which set exactly the fields these say (webhook_payloads.cpp).

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "trunk/webhook_events.hpp"

namespace trunk::event_shape {

/// When a field of a merge queue event is there.
enum class Presence {
  always,          ///< in every event of the family (the schema requires it)
  optional,        ///< may be in every event of the family
  once_tested,     ///< a pull request's event whose action follows a test run (optional)
  bisection_flag,  ///< the events whose action says whether it is a bisection's (then required)
  action_reason,   ///< the event whose action gives this reason field (optional)
};

struct Field {
  std::string_view wire;
  Presence presence;
};

/// pull_request.*
inline constexpr std::array kPullRequestFields{
    Field{"type", Presence::always},           Field{"timestamp", Presence::always},
    Field{"action", Presence::always},         Field{"status", Presence::always},
    Field{"author", Presence::always},         Field{"pr_number", Presence::always},
    Field{"repository", Presence::always},     Field{"target_branch", Presence::always},
    Field{"http_details_url", Presence::always},
    Field{"batched", Presence::once_tested},   Field{"test_branch", Presence::once_tested},
    Field{"test_branch_sha", Presence::once_tested}, Field{"test_pr_number", Presence::once_tested},
    Field{"is_bisection", Presence::bisection_flag},
    Field{"submitted_reason", Presence::action_reason}, Field{"queued_reason", Presence::action_reason},
    Field{"merged_reason", Presence::action_reason},    Field{"failure_reason", Presence::action_reason},
    Field{"cancellation_reason", Presence::action_reason},
};

/// pull_request_batch.*: a batch always has its test branch, even before its run starts.
inline constexpr std::array kBatchFields{
    Field{"type", Presence::always},           Field{"timestamp", Presence::always},
    Field{"action", Presence::always},         Field{"status", Presence::always},
    Field{"pr_numbers", Presence::always},     Field{"repository", Presence::always},
    Field{"target_branch", Presence::always},  Field{"test_branch", Presence::always},
    Field{"test_branch_sha", Presence::always},
    Field{"pr_numbers_in_batch", Presence::optional}, Field{"test_pr_number", Presence::optional},
    Field{"is_bisection", Presence::bisection_flag},
    Field{"submitted_reason", Presence::action_reason}, Field{"queued_reason", Presence::action_reason},
    Field{"merged_reason", Presence::action_reason},    Field{"failure_reason", Presence::action_reason},
    Field{"cancellation_reason", Presence::action_reason},
};

struct Action {
  QueueEventAction action;
  std::string_view reason_field;  ///< "" when the action gives no reason
  bool says_bisection;            ///< carries is_bisection (required)
  bool follows_test_run;          ///< a pull request's event carries its test run's fields
};

inline constexpr std::array kActions{
    Action{QueueEventAction::submitted, "submitted_reason", false, false},
    Action{QueueEventAction::queued, "queued_reason", false, false},
    Action{QueueEventAction::testing, "", true, true},
    Action{QueueEventAction::merged, "merged_reason", false, true},
    Action{QueueEventAction::failed, "failure_reason", true, true},
    Action{QueueEventAction::canceled, "cancellation_reason", true, true},
    Action{QueueEventAction::pending_failure, "failure_reason", false, true},
};

static_assert(kActions.size() == schema::Enum<QueueEventAction>::wire.size(), "one row per action");

constexpr const Action& action_shape(QueueEventAction action) {
  for (const Action& row : kActions) {
    if (row.action == action) return row;
  }
  return kActions.front();  // unreachable: every action has a row (checked above)
}

/// Whether `field` is in an event of `action`: nullopt when it is not, else whether it is required.
constexpr std::optional<bool> carried(const Field& field, const Action& action) {
  switch (field.presence) {
    case Presence::always: return true;
    case Presence::optional: return false;
    case Presence::once_tested:
      return action.follows_test_run ? std::optional<bool>(false) : std::nullopt;
    case Presence::bisection_flag: return action.says_bisection ? std::optional<bool>(true) : std::nullopt;
    case Presence::action_reason:
      return field.wire == action.reason_field ? std::optional<bool>(false) : std::nullopt;
  }
  return std::nullopt;
}

// ---- the flaky-test events Trunk publishes schemas for ---------------------------------------------------------
// Their models are the API's own parts (TestCase, TestStatus...), read tolerantly; what Trunk always sends is
// said here by path from the body ("a.b": b, whenever a is there; "a[].b": b in each item of the list a). The
// generated schemas require these, and the sandbox sends them.

/// What a test case always carries in these events.
inline constexpr std::string_view kEventTestCaseAlways[] = {
    "test_case",
    "test_case.id",
    "test_case.repository",
    "test_case.repository.html_url",
    "test_case.html_url",
    "test_case.name",
    "test_case.variant",
    "test_case.status",
    "test_case.status.value",
    "test_case.status.reason",
    "test_case.status.timestamp",
    "test_case.most_common_failures",
    "test_case.most_common_failures[].summary",
    "test_case.most_common_failures[].occurrence_count",
    "test_case.failure_rate_last_7d",
    "test_case.failure_rate_last_24h",
    "test_case.codeowners",
    "test_case.pull_requests_impacted_last_7d",
    "test_case.quarantined",
    "test_case.ticket.html_url",
};

inline constexpr std::string_view kLegacyStatusChangedAlways[] = {
    "type",
    "status_change",
    "status_change.previous_status",
    "status_change.current_status",
    "status_change.current_status.value",
    "status_change.current_status.reason",
    "status_change.current_status.timestamp",
};

inline constexpr std::string_view kQuarantiningSettingChangedAlways[] = {
    "type",
    "quarantine_setting_changed",
    "quarantine_setting_changed.actor",
    "quarantine_setting_changed.actor.full_name",
    "quarantine_setting_changed.actor.email",
    "quarantine_setting_changed.reason",
    "quarantine_setting_changed.timestamp",
    "quarantine_setting_changed.previous_quarantining_setting",
    "quarantine_setting_changed.updated_quarantining_setting",
};

struct PublishedEvent {
  WebhookEventType type;
  std::span<const std::string_view> always;  ///< besides kEventTestCaseAlways
};

inline constexpr std::array kPublishedFlakyTestEvents{
    PublishedEvent{WebhookEventType::test_case_status_changed, kLegacyStatusChangedAlways},
    PublishedEvent{WebhookEventType::test_case_quarantining_setting_changed, kQuarantiningSettingChangedAlways},
};

/// The published flaky-test event of `type`; nullptr for the others.
constexpr const PublishedEvent* published_flaky_test_event(WebhookEventType type) {
  for (const PublishedEvent& row : kPublishedFlakyTestEvents) {
    if (row.type == type) return &row;
  }
  return nullptr;
}

/// The family of a merge queue event type and its action; nullopt for the other events.
struct QueueEventKind {
  bool batch = false;
  QueueEventAction action = QueueEventAction::submitted;
};
std::optional<QueueEventKind> queue_event_kind(WebhookEventType type);

/// The event type of a family and action (pull_request.<action> or pull_request_batch.<action>).
WebhookEventType queue_event_type(bool batch, QueueEventAction action);

}  // namespace trunk::event_shape
