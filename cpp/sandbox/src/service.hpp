#pragma once
// The operations of the API (trunk/operations.hpp) over a History and a QueueStore, independent of the HTTP library:
// (method, path, token header, body) in, (status, headers, body) out. sandbox.cpp puts it on the HTTP server
// (http_server.hpp) and adds the faults.
//
// Order of checks: unknown path 404, method other than the operation's (POST, or GET for
// getMergeQueueMetrics; any other method, TRACE and unknown ones included) 405 with Allow, token 401, a POST whose
// Content-Type is not JSON 415, request shape and rules 400 (the body, or the query string of the GET), unknown repository / organization / test / merge queue / pull request / test run 404, then the
// operation's own refusals (409 createQueue of an existing queue, 400 for a state that forbids the change), foreign
// page token 500. GET /openapi.json answers the OpenAPI document (trunk/openapi.hpp) with no token.

#include <atomic>
#include <cstdint>
#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "history.hpp"
#include "page_token.hpp"
#include "queue_store.hpp"
#include "trunk/sandbox/permissions.hpp"
#include "trunk/service_status.hpp"

namespace trunk::sandbox {
class V2Service;
}
#include "encoded_tests.hpp"
#include "test_ledger.hpp"

namespace trunk::sandbox {

struct Reply {
  int status = 200;
  // The sandbox answers uncompressed whatever the client offers: on loopback compression only burns CPU (with
  // cpp-httplib, the server until issue 17, brotli at quality 11 cost ~2 s per 100-test page).
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class Service : public TestLedger {
 public:
  /// `test_json_budget`: bytes of serialised tests kept for later pages (see encoded_tests.hpp).
  Service(History history, std::string token, std::string org_url_slug, std::unique_ptr<QueueStore> queues,
          PageTokens page_tokens, std::size_t test_json_budget = kDefaultTestJsonCacheBytes);

  /// `token` is the x-api-token header (nullopt when absent); `query` the query string without its '?';
  /// `content_type` the Content-Type header (nullopt when absent: the body is read as JSON).
  /// `authorization` and `trunk_token`: the Authorization and x-trunk-token headers, which the v2 operations read
  /// (v2_service.hpp).
  Reply handle(std::string_view method, std::string_view path, const std::optional<std::string>& token,
               std::string_view body, std::string_view query = {},
               const std::optional<std::string>& content_type = std::nullopt,
               const std::optional<std::string>& authorization = std::nullopt,
               const std::optional<std::string>& trunk_token = std::nullopt);

  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  /// Serves v2 too, over the same queues, to the API key `api_key` (v2_service.hpp). Before the first request.
  void enable_v2(std::string api_key, std::function<trunk::Timestamp()> clock, bool documented_rate_limits = false);
  /// A v2 API key holding only `permissions` (V2Service::create_api_key). After enable_v2.
  std::string create_api_key(const std::vector<Permission>& permissions);
  /// A trunk token (V2Service::create_trunk_token). After enable_v2.
  std::string create_trunk_token();

  /// The merge queues (Sandbox::advance runs them to the clock's now).
  QueueStore& queues() noexcept { return *queues_; }

  const History& history() const noexcept { return history_; }
  const TestJsonCache& test_json_cache() const noexcept { return *test_json_; }
  std::vector<trunk::Repo> repos() const;
  std::vector<std::string> test_ids(const trunk::Repo& repo) const;

  /// A test's health as a monitor would set it (Sandbox::set_test_status): from now on every answer that
  /// shows the test (details, listings of flaky and broken tests, quarantined tests) says `health`, with
  /// status.timestamp `at`. What it was and the test, for the webhook event; nullopt when it already was.
  /// Throws trunk::ValidationError (field test_id) for an id no repository holds.
  struct StatusChange {
    const RepoHistory* repo = nullptr;
    const TestRecord* test = nullptr;
    Health previous = Health::healthy;
    DerivedFacts now;  ///< what the API reports of the test from now on (its new health included)
    bool quarantined = false;  ///< whether it is quarantined now (its override's, else the history's)
  };
  std::optional<StatusChange> set_test_status(const std::string& test_id, Health health, trunk::Timestamp at);

  /// A test's quarantine override as a person sets it (Sandbox::set_quarantine; nullopt clears it), applied as v2's
  /// POST /v2/tests/{testId}/quarantine applies it: what it was and the test, for the webhook event; nullopt when
  /// the test already had that mode. Throws trunk::ValidationError (field test_id) for an id no repository holds.
  struct QuarantineSettingChange {
    const RepoHistory* repo = nullptr;
    const TestRecord* test = nullptr;
    DerivedFacts facts;  ///< what v1 reports of the test now
    std::optional<QuarantineOverride> before, after;
  };
  std::optional<QuarantineSettingChange> set_quarantine(const std::string& test_id,
                                                        std::optional<QuarantineOverride> override);

  /// What happens when muting a monitor changes the status a test shows (the Sandbox sends
  /// v2.test_case.status_changed). Set before the first request; none: nothing happens.
  struct MuteStatusChange {
    StatusChange change;  ///< the test, its status before, and what the API reports of it now
    SandboxMonitor monitor;
    trunk::Timestamp at;
  };
  void on_mute_status_change(std::function<void(const MuteStatusChange&)> listener) {
    mute_listener_ = std::move(listener);
  }

  // TestLedger: the tests as v2 reads them (service_test_ledger.cpp).
  trunk::Timestamp tests_now() const override { return history_.now; }
  std::optional<Entry> find_test(std::string_view id) const override;
  void for_each_test(const std::function<void(const Entry&)>& f) const override;
  std::string test_url(const Entry& entry) const override;
  void link_ticket(const std::string& test_id, const std::string& external_ticket_id) override;
  QuarantineChange set_quarantine_override(const std::string& test_id,
                                           std::optional<QuarantineOverride> override) override;
  std::string ticket_url(const std::string& external_ticket_id) const override;
  MuteChange mute_monitor(const std::string& test_id, const std::string& monitor_id, MonitorMute mute) override;
  trunk::Timestamp clock_now() const override { return clock_(); }

  /// What GET /v1/status answers from now on (Sandbox::set_service_status); nullopt: every service up, the
  /// default, so tests can show an impacted answer without a fault of their own.
  void set_service_status(std::optional<trunk::ServiceStatus> status);

 private:
  struct RepoIndex {
    const RepoHistory* data = nullptr;
    std::vector<DerivedFacts> facts;                        // per test, at history.now
    std::unordered_map<std::string, std::uint32_t> by_id;  // lower-case id -> index
    std::vector<std::uint32_t> flaky, broken;               // indices, in listing order
    std::vector<std::uint32_t> quarantined;                 // indices, in listing order
  };
  using Rows = std::shared_ptr<const std::vector<std::uint32_t>>;

  /// Reads and validates the request of operation Op (400 when it is bad), then answers it. The route table of
  /// handle() is derived from trunk::AllOperations: one serve<Op> per operation.
  template <typename Op>
  Reply serve(std::string_view body, std::string_view query);

  /// What the sandbox answers to a valid request: one specialisation per operation, in service.cpp, holding only
  /// the operation's behaviour. serve<Op> has found the repository the request names (the first form; 404 when
  /// the sandbox holds no data for it) and checked its organization, and makes the reply of what the answer
  /// returns: a Reply, a model, a queue store or queue outcome (std::variant / std::optional of a Refusal).
  template <typename Request>
  auto answer(const Request& request, const RepoIndex& repo);
  template <typename Request>
  auto answer(const Request& request);

  /// 404 reply when the repository holds no data (or nullptr and fills *index).
  std::optional<Reply> find_repo(const trunk::Repo& repo, const RepoIndex** index) const;
  std::optional<Reply> check_org(const std::string& org_url_slug) const;
  Rows failing_rows(std::size_t repo_index, std::int64_t start_us, std::int64_t end_us);
  /// The rows [begin, end) of the page that page_query names, and its page information; or the error reply
  /// (foreign page token).
  struct PageWindow {
    trunk::PageInfo info;
    std::uint64_t begin = 0, end = 0;
  };
  std::variant<PageWindow, Reply> page_window(std::size_t total_rows, const std::string& canonical_query,
                                              const trunk::PageQuery& page_query);
  Reply page_reply(const RepoIndex& repo, const std::vector<std::uint32_t>& rows, const std::string& canonical_query,
                   const trunk::PageQuery& page_query, bool with_failure_fields);
  /// The JSON of test `t` as served: its cached dump, with the ticket linked to it, if any, as its `ticket`
  /// (then written into `scratch`).
  std::string_view served_test_json(const RepoIndex& repo, std::uint32_t t, bool with_failure_fields,
                                    std::string& scratch);

  mutable std::mutex service_status_mutex_;
  std::optional<trunk::ServiceStatus> service_status_;  // GET /v1/status's answer when set; else every service up
  History history_;
  std::string token_;
  std::string org_url_slug_;
  std::unique_ptr<QueueStore> queues_;
  std::unique_ptr<V2Service> v2_;
  PageTokens page_tokens_;
  std::vector<RepoIndex> index_;
  std::unique_ptr<TestJsonCache> test_json_;

  // Tickets linked by link-ticket-to-test-case: lower-case test id -> external ticket id. The flag spares the
  // listings the lock until a first ticket is linked.
  mutable std::mutex tickets_mutex_;
  std::map<std::string, std::string> tickets_;
  std::atomic<bool> any_ticket_linked_{false};

  // Health set by set_test_status (service_test_status.cpp): lower-case test id -> the health and since when. Like
  // the tickets, the flag spares the hot path the lock until a first status is set; the derived index stays as it
  // was.
  struct StatusOverride {
    Health health = Health::healthy;
    trunk::Timestamp since;
  };
  mutable std::mutex status_mutex_;
  std::map<std::string, StatusOverride> status_overrides_;
  std::atomic<bool> any_status_set_{false};
  std::optional<StatusOverride> status_override(const std::string& test_id) const;
  /// The status test t shows when a status was set for it or a monitor muted (nullopt: its runs' own): a mute in
  /// force on the monitor that classifies it (by its set status, else its runs') makes it healthy.
  struct ShownStatus {
    Health health = Health::healthy;
    trunk::Timestamp since;
    std::string_view reason;
    bool muted = false;  ///< a mute made it healthy
  };
  std::optional<ShownStatus> shown_status(const RepoIndex& repo, std::uint32_t t,
                                          const std::optional<StatusOverride>& set, const TestMutes& mutes) const;
  /// The facts of test t with the status it shows.
  DerivedFacts effective_facts(const RepoIndex& repo, std::uint32_t t) const;
  /// The rows of list-unhealthy-tests for `health`, with the set health of every test applied.
  std::vector<std::uint32_t> unhealthy_rows(const RepoIndex& repo, Health health) const;

  // Quarantine overrides (service_quarantine.cpp; v2's POST /v2/tests/{testId}/quarantine, Sandbox::set_quarantine):
  // lower-case test id -> the override. As above, the flag spares the listings the lock until a first override is set.
  mutable std::mutex quarantine_mutex_;
  std::map<std::string, QuarantineOverride> quarantine_overrides_;
  std::atomic<bool> any_quarantine_set_{false};
  std::optional<QuarantineOverride> quarantine_override_of(const std::string& test_id) const;
  /// The rows of list-quarantined-tests: the tests quarantined now, every override applied, in listing order.
  std::vector<std::uint32_t> quarantined_rows(const RepoIndex& repo) const;

  // Monitors muted for tests (service_monitor_mutes.cpp; v2's POST /v2/monitors/{monitorId}/tests/{testId}/mute):
  // lower-case test id -> its mutes. As above, the flag spares the listings the lock until a first mute.
  mutable std::mutex mutes_mutex_;
  std::map<std::string, TestMutes> mutes_;
  std::atomic<bool> any_mute_set_{false};
  std::function<trunk::Timestamp()> clock_;  ///< the sandbox's (enable_v2): mutes begin and end by it
  std::function<void(const MuteStatusChange&)> mute_listener_;
  TestMutes mutes_of(const std::string& test_id) const;
  std::map<std::string, TestMutes> all_mutes() const;  ///< copied once per walk

  // Failing-tests windows already computed: listing page after page asks for the same window again.
  std::mutex cache_mutex_;
  std::map<std::tuple<std::size_t, std::int64_t, std::int64_t>, Rows> window_cache_;
};

/// status.reason of a test whose health Sandbox::set_test_status set.
inline constexpr std::string_view kSetStatusReason = "set by the sandbox (set_test_status)";
/// status.reason of a test a mute made healthy (monitor_mutes.hpp).
inline constexpr std::string_view kMutedReason = "the monitor that classified it is muted for it";

/// The one-line plain-text answer of every error.
Reply text_reply(int status, std::string message);
/// A JSON answer.
Reply json_reply(const trunk::Json& json, int status = 200);
/// 405 naming the method refused and what to use instead (also in Allow): the operations and the control routes.
Reply method_not_allowed(std::string_view method, std::string_view allowed);
/// 401 when the x-api-token header is missing or is not `expected`; nullopt when it is.
std::optional<Reply> refuse_token(const std::optional<std::string>& token, std::string_view expected);

/// Compares without an early exit, so the time taken does not reveal how much of a token matched.
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace trunk::sandbox
