#include "trunk/error.hpp"

#include <cstdio>

#include "text.hpp"

namespace trunk {

namespace {

/// Bound of the body excerpt quoted in ApiError::what(); the full (bounded) body stays in body().
constexpr std::size_t kMaxMessageExcerptBytes = 200;

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

/// Cuts the body to kMaxErrorBodyBytes without splitting a UTF-8 character when it can avoid it.
std::string bounded_body(std::string body) {
  if (body.size() <= ApiError::kMaxErrorBodyBytes) return body;
  std::size_t cut = ApiError::kMaxErrorBodyBytes;
  // Step back over continuation bytes so a multi-byte character is dropped whole.
  while (cut > 0 && (static_cast<unsigned char>(body[cut]) & 0xC0U) == 0x80U) --cut;
  body.resize(cut);
  return body;
}

std::string describe(int status_code, std::string_view body, const std::string& operation) {
  std::string message = operation + ": HTTP " + std::to_string(status_code);
  const std::string_view line = first_line(body);
  if (!line.empty()) message += ": " + detail::printable(line, kMaxMessageExcerptBytes);
  return message;
}

std::string describe_retry(const std::string& base, std::optional<double> retry_after) {
  if (!retry_after) return base;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, " (retry after %g s)", *retry_after);
  return base + buffer;
}

}  // namespace

ValidationError::ValidationError(std::vector<Violation> violations)
    : Error(describe(violations)), violations_(std::move(violations)) {}

DecodeError::DecodeError(std::string path, const std::string& problem)
    : Error(describe(path, problem)), path_(std::move(path)) {}

ApiError::ApiError(int status_code, std::string body, const std::string& operation)
    : Error(describe(status_code, body, operation)),
      status_code_(status_code),
      body_(bounded_body(std::move(body))),
      operation_(operation) {}

RateLimitError::RateLimitError(std::string body, const std::string& operation,
                               std::optional<double> retry_after_seconds)
    : ApiError(429, std::move(body), operation), retry_after_(retry_after_seconds) {
  // what() of the base names status and body; the wait is useful enough to say too. runtime_error has no
  // setter, so the message is rebuilt through assignment of a fresh base object.
  if (retry_after_) {
    static_cast<std::runtime_error&>(*this) =
        std::runtime_error(describe_retry(ApiError::what(), retry_after_));
  }
}

void throw_api_error(int status_code, std::string body, const std::string& operation,
                     std::optional<double> retry_after_seconds) {
  switch (status_code) {
    case 400:
      throw BadRequestError(400, std::move(body), operation);
    case 401:
      throw AuthenticationError(401, std::move(body), operation);
    case 403:
      throw PermissionDeniedError(403, std::move(body), operation);
    case 404:
      throw NotFoundError(404, std::move(body), operation);
    case 409:
      throw ConflictError(409, std::move(body), operation);
    case 429:
      throw RateLimitError(std::move(body), operation, retry_after_seconds);
    default:
      break;
  }
  if (status_code >= 500 && status_code <= 599) throw ServerError(status_code, std::move(body), operation);
  throw ApiError(status_code, std::move(body), operation);
}

}  // namespace trunk
