#pragma once
// One HTTP attempt set up on an easy handle (GET, or POST of a body) that collects status, body,
// Retry-After and X-Request-Id. The transfer engine (transfer_engine.hpp) drives it on its multi handle.

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace trunk::detail {

struct TransferRequest {
  const std::string* url = nullptr;
  const std::string* body = nullptr;  ///< POST this body; null = GET
  /// Another method than GET/POST ("PUT", "PATCH" with a body, "DELETE" without); null = GET or POST.
  const char* custom_method = nullptr;
  const curl_slist* headers = nullptr;  ///< CURLOPT_HTTPHEADER; null = leave the handle's as they are
  std::chrono::milliseconds timeout{0};  ///< whole attempt; 0 = no limit
  std::size_t max_response_bytes = 0;
  /// Open a new connection rather than reuse a kept-alive one. libcurl sends a request again by itself when a
  /// reused connection turns out closed before any answer byte; for a not-safe-to-repeat write that replay
  /// could be a second submission, so such writes never ride on a reused connection.
  bool fresh_connection = false;
};

struct TransferResult {
  CURLcode code = CURLE_OK;
  long status = 0;  ///< HTTP status of the final response, 0 when none was received
  std::string body;
  std::optional<std::string> retry_after;  ///< raw Retry-After header value of the final response
  std::string request_id;                  ///< X-Request-Id header value of the final response ("" when none)
  std::string error_detail;                ///< libcurl's error buffer (may be empty)
  bool cancelled = false;                  ///< the caller cancelled the attempt (the engine removed it)
  bool too_large = false;                  ///< the body exceeded max_response_bytes
};

/// What the libcurl callbacks of one attempt write into.
struct TransferState {
  TransferResult result;
  std::size_t max_response_bytes = 0;
};

/// One attempt set up on an easy handle (URL, method, body, timeout, callbacks) for the engine, which drives
/// the handle on its multi handle. The callbacks point into this object, so it is neither copyable nor movable,
/// and its destructor clears those pointers from the handle, however the attempt ended. Cancellation is the
/// engine's: it removes the handle between polls, never aborts from a callback (libcurl 7.88 leaks a small
/// allocation when a transfer is aborted from its progress callback at an unlucky moment).
class PreparedTransfer {
 public:
  PreparedTransfer(CURL* easy, const TransferRequest& request);
  ~PreparedTransfer();
  PreparedTransfer(const PreparedTransfer&) = delete;
  PreparedTransfer& operator=(const PreparedTransfer&) = delete;

  CURL* easy() const noexcept { return easy_; }
  /// Records libcurl's verdict (CURLMSG_DONE's code), the HTTP status and the error text; returns the result
  /// (moved out: call once).
  TransferResult finish(CURLcode code);

 private:
  CURL* easy_;
  TransferState state_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace trunk::detail
