// Sandbox: the Service on cpp-httplib, with faults and the request record.
#include "trunk/sandbox/sandbox.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>

#include "control.hpp"
#include "data_file.hpp"
#include "faults.hpp"
#include "generator.hpp"
#include "http_server.hpp"
#include "random.hpp"
#include "request_log.hpp"
#include "sandbox_clock.hpp"
#include "service.hpp"
#include "trunk/error.hpp"

namespace trunk::sandbox {

namespace {

constexpr std::size_t kMaxPayloadBytes = 1 << 20;  // larger bodies get 413 from httplib
constexpr std::size_t kKeepAliveMaxCount = 100000;  // clients should reuse one connection for many requests
constexpr const char* kTokenHeader = "x-api-token";

/// Default of SandboxOptions::now (see the header): the wall clock, to the second.
trunk::Timestamp wall_clock_now() {
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

std::string random_token() {
  std::random_device device;
  std::string token = "sandbox_";
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += kHex[device() & 0x0F];
  return token;
}

void check_options(const SandboxOptions& o) {
  auto fail = [](const std::string& field, const std::string& value, const std::string& rule) {
    throw trunk::ValidationError({{field, value, rule}});
  };
  if (o.port < 0 || o.port > 65535) fail("port", std::to_string(o.port), "must be between 0 and 65535");
  if (o.tests < 0) fail("tests", std::to_string(o.tests), "must be 0 or more");
  if (o.threads < 1 || o.threads > 1024) fail("threads", std::to_string(o.threads), "must be between 1 and 1024");
  if (o.org_url_slug.empty()) fail("org_url_slug", "\"\"", "must not be empty");
  for (const auto& [field, rate] : {std::pair{"flaky_failure_rate", o.flaky_failure_rate},
                                    std::pair{"broken_pull_request_rate", o.broken_pull_request_rate}}) {
    if (rate && !(*rate >= 0 && *rate <= 1)) fail(field, std::to_string(*rate), "must be between 0 and 1");
  }
  if (o.switching_modes_duration.count() < 0) {
    fail("switching_modes_duration", std::to_string(o.switching_modes_duration.count()) + " ms", "must not be negative");
  }
}

void check_faults(const FaultOptions& f) {
  auto fraction = [](const char* field, double v) {
    if (!(v >= 0 && v <= 1)) throw trunk::ValidationError({{field, std::to_string(v), "must be between 0 and 1"}});
  };
  fraction("error_rate", f.error_rate);
  fraction("drop_rate", f.drop_rate);
  fraction("truncate_rate", f.truncate_rate);
  fraction("drop_after_rate", f.drop_after_rate);
  fraction("rate_limited_rate", f.rate_limited_rate);
  if (f.rate_limited_retry_after_seconds < 0) {
    throw trunk::ValidationError({{"rate_limited_retry_after_seconds", std::to_string(f.rate_limited_retry_after_seconds),
                                   "must not be negative"}});
  }
  if (!(f.rate_limit_rps >= 0)) {
    throw trunk::ValidationError({{"rate_limit_rps", std::to_string(f.rate_limit_rps), "must be 0 (off) or more"}});
  }
  if (f.latency.count() < 0) throw trunk::ValidationError({{"latency", std::to_string(f.latency.count()), "must not be negative"}});
  if (f.jitter.count() < 0) throw trunk::ValidationError({{"jitter", std::to_string(f.jitter.count()), "must not be negative"}});
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool same_endpoint(const sockaddr_storage& address, const std::string& ip, int port) {
  char text[INET6_ADDRSTRLEN] = {};
  int actual_port = -1;
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    actual_port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    actual_port = ntohs(v6->sin6_port);
  } else {
    return false;
  }
  return actual_port == port && ip == text;
}

/// The descriptor of the connection a request came on: httplib does not hand the socket to handlers, so find
/// it among our descriptors by its two endpoints (unique while the connection is open, and it is: we are
/// serving it). Shutting it down drops the connection without an answer: httplib's later write fails and it
/// closes the socket; the client sees the connection end with no response at all.
std::optional<int> connection_of(const httplib::Request& req) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  std::optional<int> found;
  while (dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    sockaddr_storage local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (::getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_len) != 0) continue;
    if (::getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) continue;
    if (same_endpoint(local, req.local_addr, req.local_port) && same_endpoint(peer, req.remote_addr, req.remote_port)) {
      found = static_cast<int>(fd);
      break;
    }
  }
  ::closedir(dir);
  return found;
}

/// The message of an error cpp-httplib answers before any handler runs (set_error_handler in start()).
std::string httplib_error_message(int status) {
  switch (status) {
    case 400: return "bad request: the request could not be read (request line, headers or body framing)";
    case 413: return "payload too large: the body is over " + std::to_string(kMaxPayloadBytes) + " bytes";
    case 414: return "URI too long";
    case 416: return "range not satisfiable: invalid Range header";
    default: return "HTTP error " + std::to_string(status);
  }
}

}  // namespace

