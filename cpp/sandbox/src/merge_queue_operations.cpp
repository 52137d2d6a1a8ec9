// The merge queue's operations (submitPullRequest, cancelPullRequest, restartTestsOnPullRequest,
// setImpactedTargets): what each asks of the queue, and the refusals Trunk answers; the simulation they set
// going is merge_queue.cpp's.

#include "merge_queue.hpp"

#include "identifiers.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>

namespace trunk::sandbox {

namespace {

using trunk::PullRequestState;

/// The priority a submission asked for: its value and name, or the refusal of an unknown name.
std::variant<PriorityLevel, Refusal> resolve_priority(const trunk::Priority& priority) {
  if (const auto* value = std::get_if<std::int64_t>(&priority)) {
    for (const auto& level : kPriorityLevels) {
      if (level.value == *value) return level;
    }
    return PriorityLevel{"", *value};  // a custom number: its name is the number (see submit)
  }
  const std::string name = lower(std::get<std::string>(priority));
  for (const auto& level : kPriorityLevels) {
    if (level.name == name) return level;
  }
  std::string names;
  for (const auto& level : kPriorityLevels) names += (names.empty() ? "" : ", ") + std::string(level.name);
  return Refusal{400, "invalid request: priority: \"" + std::get<std::string>(priority) +
                          "\" must be a number 0..4294967295 or a priority name (" + names + ")"};
}

constexpr const char* kVerbs[] = {"Fix", "Add", "Refactor", "Speed up", "Document", "Remove", "Retry", "Cache"};
constexpr const char* kTopics[] = {"checkout flow", "payment retries", "login page", "build cache", "API client",
                                   "test fixtures", "release script", "search index", "feature flags"};
constexpr const char* kAuthors[] = {"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"};

template <typename T, std::size_t N>
const T& pick(const T (&items)[N], std::uint64_t bits) {
  return items[bits % N];
}

}  // namespace

std::optional<Refusal> MergeQueue::submit(const trunk::SubmitPullRequestRequest& request,
                                          const trunk::QueueSettings& settings, bool direct) {
  if (!QueuePolicy::of(settings).accepts_submissions || switching_) {
    return Refusal{400,
                   std::string(switching_ ? "queue is switching_modes" : "queue is draining") +
                       ": the merge queue for branch " + branch_ + " of repository " + repo_key_ +
                       " accepts no pull requests until it runs again",
                   422, "PR_NOT_ENQUEUEABLE"};
  }
  if (const auto i = active(request.pr.number)) {
    return Refusal{400,
                   "pr.number: " + std::to_string(request.pr.number) + " is already in the queue (" +
                       std::string(trunk::to_wire(submissions_[*i].state)) + ")",
                   409, "PR_ALREADY_ENQUEUED"};
  }
  PriorityLevel priority = kDefaultPriority;
  if (request.priority) {
    auto resolved = resolve_priority(*request.priority);
    if (auto* refusal = std::get_if<Refusal>(&resolved)) return std::move(*refusal);
    priority = std::get<PriorityLevel>(resolved);
  }
  Submission s;
  s.id = ids_.uuid();
  s.number = request.pr.number;
  const std::uint64_t h = mix64(text_hash(repo_key_) ^ mix64(static_cast<std::uint64_t>(s.number)));
  s.title = std::string(pick(kVerbs, h)) + " " + pick(kTopics, h >> 16);
  s.author = pick(kAuthors, h >> 32);
  s.sha = hex40(h);
  s.priority_value = priority.value;
  s.priority_name = priority.name.empty() ? std::to_string(priority.value) : std::string(priority.name);
  s.used_default_priority = !request.priority.has_value();
  s.no_batch = request.no_batch.value_or(false);
  s.direct = direct;
  s.broken = broken(s.number);
  s.submitted_at = s.state_changed_at = s.changed_at = now_;
  s.steps.push_back(Submission::Step{now_, PullRequestState::not_ready, reason::kApiRequested, std::nullopt});
  s.ready_at = now_ + kMergeabilityDelay;
  s.merges_at_submission = merges_;
  if (const auto early = early_targets_.find(s.number); early != early_targets_.end()) {
    // The pull request's head is the commit its targets were uploaded for (the Action uploads with GitHub's
    // real head sha, often before the submission).
    s.targets = std::move(early->second.targets);
    s.targets_sha = std::move(early->second.sha);
    s.sha = s.targets_sha;
    early_targets_.erase(early);
  }
  open_.push_back(submissions_.size());
  submissions_.push_back(std::move(s));
  ++tally_.submitted;
  if (listener_) {
    const Submission& added = submissions_.back();
    Transition t;
    t.at = now_;
    t.number = added.number;
    t.id = added.id;
    t.reason = reason::kApiRequested;
    t.author = added.author;
    t.submission = true;
    listener_(t);
  }
  return std::nullopt;
}

void MergeQueue::arrive(const trunk::QueueSettings& settings) {
  ArrivalPlan::Arrival arrival = arrivals_->take();
  const std::int64_t number = arrivals_->claim_number([this](std::int64_t n) { return latest(n).has_value(); });
  EarlyTargets early;
  if (arrival.all_targets) {
    early.targets = trunk::AllTargets::all;
  } else {
    early.targets = std::move(arrival.targets);
  }
  early.sha = hex40(mix64(queue_hash_ ^ kArrivalDice ^ mix64(static_cast<std::uint64_t>(number))));
  early_targets_[number] = std::move(early);
  trunk::SubmitPullRequestRequest request;
  request.pr.number = number;
  request.target_branch = branch_;
  if (arrival.priority) request.priority = *arrival.priority;
  if (submit(request, settings)) early_targets_.erase(number);
}

std::optional<Refusal> MergeQueue::cancel(std::int64_t number, const trunk::QueueSettings& settings) {
  const QueuePolicy policy = QueuePolicy::of(settings);
  const auto i = active(number);
  if (!i) {
    if (const auto last = latest(number)) {
      return Refusal{400,
                     "pr.number: " + std::to_string(number) + " is already concluded (" +
                         std::string(trunk::to_wire(submissions_[*last].state)) + "): nothing to cancel",
                     409, "PR_NOT_IN_ACTIVE_STATE"};
    }
    return Refusal{404,
                   "not found: pull request " + std::to_string(number) + " is not in the merge queue for branch " +
                       branch_ + " of repository " + repo_key_,
                   409, "PR_NOT_IN_ACTIVE_STATE"};
  }
  take_out(*i, reason::kUserRequested);
  settle(policy);
  schedule(policy);
  return std::nullopt;
}

void MergeQueue::take_out(std::size_t submission, std::string_view why) {
  const auto unit = unit_of(submission);
  transition(submission, PullRequestState::cancelled, why);
  if (unit) abandon({train_[*unit].serial}, reason::kPrerequisiteCancelled);
  if (const auto g = group_of(submission)) {
    // Out of its bisection group: the rest is tested again without it.
    BisectionGroup& group = bisection_[*g];
    if (group.run) stop_run(*group.run);
    group.run.reset();
    std::erase(group.members, submission);
    std::erase(group.deferred, submission);
    for (const std::size_t m : group.members) transition(m, PullRequestState::pending, reason::kPrerequisiteCancelled);
    if (group.members.empty()) {
      group.members = std::move(group.deferred);
      group.deferred.clear();
    }
    if (group.members.empty()) bisection_.erase(bisection_.begin() + static_cast<std::ptrdiff_t>(*g));
  }
}

std::optional<Refusal> MergeQueue::restart(std::int64_t number, const trunk::QueueSettings& settings) {
  const QueuePolicy policy = QueuePolicy::of(settings);
  const auto i = active(number);
  if (!i) {
    return Refusal{404,
                   "not found: pull request " + std::to_string(number) + " is not in the merge queue for branch " +
                       branch_ + " of repository " + repo_key_,
                   409, "PR_NOT_IN_ACTIVE_STATE"};
  }
  const PullRequestState state = submissions_[*i].state;
  const auto k = unit_of(*i);
  const auto g = group_of(*i);
  const bool in_bisection_run = g && bisection_[*g].run && state == PullRequestState::testing;
  if (!(k || in_bisection_run) || !part_of_a_run(state)) {
    return Refusal{400,
                   "pr.number: " + std::to_string(number) + " is " + std::string(trunk::to_wire(state)) +
                       ": only a pull request testing, tests_passed or pending_failure has tests to restart",
                   422, "PR_TESTS_NOT_RESTARTABLE"};
  }
  if (k) {
    abandon({train_[*k].serial}, reason::kRestartedByApi);
  } else {
    BisectionGroup& group = bisection_[*g];
    stop_run(*group.run);
    group.run.reset();
    for (const std::size_t m : group.members) transition(m, PullRequestState::pending, reason::kRestartedByApi);
  }
  settle(policy);
  schedule(policy);
  return std::nullopt;
}

std::optional<Refusal> MergeQueue::change_entry(std::int64_t number, const EntryChange& change,
                                                const trunk::QueueSettings& settings) {
  const auto i = active(number);
  if (!i) {
    return Refusal{404,
                   "pull request " + std::to_string(number) + " is not in the merge queue for branch " + branch_ +
                       " of repository " + repo_key_,
                   409, "PR_NOT_IN_ACTIVE_STATE"};
  }
  Submission& s = submissions_[*i];
  if (change.priority) {
    auto resolved = resolve_priority(*change.priority);
    if (auto* refusal = std::get_if<Refusal>(&resolved)) return std::move(*refusal);
    const PriorityLevel priority = std::get<PriorityLevel>(resolved);
    s.priority_value = priority.value;
    s.priority_name = priority.name.empty() ? std::to_string(priority.value) : std::string(priority.name);
    s.used_default_priority = false;
  }
  if (change.no_batch) s.no_batch = *change.no_batch;
  if (change.direct) s.direct = *change.direct;
  s.changed_at = now_;
  schedule(QueuePolicy::of(settings));  // a pending one may now come first in the line (urgent: at once)
  return std::nullopt;
}

std::optional<Refusal> MergeQueue::set_impacted_targets(const trunk::SetImpactedTargetsRequest& request,
                                                        const trunk::QueueSettings& settings) {
  const auto i = active(request.pr.number);
  if (!i) {  // reported before the submission: kept for it (early_targets_)
    if (early_targets_.size() >= kMaxEarlyTargets && !early_targets_.contains(request.pr.number)) {
      early_targets_.erase(early_targets_.begin());
    }
    early_targets_.insert_or_assign(request.pr.number, EarlyTargets{request.targets, request.pr.sha});
    return std::nullopt;
  }
  const QueuePolicy policy = QueuePolicy::of(settings);
  Submission& s = submissions_[*i];
  s.targets = request.targets;
  s.targets_sha = request.pr.sha;
  if (request.pr.sha != s.sha) {
    // Targets of a new head commit: the publisher's Action uploads them on every push, so the pull request's
    // head moves there. One whose run tested the old head leaves the queue as Trunk takes out a pull request
    // pushed to (PR_PUSHED_TO); its targets wait for its next submission.
    s.sha = request.pr.sha;
    s.changed_at = now_;
    if (part_of_a_run(s.state)) {
      early_targets_.insert_or_assign(request.pr.number, EarlyTargets{request.targets, request.pr.sha});
      take_out(*i, reason::kPrPushedTo);
      settle(policy);
    }
  }
  schedule(policy);  // in parallel mode it may start now
  return std::nullopt;
}

}  // namespace trunk::sandbox
