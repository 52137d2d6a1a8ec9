#include "request_log.hpp"

namespace trunk::sandbox {

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
