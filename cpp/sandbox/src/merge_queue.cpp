#include "merge_queue.hpp"

#include "identifiers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

namespace trunk::sandbox {

namespace {

using trunk::PullRequestState;

trunk::QueueState state_of(const trunk::QueueSettings& settings) {
  return settings.state && settings.state->known() ? *settings.state->known() : trunk::QueueState::running;
}

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

MergeQueue::MergeQueue(std::string repo_key, std::string branch, FailureModel model, trunk::Timestamp now)
    : repo_key_(std::move(repo_key)),
      branch_(std::move(branch)),
      model_(model),
      queue_hash_(text_hash(repo_key_ + "\n" + branch_)),
      now_(now),
      ids_(mix64(model.seed ^ queue_hash_)),
      cursors_(mix64(model.seed ^ queue_hash_ ^ 0x637572736F72ULL)) {}

// ---- lookups ---------------------------------------------------------------------------------------------

std::optional<std::size_t> MergeQueue::active(std::int64_t number) const {
  for (std::size_t i = submissions_.size(); i-- > 0;) {
    if (submissions_[i].number == number && !submissions_[i].concluded()) return i;
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

std::vector<std::size_t> MergeQueue::line() const {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < submissions_.size(); ++i) {
    if (submissions_[i].state == PullRequestState::pending) pending.push_back(i);
  }
  std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
    return submissions_[a].priority_value < submissions_[b].priority_value;
  });
  return pending;
}

std::size_t MergeQueue::unconcluded() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(submissions_.begin(), submissions_.end(), [](const Submission& s) { return !s.concluded(); }));
}

// ---- state changes ---------------------------------------------------------------------------------------

void MergeQueue::set_state(std::size_t submission, PullRequestState state) {
  Submission& s = submissions_[submission];
  if (s.state == state) return;
  s.state = state;
  s.state_changed_at = now_;
}

void MergeQueue::conclude(std::size_t submission, PullRequestState state) {
  set_state(submission, state);
  Submission& s = submissions_[submission];
  s.concluded_at = now_;
  if (state == PullRequestState::merged) {
    ++tally_.merged;
    tally_.time_to_merge_seconds.push_back(std::chrono::duration<double>(now_ - s.submitted_at).count());
  } else if (state == PullRequestState::failed) {
    ++tally_.failed;
  } else {
    ++tally_.cancelled;
  }
}

std::size_t MergeQueue::start_run(std::vector<std::size_t> tested, std::vector<std::size_t> ahead, bool bisection,
                                  const trunk::QueueSettings& settings) {
  const std::size_t serial = runs_.size();
  const std::uint64_t dice = mix64(mix64(model_.seed ^ queue_hash_) ^ (serial + 1));
  // Box-Muller from two of the run's dice: a lognormal duration around the median.
  const double u1 = std::max(unit_interval(mix64(dice ^ 1)), 1e-12);
  const double u2 = unit_interval(mix64(dice ^ 2));
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  const double minutes = std::max(1.0, kMedianRunMinutes * std::exp(kRunDurationSigma * z));
  const double timeout = static_cast<double>(settings.testing_timeout_minutes.value_or(240));

  TestRun run;
  run.id = ids_.uuid();
  run.bisection = bisection;
  run.created_at = now_;
  if (minutes > timeout) {
    run.ends_at = now_ + std::chrono::minutes(settings.testing_timeout_minutes.value_or(240));
    run.planned_failure = FailureCause::timeout;
  } else {
    run.ends_at = now_ + std::chrono::microseconds(std::llround(minutes * 60e6));
    const auto is_broken = [&](std::size_t i) { return submissions_[i].broken; };
    if (std::any_of(tested.begin(), tested.end(), is_broken) || std::any_of(ahead.begin(), ahead.end(), is_broken)) {
      run.planned_failure = FailureCause::broken;
    } else if (unit_interval(mix64(dice ^ 3)) < model_.flaky_run_failure) {
      run.planned_failure = FailureCause::flaky;
    }
  }
  for (const std::size_t i : tested) {
    set_state(i, PullRequestState::testing);
    submissions_[i].last_run = serial;
  }
  run.tested = std::move(tested);
  run.ahead = std::move(ahead);
  runs_.push_back(std::move(run));
  ++tally_.runs_started;
  if (bisection) ++tally_.bisection_runs_started;
  return serial;
}

