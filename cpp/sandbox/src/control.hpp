#pragma once
// The sandbox's own control operations, outside /v1 and outside the OpenAPI document (they are not part of the
// service the sandbox imitates):
//   POST /sandbox/advance  {"minutes": N} or {"seconds": N}  ->  {"now": "<RFC 3339>"}
// moves the sandbox clock forward (Sandbox::advance) and answers its new time;
//   POST   /sandbox/webhooks  {"url": U, "secret"?: "whsec_...", "events"?: [types]}  ->  201 the endpoint
//   GET    /sandbox/webhooks                 ->  {"endpoints": [{"id", "url", "secret", "events"}]}
//   DELETE /sandbox/webhooks/{id}            ->  204, or 404
//   GET    /sandbox/webhooks/deliveries      ->  {"deliveries": [...]} (WebhookDelivery, times RFC 3339)
// register webhook endpoints from any language and read what was delivered (docs/webhooks.md). Each requires
// the token like every operation; checks in the same order (405 with Allow, 401, 400 naming field, value and
// rule).

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "service.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

inline constexpr std::string_view kAdvancePath = "/sandbox/advance";
/// The longest step one request may take (ten years): keeps the clock far from overflow.
inline constexpr std::int64_t kMaxAdvanceSeconds = 10LL * 366 * 24 * 3600;

using Advance = std::function<trunk::Timestamp(std::chrono::microseconds)>;

inline constexpr std::string_view kWebhooksPath = "/sandbox/webhooks";

class WebhookSender;

Reply answer_webhooks(std::string_view method, std::string_view path, const std::optional<std::string>& token,
                      std::string_view expected_token, std::string_view body, WebhookSender& sender);

Reply answer_advance(std::string_view method, const std::optional<std::string>& token, std::string_view expected_token,
                     std::string_view body, const Advance& advance);

}  // namespace trunk::sandbox
