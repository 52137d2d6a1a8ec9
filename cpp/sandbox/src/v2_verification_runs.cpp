// The sandbox's v2 verification runs (docs/sandbox.md#v2): the test runs of the queue simulations as v2 shows them,
// one by id, a queue's, a pull request's. A run's id is the simulation's (v1's testRunId). Its checks are one per
// required status once the run has ended, concluded as the run ended; a run in progress lists none yet.
#include <algorithm>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

trunk::CheckConclusion conclusion_of(const MergeQueue::RunView& run) {
  switch (run.status) {
    case trunk::TestingStatus::succeeded: return trunk::CheckConclusion::success;
    case trunk::TestingStatus::cancelled: return trunk::CheckConclusion::cancelled;
    case trunk::TestingStatus::failed:
      return run.failure_cause == "timeout" ? trunk::CheckConclusion::timeout : trunk::CheckConclusion::failure;
    case trunk::TestingStatus::in_progress: break;
  }
  return trunk::CheckConclusion::neutral;
}

/// The union of the impacted targets of `prs`' head commits; nullopt when none of them has an upload.
std::optional<trunk::ImpactedTargetSet> union_of(std::initializer_list<const std::vector<MergeQueue::RunView::Tested>*> groups) {
  bool any = false, all = false;
  std::vector<std::string> targets;
  for (const auto* group : groups) {
    for (const MergeQueue::RunView::Tested& pr : *group) {
      if (!pr.targets) continue;
      any = true;
      all = all || pr.all_targets;
      targets.insert(targets.end(), pr.targets->begin(), pr.targets->end());
    }
  }
  if (!any) return std::nullopt;
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  if (all) targets.clear();  // every target: the explicit lists are moot
  trunk::ImpactedTargetSet set;
  set.impacts_all_targets = all;
  set.total_impacted_targets = static_cast<std::int64_t>(targets.size());
  set.impacted_targets = std::move(targets);
  return set;
}

}  // namespace

namespace {

/// One run as v2 shows it; with_targets adds its impacted targets (answered only for a run fetched by id).
trunk::VerificationRun verification_run_of(const MergeQueue::RunView& run, const trunk::Repo& repo,
                                           const std::vector<std::string>& statuses,
                                           trunk::RequiredStatusesSource source, bool with_targets) {
  const std::string repo_key = repo.to_string();
  trunk::VerificationRun v;
  v.id = run.id;
  v.is_bisection = run.bisection;
  v.test_branch = run.test_branch;
  v.test_branch_sha = run.test_branch_sha;
  if (repo.host == "github.com") v.test_branch_commit_url = "https://" + repo_key + "/commit/" + run.test_branch_sha;
  v.created_at = run.created_at;
  v.updated_at = run.updated_at;
  v.status = trunk::to_v2(run.status);
  v.required_statuses_source = trunk::to_v2(source);
  v.required_statuses = statuses;
  std::vector<trunk::Check>& checks = v.checks.emplace();
  if (run.status != trunk::TestingStatus::in_progress) {
    for (const std::string& status : statuses) {
      trunk::Check& check = checks.emplace_back();
      check.id = run.id.substr(0, 8) + "-" + status;
      check.name = status;
      check.kind = trunk::CheckKind::check_run;
      check.status = trunk::CheckStatus::completed;
      check.conclusion = conclusion_of(run);
      check.provider = "github";
      // The description requires a url (null allowed); the sandbox's checks have a page on the tested commit.
      check.url = "https://" + repo_key + "/commit/" + run.test_branch_sha + "/checks";
    }
  }
  const auto briefs = [&](const std::vector<MergeQueue::RunView::Tested>& prs) {
    std::vector<trunk::PullRequestBrief> list;
    for (const auto& pr : prs) {
      trunk::PullRequestBrief& b = list.emplace_back();
      b.id = pull_request_id(repo_key, pr.number);
      b.number = pr.number;
      b.sha = pr.sha;
      b.title = pr.title;
      b.url = "/v2/pull-requests/" + *b.id;
    }
    return list;
  };
  v.tested_pull_requests = briefs(run.tested);
  v.dependent_pull_requests = briefs(run.ahead);
  if (with_targets) {
    if (auto all = union_of({&run.tested, &run.ahead})) {
      trunk::VerificationRunImpactedTargets& targets = v.impacted_targets.emplace();
      targets.all = std::move(all);
      targets.tested_pull_requests_only = union_of({&run.tested});
    }
  }
  return v;
}

}  // namespace

