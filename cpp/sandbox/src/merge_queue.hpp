#pragma once
// The simulation of one merge queue on the sandbox clock: the state machine of its pull requests and test
// runs. Deterministic: the same failure model, settings and calls at the same clock times give the same
// outcomes. Not thread-safe: QueueStore calls it under its mutex. The rules, each with the page of Trunk's
// documentation it follows, are in docs/sandbox.md ("The merge queue"); in short:
//
// Pull requests: not_ready -> pending -> testing -> tests_passed -> merged, or pending_failure / failed /
// cancelled. A submission is not_ready until the code host reports it mergeable, kMergeabilityDelay after it
// was submitted. Every change of state goes through transition(), which records a Transition (the seam the
// metrics, and later the webhooks, read).
//
// Files: merge_queue.cpp runs the queue (lookups, state changes, the clock); merge_queue_operations.cpp holds the
// operations callers ask of it (submit, cancel, restart, impacted targets) and their refusals;
// merge_queue_views.cpp what it answers. The rules read the settings through a QueuePolicy (queue_policy.hpp).
//
// A step of the clock (tick) runs four phases in order: turn_mergeable (pull requests whose mergeability delay
// ended go pending; one alone may merge directly), finish_due_runs (runs whose time is up pass or fail),
// settle (decided units merge, fail or go to bisection) and schedule (bisection runs start, then admit lets the
// line into the train). An operation (cancel, restart...) changes the queue, then settles and schedules.
//
// The line: pending pull requests of the main queue in priority order (lower value first, then submission
// order). The train: the units (one pull request, or a batch) that hold a testing slot, from the start of
// their run until they leave the queue (merged, failed, or sent back to pending); at most `concurrency`.
//  - each unit is tested on top of the units it depends on: in single mode every unit in the train ahead of
//    it; in parallel mode the units whose impacted targets overlap its own (ALL overlaps everything), and
//    what those depend on. In parallel mode a pull request without impacted targets for its head commit
//    waits (it is not processed).
//  - batching: a unit takes consecutive pull requests of the line (a noBatch one is tested alone), at most
//    max(batchingMinSize, kMaxBatchSize); it forms once batchingMinSize are waiting, or once the oldest has
//    waited batchingMaxWaitTimeMinutes.
//  - no run starts on top of a unit known to have failed (in parallel mode, only what overlaps it waits).
//  - a passing unit merges once every unit it depends on has merged. With canOptimisticallyMerge, a passing
//    unit also passes every unit it depends on (its run included them), a failed one included.
//  - a failed unit is pending_failure until every unit it depends on has merged and the first
//    pendingFailureDepth units depending on it have finished testing; then a single pull request fails and a
//    batch goes to bisection; in both cases the units depending on it go back to pending.
//  - bisection runs beside the main queue, bisectionConcurrency runs at once (default: concurrency): halves
//    are tested on the target branch, a failing half is split again, a failing single pull request fails,
//    a passing half goes back to the main line. With optimizationMode bisection_skip_redundant_tests the
//    first half is tested before the second: when it passes, the second half's failure is known from its
//    parent's run, so it is split (or, alone, failed) without a run of its own.
//  - urgent priority (0): it interrupts the units it would be tested behind (they go back to pending), and
//    takes a slot at once; a bisection does not stop it.
//  - paused: no run starts and nothing merges (a run in progress finishes; a main-queue outcome waits for
//    the resume, a bisection run's outcome applies);
//    draining: no new unit starts, the train and the bisection go on; a mode switch on a queue holding pull
//    requests drains until the train and the bisection are empty (switching()).
//  - direct merge (directMergeMode always): a mergeable pull request based on the tip of the branch (nothing
//    merged since it was submitted), whose own checks pass (not broken), on an empty queue merges without a
//    run.
//  - cancelling or restarting a pull request sends its unit and the units depending on it back to pending.
//
// Test runs: duration lognormal, median kMedianRunMinutes, sigma kRunDurationSigma, at least 1 minute, unless
// the sandbox's options or the queue's controls (queue_controls.hpp) give another distribution or a pull
// request's script (pull_request_script.hpp) a duration (the rules: run_rules.hpp); a run longer than testingTimeoutMinutes fails at the timeout (cause timeout). Otherwise it fails when it
// includes a broken pull request (cause broken) or when its flaky die comes up (cause flaky) — see
// failure_model.hpp. Every run keeps its id (a UUID), what it tested and why it failed.

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arrival_plan.hpp"
#include "failure_model.hpp"
#include "queue_policy.hpp"
#include "random.hpp"
#include "run_rules.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

