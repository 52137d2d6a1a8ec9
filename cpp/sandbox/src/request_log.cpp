#include "request_log.hpp"

#include "trunk/json_value.hpp"

namespace trunk::sandbox {

std::string recorded_body(std::string_view method, std::string_view path, std::string_view webhooks_path,
                          std::string_view body) {
  if (method != "POST" || path != webhooks_path) return std::string(body);
  trunk::Json request;
  try {
    request = trunk::Json::parse(body);
  } catch (const std::exception&) {
    return std::string(kRedacted) + " (a webhook endpoint's registration that is not JSON)";
  }
  if (request.is_object() && request.contains("secret")) request["secret"] = kRedacted;
  return request.dump();
}

void RequestLog::add(RecordedRequest request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(request));
  while (requests_.size() > kMaxRecordedRequests) requests_.pop_front();
}

std::vector<RecordedRequest> RequestLog::snapshot() const {
  std::lock_guard lock(mutex_);
  return {requests_.begin(), requests_.end()};
}

void RequestLog::clear() {
  std::lock_guard lock(mutex_);
  requests_.clear();
}

}  // namespace trunk::sandbox
