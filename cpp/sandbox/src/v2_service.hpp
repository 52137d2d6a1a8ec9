#pragma once
// The sandbox's v2 API (docs/sandbox.md#v2): the v2 operations of operations.hpp served over the same queue store
// as v1, so a queue changed through one version reads the same through the other. Routes, path parameters and
// the reading of requests are derived from the operation rows (wire_request.hpp); each operation's behaviour is
// one answer<Op> (v2_merge_queues.cpp, v2_pull_requests.cpp, v2_repositories.cpp). Authentication is v2's:
// `Authorization: Bearer <API key>`; errors are v2's
// envelope {"error": {"code", "message"}}.
//
// Ids: a repository's id is a UUID derived from its "host/owner/name", a queue's an 8-character id derived from
// its repository and branch; both are stable across restarts and state files.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "monitor_mutes.hpp"
#include "queue_store.hpp"
#include "service.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/operations.hpp"
#include "trunk/repo.hpp"
#include "test_ledger.hpp"
#include "test_timeline.hpp"
#include "trunk/models.hpp"
#include "trunk/sandbox/permissions.hpp"
#include "v2_rate_limits.hpp"

namespace trunk::sandbox {

/// A UUID (version 4's shape) determined by `text`.
std::string uuid_of(const std::string& text);
/// 8 letters and digits determined by `text` (the shape of v2's queue and collection ids).
std::string short_id_of(const std::string& text);
/// The UUID the sandbox gives a repository ("host/owner/name").
std::string repository_id(const std::string& repo_key);
/// The UUID the sandbox gives a pull request: one per repository and number, whatever queue it is submitted to.
std::string pull_request_id(const std::string& repo_key, std::int64_t number);
/// The id the sandbox gives the queue of `branch` in a repository.
std::string merge_queue_id(const std::string& repo_key, const std::string& branch);

/// The id of the test collection the sandbox makes of each repository's tests.
std::string test_collection_id(const std::string& repo_key);

/// A v2 error answer: the envelope with a machine code.
Reply v2_error(int status, std::string_view code, std::string message);

class V2Service {
 public:
  /// `clock`: the sandbox's (a queue's createdAt is when v2 first saw it).
  /// `documented_rate_limits`: apply v2's documented per-key and per-organization limits (v2_rate_limits.hpp).
  /// `tests`: the flaky tests v1 serves, which v2's tests read (test_ledger.hpp).
  V2Service(QueueStore& queues, TestLedger& tests, std::vector<trunk::Repo> repos, std::string api_key,
            QueueStore::Clock clock, bool documented_rate_limits = false);

  /// Whether `path` is one of v2's (then handle() answers it).
  static bool serves(std::string_view path) { return path.starts_with("/v2/"); }
  /// Answers a request to a v2 path: 404 NOT_FOUND for no operation, 405 for another method, 401 without an API
  /// key as a bearer token (`authorization`) or a trunk token (`trunk_token`, the x-trunk-token header), 400
  /// VALIDATION_FAILED for a bad request, else the operation's answer.
  Reply handle(std::string_view method, std::string_view path, const std::optional<std::string>& authorization,
               std::string_view body, std::string_view query,
               const std::optional<std::string>& trunk_token = std::nullopt);

  const std::string& api_key() const noexcept { return api_key_; }
  /// A new API key holding `permissions` only (docs/sandbox.md#api-keys). Thread-safe.
  std::string create_api_key(const std::vector<Permission>& permissions);
  /// A new short-lived token as Trunk's own login issues (x-trunk-token): it reads everything and holds no
  /// permission, so every write that needs one answers 403, as Trunk refuses merge-queue writes with it.
  /// Thread-safe.
  std::string create_trunk_token();

 private:
  /// Each operation's answer, specialised once per v2 operation (declared below the class; defined in
  /// v2_merge_queues.cpp, v2_pull_requests.cpp, v2_repositories.cpp).
  template <typename Op>
  Reply answer(const typename Op::Request& request);
  /// Reads operation Op's request (its path parameters, then the query or the body), validates it, answers it.
  /// The permissions an API key holds (each key as its bits); nullopt for a key the sandbox did not issue.
  using Held = std::uint32_t;
  std::optional<Held> permissions_of(const std::string& authorization);
  /// The permissions of a trunk token (none), or nullopt for one the sandbox did not issue.
  std::optional<Held> trunk_token_permissions(const std::string& value);

