#pragma once
// One HTTP attempt: POST a body on a pooled connection and collect status, body and Retry-After.
// Driven through the connection's multi handle with a 100 ms poll, so the interrupt check runs at that
// rate even while the server is silent (curl_easy_perform would only call a progress callback about once a
// second when idle, and aborting from one loses memory in libcurl 7.88: see perform_transfer).

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "connection_pool.hpp"

namespace trunk::detail {

struct TransferRequest {
  const std::string* url = nullptr;
  const std::string* body = nullptr;
  std::chrono::milliseconds timeout{0};  ///< whole attempt; 0 = no limit
  const std::function<bool()>* interrupt_check = nullptr;  ///< may be null or empty
  std::size_t max_response_bytes = 0;
};

struct TransferResult {
  CURLcode code = CURLE_OK;
  long status = 0;  ///< HTTP status of the final response, 0 when none was received
  std::string body;
  std::optional<std::string> retry_after;  ///< raw Retry-After header value of the final response
  std::string error_detail;                ///< libcurl's error buffer (may be empty)
  bool cancelled = false;                  ///< the interrupt check asked to stop
  bool too_large = false;                  ///< the body exceeded max_response_bytes
};

/// What the libcurl callbacks of one attempt write into.
struct TransferState {
  TransferResult result;
  std::size_t max_response_bytes = 0;
  const std::function<bool()>* interrupt_check = nullptr;

  bool interrupted() const { return interrupt_check != nullptr && *interrupt_check && (*interrupt_check)(); }
};

/// One attempt set up on an easy handle (URL, body, timeout, callbacks) for a caller that drives the handle
/// itself: perform_transfer below drives it alone, the bulk engine (bulk_engine.hpp) drives many on one multi
/// handle. The callbacks point into this object, so it is neither copyable nor movable, and its destructor
/// clears those pointers from the handle, however the attempt ended.
class PreparedTransfer {
 public:
  PreparedTransfer(CURL* easy, const TransferRequest& request);
  ~PreparedTransfer();
  PreparedTransfer(const PreparedTransfer&) = delete;
  PreparedTransfer& operator=(const PreparedTransfer&) = delete;

  CURL* easy() const noexcept { return easy_; }
  bool interrupted() const { return state_.interrupted(); }
  /// Records libcurl's verdict (CURLMSG_DONE's code), the HTTP status and the error text; returns the result
  /// (moved out: call once).
  TransferResult finish(CURLcode code);

 private:
  CURL* easy_;
  TransferState state_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

/// Runs one attempt. Never throws for network failures (they are reported in the result); throws
/// TransportError only when libcurl itself fails (out of memory, multi interface errors).
TransferResult perform_transfer(PooledConnection& connection, const TransferRequest& request);

}  // namespace trunk::detail
