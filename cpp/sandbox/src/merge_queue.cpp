// The running of one merge queue (merge_queue.hpp): lookups, changes of state, runs, and the clock moving it on.

#include "merge_queue.hpp"

#include "identifiers.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

namespace trunk::sandbox {

namespace {

using trunk::PullRequestState;

/// The reason a pull request fails with, by the cause of its failed run.
std::string_view failure_reason(FailureCause cause) {
  return cause == FailureCause::timeout ? reason::kTestRunTimeout : reason::kRequiredStatusFailed;
}

}  // namespace

std::string_view cause_name(FailureCause cause) noexcept {
  switch (cause) {
    case FailureCause::flaky: return "flaky";
    case FailureCause::broken: return "broken";
    case FailureCause::timeout: return "timeout";
  }
  return "";
}

bool MergeQueue::Submission::concluded() const noexcept {
  return state == PullRequestState::merged || state == PullRequestState::failed ||
         state == PullRequestState::cancelled;
}

MergeQueue::MergeQueue(std::string repo_key, std::string branch, FailureModel model, trunk::Timestamp now,
                       RunDuration sandbox_duration)
    : repo_key_(std::move(repo_key)),
      branch_(std::move(branch)),
      model_(model),
      sandbox_duration_(std::move(sandbox_duration)),
      rules_(RunRules::of(controls_, sandbox_duration_, model_)),
      queue_hash_(text_hash(repo_key_ + "\n" + branch_)),
      now_(now),
      ids_(mix64(model.seed ^ queue_hash_)),
      cursors_(mix64(model.seed ^ queue_hash_ ^ 0x637572736F72ULL)) {}

void MergeQueue::set_failure_model(const FailureModel& model) {
  model_ = model;
  rules_ = RunRules::of(controls_, sandbox_duration_, model_);
}

void MergeQueue::set_controls(const QueueControls& controls) {
  if (controls.arrivals != controls_.arrivals) {
    arrivals_.reset();
    if (controls.arrivals) arrivals_.emplace(*controls.arrivals, mix64(model_.seed ^ queue_hash_ ^ kArrivalDice), now_);
  }
  controls_ = controls;
  rules_ = RunRules::of(controls_, sandbox_duration_, model_);
}

void MergeQueue::set_script(std::int64_t number, const PullRequestScript& script) {
  scripts_[number] = script;
  if (const auto i = active(number)) submissions_[*i].broken = broken(number);
}

bool MergeQueue::broken(std::int64_t number) const {
  if (const auto script = scripts_.find(number); script != scripts_.end() && script->second.broken) {
    return *script->second.broken;
  }
  return rules_.model.broken(repo_key_, number);
}

ScriptedRun MergeQueue::take_scripts(const std::vector<std::size_t>& tested) {
  ScriptedRun scripted;
  for (const std::size_t i : tested) {
    const auto script = scripts_.find(submissions_[i].number);
    if (script == scripts_.end()) continue;
    scripted.add(script->second);
    script->second.next_run.reset();
    script->second.next_run_minutes.reset();
    if (!script->second.broken) scripts_.erase(script);  // used up
  }
  return scripted;
}

std::string_view queue_type_name(QueueType type) noexcept {
  return type == QueueType::bisection ? "bisection" : "main";
}

// ---- lookups ---------------------------------------------------------------------------------------------

std::optional<std::size_t> MergeQueue::active(std::int64_t number) const {
  for (const std::size_t i : open_) {
    if (submissions_[i].number == number) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> MergeQueue::latest(std::int64_t number) const {
  for (std::size_t i = submissions_.size(); i-- > 0;) {
    if (submissions_[i].number == number) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> MergeQueue::unit_of(std::size_t submission) const {
  for (std::size_t k = 0; k < train_.size(); ++k) {
    const auto& members = train_[k].members;
    if (std::find(members.begin(), members.end(), submission) != members.end()) return k;
  }
  return std::nullopt;
}

std::optional<std::size_t> MergeQueue::group_of(std::size_t submission) const {
  for (std::size_t g = 0; g < bisection_.size(); ++g) {
    const auto& group = bisection_[g];
    if (std::find(group.members.begin(), group.members.end(), submission) != group.members.end() ||
        std::find(group.deferred.begin(), group.deferred.end(), submission) != group.deferred.end()) {
      return g;
    }
  }
  return std::nullopt;
}

bool MergeQueue::waits_for_targets(const Submission& s) const noexcept {
  return parallel_ && s.queue_type == QueueType::main && !s.has_targets();
}

std::vector<std::size_t> MergeQueue::line() const {
  std::vector<std::size_t> pending;
  pending.reserve(open_.size());
  for (const std::size_t i : open_) {
    const Submission& s = submissions_[i];
    if (s.state == PullRequestState::pending && s.queue_type == QueueType::main && !waits_for_targets(s)) {
      pending.push_back(i);
    }
  }
  const auto by_priority = [&](std::size_t a, std::size_t b) {
    return submissions_[a].priority_value < submissions_[b].priority_value;
  };
  // Usually every priority is the same: a backlog of thousands (a twin's overloaded configuration) is then in
  // line already, and sorting it at every event made a month's simulation quadratic in its length.
  if (!std::is_sorted(pending.begin(), pending.end(), by_priority)) {
    std::stable_sort(pending.begin(), pending.end(), by_priority);
  }
  return pending;
}

MergeQueue::Footprint MergeQueue::footprint_of(const std::vector<std::size_t>& members) const {
  Footprint out;
  out.all = !parallel_;
  for (const std::size_t m : members) {
    const Submission& s = submissions_[m];
    if (!s.targets || std::holds_alternative<trunk::AllTargets>(*s.targets)) {
      out.all = true;
      continue;
    }
    const auto& names = std::get<std::vector<std::string>>(*s.targets);
    out.targets.insert(out.targets.end(), names.begin(), names.end());
  }
  std::sort(out.targets.begin(), out.targets.end());
  out.targets.erase(std::unique(out.targets.begin(), out.targets.end()), out.targets.end());
  return out;
}

bool MergeQueue::overlaps(const Footprint& a, const Footprint& b) {
  if (a.all || b.all) return true;
  auto i = a.targets.begin();
  auto j = b.targets.begin();
  while (i != a.targets.end() && j != b.targets.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

std::size_t MergeQueue::depth(QueueType type) const {
  return static_cast<std::size_t>(std::count_if(open_.begin(), open_.end(), [&](std::size_t i) {
    const Submission& s = submissions_[i];
    return s.queue_type == type && s.state != PullRequestState::not_ready && !waits_for_targets(s);
  }));
}

std::size_t MergeQueue::awaiting_mergeability() const {
  return static_cast<std::size_t>(std::count_if(open_.begin(), open_.end(), [&](std::size_t i) {
    const Submission& s = submissions_[i];
    return s.state == PullRequestState::not_ready || waits_for_targets(s);
  }));
}

std::size_t MergeQueue::testing(QueueType type) const {
  return static_cast<std::size_t>(std::count_if(open_.begin(), open_.end(), [&](std::size_t i) {
    return submissions_[i].queue_type == type && submissions_[i].state == PullRequestState::testing;
  }));
}

std::size_t MergeQueue::slots_held(QueueType type) const {
  if (type == QueueType::main) return train_.size();
  return static_cast<std::size_t>(
      std::count_if(bisection_.begin(), bisection_.end(), [](const BisectionGroup& g) { return g.run.has_value(); }));
}

// ---- state changes ---------------------------------------------------------------------------------------

void MergeQueue::transition(std::size_t submission, PullRequestState to, std::string_view why,
                            std::optional<QueueType> move_to) {
  Submission& s = submissions_[submission];
  if (s.concluded()) return;  // a concluded pull request never changes
  const QueueType before = s.queue_type;
  if (move_to) s.queue_type = *move_to;
  if (s.state == to && before == s.queue_type) return;
  Transition t;
  t.at = now_;
  t.number = s.number;
  t.id = s.id;
  t.from = s.state;
  t.to = to;
  t.queue_type = before == QueueType::bisection || s.queue_type == QueueType::bisection ? QueueType::bisection
                                                                                        : QueueType::main;
  t.reason = why;
  t.in_from_state = now_ - s.state_changed_at;
  if (!s.entered_at && s.state == PullRequestState::not_ready && to == PullRequestState::pending) s.entered_at = now_;
  if (s.entered_at) t.in_queue = now_ - *s.entered_at;
  t.author = s.author;
  if (s.last_run) {
    const TestRun& run = runs_[*s.last_run];
    t.run_id = run.id;
    for (const std::size_t m : run.tested) t.tested_together.push_back(submissions_[m].number);
    t.test_branch = test_branch_of(run);
    t.test_branch_sha = hex40(text_hash(run.id));
    t.test_pr_number = kFirstTestPullRequest + static_cast<std::int64_t>(*s.last_run);
    t.bisection_run = run.bisection;
  }

  s.state = to;
  s.state_changed_at = s.changed_at = now_;
  s.reason = why;
  s.steps.push_back(Submission::Step{now_, to, why, s.last_run});
  if (s.concluded()) {
    s.concluded_at = now_;
    open_.erase(std::find(open_.begin(), open_.end(), submission));
    if (to == PullRequestState::merged) {
      ++tally_.merged;
      ++merges_;
      const double seconds = std::chrono::duration<double>(now_ - s.submitted_at).count();
      const auto bucket = std::lower_bound(std::begin(kTimeToMergeBuckets), std::end(kTimeToMergeBuckets), seconds);
      ++tally_.time_to_merge_buckets[static_cast<std::size_t>(bucket - std::begin(kTimeToMergeBuckets))];
      tally_.time_to_merge_sum_seconds += seconds;
    } else if (to == PullRequestState::failed) {
      ++tally_.failed;
    } else {
      ++tally_.cancelled;
    }
  }
  recent_.push_back(t);
  while (!recent_.empty() && recent_.front().at < now_ - kTransitionWindow) recent_.pop_front();
  if (listener_) listener_(recent_.back());
}

std::size_t MergeQueue::start_run(std::vector<std::size_t> tested, std::vector<std::size_t> ahead, bool bisection,
                                  const QueuePolicy& policy) {
  const std::size_t serial = runs_.size();
  const std::uint64_t dice = mix64(mix64(model_.seed ^ queue_hash_) ^ (serial + 1));
  const ScriptedRun scripted = take_scripts(tested);
  const double minutes = scripted.minutes.value_or(draw_run_minutes(rules_.duration, dice));

  TestRun run;
  run.id = ids_.uuid();
  run.bisection = bisection;
  run.created_at = now_;
  if (minutes > static_cast<double>(policy.testing_timeout.count())) {
    run.ends_at = now_ + policy.testing_timeout;
    run.planned_failure = FailureCause::timeout;
  } else {
    run.ends_at = now_ + std::chrono::microseconds(std::llround(minutes * 60e6));
    const auto is_broken = [&](std::size_t i) { return submissions_[i].broken; };
    if (std::any_of(tested.begin(), tested.end(), is_broken) || std::any_of(ahead.begin(), ahead.end(), is_broken)) {
      run.planned_failure = FailureCause::broken;
    } else if (scripted.fails || (!scripted.passes && unit_interval(mix64(dice ^ 3)) < rules_.model.flaky_run_failure)) {
      run.planned_failure = FailureCause::flaky;
    }
  }
  run.tested = tested;
  run.ahead = std::move(ahead);
  runs_.push_back(std::move(run));  // first: a transition reads its run
  live_runs_.push_back(serial);
  for (const std::size_t i : tested) {
    submissions_[i].last_run = serial;
    transition(i, PullRequestState::testing, reason::kTestRunStarted);
  }
  ++tally_.runs_started;
  if (bisection) ++tally_.bisection_runs_started;
  return serial;
}

void MergeQueue::stop_run(std::size_t run) {
  TestRun& r = runs_[run];
  if (r.status != trunk::TestingStatus::in_progress) return;
  r.status = trunk::TestingStatus::cancelled;
  r.finished_at = now_;
  live_runs_.erase(std::find(live_runs_.begin(), live_runs_.end(), run));
  ++tally_.runs_cancelled;
}

std::vector<std::uint64_t> MergeQueue::dependents_of(std::uint64_t serial) const {
  std::vector<std::uint64_t> out;
  for (const Unit& unit : train_) {
    if (std::binary_search(unit.deps.begin(), unit.deps.end(), serial)) out.push_back(unit.serial);
  }
  return out;
}

void MergeQueue::abandon(const std::vector<std::uint64_t>& serials, std::string_view why) {
  if (serials.empty()) return;
  const auto hit = [&](const Unit& unit) {
    if (std::find(serials.begin(), serials.end(), unit.serial) != serials.end()) return true;
    return std::any_of(serials.begin(), serials.end(),
                       [&](std::uint64_t s) { return std::binary_search(unit.deps.begin(), unit.deps.end(), s); });
  };
  std::vector<Unit> kept;
  for (Unit& unit : train_) {
    if (!hit(unit)) {
      kept.push_back(std::move(unit));
      continue;
    }
    stop_run(unit.run);
    for (const std::size_t m : unit.members) {
      if (!submissions_[m].concluded()) transition(m, PullRequestState::pending, why);
    }
  }
  train_ = std::move(kept);
}

void MergeQueue::finish_run(std::size_t run) {
  TestRun& r = runs_[run];
  r.finished_at = r.ends_at;
  live_runs_.erase(std::find(live_runs_.begin(), live_runs_.end(), run));
  const bool passed = !r.planned_failure;
  r.status = passed ? trunk::TestingStatus::succeeded : trunk::TestingStatus::failed;
  const FailureCause cause = r.planned_failure.value_or(FailureCause::flaky);
  if (passed) {
    ++tally_.runs_passed;
  } else {
    ++tally_.runs_failed[cause];
  }
  for (Unit& unit : train_) {
    if (unit.run != run || unit.phase != Phase::testing) continue;
    unit.phase = passed ? Phase::passed : Phase::failed;
    unit.cause = cause;
    for (const std::size_t m : unit.members) {
      transition(m, passed ? PullRequestState::tests_passed : PullRequestState::pending_failure,
                 passed ? reason::kTestRunPassed : failure_reason(cause));
    }
    return;
  }
  for (std::size_t g = 0; g < bisection_.size(); ++g) {
    if (bisection_[g].run == run) return finish_bisection_run(g, passed, cause);
  }
}

void MergeQueue::finish_bisection_run(std::size_t g, bool passed, FailureCause cause) {
  BisectionGroup group = std::move(bisection_[g]);
  bisection_.erase(bisection_.begin() + static_cast<std::ptrdiff_t>(g));
  if (passed) {
    for (const std::size_t m : group.members) {
      transition(m, PullRequestState::pending, reason::kBisectionPassed, QueueType::main);
    }
    // The parent failed and this half passed: the failure is in the other half (optimization mode).
    if (!group.deferred.empty()) fail_known(std::move(group.deferred), group.cause);
    return;
  }
  if (!group.deferred.empty()) {
    // Both halves may hold a culprit: the sibling needs a run of its own.
    for (const std::size_t m : group.deferred) {
      transition(m, PullRequestState::pending, reason::kBisectionRequired, QueueType::bisection);
    }
    bisection_.push_back(BisectionGroup{std::move(group.deferred), std::nullopt, {}, group.cause});
  }
  fail_known(std::move(group.members), cause);
}

void MergeQueue::fail_known(std::vector<std::size_t> members, FailureCause cause) {
  if (members.size() == 1) {
    transition(members.front(), PullRequestState::failed, failure_reason(cause), QueueType::bisection);
    return;
  }
  split_for_bisection(std::move(members), cause);
}

void MergeQueue::split_for_bisection(std::vector<std::size_t> members, FailureCause cause) {
  for (const std::size_t m : members) {
    transition(m, PullRequestState::pending, reason::kBisectionRequired, QueueType::bisection);
  }
  const auto half = static_cast<std::ptrdiff_t>(members.size() / 2);
  std::vector<std::size_t> first(members.begin(), members.begin() + half), second(members.begin() + half, members.end());
  if (optimize_bisection_) {
    bisection_.push_back(BisectionGroup{std::move(first), std::nullopt, std::move(second), cause});
  } else {
    bisection_.push_back(BisectionGroup{std::move(first), std::nullopt, {}, cause});
    bisection_.push_back(BisectionGroup{std::move(second), std::nullopt, {}, cause});
  }
}

void MergeQueue::settle(const QueuePolicy& policy) {
  if (switching_ && train_.empty() && bisection_.empty()) switching_ = false;
  if (!policy.outcomes_apply) return;  // paused: a decided unit waits in its state for the resume
  const auto in_train = [&](std::uint64_t serial) {
    return std::any_of(train_.begin(), train_.end(), [&](const Unit& u) { return u.serial == serial; });
  };
  const auto unit_with = [&](std::uint64_t serial) -> Unit* {
    for (Unit& u : train_) {
      if (u.serial == serial) return &u;
    }
    return nullptr;
  };
  for (bool changed = true; changed;) {
    changed = false;
    if (policy.optimistic_merge) {
      // A passing run included every unit it was tested on top of: they pass with it.
      for (std::size_t k = train_.size(); k-- > 0;) {
        if (train_[k].phase != Phase::passed) continue;
        for (const std::uint64_t dep : train_[k].deps) {
          Unit* ahead = unit_with(dep);
          if (ahead == nullptr || ahead->phase == Phase::passed) continue;
          stop_run(ahead->run);
          ahead->phase = Phase::passed;
          for (const std::size_t m : ahead->members) transition(m, PullRequestState::tests_passed, reason::kSuccessorPassed);
        }
      }
    }
    for (std::size_t k = 0; k < train_.size() && !changed; ++k) {
      Unit& unit = train_[k];
      if (unit.phase == Phase::testing) continue;
      if (std::any_of(unit.deps.begin(), unit.deps.end(), in_train)) continue;  // predecessors first
      if (unit.phase == Phase::passed) {
        const std::vector<std::size_t> members = unit.members;
        train_.erase(train_.begin() + static_cast<std::ptrdiff_t>(k));
        for (const std::size_t m : members) transition(m, PullRequestState::merged, reason::kMergeGraphMerge);
        changed = true;
        break;
      }
      // Failed, its predecessors merged: it waits for pending_failure_depth successors to finish testing.
      const std::vector<std::uint64_t> successors = dependents_of(unit.serial);
      const std::size_t wait_for = std::min(policy.pending_failure_depth, successors.size());
      const bool waiting = std::any_of(successors.begin(), successors.begin() + static_cast<std::ptrdiff_t>(wait_for),
                                       [&](std::uint64_t s) { return unit_with(s)->phase == Phase::testing; });
      if (waiting) continue;
      const Unit failed = unit;
      train_.erase(train_.begin() + static_cast<std::ptrdiff_t>(k));
      abandon(successors, reason::kPrerequisiteFailed);
      if (failed.members.size() == 1) {
        transition(failed.members.front(), PullRequestState::failed, failure_reason(failed.cause));
      } else {
        split_for_bisection(failed.members, failed.cause);
      }
      changed = true;
    }
  }
  if (switching_ && train_.empty() && bisection_.empty()) switching_ = false;
}

void MergeQueue::schedule(const QueuePolicy& policy) {
  if (!policy.runs_start) return;
  for (BisectionGroup& group : bisection_) {
    if (slots_held(QueueType::bisection) >= policy.bisection_concurrency) break;
    if (!group.run) group.run = start_run(group.members, {}, true, policy);
  }
  if (!policy.admits_new_units || switching_) return;
  admit(policy);
}

void MergeQueue::admit(const QueuePolicy& policy) {
  std::vector<std::size_t> waiting = line();
  if (!waiting.empty() && submissions_[waiting.front()].skip_the_line()) {
    // Urgent: interrupt the units it would be tested behind, and make room for it.
    const Footprint urgent = footprint_of({waiting.front()});
    std::vector<std::uint64_t> victims;
    for (const Unit& unit : train_) {
      const bool all_urgent = std::all_of(unit.members.begin(), unit.members.end(),
                                          [&](std::size_t m) { return submissions_[m].skip_the_line(); });
      if (!all_urgent && overlaps(unit.footprint, urgent)) victims.push_back(unit.serial);
    }
    abandon(victims, reason::kSkipTheLineInterrupted);
    while (train_.size() >= policy.concurrency) {
      const auto last = std::find_if(train_.rbegin(), train_.rend(), [&](const Unit& unit) {
        return !std::all_of(unit.members.begin(), unit.members.end(),
                            [&](std::size_t m) { return submissions_[m].skip_the_line(); });
      });
      if (last == train_.rend()) break;
      abandon({last->serial}, reason::kSkipTheLineInterrupted);
    }
    waiting = line();
  }

  const QueuePolicy::Batching& batching = policy.batching;
  std::vector<Footprint> blocked;  // what waits behind a failure: nothing overlapping it may overtake it
  const auto is_blocked = [&](const Footprint& f) {
    return std::any_of(blocked.begin(), blocked.end(), [&](const Footprint& b) { return overlaps(b, f); });
  };
  std::size_t next = 0;
  while (train_.size() < policy.concurrency && next < waiting.size()) {
    std::vector<std::size_t> members{waiting[next]};
    // Urgent starts at once, batching or not: it takes into its batch only other urgent pull requests and does
    // not wait for the batch to fill.
    const bool urgent = submissions_[waiting[next]].skip_the_line();
    if (batching.on && !submissions_[waiting[next]].no_batch) {
      for (std::size_t c = next + 1; c < waiting.size() && members.size() < batching.max_size; ++c) {
        if (submissions_[waiting[c]].no_batch || is_blocked(footprint_of({waiting[c]}))) break;
        if (urgent && !submissions_[waiting[c]].skip_the_line()) break;
        members.push_back(waiting[c]);
      }
      if (members.size() < batching.min_size && !urgent) {
        trunk::Timestamp oldest = now_;
        for (const std::size_t i : members) oldest = std::min(oldest, submissions_[i].state_changed_at);
        if (now_ - oldest < batching.max_wait) return;  // wait for more, up to the oldest's deadline
      }
    }
    Footprint footprint = footprint_of(members);
    std::vector<std::uint64_t> deps;
    bool on_a_failure = is_blocked(footprint);
    for (const Unit& unit : train_) {
      if (!overlaps(unit.footprint, footprint)) continue;
      deps.push_back(unit.serial);
      deps.insert(deps.end(), unit.deps.begin(), unit.deps.end());
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    std::vector<std::size_t> ahead;
    for (const Unit& unit : train_) {
      if (!std::binary_search(deps.begin(), deps.end(), unit.serial)) continue;
      if (unit.phase == Phase::failed) on_a_failure = true;
      ahead.insert(ahead.end(), unit.members.begin(), unit.members.end());
    }
    if (on_a_failure) {
      blocked.push_back(footprint_of({waiting[next]}));
      ++next;
      continue;
    }
    next += members.size();
    const std::size_t run = start_run(members, std::move(ahead), false, policy);
    train_.push_back(Unit{next_unit_++, std::move(members), run, Phase::testing, FailureCause::flaky, std::move(deps),
                          std::move(footprint)});
  }
}

std::optional<trunk::Timestamp> MergeQueue::next_event(const trunk::QueueSettings& settings) const {
  auto next = next_event(QueuePolicy::of(settings));
  if (const auto arrival = arrivals_ ? arrivals_->next() : std::nullopt; arrival && (!next || *arrival < *next)) {
    next = arrival;
  }
  return next;
}

std::optional<trunk::Timestamp> MergeQueue::next_event(const QueuePolicy& policy) const {
  std::optional<trunk::Timestamp> next;
  const auto consider = [&](trunk::Timestamp t) {
    if (t > now_ && (!next || t < *next)) next = t;
  };
  for (const std::size_t i : open_) {
    const Submission& s = submissions_[i];
    if (s.state == PullRequestState::not_ready) consider(s.ready_at);
    if (policy.batching.on && s.state == PullRequestState::pending) consider(s.state_changed_at + policy.batching.max_wait);
  }
  for (const std::size_t r : live_runs_) consider(runs_[r].ends_at);
  return next;
}

void MergeQueue::adopt_mode(const QueuePolicy& policy) {
  parallel_ = policy.parallel;
  optimize_bisection_ = policy.optimize_bisection;
}

void MergeQueue::begin_mode_switch() {
  if (!open_.empty()) switching_ = true;
}

void MergeQueue::turn_mergeable(const QueuePolicy& policy) {
  std::vector<std::size_t> ready;
  for (const std::size_t i : open_) {
    if (submissions_[i].state == PullRequestState::not_ready && submissions_[i].ready_at <= now_) ready.push_back(i);
  }
  for (const std::size_t i : ready) transition(i, PullRequestState::pending, reason::kNowReady);
  for (const std::size_t i : ready) {
    const Submission& s = submissions_[i];
    const bool alone = std::none_of(open_.begin(), open_.end(), [&](std::size_t j) {
      return j != i && submissions_[j].state != PullRequestState::not_ready;
    });
    if ((policy.direct_merge_always || s.direct) && alone && policy.admits_new_units && !switching_ && !s.broken &&
        s.merges_at_submission == merges_ && !waits_for_targets(s)) {
      transition(i, PullRequestState::merged, reason::kDirectMerge);
    }
  }
}

void MergeQueue::finish_due_runs() {
  std::vector<std::size_t> due;
  for (const std::size_t r : live_runs_) {
    if (runs_[r].ends_at <= now_) due.push_back(r);
  }
  std::stable_sort(due.begin(), due.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(runs_[a].ends_at, a) < std::tie(runs_[b].ends_at, b);
  });
  for (const std::size_t r : due) {
    if (runs_[r].status == trunk::TestingStatus::in_progress) finish_run(r);  // an earlier one may have stopped it
  }
}

void MergeQueue::tick(const QueuePolicy& policy) {
  turn_mergeable(policy);
  finish_due_runs();
  settle(policy);
  schedule(policy);
}

void MergeQueue::advance_to(trunk::Timestamp now, const trunk::QueueSettings& settings) {
  // The settings hold for the whole advance: the caller applies a change at the time it happens.
  const QueuePolicy policy = QueuePolicy::of(settings);
  adopt_mode(policy);
  tick(policy);
  for (;;) {
    const auto next = next_event(policy);
    const auto arrival = arrivals_ ? arrivals_->next() : std::nullopt;
    if (arrival && *arrival <= now && (!next || *arrival <= *next)) {
      // What is due at the arrival's instant happens first, then the submission, as an API call at that moment.
      if (*arrival > now_) now_ = *arrival;
      tick(policy);
      arrive(settings);
      continue;
    }
    if (!next || *next > now) break;
    now_ = *next;
    tick(policy);
  }
  if (now > now_) now_ = now;
  while (!recent_.empty() && recent_.front().at < now_ - kTransitionWindow) recent_.pop_front();
}

}  // namespace trunk::sandbox
