#pragma once
// The merge queues of the sandbox: which (repository, target branch) queues exist, their settings, and the
// simulation of each (merge_queue.hpp), all behind one mutex. Every operation first runs the simulations
// up to the sandbox clock's now.
//
// Semantics (docs/reference/service.md#queue-settings):
//  - a sandbox without a state file, or whose state file does not exist yet, starts with a queue on `main`
//    for every repository (adopt_repositories); any other branch has no queue until createQueue, and every
//    queue operation on a queue that does not exist answers 404;
//  - a queue starts from the defaults of default_queue(); omitted updateQueue fields leave a setting
//    unchanged; createQueue sets mode and concurrency on those defaults (409 when the queue exists);
//    deleteQueue refuses (400) while the queue holds pull requests not concluded;
//  - requiredStatuses: [...] sets a manual list (possibly empty); deleteRequiredStatuses: true drops the
//    manual list, after which the statuses come from branch protection (kBranchProtectionStatuses here);
//  - a change of mode is immediate on a queue holding no pull request; otherwise the queue reports
//    switching_modes, and behaves as draining, until its simulation has no unit testing left
//    (MergeQueue::begin_mode_switch);
//  - bisectionConcurrency follows concurrency until a request sets it (Trunk's documented default).
//  - with a state file, the queues and their settings are written atomically before the answer is sent;
//    load() reads them back. Pull requests are not persisted (a restart empties the queues), nor is an ongoing
//    switch (after a restart the switch is complete). Version 1 files (before queues could be created and
//    deleted) listed only configured queues: loading one still adds `main` for every repository.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "failure_model.hpp"
#include "merge_queue.hpp"
#include "trunk/enums.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/requests.hpp"
#include "trunk/sandbox/run_duration.hpp"

namespace trunk::sandbox {

inline const std::vector<std::string> kBranchProtectionStatuses = {"ci/build", "ci/test"};
inline constexpr const char* kDefaultBranch = "main";

/// How the simulations fail: nullopt rates come from each repository's history (failure_model.hpp).
struct SimulationOptions {
  std::uint64_t seed = 42;
  std::optional<double> flaky_failure_rate;
  std::optional<double> broken_pull_request_rate;
  RunDuration run_duration;  ///< every queue's, unless its controls say otherwise
};

class QueueStore {
 public:
  using Clock = std::function<trunk::Timestamp()>;

  /// `clock`: the sandbox clock (default: the wall clock).
  QueueStore(std::string state_file, Clock clock = {}, SimulationOptions simulation = {});

  /// Reads the state file when there is one and it exists; throws trunk::Error naming the file and problem.
  void load();
  /// The repositories the sandbox serves and the failure model of each; creates their `main` queues unless a
  /// current state file listed the queues.
  void adopt_repositories(const std::vector<std::pair<trunk::Repo, FailureModel>>& repositories);

  /// Applies a validated request and returns the settings after it (persisted first when there is a file).
  std::variant<trunk::QueueSettings, Refusal> update(const trunk::UpdateQueueRequest& request);
  /// Current settings of a queue and its pull requests (getQueue).
  std::variant<trunk::QueueSettings, Refusal> get(const trunk::Repo& repo, const std::string& branch);
  std::optional<Refusal> create(const trunk::CreateQueueRequest& request);
  std::optional<Refusal> remove(const trunk::DeleteQueueRequest& request);

  /// Runs f(MergeQueue&, const QueueSettings&) on an existing queue, after running it up to now; the 404
  /// refusal when the queue does not exist.
  template <typename F>
  auto with_queue(const trunk::Repo& repo, const std::string& branch, F&& f)
      -> std::variant<std::invoke_result_t<F, MergeQueue&, const trunk::QueueSettings&>, Refusal> {
    std::lock_guard lock(mutex_);
    Queue* q = find(repo, branch);
    if (q == nullptr) return no_queue(repo, branch);
    const trunk::QueueSettings settings = run_to_now(*q, branch);
    return f(*q->sim, settings);
  }
  /// Whether a queue's required statuses are the manual list (else from branch protection).
  trunk::RequiredStatusesSource statuses_source(const trunk::Repo& repo, const std::string& branch) const;

  /// Every queue, as (repository key "host/owner/name", target branch), in that order.
  std::vector<std::pair<std::string, std::string>> keys() const;

  /// Runs every queue up to the clock's now (Sandbox::advance).
  void run_all_to_now();
  /// When the next thing happens by itself in any queue (after now); nullopt when nothing will.
  std::optional<trunk::Timestamp> next_event();
  /// Called with every transition of every queue (and of queues created later), under this store's lock: it
  /// must only record (the webhook sender queues events).
  using TransitionSink = std::function<void(const std::string& repo_key, const std::string& branch, const Transition&)>;
  void set_transition_sink(TransitionSink sink);
  /// The Prometheus text of a repository's queues (of its queue of `branch` only, when given), or of every queue
  /// when `repo` is absent.
  std::string metrics(const std::optional<trunk::Repo>& repo, const std::optional<std::string>& branch = std::nullopt);

 private:
  struct Queue {
    /// Every setting as stored (state never switching_modes; required_statuses is computed by settings_of).
    trunk::QueueSettings settings;
    std::optional<std::vector<std::string>> manual_required_statuses;  ///< nullopt = from branch protection
    /// settings.bisection_concurrency is nullopt until a request sets it: it follows concurrency.
    std::shared_ptr<MergeQueue> sim;  ///< shared by a copy kept to undo a failed write
  };
  /// A queue never configured.
  static Queue default_queue();
  using Key = std::pair<std::string, std::string>;  // ("host/owner/name", branch)

  Queue* find(const trunk::Repo& repo, const std::string& branch);
  static Refusal no_queue(const trunk::Repo& repo, const std::string& branch);
  std::shared_ptr<MergeQueue> new_simulation(const std::string& repo_key, const std::string& branch) const;
  FailureModel model_of(const std::string& repo_key) const;
  void attach_sink(MergeQueue& sim, const std::string& repo_key, const std::string& branch) const;
  /// The settings the simulation runs on (stored, defaults filled in) and, with `answer`, as the queue reports
  /// them (switching_modes while it switches).
  trunk::QueueSettings settings_of(const Queue& queue, const std::string& branch, bool answer = true) const;
  /// Runs the queue's simulation to the clock's now and returns its settings as they stand now.
  trunk::QueueSettings run_to_now(Queue& queue, const std::string& branch);
  /// Writes the state file (when there is one); a failed write is the 500 refusal of the change, which the
  /// caller undoes. Caller holds mutex_.
  std::optional<Refusal> persist() const;
  void write_state() const;  // throws trunk::Error; caller holds mutex_

  std::string state_file_;
  Clock clock_;
  SimulationOptions simulation_;
  mutable std::mutex mutex_;
  std::map<Key, Queue> queues_;
  std::map<std::string, FailureModel> models_;  ///< per repository key
  bool queues_listed_ = false;                  ///< a current state file named every queue
  TransitionSink sink_;
};

}  // namespace trunk::sandbox
