#pragma once
// The simulation of one merge queue on the sandbox clock: the state machine of its pull requests and test
// runs. Deterministic: the same failure model, settings and calls at the same clock times give the same
// outcomes. Not thread-safe: QueueStore calls it under its mutex.
//
// Pull requests: not_ready -> pending -> testing -> tests_passed -> merged, or failed / pending_failure /
// cancelled. A submission is not_ready until the code host reports it mergeable, kMergeabilityDelay after it
// was submitted (gitHubMergeability in_progress before, mergeable after); its base branch always matches and
// the sandbox never requires impacted targets (requiresImpactedTargets false; hasImpactedTargets tells
// whether setImpactedTargets named its head commit).
//
// The line: pending pull requests in priority order (lower value first, then submission order). The train:
// the units (one pull request, or a batch) under test, a prefix of the line; each unit's run is tested on
// top of every unit ahead of it (predictive testing), so a run includes the pull requests ahead of it.
//  - single mode: one unit at a time. parallel: up to `concurrency` units testing at once.
//  - batching (batch true): a unit takes consecutive pending pull requests (a noBatch one is tested alone
//    and ends a batch), at most max(batchingMinSize, kMaxBatchSize); it forms once batchingMinSize are
//    pending, or once the oldest of them has been pending batchingMaxWaitTimeMinutes.
//  - a passing unit at the head of the train merges. With canOptimisticallyMerge, a passing unit also marks
//    every unit ahead of it as passing (its run included them), so they merge even if their own run failed.
//  - a failed unit of one pull request is pending_failure while it is not at the head; at the head it
//    waits until the min(pendingFailureDepth, units behind it) units behind it finish testing (a pass
//    behind it rescues it with optimistic merging), then it fails and every unit behind it (they were tested
//    on top of it) goes back to pending.
//  - a failed batch is bisected at the head of the train: halves are tested on the target branch,
//    bisectionConcurrency runs at once, a failing half is split again, a failing single pull request is a
//    culprit and fails; when no run is left the innocent ones go back to pending (and are tested again
//    without the culprits) and nothing behind the batch starts meanwhile.
//  - urgent priority (0) skips the line: it interrupts the train (units back to pending) and goes first.
//  - paused and switching_modes start no run; draining starts no new unit but finishes the ones testing
//    (bisection included); runs already started always finish.
//  - cancelling or restarting a pull request sends its unit and every unit behind it back to pending (their
//    runs were built on it); restart is allowed while testing, tests_passed or pending_failure.
//
// Test runs: duration lognormal, median kMedianRunMinutes, sigma kRunDurationSigma, at least 1 minute; a
// run longer than testingTimeoutMinutes fails at the timeout (cause timeout). Otherwise it fails when it
// includes a broken pull request (cause broken) or when its flaky die comes up (cause flaky) — see
// failure_model.hpp. Every run keeps its id (a UUID), what it tested and why it failed.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "failure_model.hpp"
#include "random.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

inline constexpr std::chrono::minutes kMergeabilityDelay{1};
inline constexpr double kMedianRunMinutes = 15;
inline constexpr double kRunDurationSigma = 0.35;
inline constexpr std::int64_t kMaxBatchSize = 16;

/// Named priorities, as Trunk's merge documentation names them (lower value first; urgent skips the line).
struct PriorityLevel {
  std::string_view name;
  std::int64_t value;
};
inline constexpr PriorityLevel kPriorityLevels[] = {
    {"urgent", 0}, {"high", 10}, {"medium", 100}, {"low", 200}, {"lowest", 255}};
inline constexpr PriorityLevel kDefaultPriority{"medium", 100};

/// An answer other than 200: status and one line of text.
struct Refusal {
  int status = 400;
  std::string message;
};

enum class FailureCause { flaky, broken, timeout };
std::string_view cause_name(FailureCause cause) noexcept;

/// What the metrics count, since the queue was created.
struct QueueTally {
  std::uint64_t submitted = 0, merged = 0, failed = 0, cancelled = 0;
  std::uint64_t runs_started = 0, runs_passed = 0, runs_cancelled = 0;
  std::uint64_t bisection_runs_started = 0;
  std::map<FailureCause, std::uint64_t> runs_failed;
  std::vector<double> time_to_merge_seconds;
};

class MergeQueue {
 public:
  MergeQueue(std::string repo_key, std::string branch, FailureModel model, trunk::Timestamp now);