inline constexpr std::chrono::minutes kMergeabilityDelay{1};
/// The default distribution of a run's duration (trunk/sandbox/run_duration.hpp declares it).
inline constexpr double kMedianRunMinutes = LognormalRunDuration{}.median_minutes;
inline constexpr double kRunDurationSigma = LognormalRunDuration{}.sigma;
inline constexpr std::size_t kMaxEarlyTargets = 10000;
/// Mixed into the queue's dice for its arrivals (QueueControls::arrivals), apart from its runs' and ids'.
inline constexpr std::uint64_t kArrivalDice = 0x6172726976616c73ULL;
/// How far back the transition record (and the metrics' rolling windows) reach.
inline constexpr std::chrono::hours kTransitionWindow{1};

/// Named priorities, as Trunk's merge documentation names them (lower value first; urgent skips the line).
struct PriorityLevel {
  std::string_view name;
  std::int64_t value;
};
inline constexpr PriorityLevel kPriorityLevels[] = {
    {"urgent", 0}, {"high", 10}, {"medium", 100}, {"low", 200}, {"lowest", 255}};
inline constexpr PriorityLevel kDefaultPriority{"medium", 100};

/// An answer other than 200: status and one line of text.
/// An answer other than 200: status and one line of text, and what v2 answers for the same refusal where its
/// status or code differ from v1's (a pull request already in the queue: v1 400, v2 409 PR_ALREADY_ENQUEUED).
struct Refusal {
  Refusal() = default;
  Refusal(int status_, std::string message_, int v2_status_ = 0, std::string_view v2_code_ = {})
      : status(status_), message(std::move(message_)), v2_status(v2_status_), v2_code(v2_code_) {}
  int status = 400;
  std::string message;
  int v2_status = 0;           ///< 0: as `status`
  std::string_view v2_code;    ///< "": the v2 service's code for `status`
};

/// The states in which a pull request belongs to a test run: testing, or waiting in tests_passed or
/// pending_failure for the run's outcome to settle.
constexpr bool part_of_a_run(trunk::PullRequestState state) noexcept {
  return state == trunk::PullRequestState::testing || state == trunk::PullRequestState::tests_passed ||
         state == trunk::PullRequestState::pending_failure;
}

enum class FailureCause { flaky, broken, timeout };
std::string_view cause_name(FailureCause cause) noexcept;

/// Where a change happens: the main queue, or the bisection of a failed batch beside it.
enum class QueueType { main, bisection };
std::string_view queue_type_name(QueueType type) noexcept;

