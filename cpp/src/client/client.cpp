#include "trunk/client.hpp"

#include <algorithm>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "connection_pool.hpp"
#include "curl_handles.hpp"
#include "endpoint.hpp"
#include "http_transfer.hpp"
#include "rate_limiter.hpp"
#include "redaction.hpp"
#include "retry_policy.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"
#include "trunk/version.hpp"

namespace trunk {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// Largest response body read; a bigger one is a TransportError rather than unbounded memory use.
constexpr std::size_t kMaxResponseBytes = std::size_t{64} << 20;
/// Idle connections kept after a burst of concurrent calls.
constexpr std::size_t kMaxIdleConnections = 64;
/// Granularity of the default sleep's interrupt polling.
constexpr milliseconds kSleepSlice{100};

double default_random() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

long long to_ms(Clock::duration duration) {
  return std::chrono::duration_cast<milliseconds>(duration).count();
}

}  // namespace

struct Client::Impl {
  explicit Impl(ClientOptions given)
      : options(std::move(given)),
        base_url(detail::resolve_base_url(options.base_url, options.allow_insecure_http)),
        token(detail::resolve_token(options.token)),
        user_agent(std::string("trunk-api-cpp/") + kVersion +
                   (options.user_agent_suffix.empty() ? "" : " " + options.user_agent_suffix)),
        rate_limiter(options.max_requests_per_second),
        pool([this](CURL* easy) { configure(easy); }, kMaxIdleConnections) {
    detail::ensure_curl_initialized();
    detail::append_header(headers, "Content-Type: application/json");
    detail::append_header(headers, "Accept: application/json");
    detail::append_header(headers, "x-api-token: " + token);
    // No "Expect: 100-continue" round trip for larger bodies.
    detail::append_header(headers, "Expect:");
    options.token.reset();  // the only copy left is `token`, used for the header and for redaction
  }

