#include "attempt_outcome.hpp"

#include <algorithm>
#include <ctime>

#include "redaction.hpp"
#include "retry_policy.hpp"
#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

void log_to(const CallContext& call, LogLevel level, const std::string& message) {
  if (call.log) call.log(level, message);
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
  const std::string_view token = call.token;
  const long long elapsed = elapsed_ms.count();
  const std::string where = "POST " + *call.url;
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
          token)));
      return outcome;
    }
    if (result.code == CURLE_OPERATION_TIMEDOUT) {
      const std::string message =
          budget.limited_by_deadline
              ? operation + ": overall deadline of " + std::to_string(call.retry->overall_deadline.count()) +
                    " ms exceeded during attempt " + std::to_string(attempt) + " (" + where + ")"
              : operation + ": attempt " + std::to_string(attempt) + " timed out after " +
                    std::to_string(budget.timeout.count()) + " ms (" + where + "): " + detail_text;
      outcome.error = std::make_exception_ptr(TimeoutError(redact(message, token)));
      if (!budget.limited_by_deadline) outcome.kind = AttemptOutcome::Kind::retryable;
    } else {
      outcome.error =
          std::make_exception_ptr(TransportError(redact(operation + ": " + where + " failed: " + detail_text, token)));
      if (is_retryable_transport(result.code)) outcome.kind = AttemptOutcome::Kind::retryable;
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
  try {
    throw_api_error(static_cast<int>(result.status), redact(result.body, token), operation, outcome.retry_after);
  } catch (const Error&) {
    outcome.error = std::current_exception();
  }
  wipe(result.body);  // a server may echo the token in an error body: only the redacted copy is kept
  if (is_retryable_status(result.status)) outcome.kind = AttemptOutcome::Kind::retryable;
  outcome.reason = "HTTP " + std::to_string(result.status);
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
