#include "trunk/client.hpp"

#include <future>

#include "trunk/async_client.hpp"

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <utility>

#include "bulk_validation.hpp"
#include "client_internals.hpp"
#include "curl_handles.hpp"
#include "credentials.hpp"
#include "curl_memory.hpp"
#include "endpoint.hpp"
#include "pending_call.hpp"
#include "rate_limiter.hpp"
#include "core/decode_body.hpp"
#include "core/system_random.hpp"
#include "page_pipeline.hpp"
#include "redaction.hpp"
#include "secret_memory.hpp"
#include "tls_trust.hpp"
#include "transfer_engine.hpp"
#include "trunk/codec.hpp"
#include "trunk/listings.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"
#include "trunk/version.hpp"
#include "trunk/wire_request.hpp"

namespace trunk {

namespace {

using std::chrono::milliseconds;

/// Largest response body read; a bigger one is a TransportError rather than unbounded memory use.
constexpr std::size_t kMaxResponseBytes = std::size_t{64} << 20;
/// Idle connections kept after a burst of concurrent calls.
constexpr std::size_t kMaxIdleConnections = 64;
/// The variants of the request headers (SecretHeaderList::get): JSON answers, text answers.
constexpr std::size_t kJsonHeaders = 0;
constexpr std::size_t kTextHeaders = 1;

double default_random() {
  thread_local std::mt19937_64 generator{detail::system_random_u64()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

/// The request headers of an operation that sends no credential (Credential::none): the same variants as the
/// credentials' lists without their last line. Ordinary memory: they hold nothing secret.
class PlainHeaderLists {
 public:
  explicit PlainHeaderLists(const std::vector<std::vector<std::string>>& variants) {
    for (const auto& lines : variants) {
      curl_slist* head = nullptr;
      for (const std::string& line : lines) {
        curl_slist* grown = curl_slist_append(head, line.c_str());
        if (grown == nullptr) {
          curl_slist_free_all(head);
          throw TransportError("out of memory building the request headers");
        }
        head = grown;
      }
      heads_.push_back(head);
    }
  }
  ~PlainHeaderLists() {
    for (curl_slist* head : heads_) curl_slist_free_all(head);
  }
  PlainHeaderLists(const PlainHeaderLists&) = delete;
  PlainHeaderLists& operator=(const PlainHeaderLists&) = delete;
  detail::EngineSettings::HeaderLists lists() const { return {heads_[kJsonHeaders], heads_[kTextHeaders]}; }

 private:
  std::vector<curl_slist*> heads_;
};

/// The request headers of each credential the client has, each credential's line kept in secret memory
/// (curl_handles.hpp): v1's organization token as `x-api-token`, v2's API key as `Authorization: Bearer`, the
/// trunk token as `x-trunk-token`; and those of no credential.
struct CredentialHeaders {
  std::unique_ptr<PlainHeaderLists> none;
  std::unique_ptr<detail::SecretHeaderList> token;
  std::unique_ptr<detail::SecretHeaderList> api_key;
  std::unique_ptr<detail::SecretHeaderList> trunk_token;

  detail::SecretViews secrets() const {
    const auto view = [](const std::unique_ptr<detail::SecretHeaderList>& headers) {
      return headers ? headers->secret() : std::string_view{};
    };
    return {view(token), view(api_key), view(trunk_token)};
  }
  /// What a v2 call sends: the API key, else the trunk token (nullptr: neither).
  const std::unique_ptr<detail::SecretHeaderList>& v2() const { return api_key ? api_key : trunk_token; }
  static detail::EngineSettings::HeaderLists lists(const std::unique_ptr<detail::SecretHeaderList>& headers) {
    if (!headers) return {};
    return {headers->get(kJsonHeaders), headers->get(kTextHeaders)};
  }
};

/// The request headers (CredentialHeaders). Runs before anything else of the client, so libcurl gets its wiping
/// allocator (curl_memory.hpp) before it allocates anything for us. Throws what resolve_credentials throws.
CredentialHeaders make_request_headers(const std::optional<Secret>& configured_token,
                                       const std::optional<Secret>& configured_api_key,
                                       const std::optional<Secret>& configured_trunk_token) {
  detail::ensure_curl_initialized();
  const detail::CredentialViews views =
      detail::resolve_credentials(configured_token, configured_api_key, configured_trunk_token);
  // No "Expect: 100-continue" round trip for larger bodies. Every variant ends in the one credential line.
  const std::vector<std::vector<std::string>> variants{
      {"Content-Type: application/json", "Accept: application/json", "Expect:"},
      {"Content-Type: application/json", "Accept: text/plain, */*;q=0.5", "Expect:"}};
  CredentialHeaders headers;
  headers.none = std::make_unique<PlainHeaderLists>(variants);
  if (!views.token.empty()) {
    headers.token = std::make_unique<detail::SecretHeaderList>(variants, "x-api-token", views.token);
  }
  if (!views.api_key.empty()) {
    headers.api_key = std::make_unique<detail::SecretHeaderList>(variants, "Authorization", views.api_key, "Bearer ");
  }
  if (!views.trunk_token.empty()) {
    headers.trunk_token = std::make_unique<detail::SecretHeaderList>(variants, "x-trunk-token", views.trunk_token);
  }
  return headers;
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
  /// Takes everything from `given`; its token, API key and trunk token are copied into the header lists' secret memory, then
  /// dropped (a Secret wipes itself).
  explicit Impl(ClientOptions&& given)
      : headers(make_request_headers(given.token, given.api_key, given.trunk_token)),
        options(std::move(given)),
        base_url(detail::resolve_base_url(options.base_url, options.allow_insecure_http)),
        user_agent(std::string("trunk-api-cpp/") + kVersion +
                   (options.user_agent_suffix.empty() ? "" : " " + options.user_agent_suffix)),
        tls_trust(detail::choose_tls_trust(options.ca_bundle)),
        rate_limiter(options.max_requests_per_second),
        engine(engine_settings()) {
    options.token.reset();  // the one copy kept of each is its header line's
    options.api_key.reset();
    options.trunk_token.reset();
    warn_if_curl_frees_unwiped(options.log);
  }

  /// The token and the API key, for redaction: views into the secret memory.
  detail::SecretViews secrets() const { return headers.secrets(); }

  /// Throws MissingTokenError when the client lacks `credential`, which `operation` needs: before anything is sent.
  void require(Credential credential, std::string_view operation) const {
    if (credential == Credential::none) return;  // GET /v1/status: nothing to send, so nothing to lack
    if (!(credential == Credential::api_key ? headers.v2() : headers.token)) {
      throw detail::missing_credential(credential, operation);
    }
  }

  /// Options that are the same for every call, set once per pooled handle.
  void configure(CURL* easy) const {
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: we are multi-threaded
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    // HTTP/1.1 also over TLS: with HTTP/2, nghttp2 would keep the token header in its HPACK table and frame
    // buffers on its own heap, which our wiping allocator does not reach (docs/security.md). The client pools
    // one connection per handle anyway, so HTTP/2 multiplexing would not be used.
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    // Each transfer sets the list of its credential and answer (transfer_loop.cpp); this is the handle's default.
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers.token ? headers.token->get() : headers.v2()->get());
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
    // The certificates chosen once for this client (tls_trust.hpp); none chosen leaves libcurl's own defaults.
    if (!tls_trust.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, tls_trust.ca_file.c_str());
    if (!tls_trust.ca_dir.empty()) curl_easy_setopt(easy, CURLOPT_CAPATH, tls_trust.ca_dir.c_str());
    curl_easy_setopt(easy, CURLOPT_SHARE, share.get());
  }

  void log(LogLevel level, const std::string& message) const {
    if (options.log) options.log(level, detail::redact(message, secrets()));
  }

  double random() const { return options.random ? options.random() : default_random(); }

  /// What the transfer engine needs of this client. The engine's records are already redacted; log() redacts
  /// again, which changes nothing.
  detail::EngineSettings engine_settings() {
    detail::EngineSettings settings;
    settings.configure = [this](CURL* easy) { configure(easy); };
    settings.token_headers = CredentialHeaders::lists(headers.token);
    settings.api_key_headers = CredentialHeaders::lists(headers.v2());
    settings.public_headers = headers.none->lists();
    settings.secrets = secrets();
    settings.retry = &options.retry;
    settings.attempt_timeout = options.timeout;
    settings.max_response_bytes = kMaxResponseBytes;
    settings.tls_trust = tls_trust.source;
    settings.log = [this](LogLevel level, const std::string& message) { log(level, message); };
    settings.random = [this] { return random(); };
    settings.sleep = options.sleep;
    settings.rate_limiter = &rate_limiter;
    settings.max_idle_connections = kMaxIdleConnections;
    return settings;
  }

  /// The cancellation of a call: the caller's interrupt_check, and `stop` (a prefetch nobody waits for any more).
  detail::Cancellation cancellation(std::stop_token stop = {}) const {
    return detail::Cancellation(&options.interrupt_check, std::move(stop));
  }

  /// decode(), with the token redacted from any DecodeError (a body may echo it). The raw body is wiped
  /// afterwards, whatever happens: if it echoed the token, no unwiped copy is freed. The body is read in place
  /// (the transfer leaves room for the decoder's padding).
  template <typename Response>
  Response decode_redacted(std::string&& response) const {
    struct WipeOnExit {
      std::string& text;
      ~WipeOnExit() { detail::wipe(text); }
    } wipe_on_exit{response};
    return redacting([&] {
      if constexpr (std::is_same_v<Response, NoContent>) {
        return NoContent{};  // a 204 (or a 202 without a body): whatever came is not read
      } else if constexpr (kTextAnswer<Response>) {
        return Response::parse(response);
      } else {
        return detail::decode_body<Response>(response);
      }
    });
  }

  /// A listing's page as its pipeline handed it over, read into `page` (fresh or the previous page): from the
  /// document parsed on arrival, or, when that parse failed, from the body again, which says why
  /// (page_pipeline.hpp).
  template <typename Page>
  void decode_page(detail::PageAnswer& answer, Page& page) const {
    if (answer.parsed()) {
      redacting([&] { detail::decode_parsed_into<Page>(answer.root(), page); });
    } else {
      page = decode_redacted<Page>(std::move(answer.body));
    }
  }

  /// What `decode` returns, with the credentials redacted from any DecodeError it throws.
  template <typename Decode>
  auto redacting(Decode&& decode) const {
    try {
      return decode();
    } catch (const DecodeError& error) {
      const std::string message = error.what();
      if (!detail::contains_any(message, secrets())) throw;
      throw DecodeError(detail::redact(error.path(), secrets()), detail::redact(message, secrets()));
    }
  }

  /// The HTTP request of operation Op of operations.hpp, validated first (ValidationError): its method, credential
  /// and retry rule; its fields where the operation puts them (wire_request.hpp: the path's parameters, a query
  /// for GET and DELETE, else a JSON body; v1's metrics GET has its own query); a text answer asks for text.
  template <typename Op>
  detail::HttpRequest build(const typename Op::Request& request) const {
    require(Op::credential, Op::name);
    validate(request);
    detail::HttpRequest http;
    http.operation = Op::name;
    http.repeat = Op::repeat;
    http.credential = Op::credential;
    http.method = detail::http_method(Op::method);
    if constexpr (requires { to_query(request); }) {
      const std::string query = to_query(request);
      http.url = base_url + std::string(Op::path) + (query.empty() ? "" : "?" + query);
    } else {
      WireRequest wire = to_wire_request(request, Op::method, Op::path);
      http.url = base_url + wire.path + (wire.query.empty() ? "" : "?" + wire.query);
      http.body = std::move(wire.body);
    }
    if constexpr (kTextAnswer<typename Op::Response>) http.answer = detail::BodyKind::text;
    return http;
  }

  /// Operation Op of operations.hpp: validate, send, decode (a text answer is parsed by its own reader).
  template <typename Op>
  typename Op::Response perform(const typename Op::Request& request, std::stop_token stop = {}) {
    const detail::HttpRequest http = build<Op>(request);
    return decode_redacted<typename Op::Response>(engine.send(http, cancellation(std::move(stop))));
  }

  /// Operation Op on the engine thread (TransferEngine::submit): validated here, decoded on the engine thread,
  /// `done` called there once.
  template <typename Op>
  AsyncCall submit(const typename Op::Request& request, std::function<void(Result<typename Op::Response>)> done) {
    using Response = typename Op::Response;
    detail::HttpRequest http = build<Op>(request);
    detail::SubmissionHandle handle = engine.submit(
        std::move(http), [this, done = std::move(done)](std::string&& body, std::exception_ptr error) {
          if (error) {
            done(Result<Response>(std::move(error)));
            return;
          }
          std::optional<Result<Response>> result;
          try {
            result.emplace(decode_redacted<Response>(std::move(body)));
          } catch (...) {
            result.emplace(std::current_exception());
          }
          done(std::move(*result));
        });
    return AsyncCall([handle] { handle.cancel(); });
  }

  std::vector<BulkResult<TestDetails>> get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                             const std::vector<std::string>& test_ids,
                                                             const BulkOptions& bulk) {
    require(op::GetTestDetails::credential, "get_test_details_many");
    const std::vector<GetTestDetailsRequest> inputs =
        detail::validate_bulk_details(repo, org_url_slug, test_ids, bulk);
    std::vector<detail::HttpRequest> requests(inputs.size());
    const std::string url = base_url + std::string(paths::kGetTestDetails);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      requests[i].operation = "get_test_details";
      requests[i].url = url;
      requests[i].body = encode(inputs[i]);
    }
    std::vector<BulkResult<TestDetails>> results(requests.size());
    std::vector<std::exception_ptr> errors = engine.send_all(
        requests, bulk.concurrency, cancellation(), "get_test_details_many",
        [this, &results](std::size_t index, std::string&& body) {
          results[index].value = decode_redacted<TestDetails>(std::move(body));
        },
        bulk.on_progress ? detail::TransferEngine::OnEnded([&bulk, ended = std::size_t{0}, total = requests.size()](
                                                               std::size_t) mutable { bulk.on_progress(++ended, total); })
                         : detail::TransferEngine::OnEnded{});
    for (std::size_t i = 0; i < errors.size(); ++i) results[i].error = std::move(errors[i]);
    return results;
  }