  /// Options that are the same for every call, set once per pooled handle.
  void configure(CURL* easy) const {
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: we are multi-threaded
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(easy, CURLOPT_USERAGENT, user_agent.c_str());
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode (gzip...)
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);   // never carry the token to another host
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, options.verify_tls ? 1L : 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, options.verify_tls ? 2L : 0L);
    if (!options.ca_bundle.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options.ca_bundle.c_str());
    curl_easy_setopt(easy, CURLOPT_SHARE, share.get());
  }

  bool interrupted() const { return options.interrupt_check && options.interrupt_check(); }

  void throw_if_interrupted(std::string_view operation) const {
    if (interrupted()) throw CancelledError(std::string(operation) + ": cancelled by the caller");
  }

  void log(LogLevel level, const std::string& message) const {
    if (options.log) options.log(level, detail::redact(message, token));
  }

  void sleep(milliseconds delay, std::string_view operation) const {
    if (options.sleep) {
      options.sleep(delay);
    } else {
      const auto until = Clock::now() + delay;
      for (auto now = Clock::now(); now < until; now = Clock::now()) {
        throw_if_interrupted(operation);
        std::this_thread::sleep_for(std::min<Clock::duration>(kSleepSlice, until - now));
      }
    }
    throw_if_interrupted(operation);
  }

  double random() const { return options.random ? options.random() : default_random(); }

  /// POSTs `body` to `path` with retries; returns the body of the 2xx response or throws.
  std::string post(std::string_view operation_view, std::string_view path, const std::string& body) {
    const std::string operation(operation_view);
    const std::string url = base_url + std::string(path);
    const RetryOptions& retry = options.retry;
    const auto start = Clock::now();
    const bool has_deadline = retry.overall_deadline.count() > 0;
    const auto deadline = start + retry.overall_deadline;
    const int max_attempts = 1 + std::max(0, retry.max_retries);

    for (int attempt = 1;; ++attempt) {
      throw_if_interrupted(operation);
      // Every attempt, retries included, takes a slot of the client-side rate limit.
      if (const milliseconds wait = rate_limiter.reserve(); wait.count() > 0) sleep(wait, operation);
      milliseconds attempt_timeout = std::max(milliseconds(0), options.timeout);  // 0 = no per-attempt limit
      bool limited_by_deadline = false;
      if (has_deadline) {
        const auto remaining = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        if (remaining.count() <= 0) {
          throw TimeoutError(operation + ": overall deadline of " + std::to_string(retry.overall_deadline.count()) +
                             " ms exceeded before attempt " + std::to_string(attempt));
        }
        if (attempt_timeout.count() == 0 || remaining < attempt_timeout) {
          attempt_timeout = remaining;
          limited_by_deadline = true;
        }
      }

      const auto attempt_start = Clock::now();
      detail::TransferResult result;
      {
        auto connection = pool.acquire();
        result = detail::perform_transfer(
            *connection, {&url, &body, attempt_timeout, &options.interrupt_check, kMaxResponseBytes});
      }
      const long long elapsed = to_ms(Clock::now() - attempt_start);
      const std::string where = "POST " + url;
      const std::string prefix = operation + " attempt " + std::to_string(attempt) + "/" +
                                 std::to_string(max_attempts) + ": " + where;

      if (result.cancelled) {
        log(LogLevel::debug, prefix + " -> cancelled after " + std::to_string(elapsed) + " ms");
        throw CancelledError(operation + ": cancelled by the caller");
      }

      // Classify the attempt: success returns, a final failure throws, a retryable one is kept in `last`.
      std::exception_ptr last;
      std::optional<double> retry_after;
      std::string reason;
      if (result.code != CURLE_OK) {
        std::string detail_text = result.error_detail.empty() ? curl_easy_strerror(result.code) : result.error_detail;
        log(LogLevel::debug, prefix + " -> transport error after " + std::to_string(elapsed) + " ms: " + detail_text);
        if (result.too_large) {
          throw TransportError(detail::redact(operation + ": response body larger than " +
                                                  std::to_string(kMaxResponseBytes) + " bytes (" + where + ")",
                                              token));
        }
        if (result.code == CURLE_OPERATION_TIMEDOUT) {
          const std::string message =
              limited_by_deadline
                  ? operation + ": overall deadline of " + std::to_string(retry.overall_deadline.count()) +
                        " ms exceeded during attempt " + std::to_string(attempt) + " (" + where + ")"
                  : operation + ": attempt " + std::to_string(attempt) + " timed out after " +
                        std::to_string(attempt_timeout.count()) + " ms (" + where + "): " + detail_text;
          TimeoutError error(detail::redact(message, token));
          if (limited_by_deadline) throw error;
          last = std::make_exception_ptr(error);
        } else {
          TransportError error(detail::redact(operation + ": " + where + " failed: " + detail_text, token));
          if (!detail::is_retryable_transport(result.code)) throw error;
          last = std::make_exception_ptr(error);
        }
        reason = detail_text;
      } else {
        log(LogLevel::debug, prefix + " -> HTTP " + std::to_string(result.status) + " in " + std::to_string(elapsed) +
                                 " ms, " + std::to_string(result.body.size()) + " bytes");
        if (result.status >= 200 && result.status < 300) return std::move(result.body);
        if (result.retry_after) retry_after = detail::parse_retry_after(*result.retry_after, std::time(nullptr));
        std::string error_body = detail::redact(result.body, token);
        if (!detail::is_retryable_status(result.status)) {
          throw_api_error(static_cast<int>(result.status), std::move(error_body), operation, retry_after);
        }
        try {
          throw_api_error(static_cast<int>(result.status), std::move(error_body), operation, retry_after);
        } catch (const ApiError&) {
          last = std::current_exception();
        }
        reason = "HTTP " + std::to_string(result.status);
      }

      // A retryable failure: retry unless the budget or the deadline is spent.
      const int retry_index = attempt - 1;
      if (attempt >= max_attempts) {
        if (retry.max_retries > 0) log(LogLevel::info, operation + ": giving up after " + std::to_string(attempt) + " attempts: " + reason);
        std::rethrow_exception(last);
      }
      const milliseconds delay = detail::retry_delay(retry, retry_index, random(), retry_after);
      if (has_deadline && Clock::now() + delay >= deadline) {
        log(LogLevel::info, operation + ": not retrying after " + reason + ": waiting " + std::to_string(delay.count()) +
                                " ms would pass the overall deadline of " +
                                std::to_string(retry.overall_deadline.count()) + " ms");
        std::rethrow_exception(last);
      }
      log(LogLevel::info, operation + ": " + reason + "; retry " + std::to_string(attempt) + " of " +
                              std::to_string(retry.max_retries) + " in " + std::to_string(delay.count()) + " ms" +
                              (retry_after ? " (Retry-After)" : ""));
      sleep(delay, operation);
    }
  }

  /// post() then decode; a decode error never quotes the token either.
  template <typename Response>
  Response call(std::string_view operation, std::string_view path, const std::string& body) {
    const std::string response = post(operation, path, body);
    try {
      return decode<Response>(response);
    } catch (const DecodeError& error) {
      const std::string message = error.what();
      if (message.find(token) == std::string::npos) throw;
      throw DecodeError(detail::redact(error.path(), token), detail::redact(message, token));
    }
  }

  TestPage list_failing_tests(const ListFailingTestsRequest& request) {
    validate(request);
    return call<TestPage>("list_failing_tests", paths::kListFailingTests, encode(request));
  }
  TestPage list_unhealthy_tests(const ListUnhealthyTestsRequest& request) {
    validate(request);
    return call<TestPage>("list_unhealthy_tests", paths::kListUnhealthyTests, encode(request));
  }
  TestDetails get_test_details(const GetTestDetailsRequest& request) {
    validate(request);
    return call<TestDetails>("get_test_details", paths::kGetTestDetails, encode(request));
  }
  QueueSettings update_queue(const UpdateQueueRequest& request) {
    validate(request);
    return call<QueueSettings>("update_queue", paths::kUpdateQueue, encode(request));
  }

  ClientOptions options;
  std::string base_url;
  std::string token;
  std::string user_agent;
  detail::HeaderList headers;
  // Declaration order matters for destruction: the pool's handles refer to `share` and `headers`, so the
  // pool is destroyed first.
  detail::SharedCache share;
  detail::RateLimiter rate_limiter;
  detail::ConnectionPool pool;
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

