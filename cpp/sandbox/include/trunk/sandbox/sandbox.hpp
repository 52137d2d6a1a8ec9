#pragma once
// trunk::sandbox::Sandbox: a local, stateful implementation of the service of docs/reference/service.md, served by an
// event-driven HTTP/1.1 server (Boost.Asio/Beast) on background threads. Used by the demo, notebooks, Python
// tests and benchmarks, and by users who want to try their automation offline. The server stays out of this
// header (pimpl) so consumers need not see Boost.
//
// Clock: the flaky-test history is generated relative to `now`. SandboxOptions::now = nullopt means the wall
// clock at start(), truncated to the second, so "the last 7 days" on the caller's own clock has data; tests
// pass a fixed `now` and then the same seed gives byte-identical data.
//
// The merge queues move on the sandbox clock (clock_now()), which is another clock: SandboxOptions::clock
// real follows the wall clock (plus whatever advance() added); virtual_time starts at `now` (or the wall clock
// at start) and moves only when advance() moves it. Pull requests become ready, test runs end, batches
// form and switching_modes ends on it; each request first runs the queues up to its now.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "trunk/option_rows.hpp"
#include "trunk/repo.hpp"
#include "trunk/sandbox/permissions.hpp"
#include "trunk/time.hpp"
#include "trunk/webhook_signature.hpp"