struct Sandbox::Impl {
  SandboxOptions options;
  std::string token;
  Faults faults;
  RequestLog log;
  std::unique_ptr<SandboxClock> clock;  // before the service, whose queues read it
  std::unique_ptr<Service> service;
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  int port = 0;
  std::atomic<bool> running{false};

  explicit Impl(SandboxOptions o) : options(std::move(o)), faults(options.faults) {}

  void serve(const httplib::Request& req, httplib::Response& res);
  trunk::Timestamp advance(std::chrono::microseconds by);
};

trunk::Timestamp Sandbox::Impl::advance(std::chrono::microseconds by) {
  clock->advance(by);
  service->queues().run_all_to_now();
  return clock->now();
}

namespace {
/// The query string of a request target ("" when it has none).
std::string_view query_of(const std::string& target) {
  const std::size_t mark = target.find('?');
  return mark == std::string::npos ? std::string_view{} : std::string_view(target).substr(mark + 1);
}
}  // namespace

void Sandbox::Impl::serve(const httplib::Request& req, httplib::Response& res) {
  const FaultDecision fault = faults.roll();
  if (fault.delay.count() > 0) std::this_thread::sleep_for(fault.delay);

  RecordedRequest record;
  if (options.record_requests) {
    record.method = req.method;
    record.path = req.path;
    for (const auto& [name, value] : req.headers) {
      const bool secret = equals_ignoring_case(name, kTokenHeader);
      record.headers.emplace_back(name, secret ? kRedacted : value);
    }
    record.body = req.body;
  }
  auto finish = [&](int status, const char* injected = "") {
    if (!options.record_requests) return;
    record.status = status;
    record.fault = injected;
    log.add(std::move(record));
  };

  if (const std::optional<int> connection = fault.drop ? connection_of(req) : std::nullopt) {
    // Recorded before the socket goes: a client that sees its connection end may read the record at once.
    finish(0, "drop");
    ::shutdown(*connection, SHUT_RDWR);
    res.status = 500;  // never reaches the client: the socket is already shut down
    return;
  }
  std::optional<int> retry_after = faults.take_rate_limit_token(options.org_url_slug);
  if (!retry_after && fault.rate_limited) retry_after = std::max(0, faults.options().rate_limited_retry_after_seconds);
  if (retry_after) {
    res.status = 429;
    res.set_header("Retry-After", std::to_string(*retry_after));
    res.set_content("rate limit exceeded: too many requests for organization " + options.org_url_slug + "\n",
                    "text/plain; charset=utf-8");
    finish(429, "rate_limit");
    return;
  }
  if (fault.server_error) {
    res.status = 503;
    res.set_content("service unavailable (injected fault)\n", "text/plain; charset=utf-8");
    finish(503, "error");
    return;
  }

  std::optional<std::string> token;
  if (req.has_header(kTokenHeader)) token = req.get_header_value(kTokenHeader);
  Reply reply = req.path == kAdvancePath
                    ? answer_advance(req.method, token, this->token, req.body,
                                     [this](std::chrono::microseconds by) { return advance(by); })
                    : service->handle(req.method, req.path, token, req.body, query_of(req.target));
  if (const std::optional<int> connection = fault.drop_after ? connection_of(req) : std::nullopt) {
    finish(0, "drop_after");  // processed: the change is made, only the answer is lost
    ::shutdown(*connection, SHUT_RDWR);
    res.status = 500;  // never reaches the client
    return;
  }
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers) res.set_header(name, value);
  if (fault.truncate && reply.body.size() > 1) {
    // Declare the full length, send the first half, then abort: the client sees a short body.
    auto body = std::make_shared<std::string>(std::move(reply.body));
    res.set_content_provider(body->size(), reply.content_type,
                             [body](std::size_t offset, std::size_t, httplib::DataSink& sink) {
                               const std::size_t half = body->size() / 2;
                               if (offset < half) sink.write(body->data() + offset, half - offset);
                               return offset < half ? true : false;
                             });
    finish(reply.status, "truncate");
    return;
  }
  res.set_content(std::move(reply.body), reply.content_type);
  finish(reply.status);
}