/// Why a pull request changed state. Where Trunk publishes a reason field for the change (its webhook schemas:
/// submitted_reason, queued_reason, merged_reason, failure_reason, cancellation_reason), the value is one of the
/// published ones; the others (a run starting, passing or failing) are the sandbox's own and only show in its
/// pull requests' `stateReason` and in v2's queue-entry history (docs/webhooks.md, "Reasons").
namespace reason {
// published: submitted_reason (the sandbox's submissions all come through the API)
inline constexpr std::string_view kApiRequested = "API_REQUESTED";
// published: queued_reason
inline constexpr std::string_view kNowReady = "MERGE_ITEM_NOW_READY";
inline constexpr std::string_view kPrerequisiteFailed = "PREREQUISITE_MERGE_ITEM_FAILED";
inline constexpr std::string_view kPrerequisiteCancelled = "PREREQUISITE_MERGE_ITEM_CANCELLED";
inline constexpr std::string_view kRestartedByApi = "TESTS_RESTARTED_BY_API_REQUEST";
inline constexpr std::string_view kSkipTheLineInterrupted = "SKIP_THE_LINE_INTERRUPTED";
inline constexpr std::string_view kBisectionRequired = "BISECTION_REQUIRED";
inline constexpr std::string_view kBisectionPassed = "BISECTION_TEST_RUN_PASSED";
// published: merged_reason
inline constexpr std::string_view kMergeGraphMerge = "MERGE_GRAPH_MERGE";
inline constexpr std::string_view kDirectMerge = "MERGE_GRAPH_DIRECT_MERGE";
// published: failure_reason
inline constexpr std::string_view kRequiredStatusFailed = "TEST_RUN_REQUIRED_STATUS_FAILED";
inline constexpr std::string_view kTestRunTimeout = "TEST_RUN_TIMEOUT";
// published: cancellation_reason
inline constexpr std::string_view kUserRequested = "USER_REQUESTED";
inline constexpr std::string_view kPrPushedTo = "PR_PUSHED_TO";
// the sandbox's own: changes no published field names
inline constexpr std::string_view kTestRunStarted = "TEST_RUN_STARTED";
inline constexpr std::string_view kTestRunPassed = "TEST_RUN_PASSED";
inline constexpr std::string_view kSuccessorPassed = "SUCCESSOR_TEST_RUN_PASSED";
}  // namespace reason

/// One change of a pull request's state, as transition() records it.
struct Transition {
  trunk::Timestamp at;
  std::int64_t number = 0;
  std::string id;  ///< the submission's id
  trunk::PullRequestState from = trunk::PullRequestState::not_ready, to = trunk::PullRequestState::not_ready;
  QueueType queue_type = QueueType::main;  ///< bisection when the bisection made the change
  std::string_view reason;                 ///< one of reason::
  std::chrono::microseconds in_from_state{0};          ///< time spent in `from`
  std::optional<std::chrono::microseconds> in_queue;   ///< since it entered the queue (became pending); none before
  std::string author;  ///< the pull request's author
  /// The test run it is (or was last) part of, and the pull requests that run tests together (this one
  /// included; more than one for a batch or a bisection half); empty when it has not been tested.
  std::string run_id;
  std::vector<std::int64_t> tested_together;
  /// That run's test branch, its head commit (40 hex digits) and the pull request Trunk would open to test it
  /// (numbered from kFirstTestPullRequest, apart from the queue's own); empty and 0 when not tested.
  std::string test_branch, test_branch_sha;
  std::int64_t test_pr_number = 0;
  bool bisection_run = false;  ///< that run is a bisection's
  /// The submission itself: announced to the listener (from = to = not_ready) but not recorded, since no state
  /// changed.
  bool submission = false;
};

/// The number of the first test pull request (Transition::test_pr_number): the n-th run's is this + n, far above
/// the numbers of the pull requests a test submits.
inline constexpr std::int64_t kFirstTestPullRequest = 1'000'000;

/// Buckets of mq_pr_time_to_merge_seconds (upper bounds, seconds; +Inf added).
inline constexpr double kTimeToMergeBuckets[] = {300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400};

/// What the sandbox's own metrics count, since the queue was created (fixed size whatever the history).
struct QueueTally {
  std::uint64_t submitted = 0, merged = 0, failed = 0, cancelled = 0;
  std::uint64_t runs_started = 0, runs_passed = 0, runs_cancelled = 0;
  std::uint64_t bisection_runs_started = 0;
  std::map<FailureCause, std::uint64_t> runs_failed;
  std::array<std::uint64_t, std::size(kTimeToMergeBuckets) + 1> time_to_merge_buckets{};  ///< last: +Inf
  double time_to_merge_sum_seconds = 0;
};

/// The public operations take the settings as the queue store holds them and resolve them into a QueuePolicy
/// once, at their top: their callers (the queue store, the services) hold settings, and one resolution per call
/// makes every phase of that call read the same rules.
class MergeQueue {
 public:
  /// `sandbox_duration`: how long runs take unless the queue's controls say otherwise.
  MergeQueue(std::string repo_key, std::string branch, FailureModel model, trunk::Timestamp now,
             RunDuration sandbox_duration = LognormalRunDuration{});

