// A queue's history through v1, for teams whose token v2 refuses (docs/twin.md, "From a v1 history"). Each v1 row
// is read as v2 shows the same thing (the migration guide's mapping: testRunId is the verification run's id,
// prNumber the pull request's number, v1's states are v2's queue-entry states), so calibrate, record_of and the
// backtest read one shape. v1 has no submission times: a pull request's is the start of its first test after its
// previous conclusion (a resubmitted number is several entries), which HistorySource::v1 tells the readers.
#include <algorithm>
#include <map>
#include <optional>

#include "history_reading.hpp"
#include "trunk/operations.hpp"
#include "trunk/twin/queue_history.hpp"

namespace trunk::twin {

namespace {

TestingResult as_v2(const MergeQueueTestingResult& v1) {
  TestingResult out;
  out.pull_request_number = v1.pr_number;
  out.ended_at = v1.ended_at;
  out.testing_duration_ms = v1.testing_duration_ms;
  out.outcome = v1.outcome;
  out.is_bisection = v1.is_bisection;
  out.verification_run_id = v1.test_run_id;
  return out;
}

/// Each pull request number's test starts (end minus duration), earliest first.
std::map<std::int64_t, std::vector<Timestamp>> test_starts(const std::vector<TestingResult>& results) {
  std::map<std::int64_t, std::vector<Timestamp>> starts;
  for (const TestingResult& r : results) {
    if (!r.pull_request_number || !r.ended_at || !r.testing_duration_ms) continue;
    starts[*r.pull_request_number].push_back(*r.ended_at - std::chrono::milliseconds(*r.testing_duration_ms));
  }
  for (auto& [number, times] : starts) std::sort(times.begin(), times.end());
  return starts;
}

bool concluded(const PullRequest& pr) {
  const auto state = pr.state ? pr.state->known() : std::nullopt;
  return state == PullRequestState::merged || state == PullRequestState::failed ||
         state == PullRequestState::cancelled;
}

/// A v1 pull request as v2's, its queue entry submitted at `submitted` (none: never tested in the window).
PullRequestV2 as_v2(const PullRequest& v1, std::optional<Timestamp> submitted) {
  PullRequestV2 out;
  out.number = v1.pr_number;
  out.title = v1.pr_title;
  out.sha = v1.pr_sha;
  out.base_branch = v1.pr_base_branch;
  out.author = v1.pr_author;
  QueueEntry& entry = out.queue_entry.emplace();
  if (v1.state) {
    if (const auto known = v1.state->known()) {
      entry.state = to_v2(*known);
    } else {
      entry.state = OpenEnum<QueueEntryState>::from_wire(v1.state->wire());  // kept as received
    }
  }
  entry.state_changed_at = v1.state_changed_at;
  entry.priority_value = v1.priority_value;
  entry.priority_name = v1.priority_name;
  entry.skips_the_line = v1.skip_the_line;
  entry.allow_batching = v1.no_batch ? std::optional<bool>(!*v1.no_batch) : std::nullopt;
  entry.created_at = submitted;
  return out;
}

/// v1's impactedTargetsForTestedPrs (undescribed by the publisher; the project reads it as a list of {number, sha,
/// impactedTargets: names or "ALL"}, docs/reference/service.md) as v2's targets of the tested pull requests; none
/// when it is not in that shape.
std::optional<VerificationRunImpactedTargets> targets_of(const TestRunDetails& details) {
  if (!details.impacted_targets_for_tested_prs || !details.impacted_targets_for_tested_prs->is_array()) return std::nullopt;
  ImpactedTargetSet set;
  set.impacts_all_targets = false;
  std::vector<std::string> names;
  bool read = false;
  for (const Json& item : *details.impacted_targets_for_tested_prs) {
    if (!item.is_object() || !item.contains("impactedTargets")) continue;
    const Json& targets = item.at("impactedTargets");
    if (targets.is_string() && targets.get<std::string>() == "ALL") {
      set.impacts_all_targets = true;
      read = true;
    } else if (targets.is_array()) {
      for (const Json& name : targets) {
        if (name.is_string()) names.push_back(name.get<std::string>());
      }
      read = true;
    }
  }
  if (!read) return std::nullopt;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  set.total_impacted_targets = static_cast<std::int64_t>(names.size());
  set.impacted_targets = std::move(names);
  VerificationRunImpactedTargets out;
  out.tested_pull_requests_only = set;
  out.all = std::move(set);
  return out;
}

}  // namespace

QueueHistory collect_queue_history_v1(Client& client, const Repo& repo, const std::string& target_branch,
                                      Timestamp since, Timestamp until, std::size_t target_sample) {
  detail::check_window(since, until);
  QueueHistory history;
  history.source = HistorySource::v1;
  history.queue_id = repo.to_string() + " " + target_branch;
  history.since = since;
  history.until = until;
  GetQueueRequest get;
  get.repo = repo;
  get.target_branch = target_branch;
  history.settings = client.get_queue(get);
  std::vector<PullRequest> open = history.settings.enqueued_pull_requests.value_or(std::vector<PullRequest>{});
  // The configuration alone, as settings_of reads v2's: not the queue's contents, nor whether it is paused now
  // (a replay of a queue paused at the moment of reading would merge nothing).
  history.settings.enqueued_pull_requests.reset();
  history.settings.state.reset();
  history.settings.branch.reset();

  // Newest first, a window of results at a time; until is fixed, so the walk does not shift under new results.
  ListMergeQueueTestingResultsRequest results;
  results.repo = repo;
  results.target_branch = target_branch;
  results.since = since;
  results.until = until;
  results.take = kTakeRules.max;  // the fewest pages
  for (std::int64_t offset = 0;;) {
    results.offset = offset;
    const MergeQueueTestingResults page = client.list_merge_queue_testing_results(results);
    for (const MergeQueueTestingResult& r : page.results) history.testing_results.push_back(as_v2(r));
    offset += static_cast<std::int64_t>(page.results.size());
    if (page.results.empty() || (page.total && offset >= *page.total)) break;
  }

  // The pull requests concluded in the window, and those in the queue now.
  ListPullRequestsRequest pulls;
  pulls.repo = repo;
  pulls.target_branch = target_branch;
  pulls.since = since;
  pulls.until = until;
  pulls.take = kTakeRules.max;  // the fewest pages
  std::vector<PullRequest> listed;
  for (const PullRequest& pr : client.pager<op::ListPullRequests>(pulls)) listed.push_back(pr);
  listed.insert(listed.end(), open.begin(), open.end());
  // A number's entries in the order they concluded (open ones last): each was submitted at its first test after
  // the one before it concluded.
  std::stable_sort(listed.begin(), listed.end(), [](const PullRequest& a, const PullRequest& b) {
    if (a.pr_number != b.pr_number) return a.pr_number < b.pr_number;
    return a.state_changed_at < b.state_changed_at;
  });
  const auto starts = test_starts(history.testing_results);
  std::optional<std::int64_t> previous_number;
  Timestamp after = Timestamp::min();  // when the number's previous entry concluded
  for (const PullRequest& pr : listed) {
    if (pr.pr_number != previous_number) after = Timestamp::min();
    const Timestamp ended = concluded(pr) ? pr.state_changed_at.value_or(Timestamp::max()) : Timestamp::max();
    std::optional<Timestamp> submitted;
    if (const auto it = pr.pr_number ? starts.find(*pr.pr_number) : starts.end(); it != starts.end()) {
      const auto first = std::lower_bound(it->second.begin(), it->second.end(), after);
      if (first != it->second.end() && *first <= ended) submitted = *first;
    }
    previous_number = pr.pr_number;
    after = ended;
    if (!submitted || *submitted < since || *submitted >= until) continue;  // as v2's: submitted in the window
    history.pull_requests.push_back(as_v2(pr, submitted));
  }
  std::sort(history.pull_requests.begin(), history.pull_requests.end(), [](const auto& a, const auto& b) {
    return a.queue_entry->created_at > b.queue_entry->created_at;  // newest first, as v2 lists them
  });

  for (const std::string& id : detail::runs_to_sample(history.testing_results, target_sample)) {
    GetMergeQueueTestingDetailsRequest request;
    request.repo = repo;
    request.target_branch = target_branch;
    request.test_run_id = id;
    const TestRunDetails details = client.get_merge_queue_testing_details(request);
    VerificationRun run;
    run.id = id;
    run.created_at = details.created_at;
    run.impacted_targets = targets_of(details);
    history.sampled_runs.push_back(std::move(run));
  }
  return history;
}

}  // namespace trunk::twin
