#pragma once
// The bounded record of received requests that tests read. No credential enters it: the caller redacts the
// credential headers, and recorded_body() a webhook endpoint's signing secret.

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/sandbox/recorded_request.hpp"

namespace trunk::sandbox {

inline constexpr std::size_t kMaxRecordedRequests = 10'000;
inline constexpr const char* kRedacted = "<redacted>";

/// The body as the record keeps it: a webhook endpoint's registration (`POST` to `webhooks_path`) with its
/// `secret` redacted, whatever its type (a refused registration's too); one that is not JSON whole, since the
/// secret could be anywhere in it. Every other body as it came.
std::string recorded_body(std::string_view method, std::string_view path, std::string_view webhooks_path,
                          std::string_view body);

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