  void set_failure_model(const FailureModel& model);
  /// The queue's controls (queue_controls.hpp), checked by the caller; from the next run on.
  void set_controls(const QueueControls& controls);
  const QueueControls& controls() const noexcept { return controls_; }
  /// Replaces pull request `number`'s script (pull_request_script.hpp), checked by the caller; `broken` applies
  /// at once to the pull request in the queue with that number.
  void set_script(std::int64_t number, const PullRequestScript& script);
  /// The scripts set and not yet used up, by pull request number.
  const std::map<std::int64_t, PullRequestScript>& scripts() const noexcept { return scripts_; }
  /// Runs the simulation up to `now` with `settings` (as stored: the queue itself knows when it switches
  /// modes). Never goes back.
  void advance_to(trunk::Timestamp now, const trunk::QueueSettings& settings);
  /// A change of mode: immediate on an empty queue, else the queue drains until its train and bisection are
  /// empty (switching() meanwhile).
  void begin_mode_switch();
  bool switching() const noexcept { return switching_; }

  /// `direct`: v2's per-submission direct merge (as directMergeMode always, for this pull request only).
  std::optional<Refusal> submit(const trunk::SubmitPullRequestRequest& request, const trunk::QueueSettings& settings,
                                bool direct = false);
  std::optional<Refusal> cancel(std::int64_t number, const trunk::QueueSettings& settings);
  std::optional<Refusal> restart(std::int64_t number, const trunk::QueueSettings& settings);
  std::optional<Refusal> set_impacted_targets(const trunk::SetImpactedTargetsRequest& request,
                                              const trunk::QueueSettings& settings);

  /// What v2 changes of a queued pull request (priority, batching, direct merge): each given one; a pending pull
  /// request takes its new place in the line at once, one testing keeps its run. 409 when it is not in the queue.
  struct EntryChange {
    std::optional<trunk::Priority> priority;
    std::optional<bool> no_batch;
    std::optional<bool> direct;
  };
  std::optional<Refusal> change_entry(std::int64_t number, const EntryChange& change,
                                      const trunk::QueueSettings& settings);

  /// One submission as v2 shows it, a pull request's queue entry (merge_queue_views.cpp).
  struct EntryView {
    std::string id;
    std::int64_t number = 0;
    std::string title, author, sha;
    std::int64_t priority_value = 0;
    std::string priority_name;
    bool used_default_priority = false, no_batch = false, direct = false;
    trunk::PullRequestState state = trunk::PullRequestState::not_ready;
    trunk::Timestamp submitted_at, state_changed_at, updated_at;
    std::optional<trunk::Timestamp> concluded_at;
    bool concluded = false, mergeable = false, requires_targets = false, has_targets = false;
    std::optional<std::string> passed_run;  ///< the run that passed it (tests_passed, merged)
    struct Step {
      trunk::Timestamp at;
      trunk::PullRequestState state = trunk::PullRequestState::not_ready;
      std::string_view reason;
      std::optional<std::string> run_id;
    };
    std::vector<Step> steps;  ///< every state it has been in, oldest first
    /// Its impacted targets for its head commit: nullopt when none were reported; all_targets for ALL.
    std::optional<std::vector<std::string>> targets;
    bool all_targets = false;
  };
  /// Every submission, oldest first.
  std::vector<EntryView> entries() const;
  /// The impacted targets last reported for pull request `number` at commit `sha`, submitted or not yet (Dynamic
  /// CI's plans read them); nullopt when none were reported for that commit.
  std::optional<trunk::ImpactedTargets> impacted_targets_at(std::int64_t number, const std::string& sha) const;

