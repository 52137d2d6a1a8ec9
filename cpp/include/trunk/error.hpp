#pragma once
// The one exception hierarchy of the library. Every error thrown by trunk-api derives from trunk::Error.
//
//   Error
//   ├── MissingTokenError    no credential (token, API key) for the client or for a call's API version.
//   ├── ValidationError      a request broke a rule; nothing was sent. Lists every violation.
//   ├── DecodeError          a response (or request, on the server side) could not be read; names the JSON path.
//   ├── PaginationError      the server broke the paging protocol (e.g. handed back a token twice).
//   ├── CancelledError       the caller's interrupt check asked to stop (Ctrl-C in Python).
//   ├── TransportError       no HTTP answer: refused, reset, truncated body, TLS failure...
//   │   └── TimeoutError     ...or the attempt / the overall deadline ran out.
//   └── ApiError             the server answered with a non-2xx status (code() and request_id() when it said).
//       ├── BadRequestError        400
//       ├── AuthenticationError    401
//       ├── PermissionDeniedError  403
//       ├── NotFoundError          404
//       ├── ConflictError          409
//       ├── RateLimitError         429 (retry_after)
//       └── ServerError            5xx
//
// Messages never contain the API token: the client redacts it before building any message.

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trunk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The credential a call needs: v1 operations send the organization token (`x-api-token`), v2 operations an API
/// key (`Authorization: Bearer trunk_v2_...`). docs/reference/credentials.md says where each comes from.
enum class Credential {
  any,      ///< the Client was made with neither
  token,    ///< the organization token of v1
  api_key,  ///< a v2 API key
  /// none at all: an operation its publisher describes with `security: []` (GET /v1/status). Declared by the
  /// request type (`static constexpr Credential credential = Credential::none;`, operations.hpp), so the client
  /// sends no credential header for it and never refuses it for a missing credential.
  none,
};

/// No credential for what was asked: the Client's constructor throws it (needed() == any) when neither a token nor
/// an API key is given or in the environment; a call throws it, before anything is sent, when the client lacks
/// the credential of the call's API version (needed() names it, operation() the call). Its own type, so that each
/// binding can say the remedy in its caller's terms: the message here speaks C++ (ClientOptions::token,
/// ClientOptions::api_key); Python says token= / api_key=, the command line the variables.
class MissingTokenError : public Error {
 public:
  explicit MissingTokenError(const std::string& message, Credential needed = Credential::any,
                             std::string operation = {})
      : Error(message), needed_(needed), operation_(std::move(operation)) {}
  Credential needed() const noexcept { return needed_; }
  const std::string& operation() const noexcept { return operation_; }

 private:
  Credential needed_;
  std::string operation_;
};

/// The environment variables a Client reads its organization token from when none is given, in order of
/// preference. TRUNK_API_KEY is read for the token only when it does not hold a v2 key (the publisher's Terraform
/// provider puts v1 tokens there).
inline constexpr std::array<std::string_view, 2> kTokenVariables{"TRUNK_API_TOKEN", "TRUNK_API_KEY"};
/// The environment variable a Client reads its v2 API key from when none is given (when it holds a v2 key).
inline constexpr std::array<std::string_view, 1> kApiKeyVariables{"TRUNK_API_KEY"};
/// Every v2 API key starts so; the environment's values are told apart by it.
inline constexpr std::string_view kApiKeyPrefix = "trunk_v2_";

/// One broken rule: which field, what value it had (as text), and the rule it broke.
struct Violation {
  std::string field;  ///< wire path of the field, e.g. "page_query.page_size" or "concurrency"
  std::string value;  ///< the offending value rendered as text ("<missing>" when absent)
  std::string rule;   ///< human-readable rule, e.g. "must be between 1 and 4294967295"
  bool operator==(const Violation&) const = default;
};

class ValidationError : public Error {
 public:
  explicit ValidationError(std::vector<Violation> violations);
  const std::vector<Violation>& violations() const noexcept { return violations_; }