Sandbox::Sandbox(SandboxOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Sandbox::~Sandbox() { stop(); }

void Sandbox::start() {
  Impl& s = *impl_;
  if (s.running) return;
  check_options(s.options);
  check_faults(s.options.faults);
  s.faults.set_options(s.options.faults);

  if (!s.service) {
    History history = s.options.data_file.empty()
                          ? generate_history(s.options.seed, s.options.tests, s.options.now.value_or(wall_clock_now()))
                          : load_history(s.options.data_file);
    if (s.options.now) history.now = *s.options.now;
    s.clock = std::make_unique<SandboxClock>(s.options.clock, s.options.now.value_or(history.now));
    SimulationOptions simulation{s.options.seed, s.options.flaky_failure_rate, s.options.broken_pull_request_rate};
    SandboxClock* clock = s.clock.get();
    auto queues = std::make_unique<QueueStore>(s.options.state_file, s.options.switching_modes_duration,
                                               [clock] { return clock->now(); }, simulation);
    queues->load();
    s.token = s.options.token.empty() ? random_token() : s.options.token;
    // Page-token key from the seed: the same data gives the same tokens, so runs are reproducible.
    const PageTokens page_tokens(mix64(s.options.seed ^ 0x70616765546F6B65ULL), mix64(s.options.seed + 0x2545F4914F6CDD1DULL));
    s.service = std::make_unique<Service>(std::move(history), s.token, s.options.org_url_slug, std::move(queues),
                                          page_tokens);
  } else if (s.options.token.empty()) {
    s.token = random_token();
  }

  auto server = std::make_unique<InStepServer>();
  const int threads = s.options.threads;
  server->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  server->set_tcp_nodelay(true);
  server->set_keep_alive_max_count(kKeepAliveMaxCount);
  server->set_payload_max_length(kMaxPayloadBytes);
  const auto handler = [&s](const httplib::Request& req, httplib::Response& res) { s.serve(req, res); };
  const std::string any = R"(.*)";
  server->Get(any, handler).Post(any, handler).Put(any, handler).Patch(any, handler).Delete(any, handler).Options(any, handler);
  // httplib routes no other method (it answers TRACE, CONNECT and the methods InStepServer lets through its
  // parser with an empty 400): the service answers them like any wrong method, 405 with Allow (404 for an
  // unknown path). Before httplib would read a body, which for these methods it never does.
  server->set_pre_routing_handler([&s](const httplib::Request& req, httplib::Response& res) {
    if (InStepServer::has_routes_for(req.method)) return httplib::Server::HandlerResponse::Unhandled;
    s.serve(req, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  // The errors httplib answers itself (a request it cannot read, multipart/form-data without a boundary, a
  // body over the limit) come with an empty body: give them the one line of text every other error has.
  server->set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.content_provider_ || res.content_length_ > 0) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    Reply reply = text_reply(res.status, httplib_error_message(res.status));
    res.set_content(std::move(reply.body), reply.content_type);
    return httplib::Server::HandlerResponse::Handled;
  }));

  int port = s.options.port;
  if (port == 0) {
    port = server->bind_to_any_port(s.options.host);
  } else if (!server->bind_to_port(s.options.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    throw trunk::Error("sandbox: cannot listen on " + s.options.host + ":" + std::to_string(s.options.port) +
                       " (address in use or not local?)");
  }
  s.port = port;
  s.server = std::move(server);
  httplib::Server* raw = s.server.get();
  s.thread = std::thread([raw] { raw->listen_after_bind(); });
  // stop() only works once the accept loop runs; wait for it so start();stop() cannot hang.
  while (!raw->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.running = true;
}

void Sandbox::stop() {
  Impl& s = *impl_;
  if (!s.server) return;
  s.server->stop();
  if (s.thread.joinable()) s.thread.join();
  s.server.reset();
  s.running = false;
}

bool Sandbox::running() const { return impl_->running; }

std::string Sandbox::url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port);
}

int Sandbox::port() const { return impl_->port; }
const std::string& Sandbox::token() const { return impl_->token; }
const std::string& Sandbox::org_url_slug() const { return impl_->options.org_url_slug; }

trunk::Timestamp Sandbox::now() const {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->service->history().now;
}

std::vector<trunk::Repo> Sandbox::repos() const {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->service->repos();
}

std::vector<std::string> Sandbox::test_ids(const trunk::Repo& repo) const {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->service->test_ids(repo);
}

trunk::Timestamp Sandbox::clock_now() const {
  if (!impl_->clock) throw trunk::Error("sandbox: not started");
  return impl_->clock->now();
}

trunk::Timestamp Sandbox::advance(std::chrono::milliseconds by) {
  if (by.count() < 0) throw trunk::ValidationError({{"by", std::to_string(by.count()) + " ms", "must not be negative"}});
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->advance(by);
}

FaultOptions Sandbox::faults() const { return impl_->faults.options(); }

void Sandbox::set_faults(const FaultOptions& faults) {
  check_faults(faults);
  impl_->options.faults = faults;
  impl_->faults.set_options(faults);
}

std::vector<RecordedRequest> Sandbox::requests() const { return impl_->log.snapshot(); }
void Sandbox::clear_requests() { impl_->log.clear(); }

void Sandbox::save_data(const std::string& path) const {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  save_history(impl_->service->history(), path);
}

}  // namespace trunk::sandbox