  /// One test run as v2 shows it, a verification run (merge_queue_views.cpp).
  struct RunView {
    struct Tested {
      std::int64_t number = 0;
      std::string sha, title;
      /// Its impacted targets for its head commit, as EntryView's: nullopt when none were reported.
      std::optional<std::vector<std::string>> targets;
      bool all_targets = false;
    };
    std::string id, test_branch, test_branch_sha;
    bool bisection = false;
    trunk::Timestamp created_at, updated_at;
    trunk::TestingStatus status = trunk::TestingStatus::in_progress;
    std::optional<std::string> failure_cause;  ///< flaky, broken or timeout, once failed
    std::vector<Tested> tested, ahead;
  };
  /// Every test run, oldest first.
  std::vector<RunView> runs() const;
  /// The test run with this id (lower case), without building the others' views; nullopt when none has it.
  std::optional<RunView> run(std::string_view id) const;

  /// What the queue is doing now, by pull-request number (v2's order and graph; merge_queue_views.cpp).
  struct OrderView {
    struct Batch {
      std::string run_id;
      trunk::PullRequestState state = trunk::PullRequestState::testing;
      bool bisection = false;
      std::vector<std::int64_t> numbers;
      /// Main-queue units only: the members of the units it is tested directly on top of (the transitive ones
      /// left out: one chain in single mode, lanes in parallel mode).
      std::vector<std::int64_t> on_top_of;
    };
    struct Pending {
      std::int64_t number = 0;
      std::vector<std::int64_t> held_by;  ///< members of failed units it may not be tested on top of
    };
    std::vector<Batch> batches;  ///< the train in order, then the bisection runs in progress
    std::vector<Pending> line;   ///< pending, in line order
    std::vector<std::int64_t> awaiting;  ///< not ready yet, or waiting for impacted targets
    bool parallel = false;
  };
  OrderView order() const;

  std::variant<trunk::SubmittedPullRequest, Refusal> submitted(std::int64_t number) const;
  std::variant<trunk::PullRequestPage, Refusal> list(const trunk::ListPullRequestsRequest& request);
  /// The pull requests not concluded, in line order (getQueue's enqueuedPullRequests).
  std::vector<trunk::PullRequest> enqueued() const;
  std::variant<trunk::TestRunDetails, Refusal> run_details(const std::string& id, const trunk::QueueSettings& settings,
                                                           trunk::RequiredStatusesSource source) const;

  /// Pull requests submitted and not yet merged, failed or cancelled.
  std::size_t unconcluded() const noexcept { return open_.size(); }
  const QueueTally& tally() const noexcept { return tally_; }
  /// Pull requests per state now.
  std::map<trunk::PullRequestState, std::uint64_t> states() const;
  /// Pull requests in the queue of `type` (entered it and not concluded), those waiting to enter it, and those
  /// testing.
  std::size_t depth(QueueType type) const;
  std::size_t awaiting_mergeability() const;
  std::size_t testing(QueueType type) const;
  /// Units holding a slot (main: the train; bisection: runs in progress).
  std::size_t slots_held(QueueType type) const;
  /// The transitions of the last kTransitionWindow, oldest first.
  const std::deque<Transition>& recent_transitions() const noexcept { return recent_; }
  /// Called with every transition as it happens (one listener; empty to stop).
  void on_transition(std::function<void(const Transition&)> listener) { listener_ = std::move(listener); }
  trunk::Timestamp now() const noexcept { return now_; }
  /// When something next happens by itself (a pull request turns mergeable, a batch's wait ends, a run ends);
  /// nullopt when nothing will until a request comes.
  std::optional<trunk::Timestamp> next_event(const trunk::QueueSettings& settings) const;

