// Sandbox: the Service on the sandbox's HTTP server (http_server.hpp), with faults and the request record.
#include "trunk/sandbox/sandbox.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "control.hpp"
#include "queue_controls_route.hpp"
#include "data_file.hpp"
#include "faults.hpp"
#include "generator.hpp"
#include "system_random.hpp"
#include "http_server.hpp"
#include "identifiers.hpp"
#include "random.hpp"
#include "request_log.hpp"
#include "run_rules.hpp"
#include "sandbox_clock.hpp"
#include "service.hpp"
#include "webhook_payloads.hpp"
#include "webhook_sender.hpp"
#include "trunk/error.hpp"
#include "trunk/option_text.hpp"
#include "trunk/test_quarantine_v2.hpp"
#include "trunk/validation.hpp"

namespace trunk::sandbox {

namespace {

constexpr const char* kTokenHeader = "x-api-token";

/// Default of SandboxOptions::now (see the header): the wall clock, to the second.
trunk::Timestamp wall_clock_now() {
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

std::string random_token() {
  unsigned char bytes[16];
  trunk::detail::fill_system_random(bytes);
  std::string token = "sandbox_";
  static constexpr char kHex[] = "0123456789abcdef";
  for (const unsigned char byte : bytes) {
    token += kHex[byte >> 4];
    token += kHex[byte & 0x0F];
  }
  return token;
}

/// The rules of the option rows (sandbox_options.hpp, fault_options.hpp), for options a C++ caller filled in, and
/// the one rule no row can say: an organization needs a slug.
template <typename Options>
void check_options(const Options& options) {
  std::vector<trunk::Violation> problems;
  trunk::options::check(options, problems);
  if constexpr (std::is_same_v<Options, SandboxOptions>) {
    if (options.org_url_slug.empty()) problems.push_back({"org_url_slug", "\"\"", "must not be empty"});
  }
  if (!problems.empty()) throw trunk::ValidationError(std::move(problems));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

struct Sandbox::Impl {
  SandboxOptions options;
  std::string token;
  std::string api_key;
  std::atomic<std::uint64_t> request_ids{1};
  Faults faults;
  RequestLog log;
  std::unique_ptr<SandboxClock> clock;  // before the service, whose queues read it
  std::unique_ptr<WebhookSender> webhooks;  // before the service, whose queues publish to it
  /// One per queue, keyed (repository, branch); used only under the queues' lock (from their transitions).
  std::map<std::pair<std::string, std::string>, QueueEventWriter> event_writers;
  std::unique_ptr<Service> service;
  std::unique_ptr<HttpServer> server;
  std::mutex advancing;  // one advance() at a time (Python and POST /sandbox/advance may overlap)
  int port = 0;
  std::atomic<bool> running{false};

  explicit Impl(SandboxOptions o) : options(std::move(o)), faults(options.faults) {}

  /// Every request: the faults rolled, the injected latency waited on a timer (holding no thread), then answer().
  void serve(HttpRequest&& req, Responder respond);
  HttpAnswer answer(const HttpRequest& req, const FaultDecision& fault);
  trunk::Timestamp advance(std::chrono::microseconds by);
  /// Runs the queues to the clock's now, then sends what that published (and anything else due).
  void run_step();
  void publish_transition(const std::string& repo_key, const std::string& branch, const Transition& t);
};

trunk::Timestamp Sandbox::Impl::advance(std::chrono::microseconds by) {
  std::lock_guard lock(advancing);
  const trunk::Timestamp end = clock->now() + by;
  if (!webhooks->has_endpoints()) {  // nobody to tell: the whole period in one step
    clock->advance(by);
    service->queues().run_all_to_now();
    return clock->now();
  }
  // Step from one happening to the next (a queue's event, a delivery falling due: a retry 5 s after a failure,
  // then 5 min...), delivering what each step published before taking the next, so a receiver hears of each
  // change when it happens and its reaction (a call to the API) lands at that time, as it would in real time.
  for (;;) {
    run_step();
    std::optional<trunk::Timestamp> next = service->queues().next_event();
    if (const auto due = webhooks->next_due(); due && (!next || *due < *next)) next = due;
    if (!next || *next > end) break;
    if (*next > clock->now()) clock->advance(*next - clock->now());
  }
  if (end > clock->now()) clock->advance(end - clock->now());
  run_step();
  return clock->now();
}

void Sandbox::Impl::run_step() {
  {
    const WebhookSender::Hold held(*webhooks);
    service->queues().run_all_to_now();
  }
  webhooks->flush();
}

void Sandbox::Impl::publish_transition(const std::string& repo_key, const std::string& branch, const Transition& t) {
  if (!webhooks->has_endpoints()) return;  // nobody listens: build nothing
  auto writer = event_writers.find({repo_key, branch});
  if (writer == event_writers.end()) {
    writer = event_writers.emplace(std::pair{repo_key, branch}, QueueEventWriter(trunk::Repo::parse(repo_key), branch))
                 .first;
  }
  std::vector<OutgoingEvent> events;
  writer->second.write(t, events);
  webhooks->publish(std::move(events));
}

void Sandbox::Impl::serve(HttpRequest&& req, Responder respond) {
  const FaultDecision fault = faults.roll();
  if (fault.delay.count() <= 0) return respond(answer(req, fault));
  // The timer's work must be copyable (std::function): the request and its responder wait in a shared slot.
  auto waiting = std::make_shared<std::pair<HttpRequest, Responder>>(std::move(req), std::move(respond));
  server->after(fault.delay, [this, waiting, fault] { waiting->second(answer(waiting->first, fault)); });
}

namespace {

/// Runs f(MergeQueue&) on the queue of `repo` on `branch` after running it to now; UnknownQueue when there is none.
template <typename F>
auto on_queue(Service* service, const trunk::Repo& repo, const std::string& branch, F&& f) {
  if (service == nullptr) throw trunk::Error("sandbox: not started");
  auto result = service->queues().with_queue(repo, branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
    return f(queue);
  });
  if (std::holds_alternative<Refusal>(result)) {
    throw UnknownQueue({{"queue", repo.to_string() + " branch " + branch,
                         "is not a merge queue of the sandbox (createQueue makes one)"}});
  }
  return std::get<0>(std::move(result));
}


QueueControls controls_of(Service* service, const trunk::Repo& repo, const std::string& branch) {
  return on_queue(service, repo, branch, [](MergeQueue& queue) { return queue.controls(); });
}

void set_controls_of(Service* service, const trunk::Repo& repo, const std::string& branch,
                     const QueueControls& controls) {
  if (auto problems = queue_controls_violations(controls); !problems.empty()) {
    throw trunk::ValidationError(std::move(problems));
  }
  on_queue(service, repo, branch, [&](MergeQueue& queue) {
    queue.set_controls(controls);
    return true;
  });
}

void set_script_of(Service* service, const trunk::Repo& repo, const std::string& branch, std::int64_t number,
                   const PullRequestScript& script) {
  if (auto problems = script_violations(number, script); !problems.empty()) {
    throw trunk::ValidationError(std::move(problems));
  }
  on_queue(service, repo, branch, [&](MergeQueue& queue) {
    queue.set_script(number, script);
    return true;
  });
}

std::map<std::int64_t, PullRequestScript> scripts_of(Service* service, const trunk::Repo& repo,
                                                     const std::string& branch) {
  return on_queue(service, repo, branch, [](MergeQueue& queue) { return queue.scripts(); });
}

}  // namespace

HttpAnswer Sandbox::Impl::answer(const HttpRequest& req, const FaultDecision& fault) {
  RecordedRequest record;
  if (options.record_requests) {
    record.method = req.method;
    record.path = req.path;
    record.query = req.query;
    for (const auto& [name, value] : req.headers) {
      const bool secret = equals_ignoring_case(name, kTokenHeader) || equals_ignoring_case(name, "Authorization") ||
                          equals_ignoring_case(name, "x-trunk-token");
      record.headers.emplace_back(name, secret ? kRedacted : value);
    }
    record.body = recorded_body(req.method, req.path, kWebhooksPath, req.body);
  }
  auto finish = [&](int status, const char* injected = "") {
    if (!options.record_requests) return;
    record.status = status;
    record.fault = injected;
    log.add(std::move(record));
  };
  auto text = [](int status, std::string body) {
    HttpAnswer a;
    a.status = status;
    a.body = std::move(body);
    return a;
  };

  if (fault.drop) {
    finish(0, "drop");
    return {0, "", "", {}, Delivery::no_answer};
  }
  std::optional<int> retry_after = faults.take_rate_limit_token(options.org_url_slug);
  if (!retry_after && fault.rate_limited) retry_after = std::max(0, faults.options().rate_limited_retry_after_seconds);
  if (retry_after) {
    HttpAnswer a = text(429, "rate limit exceeded: too many requests for organization " + options.org_url_slug + "\n");
    a.headers.emplace_back("Retry-After", std::to_string(*retry_after));
    finish(429, "rate_limit");
    return a;
  }
  if (fault.server_error) {
    finish(503, "error");
    return text(503, "service unavailable (injected fault)\n");
  }

  const std::optional<std::string> token = req.header(kTokenHeader);
  Reply reply;
  if (req.path == kAdvancePath) {
    reply = answer_advance(req.method, token, this->token, req.body,
                           [this](std::chrono::microseconds by) { return advance(by); });
  } else if (req.path == kWebhooksPath || req.path.starts_with(std::string(kWebhooksPath) + "/")) {
    reply = answer_webhooks(req.method, req.path, token, this->token, req.body, *webhooks);
  } else if (req.path.starts_with(kQueueControlsPrefix)) {
    Service* served = service.get();
    const QueueControlOperations operations{
        [served](const trunk::Repo& r, const std::string& b) { return controls_of(served, r, b); },
        [served](const trunk::Repo& r, const std::string& b, const QueueControls& c) { set_controls_of(served, r, b, c); },
        [served](const trunk::Repo& r, const std::string& b, std::int64_t n, const PullRequestScript& p) {
          set_script_of(served, r, b, n, p);
        },
        [served](const trunk::Repo& r, const std::string& b) { return scripts_of(served, r, b); }};
    reply = answer_queue_controls(req.method, req.path, req.query, token, this->token, req.body, operations);
  } else {
    reply = service->handle(req.method, req.path, token, req.body, req.query, req.header("Content-Type"),
                            req.header("Authorization"), req.header("x-trunk-token"));
  }
  if (fault.drop_after) {
    finish(0, "drop_after");  // processed: the change is made, only the answer is lost
    return {0, "", "", {}, Delivery::no_answer};
  }
  HttpAnswer a{reply.status, std::move(reply.content_type), std::move(reply.body), std::move(reply.headers), Delivery::whole};
  // Every answer names itself, as Trunk's do, for support tickets (docs/errors.md).
  a.headers.emplace_back("X-Request-Id", hex40(mix64(request_ids.fetch_add(1) ^ options.seed)).substr(0, 32));
  if (fault.truncate && a.body.size() > 1) {
    a.delivery = Delivery::half_body;  // the full length declared, half the body sent, then the connection ends
    finish(reply.status, "truncate");
    return a;
  }
  finish(reply.status);
  return a;
}

Sandbox::Sandbox(SandboxOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Sandbox::~Sandbox() { stop(); }

void Sandbox::start() {
  Impl& s = *impl_;
  if (s.running) return;
  check_options(s.options);  // the faults' rows too
  s.faults.set_options(s.options.faults);

  if (!s.service) {
    History history = s.options.data_file.empty()
                          ? generate_history(s.options.seed, s.options.tests, s.options.now.value_or(wall_clock_now()))
                          : load_history(s.options.data_file);
    if (s.options.now) history.now = *s.options.now;
    s.clock = std::make_unique<SandboxClock>(s.options.clock, s.options.now.value_or(history.now));
    SimulationOptions simulation{s.options.seed, s.options.flaky_failure_rate, s.options.broken_pull_request_rate,
                                 sandbox_run_duration(s.options)};
    SandboxClock* clock = s.clock.get();
    auto queues = std::make_unique<QueueStore>(s.options.state_file,
                                               [clock] { return clock->now(); }, simulation);
    queues->load();
    s.webhooks = std::make_unique<WebhookSender>([clock] { return clock->now(); }, s.options.seed);
    s.webhooks->set_faults(s.options.faults);
    queues->set_transition_sink([&s](const std::string& repo_key, const std::string& branch, const Transition& t) {
      s.publish_transition(repo_key, branch, t);
    });
    s.token = s.options.token.empty() ? random_token() : s.options.token;
    // Page-token key from the seed: the same data gives the same tokens, so runs are reproducible.
    const PageTokens page_tokens(mix64(s.options.seed ^ 0x70616765546F6B65ULL), mix64(s.options.seed + 0x2545F4914F6CDD1DULL));
    s.service = std::make_unique<Service>(std::move(history), s.token, s.options.org_url_slug, std::move(queues),
                                          page_tokens);
    s.api_key = s.options.api_key.empty() ? "trunk_v2_" + random_token() : s.options.api_key;
    s.service->enable_v2(s.api_key, [clock] { return clock->now(); }, s.options.v2_rate_limits);
    s.service->on_mute_status_change([&s](const Service::MuteStatusChange& muted) {
      if (!s.webhooks->has_endpoints()) return;
      const auto& change = muted.change;
      s.webhooks->publish({muted_status_event(*change.repo, *change.test, change.previous, change.now,
                                              change.quarantined, muted.monitor.id, muted.monitor.type, muted.at,
                                              s.options.org_url_slug)});  // goes out at once, as a submission's
    });
  } else if (s.options.token.empty()) {
    s.token = random_token();
  }
  if (s.api_key.empty()) s.api_key = s.options.api_key.empty() ? "trunk_v2_" + random_token() : s.options.api_key;

  HttpServerOptions http;
  http.host = s.options.host;
  http.port = s.options.port;
  http.threads = s.options.threads;
  s.server = std::make_unique<HttpServer>(http, [&s](HttpRequest&& req, Responder respond) {
    s.serve(std::move(req), std::move(respond));
  });
  s.port = s.server->port();
  s.server->start();
  s.running = true;
}

void Sandbox::stop() {
  Impl& s = *impl_;
  if (!s.server) return;
  s.server->stop();  // first: the handler, on the server's threads, reads s.server until they have ended
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
const std::string& Sandbox::api_key() const { return impl_->api_key; }

std::string Sandbox::create_trunk_token() {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->service->create_trunk_token();
}

std::string Sandbox::create_api_key(const std::vector<Permission>& permissions) {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  return impl_->service->create_api_key(permissions);
}
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
  check_options(faults);
  impl_->options.faults = faults;
  impl_->faults.set_options(faults);
  if (impl_->webhooks) impl_->webhooks->set_faults(faults);
}

std::vector<RecordedRequest> Sandbox::requests() const { return impl_->log.snapshot(); }
void Sandbox::clear_requests() { impl_->log.clear(); }

WebhookEndpoint Sandbox::add_webhook(const WebhookEndpointOptions& options) {
  if (!impl_->webhooks) throw trunk::Error("sandbox: not started");
  return impl_->webhooks->add(options);
}

bool Sandbox::remove_webhook(const std::string& id) {
  if (!impl_->webhooks) throw trunk::Error("sandbox: not started");
  return impl_->webhooks->remove(id);
}

std::vector<WebhookEndpoint> Sandbox::webhooks() const {
  if (!impl_->webhooks) return {};
  return impl_->webhooks->endpoints();
}

std::vector<WebhookDelivery> Sandbox::webhook_deliveries() const {
  if (!impl_->webhooks) return {};
  return impl_->webhooks->deliveries();
}

void Sandbox::set_service_status(std::optional<trunk::ServiceStatus> status) {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  impl_->service->set_service_status(std::move(status));
}

namespace {

/// The value of enumeration E that `text` spells (as `wire`, its wire spelling); a ValidationError naming `field`,
/// the text and the values allowed when it spells none.
template <typename E>
E parse_control_value(std::string_view field, std::string_view text, std::string_view wire) {
  if (const auto parsed = trunk::enum_from_wire<E>(wire)) return *parsed;
  std::string known;
  for (const std::string_view value : trunk::schema::Enum<E>::wire) {
    known += (known.empty() ? "" : ", ") + std::string(value);
  }
  throw trunk::ValidationError({{std::string(field), "\"" + std::string(text) + "\"", "must be one of " + known}});
}

}  // namespace

bool Sandbox::set_test_status(const std::string& test_id, std::string_view status) {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  std::string upper(status);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // Any case accepted.
  const Health health = health_of(parse_control_value<trunk::QuarantinedTestStatus>("status", status, upper));
  const trunk::Timestamp at = impl_->clock->now();
  const auto change = impl_->service->set_test_status(test_id, health, at);
  if (!change) return false;
  if (impl_->webhooks->has_endpoints()) {
    impl_->webhooks->publish(test_status_events(*change->repo, *change->test, change->previous, change->now,
                                                change->quarantined, at, impl_->options.org_url_slug));
    impl_->webhooks->flush();  // sent before this returns, as advance() does
  }
  return true;
}

bool Sandbox::set_quarantine(const std::string& test_id, std::string_view mode,
                             const std::optional<std::string>& reason) {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  // The reason's rule is the API's (SetTestQuarantineRequest): one declaration for both ways of setting it.
  trunk::SetTestQuarantineRequest as_request;
  as_request.test_id = test_id.empty() ? "-" : test_id;  // an empty id is refused below, by the service
  as_request.mode = parse_control_value<trunk::QuarantineOverrideMode>("mode", mode, mode);
  as_request.reason = reason;
  trunk::validate(as_request);
  const trunk::Timestamp at = impl_->clock->now();
  const auto change = impl_->service->set_quarantine(test_id, override_of(as_request.mode, reason, at));
  if (!change) return false;
  if (impl_->webhooks->has_endpoints()) {
    impl_->webhooks->publish({quarantine_setting_event(*change->repo, *change->test, change->facts, change->before,
                                                       change->after, at, impl_->options.org_url_slug)});
    impl_->webhooks->flush();  // sent before this returns, as set_test_status does
  }
  return true;
}

QueueControls Sandbox::queue_controls(const trunk::Repo& repo, const std::string& branch) const {
  return controls_of(impl_->service.get(), repo, branch);
}

void Sandbox::set_queue_controls(const trunk::Repo& repo, const std::string& branch, const QueueControls& controls) {
  set_controls_of(impl_->service.get(), repo, branch, controls);
}

void Sandbox::script_pull_request(const trunk::Repo& repo, const std::string& branch, std::int64_t number,
                                  const PullRequestScript& script) {
  set_script_of(impl_->service.get(), repo, branch, number, script);
}

std::map<std::int64_t, PullRequestScript> Sandbox::pull_request_scripts(const trunk::Repo& repo,
                                                                        const std::string& branch) const {
  return scripts_of(impl_->service.get(), repo, branch);
}

void Sandbox::save_data(const std::string& path) const {
  if (!impl_->service) throw trunk::Error("sandbox: not started");
  save_history(impl_->service->history(), path);
}

}  // namespace trunk::sandbox
