#include "control.hpp"

#include <cmath>

#include "trunk/json_value.hpp"

namespace trunk::sandbox {

Reply answer_advance(std::string_view method, const std::optional<std::string>& token, std::string_view expected_token,
                     std::string_view body, const Advance& advance) {
  if (method != "POST") {
    Reply reply = text_reply(405, "method not allowed: " + std::string(method) + " (use POST)");
    reply.headers.emplace_back("Allow", "POST");
    return reply;
  }
  if (!token) return text_reply(401, "unauthorized: missing x-api-token header");
  if (!constant_time_equal(*token, expected_token)) return text_reply(401, "unauthorized: invalid API token");
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

}  // namespace trunk::sandbox
