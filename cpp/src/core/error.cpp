#include "trunk/error.hpp"

#include <simdjson.h>

#include <cstdio>

#include "decode_body.hpp"
#include "text.hpp"

namespace trunk {

namespace {

/// Bound of the body excerpt quoted in ApiError::what(); the full (bounded) body stays in body().
constexpr std::size_t kMaxMessageExcerptBytes = 200;
/// Bounds of the code and the request id quoted in ApiError::what().
constexpr std::size_t kMaxMessageCodeBytes = 100;
constexpr std::size_t kMaxMessageRequestIdBytes = 100;
/// Bodies longer than this are not read as a v2 error envelope (an envelope is a few hundred bytes; a bigger body
/// is something else, and parsing it would cost memory in proportion).
constexpr std::size_t kMaxEnvelopeBytes = std::size_t{64} << 10;
/// A longer "code" is not a machine code: the envelope is not read.
constexpr std::size_t kMaxCodeBytes = 256;
/// Bound of the request id kept (an X-Request-Id is a UUID or alike; a header may be far longer).
constexpr std::size_t kMaxRequestIdBytes = 256;

std::string describe(const std::vector<Violation>& violations) {
  if (violations.empty()) return "validation failed";
  std::string message;
  for (const auto& violation : violations) {
    if (!message.empty()) message += "; ";
    message += violation.field + ": " + violation.value + ": " + violation.rule;
  }
  return message;
}

std::string describe(const std::string& path, const std::string& problem) {
  return path.empty() ? problem : path + ": " + problem;
}

std::string_view first_line(std::string_view body) {
  const auto end = body.find_first_of("\r\n");
  return end == std::string_view::npos ? body : body.substr(0, end);
}

/// Cuts the text to `limit` bytes without splitting a UTF-8 character when it can avoid it.
std::string bounded(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit;
  // Step back over continuation bytes so a multi-byte character is dropped whole.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
  text.resize(cut);
  return text;
}

/// " (retry after 2.5 s)", or "" when the server did not say.
std::string describe_retry(std::optional<double> retry_after) {
  if (!retry_after) return {};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, " (retry after %g s)", *retry_after);
  return buffer;
}

/// "operation: HTTP 409 (CODE): note: text trail [request id: id]", each part only when there is one; `text` is
/// the envelope's message, or else the body, of which the first line is quoted.
std::string describe(int status_code, std::string_view code, std::string_view text, std::string_view request_id,
                     const std::string& operation, std::string_view note, std::string_view trail) {
  std::string message = operation + ": HTTP " + std::to_string(status_code);
  if (!code.empty()) message += " (" + detail::printable(code, kMaxMessageCodeBytes) + ")";
  const std::string_view line = first_line(text);
  if (!note.empty()) {
    message += ": ";
    message += note;
  }
  if (!line.empty()) message += ": " + detail::printable(line, kMaxMessageExcerptBytes);
  message += trail;
  if (!request_id.empty()) {
    message += " [request id: " + detail::printable(request_id, kMaxMessageRequestIdBytes) + "]";
  }
  return message;
}

}  // namespace

ValidationError::ValidationError(std::vector<Violation> violations)
    : Error(describe(violations)), violations_(std::move(violations)) {}

DecodeError::DecodeError(std::string path, const std::string& problem)
    : Error(describe(path, problem)), path_(std::move(path)) {}

/// What the body says when it is the v2 error envelope, {"error": {"code": "...", "message": "..."}}.
struct ApiError::Envelope {
  std::string code;                    ///< "" when the body is no envelope
  std::optional<std::string> message;  ///< the envelope's "message", when it is a string
};

ApiError::Envelope ApiError::read_envelope(std::string_view body) noexcept {
  // Parsed by the core's one JSON parser (simdjson's validating parse, decode_body.hpp), on a parser of its own
  // that allocates for this body only, so that no document another caller holds on this thread is disturbed.
  // Never throws: a body that is not JSON, or JSON of another shape, is no envelope.
  Envelope envelope;
  // Cheap checks first: v1's plain text and the edge's answers are not parsed at all.
  const auto start = body.find_first_not_of(" \t\r\n");
  if (body.size() > kMaxEnvelopeBytes || start == std::string_view::npos || body[start] != '{') return envelope;
  try {
    simdjson::dom::parser parser(kMaxEnvelopeBytes);
    const simdjson::dom::element root = detail::parse_text(body, parser);
    simdjson::dom::object error;
    if (root["error"].get_object().get(error) != simdjson::SUCCESS) return envelope;
    std::string_view code;
    if (error["code"].get_string().get(code) != simdjson::SUCCESS || code.size() > kMaxCodeBytes) return envelope;
    std::string_view message;
    if (error["message"].get_string().get(message) == simdjson::SUCCESS) envelope.message = std::string(message);
    envelope.code = std::string(code);
  } catch (...) {
    return Envelope{};
  }
  return envelope;
}

ApiError::ApiError(int status_code, std::string body, const std::string& operation, std::string request_id)
    : ApiError(status_code, std::move(body), operation, std::move(request_id), {}, {}) {}

ApiError::ApiError(int status_code, std::string body, const std::string& operation, std::string request_id,
                   std::string_view note, std::string_view trail)
    // The private constructor takes body and request_id by reference: the envelope is read from the body
    // before anything moves it, whatever the order the arguments are evaluated in.
    : ApiError(read_envelope(body), status_code, std::move(body), operation, std::move(request_id), note, trail) {}

ApiError::ApiError(const Envelope& envelope, int status_code, std::string&& body, const std::string& operation,
                   std::string&& request_id, std::string_view note, std::string_view trail)
    : Error(describe(status_code, envelope.code,
                     envelope.message ? std::string_view(*envelope.message) : std::string_view(body), request_id,
                     operation, note, trail)),
      status_code_(status_code),
      body_(bounded(std::move(body), kMaxErrorBodyBytes)),
      operation_(operation),
      code_(envelope.code),
      request_id_(bounded(std::move(request_id), kMaxRequestIdBytes)) {}

PermissionDeniedError::PermissionDeniedError(int status_code, std::string body, const std::string& operation,
                                             std::string request_id)
    : ApiError(status_code, std::move(body), operation, std::move(request_id),
               "the credential sent lacks a permission that " + operation + " needs", {}) {}

// The wait is useful enough to say in what() too.
RateLimitError::RateLimitError(std::string body, const std::string& operation,
                               std::optional<double> retry_after_seconds, std::string request_id)
    : ApiError(429, std::move(body), operation, std::move(request_id), {}, describe_retry(retry_after_seconds)),
      retry_after_(retry_after_seconds) {}

void throw_api_error(int status_code, std::string body, const std::string& operation,
                     std::optional<double> retry_after_seconds, std::string request_id) {
  switch (status_code) {
    case 400:
      throw BadRequestError(400, std::move(body), operation, std::move(request_id));
    case 401:
      throw AuthenticationError(401, std::move(body), operation, std::move(request_id));
    case 403:
      throw PermissionDeniedError(403, std::move(body), operation, std::move(request_id));
    case 404:
      throw NotFoundError(404, std::move(body), operation, std::move(request_id));
    case 409:
      throw ConflictError(409, std::move(body), operation, std::move(request_id));
    case 429:
      throw RateLimitError(std::move(body), operation, retry_after_seconds, std::move(request_id));
    default:
      break;
  }
  if (status_code >= 500 && status_code <= 599) {
    throw ServerError(status_code, std::move(body), operation, std::move(request_id));
  }
  throw ApiError(status_code, std::move(body), operation, std::move(request_id));
}

}  // namespace trunk