 private:
  struct Submission {
    std::string id;
    std::int64_t number = 0;
    std::string title, author, sha;
    std::int64_t priority_value = kDefaultPriority.value;
    std::string priority_name;
    bool used_default_priority = false;
    bool no_batch = false;
    bool direct = false;  ///< v2: merge directly when it can, as directMergeMode always does for every one
    bool broken = false;
    trunk::PullRequestState state = trunk::PullRequestState::not_ready;
    QueueType queue_type = QueueType::main;
    trunk::Timestamp submitted_at, ready_at, state_changed_at;
    trunk::Timestamp changed_at;  ///< its last change of state or of its entry (v2's updatedAt)
    std::optional<trunk::Timestamp> entered_at, concluded_at;
    std::optional<trunk::ImpactedTargets> targets;
    std::string targets_sha;
    std::uint64_t merges_at_submission = 0;  ///< the branch's merges when it was submitted (its base)
    std::optional<std::size_t> last_run;
    std::string_view reason = reason::kApiRequested;  ///< of its last transition (submitted: through the API)
    /// Every state it has been in, from its submission on (v2's queue-entry history).
    struct Step {
      trunk::Timestamp at;
      trunk::PullRequestState state = trunk::PullRequestState::not_ready;
      std::string_view reason;
      std::optional<std::size_t> run;  ///< the run it was (last) part of then
    };
    std::vector<Step> steps;
    bool skip_the_line() const noexcept { return priority_value == 0; }
    bool concluded() const noexcept;
    bool has_targets() const noexcept { return targets.has_value() && targets_sha == sha; }
  };
  struct TestRun {
    std::string id;
    std::vector<std::size_t> tested;  ///< submissions under test (the unit, or a bisection group)
    std::vector<std::size_t> ahead;   ///< submissions it is tested on top of
    bool bisection = false;
    trunk::Timestamp created_at, ends_at;
    std::optional<trunk::Timestamp> finished_at;
    trunk::TestingStatus status = trunk::TestingStatus::in_progress;
    std::optional<FailureCause> planned_failure;  ///< decided when it starts, revealed when it ends
  };
  /// What a unit's run touches: everything (single mode, or ALL) or these targets (sorted).
  struct Footprint {
    bool all = false;
    std::vector<std::string> targets;
  };
  enum class Phase { testing, passed, failed };
  struct Unit {
    std::uint64_t serial = 0;
    std::vector<std::size_t> members;  ///< submissions, in line order
    std::size_t run = 0;
    Phase phase = Phase::testing;
    FailureCause cause = FailureCause::flaky;  ///< when failed
    std::vector<std::uint64_t> deps;           ///< serials of the units it is tested on top of (closed), sorted
    Footprint footprint;
  };
  struct BisectionGroup {
    std::vector<std::size_t> members;
    std::optional<std::size_t> run;
    std::vector<std::size_t> deferred;  ///< optimization: the sibling whose failure this group's pass proves
    FailureCause cause = FailureCause::flaky;
  };

  std::optional<std::size_t> active(std::int64_t number) const;
  std::optional<std::size_t> latest(std::int64_t number) const;
  std::optional<std::size_t> unit_of(std::size_t submission) const;
  std::optional<std::size_t> group_of(std::size_t submission) const;
  /// The one place a pull request changes state: records the transition, keeps the tallies and open_.
  void transition(std::size_t submission, trunk::PullRequestState to, std::string_view why,
                  std::optional<QueueType> move_to = std::nullopt);
  std::size_t start_run(std::vector<std::size_t> tested, std::vector<std::size_t> ahead, bool bisection,
                        const QueuePolicy& policy);
  void stop_run(std::size_t run);
  /// Sends the units with these serials, and every unit depending on one of them, back to pending (a member
  /// already concluded, as one just cancelled, stays as it is).
  void abandon(const std::vector<std::uint64_t>& serials, std::string_view why);
  /// Takes a pull request out of the queue (cancelled, `why`): first it, then what was tested with it or on top
  /// of it goes back to the line (its canceled comes before their queued, cause before effect).
  void take_out(std::size_t submission, std::string_view why);
  std::vector<std::uint64_t> dependents_of(std::uint64_t serial) const;
  void finish_run(std::size_t run);
  void finish_bisection_run(std::size_t group, bool passed, FailureCause cause);
  void split_for_bisection(std::vector<std::size_t> members, FailureCause cause);
  void fail_known(std::vector<std::size_t> members, FailureCause cause);
  /// One step of the clock at now_: its phases, in order.
  void tick(const QueuePolicy& policy);
  /// Phase 1: pull requests whose mergeability delay has ended go pending; one alone in the queue, based on the
  /// branch's tip, may merge directly.
  void turn_mergeable(const QueuePolicy& policy);
  /// Phase 2: the runs whose end has come pass or fail (earliest first).
  void finish_due_runs();
  /// Phase 3: what is decided applies: passed units merge, failed ones fail or go to bisection once they may.
  void settle(const QueuePolicy& policy);
  /// Phase 4: bisection runs start, then admit.
  void schedule(const QueuePolicy& policy);
  /// The line enters the train (urgent first, batches formed), up to the concurrency.
  void admit(const QueuePolicy& policy);
  std::optional<trunk::Timestamp> next_event(const QueuePolicy& policy) const;
  std::vector<std::size_t> line() const;
  Footprint footprint_of(const std::vector<std::size_t>& members) const;
  static bool overlaps(const Footprint& a, const Footprint& b);
  bool waits_for_targets(const Submission& s) const noexcept;
  /// Takes the mode of the step's policy as the queue's own (see parallel_).
  void adopt_mode(const QueuePolicy& policy);
  template <typename Out>
  void describe(const Submission& s, Out& out) const;
  /// The branch a run tests: "trunk-merge/<branch>/pr-<n>-<m>.../<first 8 of its id>".
  std::string test_branch_of(const TestRun& run) const;
  RunView view_of(const TestRun& run) const;