namespace trunk::sandbox {

/// Fault injection. All off by default; can be changed while the sandbox runs (set_faults).
///
/// Before the request is processed (nothing changes in the sandbox): drop_rate (connection closed),
/// rate_limit_rps and rate_limited_rate (429), error_rate (503). After it is processed (the change is made,
/// the answer is lost or damaged): drop_after_rate (connection closed), truncate_rate (body cut short).
/// A client that retries a non-idempotent write after one of the latter must read back the state first.
///
/// Option rows (trunk/option_rows.hpp): the one declaration of each setting; the Python keywords (Sandbox,
/// set_faults, the fault properties), the stubs, both command lines (trunk-sandbox, `trunk-api sandbox`) and
/// docs/sandbox.md's table are derived from them. Durations are given in whole milliseconds (the `_ms` names).
/// rate_limit_rps > 0: a token bucket per organization (a burst of one second's worth); over it 429, text body,
/// Retry-After in whole seconds. drop_after_rate is what a client sees when the network fails after the
/// service acted (exactly-once soak tests); rate_limited_rate injects a precise share of 429s whatever the
/// request rate (unlike rate_limit_rps, which needs real load). The webhook settings act on deliveries
/// (docs/webhooks.md, "Faults"), on the sandbox clock.
#define TRUNK_FAULT_OPTIONS(X)                                                                                   \
  X(std::chrono::milliseconds, latency, "latency_ms", {0}, options::milliseconds_up_to(3'600'000),            \
    options::kNoVariables, "Added before each response.")                                                       \
  X(std::chrono::milliseconds, jitter, "jitter_ms", {0}, options::milliseconds_up_to(3'600'000),              \
    options::kNoVariables, "Plus a uniform random 0 to jitter_ms.")                                              \
  X(double, error_rate, "error_rate", {0}, options::kFraction, options::kNoVariables,                          \
    "Fraction of requests answered 503.")                                                                        \
  X(double, rate_limit_rps, "rate_limit", {0}, options::kNonNegative, options::kNoVariables,                   \
    "Requests per second per organization, then 429 with Retry-After; 0 = no limit.")                            \
  X(double, drop_rate, "drop_rate", {0}, options::kFraction, options::kNoVariables,                            \
    "Fraction of requests whose connection is closed without an answer.")                                        \
  X(double, truncate_rate, "truncate_rate", {0}, options::kFraction, options::kNoVariables,                    \
    "Fraction of responses whose body is cut short (Content-Length kept).")                                      \
  X(double, drop_after_rate, "drop_after_rate", {0}, options::kFraction, options::kNoVariables,                \
    "Fraction of requests processed (the state changes), then closed without an answer.")                        \
  X(double, rate_limited_rate, "rate_limited_rate", {0}, options::kFraction, options::kNoVariables,            \
    "Fraction of requests answered 429 with rate_limited_retry_after_seconds, whatever the load.")               \
  X(int, rate_limited_retry_after_seconds, "rate_limited_retry_after_seconds", {1},                             \
    options::with_flag(options::between(0, 86'400), "rate-limited-retry-after"), options::kNoVariables,         \
    "Retry-After of the rate_limited_rate 429s, in seconds.")                                                    \
  X(std::uint64_t, seed, "fault_seed", {1}, options::kNonNegative, options::kNoVariables,                       \
    "Seed of the fault dice: the same seed, the same faults.")                                                   \
  X(double, webhook_duplicate_rate, "webhook_duplicate_rate", {0}, options::kFraction, options::kNoVariables,  \
    "Fraction of webhook messages sent once more (same svix-id).")                                               \
  X(std::chrono::milliseconds, webhook_delay, "webhook_delay_ms", {0}, options::milliseconds_up_to(86'400'000), \
    options::kNoVariables, "Each webhook message sent this long (sandbox clock) after its event.")              \
  X(std::chrono::milliseconds, webhook_jitter, "webhook_jitter_ms", {0},                                       \
    options::milliseconds_up_to(86'400'000), options::kNoVariables,                                              \
    "Plus a uniform random 0 to webhook_jitter_ms: pull requests' messages overtake each other, one pull "        \
    "request's keep their order (unless webhook_reorder).")                                                       \
  X(bool, webhook_reorder, "webhook_reorder", {false}, options::kAnyValue, options::kNoVariables,               \
    "With webhook_jitter_ms: one pull request's messages may overtake each other too, as Svix's retries can "     \
    "reorder them; for testing a bot that must order events by their timestamp.")

struct FaultOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_FAULT_OPTIONS)
};

/// How the sandbox clock moves (see the header comment).
enum class ClockMode {
  real,          ///< the wall clock, plus what advance() added
  virtual_time,  ///< stands still until advance() moves it (deterministic)
};

/// Threads the sandbox serves with unless told otherwise: one per core, at least 2 (a handler that waits briefly,
/// for the service's lock, must not stop the others) and at most 4 (more only adds switching: measured with
/// 256 connections at 20 ms latency on 2 cores, 4 threads took 1.36-1.38 of the ideal time, 2 threads 1.26-1.29).
inline int default_server_threads() {
  const unsigned cores = std::thread::hardware_concurrency();  // 0 when unknown
  return static_cast<int>(std::clamp(cores, 2U, 4U));
}

/// The server's threads: 1 to 1024; the default is the machine's (default_server_threads()).
inline constexpr options::OptionRule kServerThreads{.min = 1, .max = 1024, .computed_default = true};

// Option rows, as FaultOptions' (faults: its rows are taken in its place).
// now: the end of the generated history; nullopt = the wall clock at start() (see the header comment).
// threads: read, answer and write requests. Serving is event-driven: a connection holds no thread while it is
// idle, sends slowly or waits out injected latency, so a few threads serve any number of connections. The
// default is the machine's cores, from 2 to 4 (default_server_threads()).
// flaky_failure_rate, broken_pull_request_rate: nullopt = derived from each repository's history
// (src/failure_model.hpp).
#define TRUNK_SANDBOX_OPTIONS(X)                                                                                 \
  X(std::string, host, "host", {"127.0.0.1"}, options::kAnyValue, options::kNoVariables, "Address to bind.")     \
  X(int, port, "port", {0}, options::between(0, 65'535), options::kNoVariables, "Port; 0 = any free port.")    \
  X(std::uint64_t, seed, "seed", {42}, options::kNonNegative, options::kNoVariables,                             \
    "Seed of the data generator: the same seed and now, the same data.")                                        \
  X(int, tests, "tests", {2000}, options::between(0, 10'000'000), options::kNoVariables,                        \
    "Test cases generated across the repositories.")                                                             \
  X(std::string, token, "token", {}, options::kAnyValue, options::kNoVariables,                                 \
    "API token the sandbox accepts; none = a random one per start.")                                            \
  X(std::string, api_key, "api_key", {}, options::kAnyValue, options::kNoVariables,                             \
    "v2 API key the sandbox accepts (trunk_v2_...); none = a random one per start.")                            \
  X(std::string, org_url_slug, "org_url_slug", {"trunk-sandbox"}, options::with_flag(options::kAnyValue, "org"), \
    options::kNoVariables, "Organization URL slug it serves.")                                                   \
  X(std::optional<trunk::Timestamp>, now, "now", {}, options::kAnyValue, options::kNoVariables,                 \
    "End of the generated 30-day history; none = the wall clock at start.")                                     \
  X(std::string, state_file, "state_file", {}, options::kPath, options::kNoVariables,                           \
    "Keeps the merge queues and their settings in this file across restarts; none = in memory only.")          \
  X(std::string, data_file, "data_file", {}, options::kPath, options::kNoVariables,                             \
    "Serves the history in this JSON file (save_data's format) instead of generating one.")                     \
  X(int, threads, "threads", {default_server_threads()}, sandbox::kServerThreads, options::kNoVariables,                 \
    "Server threads; connections hold none while idle or waiting; none = the cores, from 2 to 4.")              \
  X(sandbox::FaultOptions, faults, "", {}, options::kAnyValue, options::kNoVariables, "Fault injection.")        \
  X(bool, record_requests, "record_requests", {true}, options::kAnyValue, options::kNoVariables,                \
    "Keep a log of the requests received (the last 10,000).")                                                    \
  X(bool, v2_rate_limits, "v2_rate_limits", {false}, options::kAnyValue, options::kNoVariables,                \
    "Apply v2's documented limits: 5 requests a second per API key to GET /v2/pull-requests*, 5 a second to "    \
    "the merge queue metrics; over them, 429 RATE_LIMITED with Retry-After.")                                     \
  X(sandbox::ClockMode, clock, "clock", {sandbox::ClockMode::real}, options::kAnyValue, options::kNoVariables,  \
    "Clock of the merge queues: the wall clock (real), or one that moves only when advanced (virtual).")         \
  X(std::optional<double>, flaky_failure_rate, "flaky_failure_rate", {}, options::kFraction,                   \
    options::kNoVariables, "Chance a merge queue test run fails on a flaky test; none = from the history.")     \
  X(std::optional<double>, broken_pull_request_rate, "broken_pull_request_rate", {},                            \
    options::with_flag(options::kFraction, "broken-rate"), options::kNoVariables,                               \
    "Chance a submitted pull request is genuinely broken (fails every run); none = from the history.")

struct SandboxOptions {
  TRUNK_OPTION_MEMBERS(TRUNK_SANDBOX_OPTIONS)
};

}  // namespace trunk::sandbox

namespace trunk {
/// The names Python and the command lines give the clock modes.
template <>
struct options::Choices<sandbox::ClockMode> {
  static constexpr std::array<Choice<sandbox::ClockMode>, 2> all{
      {{sandbox::ClockMode::real, "real"}, {sandbox::ClockMode::virtual_time, "virtual"}}};
};
TRUNK_DESCRIBE_OPTIONS(sandbox::FaultOptions, TRUNK_FAULT_OPTIONS)
TRUNK_DESCRIBE_OPTIONS(sandbox::SandboxOptions, TRUNK_SANDBOX_OPTIONS)
}  // namespace trunk

namespace trunk::sandbox {

/// One request the sandbox received. The x-api-token and Authorization header values are replaced by "<redacted>".
struct RecordedRequest {
  std::string method;
  std::string path;
  std::string query;  ///< the query string, without its '?' ("" for none): a v2 GET's parameters
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int status = 0;  ///< status answered (0 when the connection was dropped without an answer)
  /// The fault injected into this answer, "" for none: "drop", "rate_limit" (429, either cause), "error" (503),
  /// "drop_after" (processed, then the connection closed: status 0) or "truncate" (status 200 or other, body
  /// cut short), so tests can count faults by kind.
  std::string fault;
};

/// A webhook endpoint to register (Sandbox::add_webhook): where to send, the signing secret, which events.
struct WebhookEndpointOptions {
  std::string url;                    ///< http:// or https://, with a host
  std::optional<std::string> secret;  ///< "whsec_<base64 of 24 to 75 bytes>"; nullopt = a new random one (24 bytes, as Svix)
  /// Event types (e.g. "pull_request.merged"); nullopt = every type. An empty list is refused, as Svix refuses it.
  std::optional<std::vector<std::string>> events;
};

/// A registered endpoint. `secret` verifies its deliveries (trunk::verify_webhook).
struct WebhookEndpoint {
  std::string id;  ///< "ep_..."
  std::string url;  ///< as registered: it may carry credentials (https://user:password@host/), so never shown as is
  trunk::WebhookSecret secret;
  std::vector<std::string> events;  ///< empty = every type
};

/// `url` with the credentials of its authority, if any, replaced by "***" ("https://***@host/hook"): what reprs,
/// logs and error messages show of an endpoint's URL. Text that is not a URL comes back unchanged.
std::string url_without_credentials(std::string_view url);

/// One attempt to deliver one message to one endpoint (Sandbox::webhook_deliveries).
struct WebhookDelivery {
  std::string endpoint_id;
  std::string message_id;  ///< the svix-id: the same on every attempt of a message
  std::string event_type;
  std::int64_t pr_number = 0;  ///< the pull request of a merge queue event; 0 for other events
  int attempt = 1;             ///< 1 for the first try; retries count up; a duplicate counts on too
  int status = 0;              ///< the HTTP status answered; 0 when none came (refused, timed out)
  std::string error;           ///< why it failed without a status ("" otherwise)
  trunk::Timestamp at;         ///< the sandbox clock when it was sent
  std::chrono::microseconds latency{0};  ///< wall time from sending to the answer
  bool duplicate = false;      ///< an extra copy sent by FaultOptions::webhook_duplicate_rate
  std::optional<trunk::Timestamp> next_attempt;  ///< when the retry is due; nullopt: delivered, or given up
  bool succeeded() const noexcept { return status >= 200 && status < 300; }
};

class Sandbox {
 public:
  explicit Sandbox(SandboxOptions options = {});
  ~Sandbox();  ///< stops
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  /// Generates or loads the data, loads the state file, binds and serves on a background thread; returns once
  /// listening. Throws trunk::ValidationError for bad options (naming the field) and trunk::Error with a clear
  /// message for a bad data/state file or a port in use. Calling it while running does nothing.
  void start();
  /// Stops serving and joins the thread. Idempotent.
  void stop();
  bool running() const;

  std::string url() const;  ///< "http://127.0.0.1:PORT" (base address; the paths are under /v1)
  int port() const;
  const std::string& token() const;
  /// The v2 API key it accepts (Authorization: Bearer), every permission granted.
  const std::string& api_key() const;
  /// A new v2 API key holding only `permissions` (a v2 write it lacks one for answers 403
  /// INSUFFICIENT_PERMISSIONS; docs/sandbox.md#api-keys). Valid until stop(). Throws trunk::Error before start().
  std::string create_api_key(const std::vector<Permission>& permissions);
  /// A short-lived token as Trunk's own login issues (sent as x-trunk-token): it reads every v2 resource and
  /// holds no permission, so v2 writes answer 403 (docs/sandbox.md#api-keys). Thread-safe; after start().
  std::string create_trunk_token();
  const std::string& org_url_slug() const;
  /// The clock the data was generated against (see the header comment).
  trunk::Timestamp now() const;

  /// Repositories that hold data (any other repository answers 404).
  std::vector<trunk::Repo> repos() const;
  /// Ids of the test cases of a repository, in the order list operations return them.
  std::vector<std::string> test_ids(const trunk::Repo& repo) const;

  /// The sandbox clock, on which the merge queues move. Available after start().
  trunk::Timestamp clock_now() const;
  /// Moves the sandbox clock forward by `by` (real mode: adds to its offset) and runs the merge queues up to the
  /// new time before returning it. Throws trunk::ValidationError for a negative duration, trunk::Error before
  /// start(). Thread-safe.
  trunk::Timestamp advance(std::chrono::milliseconds by);

  FaultOptions faults() const;
  /// Thread-safe, takes effect for the next request. Throws trunk::ValidationError (rates outside [0, 1], negative
  /// durations or rate) and then changes nothing.
  void set_faults(const FaultOptions& faults);

  std::vector<RecordedRequest> requests() const;
  void clear_requests();

  /// Registers a webhook endpoint: from now on every event of its types is signed and POSTed to it, at least
  /// once, retried on Svix's schedule on the sandbox clock (docs/webhooks.md, "The sandbox sends them").
  /// Throws trunk::ValidationError naming url, secret or events. Available after start(). Thread-safe.
  WebhookEndpoint add_webhook(const WebhookEndpointOptions& options);
  /// Stops sending to an endpoint (attempts still pending for it are dropped); false when the id is unknown.
  bool remove_webhook(const std::string& id);
  std::vector<WebhookEndpoint> webhooks() const;
  /// Every delivery attempt so far (the last 100,000), oldest first.
  std::vector<WebhookDelivery> webhook_deliveries() const;

  /// Sets a test's health as a detection monitor would: "HEALTHY", "FLAKY" or "BROKEN" (any case). From then on
  /// the answers show it (details, list-unhealthy-tests, quarantined tests), and the webhook endpoints get a
  /// v2.test_case.status_changed event. False when the test already had that health (nothing is sent).
  /// Throws trunk::ValidationError naming test_id or status. Available after start(). Thread-safe.
  bool set_test_status(const std::string& test_id, std::string_view status);

  /// Writes the history as JSON (the data_file format). Available after start().
  void save_data(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trunk::sandbox