  template <typename Op>
  Reply serve(const std::vector<std::pair<std::string, std::string>>& parameters, std::string_view body,
              std::string_view query, Held held);
  /// A queue by its v2 id: its repository and branch; nullopt when no queue has that id.
  struct QueueKey {
    trunk::Repo repo;
    std::string branch;
  };
  std::optional<QueueKey> find_queue(const std::string& id) const;
  std::optional<trunk::Repo> find_repository(const std::string& id) const;
  /// The repository of a queue store key (Repo::to_string()); nullptr for none the sandbox serves.
  const trunk::Repo* repo_of(const std::string& repo_key) const;
  /// The queue as v2 shows it, from the store's (v1) settings and the v2-only settings kept here.
  trunk::MergeQueue to_merge_queue(const QueueKey& key, const trunk::QueueSettings& settings);
  trunk::MergeQueueStateChange to_state_change(const QueueKey& key, const trunk::QueueSettings& settings) const;

  /// A pull request by its v2 id: its repository and number; nullopt when no queue of a repository has seen it.
  struct PullRequestKey {
    trunk::Repo repo;
    std::int64_t number = 0;
  };
  std::optional<PullRequestKey> find_pull_request(const std::string& id);
  /// One queue entry of a pull request, with the queue it is in.
  struct Entry {
    std::string branch;
    MergeQueue::EntryView view;
  };
  /// Every submission to any queue of `repo`, by pull-request number, oldest first.
  std::map<std::int64_t, std::vector<Entry>> entries_by_number(const trunk::Repo& repo);
  /// Every submission of pull request `number` to any queue of `repo`, oldest first.
  std::vector<Entry> entries_of(const trunk::Repo& repo, std::int64_t number);
  /// The pull request as v2 shows it, with `entry` as its queue entry (its latest when absent); `all` its entries,
  /// at least one (a pull request whose queues were all deleted has none: the callers answer 404).
  trunk::PullRequestV2 to_pull_request(const trunk::Repo& repo, const std::vector<Entry>& all,
                                       const Entry* entry = nullptr) const;
  /// Runs f(MergeQueue&, settings) on the queue of the pull request's active entry (else its latest) and answers
  /// the pull request after it: 404 PR_NOT_FOUND for an unknown id; a refusal as v2 answers it.
  template <typename F>
  Reply with_entry(const std::string& id, F&& f);
  trunk::Repository to_repository(const trunk::Repo& repo);
  /// Every run of the queue as v2 shows it, oldest first (a list: without their impacted targets, which v2
  /// answers only for a run fetched by id).
  std::vector<trunk::VerificationRun> verification_runs(const QueueKey& key);
  /// The run of the queue with this id (lower case) as v2 shows it fetched by id, with its impacted targets;
  /// the other runs are not built (a twin's history fetches hundreds one by one).
  std::optional<trunk::VerificationRun> verification_run(const QueueKey& key, std::string_view id);
  /// The transitions of a pull request's entries, oldest first (newest first when asked).
  static std::vector<trunk::QueueEntryStateTransition> transitions_of(const std::string& pr_id,
                                                                      const std::vector<Entry>& entries,
                                                                      std::optional<trunk::HistoryDirection> direction);
  // ---- flaky tests (v2_test_collections.cpp, v2_tests.cpp) ----
  /// The collection the sandbox makes of a repository's tests.
  trunk::TestCollection collection_of(const trunk::Repo& repo) const;
  /// Every collection, newest first: those created through v2, then one per repository.
  std::vector<trunk::TestCollection> collections();
  /// A test's metrics over `period` before the history's now: computed once per test and period, as the history
  /// never changes (a listing sorted by a metric reads every test's for every page).
  std::optional<PeriodMetrics> metrics_of(const TestRecord& test, trunk::MetricsPeriod period) const;
  /// A test as a v2 listing shows it; with its metrics over `period` when given.
  trunk::TestCaseSummary to_test_summary(const TestLedger::Entry& entry,
                                         std::optional<trunk::MetricsPeriod> period) const;
  /// A test read alone (GET /v2/tests/{testId}, and what setting its quarantine answers): its summary with its
  /// override, monitors, first and last times; `metrics` null when asked for and no run is in the period.
  Reply test_case_reply(const TestLedger::Entry& entry, std::optional<trunk::MetricsPeriod> period) const;

