#include "retry_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <string>

#include "redaction.hpp"
#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

bool is_retryable_status(long status) noexcept {
  switch (status) {
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

bool is_retryable_transport(CURLcode code) noexcept {
  switch (code) {
    case CURLE_COULDNT_CONNECT:     // refused
    case CURLE_OPERATION_TIMEDOUT:  // attempt timeout
    case CURLE_PARTIAL_FILE:        // body shorter than Content-Length
    case CURLE_GOT_NOTHING:         // connection closed before any response
    case CURLE_SEND_ERROR:          // reset while sending
    case CURLE_RECV_ERROR:          // reset while receiving
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool never_reached_service(CURLcode code, long status) noexcept {
  if (code != CURLE_OK) {
    switch (code) {
      case CURLE_COULDNT_RESOLVE_HOST:   // no address: nothing was sent
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_COULDNT_CONNECT:        // refused or unreachable: no connection, so no request byte
        return true;
      default:
        return false;
    }
  }
  return status == 429 || status == 503;  // answered before processing
}

bool may_retry(Repeat repeat, CURLcode code, long status) noexcept {
  const bool retryable = code != CURLE_OK ? is_retryable_transport(code) : is_retryable_status(status);
  return retryable && (repeat == Repeat::safe || never_reached_service(code, status));
}

std::optional<double> parse_retry_after(std::string_view value, std::time_t now) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // Delta-seconds. Parsed as double so an absurdly long number saturates instead of overflowing.
    double seconds = 0;
    for (char c : value) seconds = seconds * 10 + (c - '0');
    return seconds;
  }
  const std::string text(value);
  const std::time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::max(0.0, std::difftime(when, now));
}

std::chrono::milliseconds backoff_delay(const RetryOptions& options, int retry, double unit_random) noexcept {
  const double initial = static_cast<double>(std::max<std::int64_t>(0, options.initial_backoff.count()));
  const double cap = static_cast<double>(std::max<std::int64_t>(0, options.max_backoff.count()));
  const double ceiling = std::min(cap, initial * std::pow(2.0, std::clamp(retry, 0, 62)));
  const double fraction = std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(ceiling * fraction));
}

std::chrono::milliseconds retry_delay(const RetryOptions& options, int retry, double unit_random,
                                      std::optional<double> retry_after_seconds) noexcept {
  if (!retry_after_seconds) return backoff_delay(options, retry, unit_random);
  const double cap_ms = static_cast<double>(std::max<std::int64_t>(0, options.max_retry_after.count()));
  const double wanted_ms = std::max(0.0, *retry_after_seconds) * 1000.0;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(wanted_ms, cap_ms)));
}


namespace {

void log_to(const CallContext& call, LogLevel level, const std::string& message) {
  if (call.log) call.log(level, message);
}

/// Marks `outcome` retryable when the policy allows another attempt of this kind of request; says so (info)
/// when only the request's kind forbids it, since the caller then has to find out whether the write happened.
void note_retryable(const CallContext& call, AttemptOutcome& outcome, CURLcode code, long status,
                    const std::string& reason) {
  if (may_retry(call.repeat, code, status)) {
    outcome.kind = AttemptOutcome::Kind::retryable;
  } else if (may_retry(Repeat::safe, code, status)) {
    log_to(call, LogLevel::info,
           std::string(call.operation) + ": not retrying after " + reason +
               ": the request is not safe to repeat and may have reached the service");
  }
}

/// What a refused server certificate calls for: the certificates it was checked against, and the ways to give
/// the right ones (docs/install.md#ca-certificates). Empty for every other error.
std::string verification_hint(const CallContext& call, CURLcode code) {
  if (code != CURLE_PEER_FAILED_VERIFICATION && code != CURLE_SSL_CACERT_BADFILE) return {};
  const std::string checked_against = call.tls_trust && !call.tls_trust->empty() ? *call.tls_trust : "libcurl's default";
  return "; the server's certificate was checked against " + checked_against +
         ": give the bundle of the authority that signed it with the ca_bundle option (--ca-bundle) or SSL_CERT_FILE";
}

}  // namespace

AttemptBudget plan_attempt(const CallContext& call, std::chrono::milliseconds per_attempt_timeout, int attempt) {
  using std::chrono::milliseconds;
  AttemptBudget budget{std::max(milliseconds(0), per_attempt_timeout), false};  // 0 = no per-attempt limit
  if (call.has_deadline) {
    const auto remaining = std::chrono::duration_cast<milliseconds>(call.deadline - AttemptClock::now());
    if (remaining.count() <= 0) {
      throw TimeoutError(std::string(call.operation) + ": overall deadline of " +
                         std::to_string(call.retry->overall_deadline.count()) + " ms exceeded before attempt " +
                         std::to_string(attempt));
    }
    if (budget.timeout.count() == 0 || remaining < budget.timeout) {
      budget.timeout = remaining;
      budget.limited_by_deadline = true;
    }
  }
  return budget;
}