  std::string repo_key_, branch_;
  FailureModel model_;
  RunDuration sandbox_duration_;
  QueueControls controls_;
  std::optional<ArrivalPlan> arrivals_;  ///< of controls_.arrivals, drawn from the moment they were set
  /// Submits the arrival due now (its impacted targets uploaded first, as the publisher's Action does); one the
  /// queue refuses (draining, switching) is lost, as a developer's submission would be.
  void arrive(const trunk::QueueSettings& settings);
  RunRules rules_;  ///< of model_, sandbox_duration_ and controls_: resolved when one of them changes
  std::map<std::int64_t, PullRequestScript> scripts_;
  /// Whether pull request `number` is broken: its script's word, else the dice at the rate in force.
  bool broken(std::int64_t number) const;
  /// The scripts of `tested` combined, their next-run items used up.
  ScriptedRun take_scripts(const std::vector<std::size_t>& tested);
  std::uint64_t queue_hash_;
  trunk::Timestamp now_;
  Random ids_;       ///< submission and run ids
  Random cursors_;   ///< listPullRequests cursors (apart, so listing does not change later ids)
  std::vector<Submission> submissions_;
  std::vector<std::size_t> open_;  ///< submissions not concluded, in submission order
  /// Impacted targets reported for a pull request not (yet) in the queue, by number (the latest report wins):
  /// the publisher's GitHub Action uploads them on every pull_request event, before any submission, and the
  /// service keeps them for it. Handed over when the pull request is submitted; at most kMaxEarlyTargets kept
  /// (the lowest numbers, the oldest pull requests, go first).
  struct EarlyTargets {
    trunk::ImpactedTargets targets;
    std::string sha;
  };
  std::map<std::int64_t, EarlyTargets> early_targets_;
  std::vector<TestRun> runs_;
  std::vector<std::size_t> live_runs_;  ///< runs in progress
  std::vector<Unit> train_;
  std::vector<BisectionGroup> bisection_;
  std::uint64_t next_unit_ = 1;
  std::uint64_t merges_ = 0;  ///< pull requests merged into the branch
  /// The mode of the settings the clock last ran with (advance_to): the views between steps, and the operations
  /// in between, see the mode the queue is running in, not the one a caller's settings name.
  bool parallel_ = false;
  bool optimize_bisection_ = false;
  bool switching_ = false;
  std::map<std::string, std::size_t> cursor_positions_;  ///< cursor -> index into submissions_
  std::deque<Transition> recent_;
  std::function<void(const Transition&)> listener_;
  QueueTally tally_;
};

}  // namespace trunk::sandbox
