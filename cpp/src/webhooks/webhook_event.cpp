// construct_webhook_event: the body's `type` chooses the model (TRUNK_WEBHOOK_EVENT_TYPES), read by the one
// tolerant decoder of the answers.
#include "trunk/webhook_event.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/json_decoder.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {

struct Discriminators {
  std::optional<std::string> type;
  std::optional<std::string> action;
};

/// The body's `type` and `action` (top-level strings), read from the document the syntax check parsed. A key
/// given twice counts as its last occurrence, as the decoder reads it (json_decoder.hpp).
Discriminators discriminators(const simdjson::dom::element& document) {
  simdjson::dom::object object;
  if (document.get_object().get(object) != simdjson::SUCCESS) throw DecodeError("", "an event must be a JSON object");
  Discriminators found;
  for (const simdjson::dom::key_value_pair member : object) {
    std::optional<std::string>* into = member.key == "type"     ? &found.type
                                       : member.key == "action" ? &found.action
                                                                : nullptr;
    if (into == nullptr) continue;
    std::string_view value;
    if (member.value.get_string().get(value) == simdjson::SUCCESS) {
      into->emplace(value);
    } else {
      into->reset();
    }
  }
  return found;
}

}  // namespace

WebhookEvent construct_webhook_event(std::string_view body) {
  // One parse: its document gives the discriminators, and the chosen model is read from the same document.
  const simdjson::dom::element document = detail::parse_text(body, detail::thread_body_parser());
  const Discriminators found = discriminators(document);
  const auto read_as = [&]<typename Model>(std::type_identity<Model>) -> WebhookEvent {
    return detail::decode_parsed<Model>(document);
  };
  if (found.type) {
    if (const auto type = enum_from_wire<WebhookEventType>(*found.type)) {
      switch (*type) {
#define TRUNK_EVENT_CASE_(enumerator, wire, Event) \
  case WebhookEventType::enumerator:               \
    return read_as(std::type_identity<Event>{});
        TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_EVENT_CASE_)
#undef TRUNK_EVENT_CASE_
      }
    }
  } else if (found.action && enum_from_wire<QueueEventAction>(*found.action)) {
    // Older pull_request.* payloads carry no `type`; their action names the transition.
    return read_as(std::type_identity<PullRequestEvent>{});
  }
  return read_as(std::type_identity<UnknownEvent>{});
}

}  // namespace trunk