void MergeQueue::stop_run(std::size_t run) {
  TestRun& r = runs_[run];
  if (r.status != trunk::TestingStatus::in_progress) return;
  r.status = trunk::TestingStatus::cancelled;
  r.finished_at = now_;
  ++tally_.runs_cancelled;
}

void MergeQueue::abandon_from(std::size_t from) {
  for (std::size_t k = from; k < train_.size(); ++k) {
    stop_run(train_[k].run);
    for (const std::size_t run : train_[k].bisection_runs) stop_run(run);
    for (const std::size_t m : train_[k].members) {
      if (!submissions_[m].concluded()) set_state(m, PullRequestState::pending);
    }
  }
  train_.erase(train_.begin() + static_cast<std::ptrdiff_t>(std::min(from, train_.size())), train_.end());
}

void MergeQueue::finish_run(std::size_t run) {
  TestRun& r = runs_[run];
  r.finished_at = r.ends_at;
  const bool passed = !r.planned_failure;
  r.status = passed ? trunk::TestingStatus::succeeded : trunk::TestingStatus::failed;
  if (passed) {
    ++tally_.runs_passed;
  } else {
    ++tally_.runs_failed[*r.planned_failure];
  }
  for (Unit& unit : train_) {
    if (unit.run == run && unit.phase == Phase::testing) {
      unit.phase = passed ? Phase::passed : Phase::failed;
      for (const std::size_t m : unit.members) {
        set_state(m, passed ? PullRequestState::tests_passed : PullRequestState::pending_failure);
      }
      return;
    }
    auto it = std::find(unit.bisection_runs.begin(), unit.bisection_runs.end(), run);
    if (it == unit.bisection_runs.end()) continue;
    unit.bisection_runs.erase(it);
    const std::vector<std::size_t> group = r.tested;
    if (passed) {
      unit.innocents.insert(unit.innocents.end(), group.begin(), group.end());
    } else if (group.size() == 1) {
      unit.culprits.push_back(group.front());
      conclude(group.front(), PullRequestState::failed);
    } else {
      const auto half = static_cast<std::ptrdiff_t>(group.size() / 2);
      unit.to_bisect.emplace_back(group.begin(), group.begin() + half);
      unit.to_bisect.emplace_back(group.begin() + half, group.end());
    }
    return;
  }
}

void MergeQueue::settle(const trunk::QueueSettings& settings) {
  for (bool changed = true; changed && !train_.empty();) {
    changed = false;
    if (settings.can_optimistically_merge.value_or(false)) {
      // A passing run included every unit ahead of it: they pass with it.
      for (std::size_t k = train_.size(); k-- > 1;) {
        if (train_[k].phase != Phase::passed) continue;
        for (std::size_t j = 0; j < k; ++j) {
          Unit& ahead = train_[j];
          if (ahead.phase == Phase::passed) continue;
          stop_run(ahead.run);
          for (const std::size_t run : ahead.bisection_runs) stop_run(run);
          ahead.bisection_runs.clear();
          ahead.to_bisect.clear();
          ahead.phase = Phase::passed;
          for (const std::size_t m : ahead.members) {
            if (!submissions_[m].concluded()) set_state(m, PullRequestState::tests_passed);
          }
        }
        break;
      }
    }
    Unit& head = train_.front();
    switch (head.phase) {
      case Phase::passed:
        for (const std::size_t m : head.members) {
          if (!submissions_[m].concluded()) conclude(m, PullRequestState::merged);
        }
        train_.erase(train_.begin());
        changed = true;
        break;
      case Phase::failed:
        if (head.members.size() > 1) {
          head.phase = Phase::bisecting;
          const auto half = static_cast<std::ptrdiff_t>(head.members.size() / 2);
          head.to_bisect = {{head.members.begin(), head.members.begin() + half},
                            {head.members.begin() + half, head.members.end()}};
          for (const std::size_t m : head.members) set_state(m, PullRequestState::testing);
          changed = true;
        } else {
          const auto depth = static_cast<std::size_t>(std::max<std::int64_t>(settings.pending_failure_depth.value_or(1), 0));
          const std::size_t behind = std::min(depth, train_.size() - 1);
          const bool all_finished = std::all_of(train_.begin() + 1, train_.begin() + 1 + static_cast<std::ptrdiff_t>(behind),
                                                [](const Unit& u) { return u.phase == Phase::passed || u.phase == Phase::failed; });
          if (all_finished) {
            conclude(head.members.front(), PullRequestState::failed);
            train_.erase(train_.begin());
            abandon_from(0);  // every unit behind was tested on top of it
            changed = true;
          }
        }
        break;
      case Phase::bisecting:
        if (head.to_bisect.empty() && head.bisection_runs.empty()) {
          for (const std::size_t m : head.innocents) {
            if (!submissions_[m].concluded()) set_state(m, PullRequestState::pending);
          }
          train_.erase(train_.begin());
          abandon_from(0);
          changed = true;
        }
        break;
      case Phase::testing:
        break;
    }
  }
}

