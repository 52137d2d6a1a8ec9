#pragma once
// The bounded record of received requests that tests read. The API token never enters it.

#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "trunk/sandbox/sandbox.hpp"

namespace trunk::sandbox {

inline constexpr std::size_t kMaxRecordedRequests = 10'000;
inline constexpr const char* kRedacted = "<redacted>";

class RequestLog {
 public:
  /// Adds a record, dropping the oldest beyond kMaxRecordedRequests. The caller has redacted the token.
  void add(RecordedRequest request);
  std::vector<RecordedRequest> snapshot() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::deque<RecordedRequest> requests_;
};

}  // namespace trunk::sandbox
