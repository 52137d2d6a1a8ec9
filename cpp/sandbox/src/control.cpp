#include "control.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/sandbox/webhook_delivery.hpp"
#include "trunk/sandbox/webhook_endpoints.hpp"
#include "webhook_sender.hpp"

namespace trunk::sandbox {

Reply answer_advance(std::string_view method, const std::optional<std::string>& token, std::string_view expected_token,
                     std::string_view body, const Advance& advance) {
  if (method != "POST") return method_not_allowed(method, "POST");
  if (auto refused = refuse_token(token, expected_token)) return std::move(*refused);
  trunk::Json request;
  try {
    request = trunk::Json::parse(body);
  } catch (const std::exception& e) {
    return text_reply(400, std::string("malformed request: ") + e.what());
  }
  const auto rule = "must be an object with one of minutes or seconds, a number from 0 to " +
                    std::to_string(kMaxAdvanceSeconds) + " seconds";
  if (!request.is_object() || request.size() != 1 || (!request.contains("minutes") && !request.contains("seconds"))) {
    return text_reply(400, "invalid request: body: " + request.dump() + " " + rule);
  }
  const bool minutes = request.contains("minutes");
  const char* field = minutes ? "minutes" : "seconds";
  const trunk::Json& value = request.at(field);
  const double seconds = value.is_number() ? value.get<double>() * (minutes ? 60.0 : 1.0) : -1.0;
  if (!value.is_number() || !(seconds >= 0 && seconds <= static_cast<double>(kMaxAdvanceSeconds))) {
    return text_reply(400, std::string("invalid request: ") + field + ": " + value.dump() + " " + rule);
  }
  const trunk::Timestamp now = advance(std::chrono::microseconds(std::llround(seconds * 1e6)));
  Reply reply;
  reply.body = trunk::Json{{"now", trunk::format_rfc3339(now)}}.dump();
  return reply;
}

namespace {

trunk::Json endpoint_json(const WebhookEndpoint& endpoint) {
  return {{"id", endpoint.id}, {"url", endpoint.url}, {"secret", endpoint.secret.reveal()}, {"events", endpoint.events}};
}

trunk::Json delivery_json(const WebhookDelivery& d) {
  trunk::Json out = {{"endpoint_id", d.endpoint_id}, {"message_id", d.message_id}, {"event_type", d.event_type},
                     {"attempt", d.attempt}, {"status", d.status}, {"error", d.error},
                     {"at", trunk::format_rfc3339(d.at)}, {"latency_ms", static_cast<double>(d.latency.count()) / 1000.0},
                     {"duplicate", d.duplicate}};
  if (d.pr_number != 0) out["pr_number"] = d.pr_number;
  if (d.next_attempt) out["next_attempt"] = trunk::format_rfc3339(*d.next_attempt);
  return out;
}

std::variant<WebhookEndpointOptions, Reply> read_endpoint_request(std::string_view body) {
  trunk::Json request;
  try {
    request = trunk::Json::parse(body);
  } catch (const std::exception& e) {
    return text_reply(400, std::string("malformed request: ") + e.what());
  }
  if (!request.is_object()) return text_reply(400, "invalid request: body: must be an object with url");
  WebhookEndpointOptions options;
  for (const auto& [key, value] : request.items()) {
    if (key == "url" && value.is_string()) {
      options.url = value.get<std::string>();
    } else if (key == "secret" && value.is_string()) {
      options.secret = value.get<std::string>();
    } else if (key == "events" && value.is_array() &&
               std::all_of(value.begin(), value.end(), [](const trunk::Json& v) { return v.is_string(); })) {
      options.events = value.get<std::vector<std::string>>();
    } else if (key == "url" || key == "events") {
      return text_reply(400, "invalid request: " + key + ": " + value.dump() +
                                 (key == "url" ? " must be a string" : " must be a list of event types"));
    } else if (key == "secret") {
      return text_reply(400, "invalid request: secret: must be a string");  // never echoed
    } else {
      return text_reply(400, "invalid request: " + key + ": unknown field (known: url, secret, events)");
    }
  }
  if (!request.contains("url")) return text_reply(400, "invalid request: url: <missing> is required");
  return options;
}

}  // namespace

Reply answer_webhooks(std::string_view method, std::string_view path, const std::optional<std::string>& token,
                      std::string_view expected_token, std::string_view body, WebhookSender& sender) {
  const std::string deliveries_path = std::string(kWebhooksPath) + "/deliveries";
  const bool collection = path == kWebhooksPath;
  const bool deliveries = path == deliveries_path;
  const std::string_view id = collection || deliveries ? std::string_view{} : path.substr(kWebhooksPath.size() + 1);
  if (collection && method != "POST" && method != "GET") return method_not_allowed(method, "GET, POST");
  if (deliveries && method != "GET") return method_not_allowed(method, "GET");
  if (!collection && !deliveries && method != "DELETE") return method_not_allowed(method, "DELETE");
  if (auto refused = refuse_token(token, expected_token)) return std::move(*refused);

  if (deliveries) {
    trunk::Json list = trunk::Json::array();
    for (const WebhookDelivery& delivery : sender.deliveries()) list.push_back(delivery_json(delivery));
    return json_reply({{"deliveries", std::move(list)}});
  }
  if (!collection) {
    if (!sender.remove(std::string(id))) return text_reply(404, "not found: no webhook endpoint " + std::string(id));
    Reply reply;
    reply.status = 204;
    return reply;
  }
  if (method == "GET") {
    trunk::Json list = trunk::Json::array();
    for (const WebhookEndpoint& endpoint : sender.endpoints()) list.push_back(endpoint_json(endpoint));
    return json_reply({{"endpoints", std::move(list)}});
  }
  auto request = read_endpoint_request(body);
  if (auto* refusal = std::get_if<Reply>(&request)) return std::move(*refusal);
  try {
    return json_reply(endpoint_json(sender.add(std::get<WebhookEndpointOptions>(request))), 201);
  } catch (const trunk::ValidationError& e) {
    return text_reply(400, std::string("invalid request: ") + e.what());
  }
}

}  // namespace trunk::sandbox