std::vector<trunk::VerificationRun> V2Service::verification_runs(const QueueKey& key) {
  const trunk::RequiredStatusesSource source = queues_.statuses_source(key.repo, key.branch);
  std::vector<trunk::VerificationRun> out;
  queues_.with_queue(key.repo, key.branch, [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
    const std::vector<std::string> statuses = settings.required_statuses.value_or(std::vector<std::string>{});
    for (const MergeQueue::RunView& run : queue.runs()) {
      out.push_back(verification_run_of(run, key.repo, statuses, source, /*with_targets=*/false));
    }
    return 0;
  });
  return out;
}

std::optional<trunk::VerificationRun> V2Service::verification_run(const QueueKey& key, std::string_view id) {
  const trunk::RequiredStatusesSource source = queues_.statuses_source(key.repo, key.branch);
  std::optional<trunk::VerificationRun> out;
  queues_.with_queue(key.repo, key.branch, [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
    if (const auto run = queue.run(id)) {
      out = verification_run_of(*run, key.repo, settings.required_statuses.value_or(std::vector<std::string>{}),
                                source, /*with_targets=*/true);
    }
    return 0;
  });
  return out;
}

namespace {
/// Newest first, as v2 lists runs.
void newest_first(std::vector<trunk::VerificationRun>& runs) {
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return *a.created_at > *b.created_at; });
}
}  // namespace

template <>
Reply V2Service::answer<trunk::op::GetVerificationRun>(const trunk::VerificationRunRef& request) {
  const std::string wanted = lower(request.id);
  for (const auto& [repo_key, branch] : queues_.keys()) {
    const trunk::Repo* repo = repo_of(repo_key);
    if (repo == nullptr) continue;
    if (const auto run = verification_run(QueueKey{*repo, branch}, wanted)) return json_reply(trunk::to_json(*run));
  }
  return v2_error(404, "VERIFICATION_RUN_NOT_FOUND", "no verification run has the id " + request.id);
}

template <>
Reply V2Service::answer<trunk::op::ListMergeQueueVerificationRuns>(
    const trunk::ListQueueVerificationRunsRequest& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  std::vector<trunk::VerificationRun> runs = verification_runs(*key);
  std::erase_if(runs, [&](const trunk::VerificationRun& run) {
    return (request.status && run.status->known() != *request.status) ||
           (request.created_after && !(*run.created_at > *request.created_after));
  });
  newest_first(runs);
  std::string filter = request.id + "\n" + (request.status ? std::string(trunk::to_wire(*request.status)) : "");
  if (request.created_after) filter += "\n" + trunk::format_rfc3339(*request.created_after);
  return v2::page_reply(v2::page_of<trunk::VerificationRunList>(std::move(runs), request, filter));
}

template <>
Reply V2Service::answer<trunk::op::ListPullRequestVerificationRuns>(
    const trunk::ListPullRequestVerificationRunsRequest& request) {
  const auto pr = find_pull_request(request.id);
  if (!pr) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + request.id);
  std::vector<trunk::VerificationRun> runs;
  for (const auto& [repo_key, branch] : queues_.keys()) {
    if (repo_key != pr->repo.to_string()) continue;
    for (trunk::VerificationRun& run : verification_runs(QueueKey{pr->repo, branch})) {
      const auto& tested = *run.tested_pull_requests;
      const bool tested_it = std::any_of(tested.begin(), tested.end(), [&](const auto& b) { return b.number == pr->number; });
      if (tested_it && (!request.status || run.status->known() == *request.status)) runs.push_back(std::move(run));
    }
  }
  newest_first(runs);
  const std::string filter = lower(request.id) + "\n" + (request.status ? std::string(trunk::to_wire(*request.status)) : "");
  return v2::page_reply(v2::page_of<trunk::VerificationRunList>(std::move(runs), request, filter));
}

}  // namespace trunk::sandbox