  /// Declared first: initialised before the options take the credentials, destroyed (wiped) last.
  CredentialHeaders headers;
  ClientOptions options;
  std::string base_url;
  std::string user_agent;
  detail::TlsTrust tls_trust;
  // Declaration order matters for destruction: the engine's pooled handles refer to `share` and `headers`, so
  // the engine is destroyed first.
  detail::SharedCache share;
  detail::RateLimiter rate_limiter;
  detail::TransferEngine engine;
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

#define TRUNK_CLIENT_METHOD_(Type, name, method, path, RequestType, ResponseType, ...) \
  ResponseType Client::name(const RequestType& request) { return impl_->perform<op::Type>(request); }
TRUNK_OPERATIONS(TRUNK_CLIENT_METHOD_)
#undef TRUNK_CLIENT_METHOD_

std::vector<BulkResult<TestDetails>> Client::get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                                   const std::vector<std::string>& test_ids,
                                                                   BulkOptions options) {
  return impl_->get_test_details_many(repo, org_url_slug, test_ids, options);
}

// Every listing pages the same way; only the operation differs: its page pipeline (page_pipeline.hpp) on the
// client's engine, decoded on the caller's thread. The pagers capture Impl (not Client): a Client that is moved
// keeps the same Impl, so its pagers stay valid.
template <typename Op, typename ClientImpl>
Pager<typename Op::Response> make_pager(ClientImpl* impl, typename Op::Request request) {
  using Page = typename Op::Response;
  using Traits = PageTraits<Page>;
  impl->require(Op::credential, Op::name);
  validate(request);
  detail::PagePipeline::Setup setup;
  setup.style = Traits::style;
  setup.at = Traits::wire_at();
  setup.first_cursor = Traits::cursor_of(request);
  setup.ahead = impl->options.prefetch_pages;
  setup.engine = &impl->engine;
  setup.interrupt_check = &impl->options.interrupt_check;
  // Called under the pipeline's lock, one call at a time: the captured request is its own. A page asks for fewer
  // items than the request's page size when the caller wants fewer (page_size_to_ask), on a copy: the other
  // pages keep the caller's request as it was.
  setup.request_for = [impl, request = std::move(request)](const std::string& cursor,
                                                           const std::optional<std::size_t>& wanted) mutable {
    Traits::set_cursor(request, cursor);
    const std::int64_t size =
        page_size_to_ask(Traits::page_size(request), wanted, Traits::page_size_bound, cursor.empty());
    if (size == Traits::page_size(request)) return impl->template build<Op>(request);
    auto fewer = request;
    Traits::set_page_size(fewer, size);
    return impl->template build<Op>(fewer);
  };
  return Pager<Page>(std::make_unique<detail::PipelinePages<Page>>(
      std::move(setup), [impl](detail::PageAnswer& answer, Page& page) {
        impl->template decode_page<Page>(answer, page);
      }));
}

template <typename Op>
  requires requires { PageTraits<typename Op::Response>::style; }
Pager<typename Op::Response> Client::pager(typename Op::Request request) {
  return make_pager<Op>(impl_.get(), std::move(request));
}

// Every operation whose answer is a page is a listing (listings.hpp).
#define TRUNK_INSTANTIATE_PAGER_(Type, ...)                                                   \
  template Pager<op::Type::Response> Client::pager<op::Type>(op::Type::Request request);
TRUNK_LISTING_OPERATIONS(TRUNK_INSTANTIATE_PAGER_)
#undef TRUNK_INSTANTIATE_PAGER_

TestPager Client::failing_tests(ListFailingTestsRequest request) { return pager<op::ListFailingTests>(std::move(request)); }
TestPager Client::unhealthy_tests(ListUnhealthyTestsRequest request) {
  return pager<op::ListUnhealthyTests>(std::move(request));
}
Pager<QuarantinedTestPage> Client::quarantined_tests(ListQuarantinedTestsRequest request) {
  return pager<op::ListQuarantinedTests>(std::move(request));
}
Pager<PullRequestPage> Client::pull_requests(ListPullRequestsRequest request) {
  return pager<op::ListPullRequests>(std::move(request));
}

const std::string& Client::base_url() const noexcept { return impl_->base_url; }

// ---- AsyncClient: the same Impl, its calls submitted to the engine thread.

AsyncClient::AsyncClient(ClientOptions options, std::size_t max_in_flight)
    : client_(std::make_unique<Client>(std::move(options))) {
  if (max_in_flight < 1) {
    throw ValidationError({Violation{"max_in_flight", std::to_string(max_in_flight), "must be >= 1"}});
  }
  client_->impl_->engine.set_submission_width(max_in_flight);
}
// For good: a completion that would call this client while it is destroyed gets CancelledError instead.
AsyncClient::~AsyncClient() { client_->impl_->engine.end_submissions(); }

void AsyncClient::close() { client_->impl_->engine.stop_submissions(); }

const std::string& AsyncClient::base_url() const noexcept { return client_->base_url(); }

template <typename Op>
AsyncCall AsyncClient::call(const typename Op::Request& request,
                            std::function<void(Result<typename Op::Response>)> done) {
  return client_->impl_->submit<Op>(request, std::move(done));
}

template <typename Op>
  requires requires { PageTraits<typename Op::Response>::style; }
Pager<typename Op::Response> AsyncClient::pager(typename Op::Request request) {
  return client_->pager<Op>(std::move(request));
}

#define TRUNK_INSTANTIATE_ASYNC_PAGER_(Type, ...)                                                      \
  template Pager<op::Type::Response> AsyncClient::pager<op::Type>(op::Type::Request request);
TRUNK_LISTING_OPERATIONS(TRUNK_INSTANTIATE_ASYNC_PAGER_)
#undef TRUNK_INSTANTIATE_ASYNC_PAGER_

#define TRUNK_ASYNC_METHOD_(Type, name, method, path, RequestType, ResponseType, ...)                          \
  template AsyncCall AsyncClient::call<op::Type>(const RequestType&, std::function<void(Result<ResponseType>)>); \
  AsyncCall AsyncClient::name(const RequestType& request, std::function<void(Result<ResponseType>)> done) {    \
    return call<op::Type>(request, std::move(done));                                                          \
  }                                                                                                           \
  PendingCall<ResponseType> AsyncClient::name(const RequestType& request) {                                   \
    auto [future, fulfil] = detail::future_and_callback<ResponseType>();                                      \
    AsyncCall handle = call<op::Type>(request, std::move(fulfil));                                             \
    return PendingCall<ResponseType>{std::move(future), std::move(handle)};                                   \
  }
TRUNK_OPERATIONS(TRUNK_ASYNC_METHOD_)
#undef TRUNK_ASYNC_METHOD_

std::string detail::ClientInternals::send(Client& client, const HttpRequest& request, std::stop_token stop) {
  client.impl_->require(request.credential, request.operation);
  return client.impl_->engine.send(request, client.impl_->cancellation(std::move(stop)));
}

}  // namespace trunk
