// construct_webhook_event: the body's `type` chooses the model (TRUNK_WEBHOOK_EVENT_TYPES), read by the one
// tolerant decoder of the answers.
#include "trunk/webhook_event.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "core/json_decoder.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {

struct Discriminators {
  std::optional<std::string> type;
  std::optional<std::string> action;
};

std::optional<std::string> text_member(simdjson::dom::object object, std::string_view key) {
  std::string_view value;
  if (object[key].get_string().get(value) != simdjson::SUCCESS) return std::nullopt;
  return std::string(value);
}

/// The body's `type` and `action` (top-level strings), read from the document the syntax check parsed.
Discriminators discriminators(simdjson::padded_string_view padded) {
  const std::optional<simdjson::dom::element> document = detail::validate_syntax(padded);
  if (!document) {
    // A number no double holds made the fast parser stop; read the two keys the slow, exact way.
    const UnknownEvent event = decode<UnknownEvent>(std::string_view(padded.data(), padded.length()));
    std::optional<std::string> action;
    if (event.extra.is_object() && event.extra.contains("action") && event.extra["action"].is_string()) {
      action = event.extra["action"].get<std::string>();
    }
    std::optional<std::string> type;
    if (event.type && event.type->is_string()) type = event.type->get<std::string>();
    return {type, action};
  }
  simdjson::dom::object object;
  if (document->get_object().get(object) != simdjson::SUCCESS) throw DecodeError("", "an event must be a JSON object");
  return {text_member(object, "type"), text_member(object, "action")};
}

template <typename Model>
WebhookEvent read_as(simdjson::padded_string_view padded) {
  return detail::decode_padded<Model>(padded);
}

}  // namespace

WebhookEvent construct_webhook_event(std::string_view body) {
  const simdjson::padded_string padded(body);
  const Discriminators found = discriminators(padded);
  if (found.type) {
    if (const auto type = enum_from_wire<WebhookEventType>(*found.type)) {
      switch (*type) {
#define TRUNK_EVENT_CASE_(enumerator, wire, Event) \
  case WebhookEventType::enumerator:               \
    return read_as<Event>(padded);
        TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_EVENT_CASE_)
#undef TRUNK_EVENT_CASE_
      }
    }
  } else if (found.action && enum_from_wire<QueueEventAction>(*found.action)) {
    // Older pull_request.* payloads carry no `type`; their action names the transition.
    return read_as<PullRequestEvent>(padded);
  }
  return read_as<UnknownEvent>(padded);
}

}  // namespace trunk
