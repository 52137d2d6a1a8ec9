#pragma once
// One HTTP attempt: POST a body on a pooled connection and collect status, body and Retry-After.
// Driven through the connection's multi handle with a 100 ms poll, so the interrupt check runs at that
// rate even while the server is silent (curl_easy_perform would only call the progress callback about
// once a second when idle).

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

/// Runs one attempt. Never throws for network failures (they are reported in the result); throws
/// TransportError only when libcurl itself fails (out of memory, multi interface errors).
TransferResult perform_transfer(PooledConnection& connection, const TransferRequest& request);

}  // namespace trunk::detail
