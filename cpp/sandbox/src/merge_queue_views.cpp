// What a merge queue answers (merge_queue.hpp): its pull requests as the API's models, pages of the listing,
// the details of a test run and the counts the metrics report. The state machine is in merge_queue.cpp.
#include <algorithm>

#include "identifiers.hpp"
#include "merge_queue.hpp"

namespace trunk::sandbox {

using trunk::PullRequestState;

template <typename Out>
void MergeQueue::describe(const Submission& s, Out& out) const {
  out.state = s.state;
  out.state_changed_at = s.state_changed_at;
  out.priority_value = s.priority_value;
  out.priority_name = s.priority_name;
  out.skip_the_line = s.skip_the_line();
  out.pr_number = s.number;
  out.pr_title = s.title;
  out.pr_sha = s.sha;
  out.pr_base_branch = branch_;
  out.pr_author = s.author;
  // Not declared fields (decoders keep them in `extra`): the queue it is in (main, or the bisection of its
  // batch), why it is in its state, and the run to ask getMergeQueueTestingDetails about.
  trunk::Json extra = {{"queueType", std::string(queue_type_name(s.queue_type))}, {"stateReason", std::string(s.reason)}};
  if (s.last_run) extra["testRunId"] = runs_[*s.last_run].id;
  out.extra = std::move(extra);
}

std::variant<trunk::SubmittedPullRequest, Refusal> MergeQueue::submitted(std::int64_t number) const {
  const auto i = latest(number);
  if (!i) {
    return Refusal{404, "not found: pull request " + std::to_string(number) +
                            " was never submitted to the merge queue for branch " + branch_ + " of repository " +
                            repo_key_};
  }
  const Submission& s = submissions_[*i];
  trunk::SubmittedPullRequest out;
  describe(s, out);
  out.id = s.id;
  trunk::Readiness readiness;
  readiness.has_impacted_targets = s.targets.has_value() && s.targets_sha == s.sha;
  readiness.requires_impacted_targets = parallel_;
  readiness.does_base_branch_match = true;
  readiness.git_hub_mergeability =
      now_ < s.ready_at ? trunk::GitHubMergeability::in_progress : trunk::GitHubMergeability::mergeable;
  out.readiness = std::move(readiness);
  out.is_currently_submitted_to_queue = !s.concluded();
  out.force_enqueued = false;
  if (s.used_default_priority) out.used_default_priority_name = s.priority_name;
  return out;
}

std::variant<trunk::PullRequestPage, Refusal> MergeQueue::list(const trunk::ListPullRequestsRequest& request) {
  std::size_t position = 0;
  if (request.cursor) {
    const auto it = cursor_positions_.find(lower(*request.cursor));
    if (it == cursor_positions_.end()) {
      return Refusal{400, "invalid request: cursor: \"" + *request.cursor +
                              "\" was not issued by this merge queue (pass the nextCursor of one of its pages)"};
    }
    position = it->second;
  }
  const auto matches = [&](const Submission& s) {
    if (request.state && s.state != *request.state) return false;
    if (request.since && !(s.concluded_at && *s.concluded_at > *request.since)) return false;
    if (request.until && !(s.concluded_at && *s.concluded_at <= *request.until)) return false;
    return true;
  };
  trunk::PullRequestPage page;
  const auto take = static_cast<std::size_t>(std::max<std::int64_t>(request.take, 1));
  std::size_t i = position;
  for (; i < submissions_.size() && page.pull_requests.size() < take; ++i) {
    const Submission& s = submissions_[i];
    if (!matches(s)) continue;
    trunk::PullRequest pr;
    describe(s, pr);
    pr.no_batch = s.no_batch;
    page.pull_requests.push_back(std::move(pr));
  }
  const bool more = std::any_of(submissions_.begin() + static_cast<std::ptrdiff_t>(i), submissions_.end(), matches);
  if (more) {
    std::string cursor = cursors_.uuid();
    cursor_positions_.emplace(cursor, i);
    page.next_cursor = std::move(cursor);
  }
  return page;
}

std::vector<trunk::PullRequest> MergeQueue::enqueued() const {
  // The train, then the line, then the rest (bisection, waiting for targets or mergeability) by submission.
  std::vector<std::size_t> order;
  for (const Unit& unit : train_) order.insert(order.end(), unit.members.begin(), unit.members.end());
  for (const std::size_t i : line()) order.push_back(i);
  for (const std::size_t i : open_) {
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  }
  std::vector<trunk::PullRequest> out;
  for (const std::size_t i : order) {
    trunk::PullRequest pr;
    describe(submissions_[i], pr);
    pr.no_batch = submissions_[i].no_batch;
    out.push_back(std::move(pr));
  }
  return out;
}

std::variant<trunk::TestRunDetails, Refusal> MergeQueue::run_details(const std::string& id,
                                                                     const trunk::QueueSettings& settings,
                                                                     trunk::RequiredStatusesSource source) const {
  const std::string wanted = lower(id);
  const auto it = std::find_if(runs_.begin(), runs_.end(), [&](const TestRun& r) { return r.id == wanted; });
  if (it == runs_.end()) {
    return Refusal{404, "not found: test run " + id + " in the merge queue for branch " + branch_ + " of repository " +
                            repo_key_};
  }
  const TestRun& run = *it;
  trunk::TestRunDetails out;
  const std::vector<std::string> statuses = settings.required_statuses.value_or(std::vector<std::string>{});
  out.required_statuses = statuses;
  out.required_statuses_source = source;
  out.test_branch = test_branch_of(run);
  out.test_branch_sha = hex40(text_hash(run.id));
  out.created_at = run.created_at;
  out.status = run.status;
  const char* conclusion = run.status == trunk::TestingStatus::succeeded ? "success"
                           : run.status == trunk::TestingStatus::failed  ? "failure"
                           : run.status == trunk::TestingStatus::cancelled ? "cancelled"
                                                                           : "pending";
  trunk::Json checks = trunk::Json::array();
  for (const auto& status : statuses) checks.push_back({{"name", status}, {"state", conclusion}});
  out.status_checks = checks;
  out.check_suites = trunk::Json::array({{{"name", "ci"}, {"conclusion", conclusion}}});
  trunk::Json tested = trunk::Json::array(), targets = trunk::Json::array(), dependent = trunk::Json::array();
  for (const std::size_t i : run.tested) {
    const Submission& s = submissions_[i];
    tested.push_back({{"number", s.number}, {"sha", s.sha}, {"title", s.title}});
    if (s.targets) {
      trunk::Json list = std::holds_alternative<trunk::AllTargets>(*s.targets)
                             ? trunk::Json("ALL")
                             : trunk::Json(std::get<std::vector<std::string>>(*s.targets));
      targets.push_back({{"number", s.number}, {"sha", s.targets_sha}, {"impactedTargets", list}});
    }
  }
  for (const std::size_t i : run.ahead) dependent.push_back({{"number", submissions_[i].number}, {"sha", submissions_[i].sha}});
  out.tested_pull_requests = tested;
  out.impacted_targets_for_tested_prs = targets;
  out.dependent_prs = dependent;
  trunk::Json extra = {{"bisection", run.bisection}};
  if (run.finished_at) extra["finishedAt"] = trunk::format_rfc3339(*run.finished_at);
  if (run.status == trunk::TestingStatus::failed) extra["failureCause"] = std::string(cause_name(*run.planned_failure));
  out.extra = std::move(extra);
  return out;
}

std::vector<MergeQueue::EntryView> MergeQueue::entries() const {
  std::vector<EntryView> out;
  out.reserve(submissions_.size());
  for (const Submission& s : submissions_) {
    EntryView& e = out.emplace_back();
    e.id = s.id;
    e.number = s.number;
    e.title = s.title;
    e.author = s.author;
    e.sha = s.sha;
    e.priority_value = s.priority_value;
    e.priority_name = s.priority_name;
    e.used_default_priority = s.used_default_priority;
    e.no_batch = s.no_batch;
    e.direct = s.direct;
    e.state = s.state;
    e.submitted_at = s.submitted_at;
    e.state_changed_at = s.state_changed_at;
    e.updated_at = s.changed_at;
    e.concluded_at = s.concluded_at;
    e.concluded = s.concluded();
    e.mergeable = now_ >= s.ready_at;
    e.requires_targets = parallel_;
    e.has_targets = s.has_targets();
    if (s.last_run && (s.state == PullRequestState::tests_passed || s.state == PullRequestState::merged)) {
      e.passed_run = runs_[*s.last_run].id;
    }
    if (s.has_targets()) {
      if (std::holds_alternative<trunk::AllTargets>(*s.targets)) {
        e.all_targets = true;
        e.targets.emplace();
      } else {
        e.targets = std::get<std::vector<std::string>>(*s.targets);
      }
    }
    for (const Submission::Step& step : s.steps) {
      e.steps.push_back({step.at, step.state, step.reason,
                         step.run ? std::optional<std::string>(runs_[*step.run].id) : std::nullopt});
    }
  }
  return out;
}

std::string MergeQueue::test_branch_of(const TestRun& run) const {
  std::string branch = "trunk-merge/" + branch_ + "/";
  for (std::size_t n = 0; n < run.tested.size(); ++n) {
    branch += (n == 0 ? "pr-" : "-") + std::to_string(submissions_[run.tested[n]].number);
  }
  return branch + "/" + run.id.substr(0, 8);
}

MergeQueue::RunView MergeQueue::view_of(const TestRun& run) const {
  const auto tested = [&](std::size_t i) {
    const Submission& s = submissions_[i];
    RunView::Tested t{s.number, s.sha, s.title, std::nullopt, false};
    if (s.has_targets()) {
      if (std::holds_alternative<trunk::AllTargets>(*s.targets)) {
        t.all_targets = true;
        t.targets.emplace();
      } else {
        t.targets = std::get<std::vector<std::string>>(*s.targets);
      }
    }
    return t;
  };
  RunView v;
  v.id = run.id;
  v.test_branch = test_branch_of(run);
  v.test_branch_sha = hex40(text_hash(run.id));
  v.bisection = run.bisection;
  v.created_at = run.created_at;
  v.updated_at = run.finished_at.value_or(run.created_at);
  v.status = run.status;
  if (run.status == trunk::TestingStatus::failed && run.planned_failure) {
    v.failure_cause = std::string(cause_name(*run.planned_failure));
  }
  for (const std::size_t i : run.tested) v.tested.push_back(tested(i));
  for (const std::size_t i : run.ahead) v.ahead.push_back(tested(i));
  return v;
}

std::vector<MergeQueue::RunView> MergeQueue::runs() const {
  std::vector<RunView> out;
  out.reserve(runs_.size());
  for (const TestRun& run : runs_) out.push_back(view_of(run));
  return out;
}

std::optional<MergeQueue::RunView> MergeQueue::run(std::string_view id) const {
  const auto it = std::find_if(runs_.begin(), runs_.end(), [&](const TestRun& r) { return r.id == id; });
  if (it == runs_.end()) return std::nullopt;
  return view_of(*it);
}

MergeQueue::OrderView MergeQueue::order() const {
  OrderView out;
  out.parallel = parallel_;
  const auto numbers_of = [&](const std::vector<std::size_t>& members) {
    std::vector<std::int64_t> numbers;
    for (const std::size_t m : members) numbers.push_back(submissions_[m].number);
    return numbers;
  };
  const auto unit_by_serial = [&](std::uint64_t serial) -> const Unit* {
    for (const Unit& unit : train_) {
      if (unit.serial == serial) return &unit;
    }
    return nullptr;
  };
  for (const Unit& unit : train_) {
    OrderView::Batch& batch = out.batches.emplace_back();
    batch.run_id = runs_[unit.run].id;
    batch.state = submissions_[unit.members.front()].state;
    batch.numbers = numbers_of(unit.members);
    for (const std::uint64_t dep : unit.deps) {
      // Directly: no other dependency of this unit is itself tested on top of `dep`.
      const bool transitive = std::any_of(unit.deps.begin(), unit.deps.end(), [&](std::uint64_t other) {
        const Unit* via = other == dep ? nullptr : unit_by_serial(other);
        return via != nullptr && std::binary_search(via->deps.begin(), via->deps.end(), dep);
      });
      const Unit* ahead = unit_by_serial(dep);
      if (transitive || ahead == nullptr) continue;
      for (const std::int64_t n : numbers_of(ahead->members)) batch.on_top_of.push_back(n);
    }
  }
  for (const BisectionGroup& group : bisection_) {
    if (!group.run) continue;
    OrderView::Batch& batch = out.batches.emplace_back();
    batch.run_id = runs_[*group.run].id;
    batch.state = PullRequestState::testing;
    batch.bisection = true;
    batch.numbers = numbers_of(group.members);
  }
  for (const std::size_t i : line()) {
    OrderView::Pending& pending = out.line.emplace_back();
    pending.number = submissions_[i].number;
    const Footprint mine = footprint_of({i});
    for (const Unit& unit : train_) {
      if (unit.phase != Phase::failed || (parallel_ && !overlaps(mine, unit.footprint))) continue;
      for (const std::int64_t n : numbers_of(unit.members)) pending.held_by.push_back(n);
    }
  }
  for (const std::size_t i : open_) {
    const Submission& s = submissions_[i];
    if (s.state == PullRequestState::not_ready || (s.state == PullRequestState::pending && waits_for_targets(s))) {
      out.awaiting.push_back(s.number);
    }
  }
  return out;
}

std::map<PullRequestState, std::uint64_t> MergeQueue::states() const {
  std::map<PullRequestState, std::uint64_t> out;
  for (std::size_t i = 0; i < trunk::enum_wire_values<PullRequestState>().size(); ++i) {
    out[static_cast<PullRequestState>(i)] = 0;
  }
  for (const Submission& s : submissions_) ++out[s.state];
  return out;
}

std::optional<trunk::ImpactedTargets> MergeQueue::impacted_targets_at(std::int64_t number,
                                                                     const std::string& sha) const {
  // A pull request's newest submission holds what was reported last, unless a later report waits for its next
  // submission (early_targets_): that one is newer.
  if (const auto early = early_targets_.find(number); early != early_targets_.end() && early->second.sha == sha) {
    return early->second.targets;
  }
  for (auto it = submissions_.rbegin(); it != submissions_.rend(); ++it) {
    if (it->number == number) return it->targets && it->targets_sha == sha ? it->targets : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace trunk::sandbox
