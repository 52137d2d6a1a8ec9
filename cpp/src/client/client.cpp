#include "trunk/client.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "attempt_outcome.hpp"
#include "bulk_engine.hpp"
#include "bulk_validation.hpp"
#include "cancel_scope.hpp"
#include "connection_pool.hpp"
#include "curl_handles.hpp"
#include "curl_memory.hpp"
#include "endpoint.hpp"
#include "http_transfer.hpp"
#include "rate_limiter.hpp"
#include "redaction.hpp"
#include "retry_policy.hpp"
#include "secret_memory.hpp"
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

/// The request headers, the token line kept in secret memory (curl_handles.hpp). Runs before anything else of
/// the client, so libcurl gets its wiping allocator (curl_memory.hpp) before it allocates anything for us.
detail::SecretHeaderList make_request_headers(const std::optional<std::string>& configured_token) {
  detail::ensure_curl_initialized();
  // No "Expect: 100-continue" round trip for larger bodies.
  return detail::SecretHeaderList({"Content-Type: application/json", "Accept: application/json", "Expect:"},
                                  "x-api-token", detail::resolve_token(configured_token));
}

/// Once per process, to the first client that has a log callback: libcurl's freed buffers are not wiped.
void warn_if_curl_frees_unwiped(const LogCallback& log) {
  static std::atomic<bool> warned{false};
  if (!log || detail::curl_frees_are_wiped() || warned.exchange(true)) return;
  log(LogLevel::warning,
      "libcurl was initialised by another part of this process before trunk-api, so its freed request "
      "buffers (which held the API token header) are not wiped: a core dump may contain the token");
}

}  // namespace

struct Client::Impl {
  /// Takes everything from `given`; its token is copied into secret memory and wiped (and so is every other
  /// copy the move leaves), see Client::Client.
  explicit Impl(ClientOptions& given)
      : headers(make_request_headers(given.token)),
        options(std::move(given)),
        base_url(detail::resolve_base_url(options.base_url, options.allow_insecure_http)),
        user_agent(std::string("trunk-api-cpp/") + kVersion +
                   (options.user_agent_suffix.empty() ? "" : " " + options.user_agent_suffix)),
        rate_limiter(options.max_requests_per_second),
        pool([this](CURL* easy) { configure(easy); }, kMaxIdleConnections) {
    detail::wipe(options.token);  // the only copy left is in `headers`' secret memory
    warn_if_curl_frees_unwiped(options.log);
  }

  /// The token, for redaction: a view into the secret memory.
  std::string_view token() const noexcept { return headers.secret(); }