AttemptOutcome classify_attempt(const CallContext& call, TransferResult&& result, const AttemptBudget& budget,
                                int attempt, int max_attempts, std::chrono::milliseconds elapsed_ms) {
  const std::string operation(call.operation);
  const SecretViews& secrets = call.secrets;
  const long long elapsed = elapsed_ms.count();
  const std::string where = std::string(call.method) + " " + *call.url;
  const std::string prefix =
      operation + " attempt " + std::to_string(attempt) + "/" + std::to_string(max_attempts) + ": " + where;
  AttemptOutcome outcome;
  outcome.kind = AttemptOutcome::Kind::final_error;

  if (result.cancelled) {
    log_to(call, LogLevel::debug, prefix + " -> cancelled after " + std::to_string(elapsed) + " ms");
    outcome.error = std::make_exception_ptr(CancelledError(operation + ": cancelled by the caller"));
    return outcome;
  }

  if (result.code != CURLE_OK) {
    std::string detail_text = result.error_detail.empty() ? curl_easy_strerror(result.code) : result.error_detail;
    log_to(call, LogLevel::debug, prefix + " -> transport error after " + std::to_string(elapsed) + " ms: " + detail_text);
    if (result.too_large) {
      outcome.error = std::make_exception_ptr(TransportError(redact(
          operation + ": response body larger than " + std::to_string(call.max_response_bytes) + " bytes (" + where + ")",
          secrets)));
      return outcome;
    }
    if (result.code == CURLE_OPERATION_TIMEDOUT) {
      const std::string message =
          budget.limited_by_deadline
              ? operation + ": overall deadline of " + std::to_string(call.retry->overall_deadline.count()) +
                    " ms exceeded during attempt " + std::to_string(attempt) + " (" + where + ")"
              : operation + ": attempt " + std::to_string(attempt) + " timed out after " +
                    std::to_string(budget.timeout.count()) + " ms (" + where + "): " + detail_text;
      outcome.error = std::make_exception_ptr(TimeoutError(redact(message, secrets)));
      // Cut short by the overall deadline, another attempt would have no time left.
      if (!budget.limited_by_deadline) note_retryable(call, outcome, result.code, 0, detail_text);
    } else {
      outcome.error = std::make_exception_ptr(TransportError(
          redact(operation + ": " + where + " failed: " + detail_text + verification_hint(call, result.code), secrets)));
      note_retryable(call, outcome, result.code, 0, detail_text);
    }
    outcome.reason = detail_text;
    return outcome;
  }

  log_to(call, LogLevel::debug,
         prefix + " -> HTTP " + std::to_string(result.status) + " in " + std::to_string(elapsed) + " ms, " +
             std::to_string(result.body.size()) + " bytes");
  if (result.status >= 200 && result.status < 300) {
    outcome.kind = AttemptOutcome::Kind::success;
    outcome.body = std::move(result.body);
    return outcome;
  }
  if (result.retry_after) outcome.retry_after = parse_retry_after(*result.retry_after, std::time(nullptr));
  // Not secret, but redacted like the body in case a server echoes something in it.
  const std::string request_id = redact(result.request_id, secrets);
  const int status = static_cast<int>(result.status);
  try {
    throw_api_error(status, redact(result.body, secrets), operation, outcome.retry_after, request_id);
  } catch (const ApiError& error) {
    outcome.error = std::current_exception();
    // The body is redacted byte for byte, but a v2 envelope's code and message are read with their JSON escapes
    // undone: a server that echoed a secret with a JSON escape in it would show it in what() or code(). Then
    // nothing of the body is kept.
    if (contains_any(error.what(), secrets) || contains_any(error.code(), secrets)) {
      try {
        throw_api_error(status, std::string(kRedacted), operation, outcome.retry_after, request_id);
      } catch (const ApiError&) {
        outcome.error = std::current_exception();
      }
    }
  }
  wipe(result.body);  // a server may echo the token in an error body: only the redacted copy is kept
  outcome.reason = "HTTP " + std::to_string(result.status);
  note_retryable(call, outcome, CURLE_OK, result.status, outcome.reason);
  return outcome;
}

std::optional<std::chrono::milliseconds> plan_retry(const CallContext& call, const AttemptOutcome& outcome,
                                                    int attempt, int max_attempts, double unit_random) {
  const std::string operation(call.operation);
  const RetryOptions& retry = *call.retry;
  if (attempt >= max_attempts) {
    if (retry.max_retries > 0) {
      log_to(call, LogLevel::info,
             operation + ": giving up after " + std::to_string(attempt) + " attempts: " + outcome.reason);
    }
    return std::nullopt;
  }
  const std::chrono::milliseconds delay = retry_delay(retry, attempt - 1, unit_random, outcome.retry_after);
  if (call.has_deadline && AttemptClock::now() + delay >= call.deadline) {
    log_to(call, LogLevel::info,
           operation + ": not retrying after " + outcome.reason + ": waiting " + std::to_string(delay.count()) +
               " ms would pass the overall deadline of " + std::to_string(retry.overall_deadline.count()) + " ms");
    return std::nullopt;
  }
  log_to(call, LogLevel::info,
         operation + ": " + outcome.reason + "; retry " + std::to_string(attempt) + " of " +
             std::to_string(retry.max_retries) + " in " + std::to_string(delay.count()) + " ms" +
             (outcome.retry_after ? " (Retry-After)" : ""));
  return delay;
}

}  // namespace trunk::detail