void MergeQueue::schedule(const trunk::QueueSettings& settings) {
  const trunk::QueueState state = state_of(settings);
  if (state == trunk::QueueState::paused || state == trunk::QueueState::switching_modes) return;
  if (!train_.empty() && train_.front().phase == Phase::bisecting) {
    Unit& head = train_.front();
    const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(settings.bisection_concurrency.value_or(1), 1));
    while (head.bisection_runs.size() < limit && !head.to_bisect.empty()) {
      std::vector<std::size_t> group = std::move(head.to_bisect.front());
      head.to_bisect.erase(head.to_bisect.begin());
      const std::size_t run = start_run(std::move(group), {}, true, settings);
      train_.front().bisection_runs.push_back(run);
    }
    return;  // what comes behind a batch under bisection waits for its outcome
  }
  if (state == trunk::QueueState::draining) return;

  std::vector<std::size_t> waiting = line();
  if (!waiting.empty() && submissions_[waiting.front()].skip_the_line()) {
    // Urgent: interrupt the units that are not urgent themselves, so it is tested first.
    std::size_t keep = 0;
    while (keep < train_.size() &&
           std::all_of(train_[keep].members.begin(), train_[keep].members.end(),
                       [&](std::size_t m) { return submissions_[m].skip_the_line(); })) {
      ++keep;
    }
    if (keep < train_.size()) {
      abandon_from(keep);
      waiting = line();
    }
  }

  const bool single = settings.mode && settings.mode->known() == trunk::QueueMode::single;
  const auto concurrency = static_cast<std::size_t>(std::max<std::int64_t>(settings.concurrency.value_or(1), 1));
  const bool batch = settings.batch.value_or(false);
  const auto min_size = static_cast<std::size_t>(std::max<std::int64_t>(settings.batching_min_size.value_or(1), 1));
  const auto max_size = std::max<std::size_t>(min_size, static_cast<std::size_t>(kMaxBatchSize));
  const auto max_wait = std::chrono::minutes(settings.batching_max_wait_time_minutes.value_or(5));
  for (;;) {
    const auto testing = static_cast<std::size_t>(
        std::count_if(train_.begin(), train_.end(), [](const Unit& u) { return u.phase == Phase::testing; }));
    if (single ? !train_.empty() : testing >= concurrency) return;
    if (waiting.empty()) return;
    std::vector<std::size_t> members;
    if (!batch || submissions_[waiting.front()].no_batch) {
      members.push_back(waiting.front());
    } else {
      for (const std::size_t i : waiting) {
        if (submissions_[i].no_batch || members.size() >= max_size) break;
        members.push_back(i);
      }
      if (members.size() < min_size) {
        trunk::Timestamp oldest = now_;
        for (const std::size_t i : members) oldest = std::min(oldest, submissions_[i].ready_at);
        if (now_ - oldest < max_wait) return;  // wait for more, up to the oldest's deadline
      }
    }
    std::vector<std::size_t> ahead;
    for (const Unit& unit : train_) {
      for (const std::size_t m : unit.members) {
        if (!submissions_[m].concluded()) ahead.push_back(m);
      }
    }
    waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(members.size()));
    const std::size_t run = start_run(members, std::move(ahead), false, settings);
    train_.push_back(Unit{std::move(members), run, Phase::testing, {}, {}, {}, {}});
  }
}

std::optional<trunk::Timestamp> MergeQueue::next_event(const trunk::QueueSettings& settings) const {
  std::optional<trunk::Timestamp> next;
  const auto consider = [&](trunk::Timestamp t) {
    if (t > now_ && (!next || t < *next)) next = t;
  };
  const bool batch = settings.batch.value_or(false);
  const auto max_wait = std::chrono::minutes(settings.batching_max_wait_time_minutes.value_or(5));
  for (const Submission& s : submissions_) {
    if (s.state == PullRequestState::not_ready) consider(s.ready_at);
    if (batch && s.state == PullRequestState::pending) consider(s.ready_at + max_wait);
  }
  for (const TestRun& run : runs_) {
    if (run.status == trunk::TestingStatus::in_progress) consider(run.ends_at);
  }
  return next;
}