 private:
  std::vector<Violation> violations_;
};

class DecodeError : public Error {
 public:
  /// path: JSON path of the offending value ("tests[3].failure_rate_last_7d"), "" for the document itself.
  DecodeError(std::string path, const std::string& problem);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

class PaginationError : public Error {
 public:
  using Error::Error;
};

class CancelledError : public Error {
 public:
  using Error::Error;
};

class TransportError : public Error {
 public:
  using Error::Error;
};

class TimeoutError : public TransportError {
 public:
  using TransportError::TransportError;
};

class ApiError : public Error {
 public:
  /// body is kept bounded (see kMaxErrorBodyBytes); operation names the call, e.g. "list_failing_tests";
  /// request_id is the answer's X-Request-Id ("" when it had none). When the body is the error envelope of Trunk's
  /// v2 API, {"error": {"code": "QUEUE_ALREADY_EXISTS", "message": "..."}}, code() is its code and what() quotes
  /// its message instead of the raw body; any other body (v1's plain text, a 429 from the edge, JSON of another
  /// shape, bytes that are not JSON) leaves code() empty. Reading the body never throws.
  ApiError(int status_code, std::string body, const std::string& operation, std::string request_id = {});
  int status_code() const noexcept { return status_code_; }
  const std::string& body() const noexcept { return body_; }
  const std::string& operation() const noexcept { return operation_; }
  /// The machine code of the v2 error envelope ("QUEUE_ALREADY_EXISTS", "INVALID_CURSOR", ...; new codes may
  /// appear), "" when the body is no envelope.
  const std::string& code() const noexcept { return code_; }
  /// The answer's X-Request-Id header, "" when it had none: the service's name for the request, for support.
  const std::string& request_id() const noexcept { return request_id_; }

  static constexpr std::size_t kMaxErrorBodyBytes = 4096;

 protected:
  /// For a subclass whose message says more: `note` goes before the server's text, `trail` after it (before
  /// the request id).
  ApiError(int status_code, std::string body, const std::string& operation, std::string request_id,
           std::string_view note, std::string_view trail);

 private:
  struct Envelope;
  static Envelope read_envelope(std::string_view body) noexcept;
  ApiError(const Envelope& envelope, int status_code, std::string&& body, const std::string& operation,
           std::string&& request_id, std::string_view note, std::string_view trail);

  int status_code_;
  std::string body_;
  std::string operation_;
  std::string code_;
  std::string request_id_;
};

class BadRequestError : public ApiError {
 public:
  using ApiError::ApiError;
};
class AuthenticationError : public ApiError {
 public:
  using ApiError::ApiError;
};
/// 403: the credential sent lacks a permission the operation needs; the message names the operation.
class PermissionDeniedError : public ApiError {
 public:
  PermissionDeniedError(int status_code, std::string body, const std::string& operation, std::string request_id = {});
};
class NotFoundError : public ApiError {
 public:
  using ApiError::ApiError;
};
/// 409: the thing to create exists already (a second createQueue of a branch).
class ConflictError : public ApiError {
 public:
  using ApiError::ApiError;
};
class RateLimitError : public ApiError {
 public:
  RateLimitError(std::string body, const std::string& operation, std::optional<double> retry_after_seconds,
                 std::string request_id = {});
  /// Seconds the server asked us to wait (from Retry-After), if it said.
  std::optional<double> retry_after() const noexcept { return retry_after_; }

 private:
  std::optional<double> retry_after_;
};
class ServerError : public ApiError {
 public:
  using ApiError::ApiError;
};

/// Throws the ApiError subclass that fits status_code (never returns). request_id: the answer's X-Request-Id.
[[noreturn]] void throw_api_error(int status_code, std::string body, const std::string& operation,
                                  std::optional<double> retry_after_seconds = std::nullopt,
                                  std::string request_id = {});

}  // namespace trunk
