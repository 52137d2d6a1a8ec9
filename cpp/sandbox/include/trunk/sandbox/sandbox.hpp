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
//
// The types its functions take and give have headers of their own, included here (a user's include of this
// header sees them all): sandbox_options.hpp (with fault_options.hpp and clock_mode.hpp), recorded_request.hpp,
// webhook_endpoints.hpp, webhook_delivery.hpp, queue_controls.hpp (with run_duration.hpp) and
// pull_request_script.hpp. The sandbox's own files include only those they use.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/repo.hpp"
#include "trunk/service_status.hpp"
#include "trunk/sandbox/fault_options.hpp"
#include "trunk/sandbox/permissions.hpp"
#include "trunk/sandbox/pull_request_script.hpp"
#include "trunk/sandbox/queue_controls.hpp"
#include "trunk/sandbox/recorded_request.hpp"
#include "trunk/sandbox/sandbox_options.hpp"
#include "trunk/sandbox/webhook_delivery.hpp"
#include "trunk/sandbox/webhook_endpoints.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

/// The queue a control names does not exist (the HTTP control routes answer 404 for it).
class UnknownQueue : public trunk::ValidationError {
 public:
  using trunk::ValidationError::ValidationError;
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
  /// the answers show it (details, list-unhealthy-tests, quarantined tests), and the webhook endpoints get the
  /// test_case.monitor_status_changed, v2.test_case.status_changed and test_case.status_changed events. False
  /// when the test already had that health (nothing is sent).
  /// Throws trunk::ValidationError naming test_id or status. Available after start(). Thread-safe.
  bool set_test_status(const std::string& test_id, std::string_view status);

  /// Sets a test's quarantine override as a person in Trunk's web app would: "alwaysQuarantine",
  /// "neverQuarantine" or "clear" (QuarantineOverrideMode's spelling), with an optional reason of 1 to 1000
  /// characters. From then on both API versions show it (v1's quarantined listing and `quarantined`, v2's
  /// quarantineState, quarantinedSince and quarantineOverride), and the webhook endpoints get
  /// test_case.quarantining_setting_changed. False when the test already had that mode (nothing changes or is sent).
  /// Throws trunk::ValidationError naming test_id, mode or reason. Available after start(). Thread-safe.
  bool set_quarantine(const std::string& test_id, std::string_view mode,
                      const std::optional<std::string>& reason = std::nullopt);

  /// Staging exact situations in a merge queue (docs/sandbox.md, "Staging exact situations"). The queue is the
  /// one of `repo` on target branch `branch`; each call first runs it to the clock's now, so a change applies to
  /// runs that start afterwards. Throws trunk::ValidationError naming field, value and rule (nothing changes
  /// then), UnknownQueue (a ValidationError naming field "queue") when the queue does not exist, trunk::Error
  /// before start(). Thread-safe.
  QueueControls queue_controls(const trunk::Repo& repo, const std::string& branch) const;
  /// Replaces the queue's controls (a field nullopt: the sandbox's value, as before any control).
  void set_queue_controls(const trunk::Repo& repo, const std::string& branch, const QueueControls& controls);
  /// Replaces pull request `number`'s script in that queue; the pull request need not be submitted yet.
  void script_pull_request(const trunk::Repo& repo, const std::string& branch, std::int64_t number,
                           const PullRequestScript& script);
  /// The queue's scripts not used up yet, by pull request number.
  std::map<std::int64_t, PullRequestScript> pull_request_scripts(const trunk::Repo& repo,
                                                                 const std::string& branch) const;

  /// What GET /v1/status answers from now on: `status` as given (an impacted overallStatus, say), or with
  /// nullopt every service up again (the default). Available after start(). Thread-safe.
  void set_service_status(std::optional<trunk::ServiceStatus> status);

  /// Writes the history as JSON (the data_file format). Available after start().
  void save_data(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trunk::sandbox
