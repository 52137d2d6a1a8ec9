// The family and action of a merge queue event type, read from its wire name ("pull_request_batch.failed"):
// the type table (webhook_events.hpp) names each type once, and this reads it rather than listing them again.
#include "trunk/webhook_event_shapes.hpp"

#include <stdexcept>
#include <string>

#include "trunk/enums.hpp"

namespace trunk::event_shape {

namespace {
constexpr std::string_view kPullRequestPrefix = "pull_request.";
constexpr std::string_view kBatchPrefix = "pull_request_batch.";
}  // namespace

std::optional<QueueEventKind> queue_event_kind(WebhookEventType type) {
  const std::string_view wire = to_wire(type);
  for (const bool batch : {false, true}) {
    const std::string_view prefix = batch ? kBatchPrefix : kPullRequestPrefix;
    if (!wire.starts_with(prefix)) continue;
    if (const auto action = enum_from_wire<QueueEventAction>(wire.substr(prefix.size()))) {
      return QueueEventKind{batch, *action};
    }
  }
  return std::nullopt;
}

WebhookEventType queue_event_type(bool batch, QueueEventAction action) {
  const std::string wire = std::string(batch ? kBatchPrefix : kPullRequestPrefix) + std::string(to_wire(action));
  if (const auto type = enum_from_wire<WebhookEventType>(wire)) return *type;
  throw std::logic_error("no webhook event type " + wire);  // the type table lacks a row for an action
}

}  // namespace trunk::event_shape