void MergeQueue::advance_to(trunk::Timestamp now, const trunk::QueueSettings& settings) {
  const auto process_due = [&] {
    for (std::size_t i = 0; i < submissions_.size(); ++i) {
      Submission& s = submissions_[i];
      if (s.state == PullRequestState::not_ready && s.ready_at <= now_) {
        s.state = PullRequestState::pending;
        s.state_changed_at = s.ready_at;
      }
    }
    std::vector<std::size_t> due;
    for (std::size_t r = 0; r < runs_.size(); ++r) {
      if (runs_[r].status == trunk::TestingStatus::in_progress && runs_[r].ends_at <= now_) due.push_back(r);
    }
    std::stable_sort(due.begin(), due.end(), [&](std::size_t a, std::size_t b) { return runs_[a].ends_at < runs_[b].ends_at; });
    for (const std::size_t r : due) {
      if (runs_[r].status == trunk::TestingStatus::in_progress) finish_run(r);  // an earlier one may have stopped it
    }
    settle(settings);
    schedule(settings);
  };
  process_due();
  while (const auto next = next_event(settings)) {
    if (*next > now) break;
    now_ = *next;
    process_due();
  }
  if (now > now_) now_ = now;
}

// ---- operations ------------------------------------------------------------------------------------------

std::optional<Refusal> MergeQueue::submit(const trunk::SubmitPullRequestRequest& request,
                                          const trunk::QueueSettings& settings) {
  if (state_of(settings) == trunk::QueueState::draining) {
    return Refusal{400, "queue is draining: the merge queue for branch " + branch_ + " of repository " + repo_key_ +
                            " accepts no pull requests until it runs again"};
  }
  if (const auto i = active(request.pr.number)) {
    return Refusal{400, "pr.number: " + std::to_string(request.pr.number) + " is already in the queue (" +
                            std::string(trunk::to_wire(submissions_[*i].state)) + ")"};
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
  s.broken = model_.broken(repo_key_, s.number);
  s.submitted_at = s.state_changed_at = now_;
  s.ready_at = now_ + kMergeabilityDelay;
  submissions_.push_back(std::move(s));
  ++tally_.submitted;
  return std::nullopt;
}

std::optional<Refusal> MergeQueue::cancel(std::int64_t number, const trunk::QueueSettings& settings) {
  const auto i = active(number);
  if (!i) {
    if (const auto last = latest(number)) {
      return Refusal{400, "pr.number: " + std::to_string(number) + " is already concluded (" +
                              std::string(trunk::to_wire(submissions_[*last].state)) + "): nothing to cancel"};
    }
    return Refusal{404, "not found: pull request " + std::to_string(number) + " is not in the merge queue for branch " +
                            branch_ + " of repository " + repo_key_};
  }
  if (const auto k = unit_of(*i)) abandon_from(*k);
  conclude(*i, PullRequestState::cancelled);
  settle(settings);
  schedule(settings);
  return std::nullopt;
}

std::optional<Refusal> MergeQueue::restart(std::int64_t number, const trunk::QueueSettings& settings) {
  const auto i = active(number);
  if (!i) {
    return Refusal{404, "not found: pull request " + std::to_string(number) + " is not in the merge queue for branch " +
                            branch_ + " of repository " + repo_key_};
  }
  const PullRequestState state = submissions_[*i].state;
  const auto k = unit_of(*i);
  if (!k || (state != PullRequestState::testing && state != PullRequestState::tests_passed &&
             state != PullRequestState::pending_failure)) {
    return Refusal{400, "pr.number: " + std::to_string(number) + " is " + std::string(trunk::to_wire(state)) +
                            ": only a pull request testing, tests_passed or pending_failure has tests to restart"};
  }
  abandon_from(*k);
  settle(settings);
  schedule(settings);
  return std::nullopt;
}

std::optional<Refusal> MergeQueue::set_impacted_targets(const trunk::SetImpactedTargetsRequest& request) {
  const auto i = active(request.pr.number);
  if (!i) {
    return Refusal{404, "not found: pull request " + std::to_string(request.pr.number) +
                            " is not in the merge queue for branch " + branch_ + " of repository " + repo_key_};
  }
  submissions_[*i].targets = request.targets;
  submissions_[*i].targets_sha = request.pr.sha;
  return std::nullopt;
}

}  // namespace trunk::sandbox