  // ---- monitors (v2_monitors.cpp) ----
  /// A monitor of a repository's collection (monitor_mutes.hpp): itself, its collection, its repository's key.
  struct MonitorKey {
    SandboxMonitor monitor;
    std::string collection_id;
    std::string repo_key;
  };
  std::optional<MonitorKey> find_monitor(const std::string& id) const;

  // ---- Dynamic CI (v2_dynamic_ci.cpp) ----
  /// The sandbox repository a Dynamic CI request names (no host: github.com), or its refusal: 400
  /// CI_HOST_UNSUPPORTED for another host, 404 REPOSITORY_NOT_FOUND for none the sandbox serves.
  std::variant<trunk::Repo, Reply> ci_repository(const std::optional<std::string>& host, const std::string& owner,
                                                 const std::string& name) const;
  /// The plan of a run, for either plan request (a GitHub workflow's, a Buildkite pipeline's).
  template <typename PlanRequest>
  Reply ci_plan(const PlanRequest& request);
  /// The impacted targets reported for a pull request of `repo` at `sha`, in any of its queues.
  std::optional<trunk::ImpactedTargets> impacted_targets_at(const trunk::Repo& repo, std::int64_t number,
                                                            const std::string& sha);

  /// Applies a v1 update to the queue `id` names and answers with `respond(key, settings)`.
  template <typename Respond>
  Reply update(const std::string& id, trunk::UpdateQueueRequest change, Respond&& respond);

  /// The settings v2 has and v1 does not, per queue id (in memory: not in the state file).
  struct V2OnlySettings {
    std::optional<trunk::Timestamp> created_at;  ///< when v2 first saw the queue
    std::optional<trunk::Timestamp> updated_at;  ///< when v2 last changed it
    std::int64_t not_ready_timeout_minutes = 0;
    std::vector<std::string> allowed_bot_submitters;
    std::vector<trunk::BatchingRule> batching_rules;
    trunk::TestBranchConstruction test_branch_construction = trunk::TestBranchConstruction::rename_temp_branch;
  };

  QueueStore& queues_;
  TestLedger& tests_;
  std::vector<trunk::Repo> repos_;
  std::string api_key_;
  std::unique_ptr<v2::RateLimits> rate_limits_;  // null: the documented limits are off
  QueueStore::Clock clock_;
  std::mutex mutex_;
  std::map<std::string, V2OnlySettings> v2_only_;
  std::map<std::string, PullRequestKey> pull_requests_;  ///< by id: every pull request found so far
  std::map<std::string, trunk::Timestamp> repositories_seen_;  ///< by repository key: when v2 first showed it
  std::vector<std::pair<std::string, Held>> keys_;  ///< the keys create_api_key made, with their permissions
  std::vector<std::string> trunk_tokens_;           ///< the tokens create_trunk_token made
  std::vector<trunk::TestCollection> created_collections_;  ///< by create_test_collection, oldest first
  /// Dynamic CI's active forces, by repository key and pull-request number, oldest first (in memory).
  std::map<std::pair<std::string, std::int64_t>, std::vector<trunk::ForceOverride>> ci_forces_;
  std::uint64_t ci_forces_made_ = 0;  ///< forces saved so far: each new one's id is drawn from it
  mutable std::mutex metrics_mutex_;
  mutable std::map<std::pair<const TestRecord*, trunk::MetricsPeriod>, std::optional<PeriodMetrics>> metrics_;
};

#define TRUNK_V2_DECLARE_ANSWER_(Type, name, method, path, RequestType, ...) \
  template <>                                                              \
  Reply V2Service::answer<trunk::op::Type>(const trunk::RequestType& request);
TRUNK_V2_OPERATIONS(TRUNK_V2_DECLARE_ANSWER_)
#undef TRUNK_V2_DECLARE_ANSWER_

}  // namespace trunk::sandbox