  /// Options that are the same for every call, set once per pooled handle.
  void configure(CURL* easy) const {
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: we are multi-threaded
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    // HTTP/1.1 also over TLS: with HTTP/2, nghttp2 would keep the token header in its HPACK table and frame
    // buffers on its own heap, which our wiping allocator does not reach (README "Security"). The client pools
    // one connection per handle anyway, so HTTP/2 multiplexing would not be used.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(easy, CURLOPT_USERAGENT, user_agent.c_str());
    // gzip/deflate, as requests and httpx ask for. Not brotli: servers commonly run it at quality 11 for
    // dynamic bodies (cpp-httplib does), which cost the sandbox over a second per 100 KB page (profiled).
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "gzip, deflate");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);   // never carry the token to another host
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, options.verify_tls ? 1L : 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, options.verify_tls ? 2L : 0L);
    if (!options.ca_bundle.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options.ca_bundle.c_str());
    curl_easy_setopt(easy, CURLOPT_SHARE, share.get());
  }

  /// The caller's interrupt_check, or a CancelScope of this thread (a prefetch nobody waits for any more).
  bool interrupted() const {
    return detail::cancelled_by_scope() || (options.interrupt_check && options.interrupt_check());
  }

  void throw_if_interrupted(std::string_view operation) const {
    if (interrupted()) throw CancelledError(std::string(operation) + ": cancelled by the caller");
  }

  void log(LogLevel level, const std::string& message) const {
    if (options.log) options.log(level, detail::redact(message, token()));
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

  /// The retry context of one call of `operation` to `url`, starting now (attempt_outcome.hpp).
  detail::CallContext call_context(std::string_view operation, const std::string& url) const {
    detail::CallContext call;
    call.operation = operation;
    call.url = &url;
    call.token = token();
    call.retry = &options.retry;
    call.max_response_bytes = kMaxResponseBytes;
    call.log = [this](LogLevel level, const std::string& message) { log(level, message); };
    call.has_deadline = options.retry.overall_deadline.count() > 0;
    call.deadline = Clock::now() + options.retry.overall_deadline;
    return call;
  }

  int max_attempts() const { return 1 + std::max(0, options.retry.max_retries); }

  /// POSTs `body` to `path` with retries; returns the body of the 2xx response or throws.
  std::string post(std::string_view operation_view, std::string_view path, const std::string& body) {
    const std::string operation(operation_view);
    const std::string url = base_url + std::string(path);
    const detail::CallContext call = call_context(operation, url);
    const int attempts = max_attempts();

    for (int attempt = 1;; ++attempt) {
      throw_if_interrupted(operation);
      // Every attempt, retries included, takes a slot of the client-side rate limit.
      if (const milliseconds wait = rate_limiter.reserve(); wait.count() > 0) sleep(wait, operation);
      const detail::AttemptBudget budget = detail::plan_attempt(call, options.timeout, attempt);

      const auto attempt_start = Clock::now();
      detail::TransferResult result;
      {
        auto connection = pool.acquire();
        result = detail::perform_transfer(
            *connection, {&url, &body, budget.timeout, &interrupt_check, kMaxResponseBytes});
        if (headers_echoed_token(connection->easy.get())) forget_response(*connection);
      }
      const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - attempt_start);
      detail::AttemptOutcome outcome =
          detail::classify_attempt(call, std::move(result), budget, attempt, attempts, elapsed);
      if (outcome.kind == detail::AttemptOutcome::Kind::success) return std::move(outcome.body);
      if (outcome.kind == detail::AttemptOutcome::Kind::final_error) std::rethrow_exception(outcome.error);
      const auto delay = detail::plan_retry(call, outcome, attempt, attempts, random());
      if (!delay) std::rethrow_exception(outcome.error);
      sleep(*delay, operation);
    }
  }

  /// Whether a header line of the last response on `easy` held the token (a server may echo it). libcurl
  /// keeps response header lines in its own buffers for as long as the handle lives (the body buffer it
  /// frees after every transfer).
  bool headers_echoed_token(CURL* easy) const {
    constexpr unsigned kOrigins = CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX;
    for (curl_header* header = curl_easy_nextheader(easy, kOrigins, -1, nullptr); header != nullptr;
         header = curl_easy_nextheader(easy, kOrigins, -1, header)) {
      if (std::string_view(header->value).find(token()) != std::string_view::npos ||
          std::string_view(header->name).find(token()) != std::string_view::npos) {
        return true;
      }
    }
    return false;
  }

  /// Replaces the handle and connection of `connection` by new ones: libcurl frees (so wipes, curl_memory.hpp)
  /// every buffer of the old ones.
  void forget_response(detail::PooledConnection& connection) {
    detail::EasyHandle easy = detail::make_easy();
    detail::MultiHandle multi = detail::make_multi();
    configure(easy.get());
    connection.multi.reset();  // closes the connection first, as ~PooledConnection does
    connection.easy = std::move(easy);
    connection.multi = std::move(multi);
  }

  /// post() then decode; a decode error never quotes the token either.
  template <typename Response>
  Response call(std::string_view operation, std::string_view path, const std::string& body) {
    return decode_redacted<Response>(post(operation, path, body));
  }

  /// decode(), with the token redacted from any DecodeError (a body may echo it). The raw body is wiped
  /// afterwards, whatever happens: if it echoed the token, no unwiped copy is freed.
  template <typename Response>
  Response decode_redacted(std::string&& response) const {
    struct WipeOnExit {
      std::string& text;
      ~WipeOnExit() { detail::wipe(text); }
    } wipe_on_exit{response};
    try {
      return decode<Response>(response);
    } catch (const DecodeError& error) {
      const std::string message = error.what();
      if (message.find(token()) == std::string::npos) throw;
      throw DecodeError(detail::redact(error.path(), token()), detail::redact(message, token()));
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

  std::vector<BulkResult<TestDetails>> get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                             const std::vector<std::string>& test_ids,
                                                             const BulkOptions& bulk) {
    std::vector<GetTestDetailsRequest> requests = detail::validate_bulk_details(repo, org_url_slug, test_ids, bulk);
    std::vector<std::string> bodies;
    bodies.reserve(requests.size());
    for (const auto& request : requests) bodies.push_back(encode(request));

    std::vector<BulkResult<TestDetails>> results(requests.size());
    constexpr std::string_view operation = "get_test_details";
    const std::string url = base_url + std::string(paths::kGetTestDetails);
    detail::BulkTransport transport;
    transport.configure = [this](CURL* easy) { configure(easy); };
    transport.new_call = [this, &url, operation] { return call_context(operation, url); };
    transport.attempt_timeout = options.timeout;
    transport.max_attempts = max_attempts();
    transport.rate_limiter = &rate_limiter;
    transport.interrupt_check = &interrupt_check;
    transport.random = [this] { return random(); };
    transport.max_response_bytes = kMaxResponseBytes;
    transport.on_success = [this, &results](std::size_t index, std::string&& body) {
      results[index].value = decode_redacted<TestDetails>(std::move(body));
    };
    std::vector<std::exception_ptr> errors =
        detail::run_bulk_posts(transport, url, bodies, bulk.concurrency, "get_test_details_many");
    for (std::size_t i = 0; i < errors.size(); ++i) results[i].error = std::move(errors[i]);
    return results;
  }

  /// Declared first: initialised before the options take the token, destroyed (wiped) last.
  detail::SecretHeaderList headers;
  ClientOptions options;
  /// interrupted() as the transfers' interrupt check (polled between waits on the connection).
  std::function<bool()> interrupt_check = [this] { return interrupted(); };
  std::string base_url;
  std::string user_agent;
  // Declaration order matters for destruction: the pool's handles refer to `share` and `headers`, so the
  // pool is destroyed first.
  detail::SharedCache share;
  detail::RateLimiter rate_limiter;
  detail::ConnectionPool pool;
};

