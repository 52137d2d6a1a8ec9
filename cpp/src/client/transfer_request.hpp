#pragma once
// What the transfer engine is given: a request (HttpRequest), why it should stop (Cancellation) and the client's
// fixed settings (EngineSettings). In a header of their own because both the engine (transfer_engine.hpp) and its
// poll loop (transfer_loop.hpp) read them, and the loop must not depend on the engine that drives it.

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

#include "rate_limiter.hpp"
#include "redaction.hpp"
#include "trunk/error.hpp"
#include "trunk/log.hpp"
#include "trunk/repeat.hpp"
#include "trunk/retry.hpp"

namespace trunk::detail {

enum class HttpMethod { get, post, put, patch, delete_ };

/// The method's name on the wire ("GET", "DELETE").
constexpr std::string_view method_name(HttpMethod method) {
  switch (method) {
    case HttpMethod::get: return "GET";
    case HttpMethod::post: return "POST";
    case HttpMethod::put: return "PUT";
    case HttpMethod::patch: return "PATCH";
    case HttpMethod::delete_: return "DELETE";
  }
  return "POST";
}

/// The method an operation declares ("GET", "DELETE": operations.hpp).
constexpr HttpMethod http_method(std::string_view name) {
  if (name == "GET") return HttpMethod::get;
  if (name == "PUT") return HttpMethod::put;
  if (name == "PATCH") return HttpMethod::patch;
  if (name == "DELETE") return HttpMethod::delete_;
  return HttpMethod::post;
}

/// Whether a request of `method` carries its body (POST, PUT, PATCH).
constexpr bool sends_body(HttpMethod method) {
  return method == HttpMethod::post || method == HttpMethod::put || method == HttpMethod::patch;
}

/// What a successful answer is: JSON (decoded by the caller) or text (e.g. Prometheus metrics). Chooses the
/// request's Accept header.
enum class BodyKind { json, text };

/// One request as the engine receives it. Validation and encoding are the caller's.
struct HttpRequest {
  std::string_view operation;  ///< names the call in errors and log records ("get_test_details")
  HttpMethod method = HttpMethod::post;
  std::string url;
  std::string body;  ///< sent with POST, PUT and PATCH; GET and DELETE send none
  Repeat repeat = Repeat::safe;
  /// The credential sent: the organization token (v1) or the API key (v2). The client checks it has it.
  Credential credential = Credential::token;
  BodyKind answer = BodyKind::json;
};

/// Why a batch should stop, passed explicitly with it: the caller's stop_token (a pager abandoning a page it
/// prefetched) and/or the client's interrupt check (ClientOptions::interrupt_check, Ctrl-C in Python).
class Cancellation {
 public:
  Cancellation() = default;
  /// `interrupt_check` (may be null or empty) must outlive this object.
  explicit Cancellation(const std::function<bool()>* interrupt_check, std::stop_token stop = {})
      : interrupt_check_(interrupt_check), stop_(std::move(stop)) {}

  bool requested() const {
    return stop_.stop_requested() || (interrupt_check_ != nullptr && *interrupt_check_ && (*interrupt_check_)());
  }

 private:
  const std::function<bool()>* interrupt_check_ = nullptr;
  std::stop_token stop_;
};

/// Everything of a client the engine needs, fixed when the client is made.
struct EngineSettings {
  /// Sets the options that never change on a new easy handle (TLS, share, user agent...).
  std::function<void(CURL*)> configure;
  /// The request headers of one credential (its line in secret memory, curl_handles.hpp): for JSON answers and for
  /// text answers. Null when the client does not have that credential.
  struct HeaderLists {
    const curl_slist* json = nullptr;
    const curl_slist* text = nullptr;
  };
  HeaderLists token_headers;    ///< x-api-token (v1)
  HeaderLists api_key_headers;  ///< v2: Authorization: Bearer, else x-trunk-token
  HeaderLists public_headers;   ///< Credential::none (GET /v1/status): no credential line at all
  SecretViews secrets;  ///< for redaction and the echo check (views into the secret memory)
  const RetryOptions* retry = nullptr;
  std::chrono::milliseconds attempt_timeout{0};
  std::size_t max_response_bytes = 0;
  /// Where the client's CA certificates come from (TlsTrust::source), for the message of a failed verification.
  std::string tls_trust;
  /// Receives records already redacted (may be empty).
  std::function<void(LogLevel, const std::string&)> log;
  std::function<double()> random;  ///< uniform [0, 1), the backoff jitter
  /// Test hook (ClientOptions::sleep): when set, a wait with no transfer in flight (between the attempts of a
  /// single call, for a rate-limit slot) goes through it instead of the poll loop.
  std::function<void(std::chrono::milliseconds)> sleep;
  RateLimiter* rate_limiter = nullptr;
  std::size_t max_idle_connections = 64;
};

}  // namespace trunk::detail