  void set_failure_model(const FailureModel& model) noexcept { model_ = model; }
  /// Runs the simulation up to `now` with `settings` (their state as the queue reports it). Never goes back.
  void advance_to(trunk::Timestamp now, const trunk::QueueSettings& settings);

  std::optional<Refusal> submit(const trunk::SubmitPullRequestRequest& request, const trunk::QueueSettings& settings);
  std::optional<Refusal> cancel(std::int64_t number, const trunk::QueueSettings& settings);
  std::optional<Refusal> restart(std::int64_t number, const trunk::QueueSettings& settings);
  std::optional<Refusal> set_impacted_targets(const trunk::SetImpactedTargetsRequest& request);

  std::variant<trunk::SubmittedPullRequest, Refusal> submitted(std::int64_t number) const;
  std::variant<trunk::PullRequestPage, Refusal> list(const trunk::ListPullRequestsRequest& request);
  /// The pull requests not concluded, in line order (getQueue's enqueuedPullRequests).
  std::vector<trunk::PullRequest> enqueued() const;
  std::variant<trunk::TestRunDetails, Refusal> run_details(const std::string& id, const trunk::QueueSettings& settings,
                                                           trunk::RequiredStatusesSource source) const;

  /// Pull requests submitted and not yet merged, failed or cancelled.
  std::size_t unconcluded() const noexcept;
  const QueueTally& tally() const noexcept { return tally_; }
  /// Pull requests per state now.
  std::map<trunk::PullRequestState, std::uint64_t> states() const;
  /// Conclusions (merged, failed, cancelled) within [now - window, now].
  std::map<trunk::PullRequestState, std::uint64_t> conclusions_since(trunk::Timestamp since) const;
  trunk::Timestamp now() const noexcept { return now_; }

 private:
  struct Submission {
    std::string id;
    std::int64_t number = 0;
    std::string title, author, sha;
    std::int64_t priority_value = kDefaultPriority.value;
    std::string priority_name;
    bool used_default_priority = false;
    bool no_batch = false;
    bool broken = false;
    trunk::PullRequestState state = trunk::PullRequestState::not_ready;
    trunk::Timestamp submitted_at, ready_at, state_changed_at;
    std::optional<trunk::Timestamp> concluded_at;
    std::optional<trunk::ImpactedTargets> targets;
    std::string targets_sha;
    std::optional<std::size_t> last_run;
    bool skip_the_line() const noexcept { return priority_value == 0; }
    bool concluded() const noexcept;
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
  enum class Phase { testing, passed, failed, bisecting };
  struct Unit {
    std::vector<std::size_t> members;  ///< submissions, in line order
    std::size_t run = 0;               ///< its current (main) run
    Phase phase = Phase::testing;
    std::vector<std::vector<std::size_t>> to_bisect;  ///< groups waiting for a bisection run
    std::vector<std::size_t> bisection_runs;          ///< bisection runs in progress
    std::vector<std::size_t> culprits, innocents;
  };

  std::optional<std::size_t> active(std::int64_t number) const;
  std::optional<std::size_t> latest(std::int64_t number) const;
  std::optional<std::size_t> unit_of(std::size_t submission) const;
  void set_state(std::size_t submission, trunk::PullRequestState state);
  void conclude(std::size_t submission, trunk::PullRequestState state);
  std::size_t start_run(std::vector<std::size_t> tested, std::vector<std::size_t> ahead, bool bisection,
                        const trunk::QueueSettings& settings);
  void stop_run(std::size_t run);
  /// Sends units [from, end) back to pending, abandoning their runs.
  void abandon_from(std::size_t from);
  void finish_run(std::size_t run);
  void settle(const trunk::QueueSettings& settings);
  void schedule(const trunk::QueueSettings& settings);
  std::vector<std::size_t> line() const;
  std::optional<trunk::Timestamp> next_event(const trunk::QueueSettings& settings) const;
  template <typename Out>
  void describe(const Submission& s, Out& out) const;

  std::string repo_key_, branch_;
  FailureModel model_;
  std::uint64_t queue_hash_;
  trunk::Timestamp now_;
  Random ids_;       ///< submission and run ids
  Random cursors_;   ///< listPullRequests cursors (apart, so listing does not change later ids)
  std::vector<Submission> submissions_;
  std::vector<TestRun> runs_;
  std::vector<Unit> train_;
  std::map<std::string, std::size_t> cursor_positions_;  ///< cursor -> index into submissions_
  QueueTally tally_;
};

}  // namespace trunk::sandbox