Client::Client(ClientOptions options) {
  // `options` is ours (taken by value): its token, and whatever the moves leave behind (a short string's
  // bytes stay in the moved-from object), is wiped on every exit path, errors included.
  struct WipeOnExit {
    std::optional<std::string>& token;
    ~WipeOnExit() { detail::wipe(token); }
  } wipe_on_exit{options.token};
  impl_ = std::make_unique<Impl>(options);
}
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
std::vector<BulkResult<TestDetails>> Client::get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                                   const std::vector<std::string>& test_ids,
                                                                   BulkOptions options) {
  return impl_->get_test_details_many(repo, org_url_slug, test_ids, options);
}

// Both listings page the same way; only the operation differs. The pagers capture Impl (not Client): a Client
// that is moved keeps the same Impl, so its pagers stay valid.
template <typename ClientImpl, typename Request>
TestPager make_pager(ClientImpl* impl, Request request, TestPage (ClientImpl::*list)(const Request&)) {
  validate(request);
  std::string first = request.page_query.page_token;
  return TestPager(
      [impl, list, request = std::move(request)](const std::string& token) mutable {
        request.page_query.page_token = token;
        return (impl->*list)(request);
      },
      std::move(first), TestPager::PrefetchOptions{impl->options.prefetch_pages, impl->options.interrupt_check});
}

TestPager Client::failing_tests(ListFailingTestsRequest request) {
  return make_pager(impl_.get(), std::move(request), &Impl::list_failing_tests);
}

TestPager Client::unhealthy_tests(ListUnhealthyTestsRequest request) {
  return make_pager(impl_.get(), std::move(request), &Impl::list_unhealthy_tests);
}

const std::string& Client::base_url() const noexcept { return impl_->base_url; }

}  // namespace trunk