TestPage Client::list_failing_tests(const ListFailingTestsRequest& request) {
  return impl_->list_failing_tests(request);
}
TestPage Client::list_unhealthy_tests(const ListUnhealthyTestsRequest& request) {
  return impl_->list_unhealthy_tests(request);
}
TestDetails Client::get_test_details(const GetTestDetailsRequest& request) { return impl_->get_test_details(request); }
QueueSettings Client::update_queue(const UpdateQueueRequest& request) { return impl_->update_queue(request); }

// The pagers capture Impl (not Client): a Client that is moved keeps the same Impl, so its pagers stay valid.
TestPager Client::failing_tests(ListFailingTestsRequest request) {
  validate(request);
  std::string first = request.page_query.page_token;
  Impl* impl = impl_.get();
  return TestPager(
      [impl, request = std::move(request)](const std::string& token) mutable {
        request.page_query.page_token = token;
        return impl->list_failing_tests(request);
      },
      std::move(first));
}

TestPager Client::unhealthy_tests(ListUnhealthyTestsRequest request) {
  validate(request);
  std::string first = request.page_query.page_token;
  Impl* impl = impl_.get();
  return TestPager(
      [impl, request = std::move(request)](const std::string& token) mutable {
        request.page_query.page_token = token;
        return impl->list_unhealthy_tests(request);
      },
      std::move(first));
}

const std::string& Client::base_url() const noexcept { return impl_->base_url; }

}  // namespace trunk
