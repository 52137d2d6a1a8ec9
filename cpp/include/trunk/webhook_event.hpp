#pragma once
// One webhook event, of whichever declared type (webhook_events.hpp), read from the body Trunk sent.

#include <string_view>
#include <variant>

#include "trunk/webhook_events.hpp"

namespace trunk {

/// The typed event. One alternative per event model (several types share PullRequestEvent and
/// PullRequestBatchEvent: their `type` tells them apart); UnknownEvent for any other type.
using WebhookEvent = std::variant<PullRequestEvent, PullRequestBatchEvent, TestCaseStatusChangedEvent,
                                  TestCaseMonitorStatusChangedEvent, TestCaseQuarantiningSettingChangedEvent,
                                  TestCaseInvestigationCompletedEvent, LegacyTestCaseStatusChangedEvent, UnknownEvent>;

/// Reads an event from a body that is already trusted (verify_webhook checked it, or it came from a log).
/// Dispatches on the body's `type` (TRUNK_WEBHOOK_EVENT_TYPES); a type this library does not know gives an
/// UnknownEvent. A body without `type` whose `action` is a merge queue action is a PullRequestEvent (older
/// pull_request.* payloads carry no type). Throws DecodeError when the body is not a JSON object or a known
/// field has the wrong JSON kind (naming its path).
WebhookEvent construct_webhook_event(std::string_view body);

}  // namespace trunk
