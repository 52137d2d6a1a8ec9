// The sandbox's v2 impacted targets (docs/sandbox.md#v2): the upload goes to the queue simulation as v1's
// setImpactedTargets does (kept for a pull request not submitted yet, handed over when it is), and the read answers
// what was last uploaded for the pull request's head commit. A pull request named by `branch` is found by the
// sandbox's head branch names ("pr-<number>"). Uploads are refused for a code host other than GitHub or GitLab.
#include <charconv>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {
/// The number of a sandbox head branch "pr-<number>"; nullopt for any other branch.
std::optional<std::int64_t> number_of_branch(const std::string& branch) {
  constexpr std::string_view kPrefix = "pr-";
  if (!branch.starts_with(kPrefix) || branch.size() == kPrefix.size()) return std::nullopt;
  std::int64_t number = 0;
  const char* first = branch.data() + kPrefix.size();
  const char* last = branch.data() + branch.size();
  const auto [end, error] = std::from_chars(first, last, number);
  if (error != std::errc{} || end != last || number < 1) return std::nullopt;
  return number;
}
}  // namespace

template <>
Reply V2Service::answer<trunk::op::UploadImpactedTargets>(const trunk::UploadImpactedTargetsRequest& request) {
  const auto repo = find_repository(request.repository_id);
  if (!repo) return v2_error(404, "REPOSITORY_NOT_FOUND", "no repository has the id " + request.repository_id);
  if (repo->host != "github.com" && repo->host != "gitlab.com") {
    return v2_error(422, "IMPACTED_TARGETS_UNSUPPORTED", "impacted targets are for GitHub and GitLab repositories");
  }
  // The request's own rules (exactly one of each pair) were checked when it was read (validation.cpp).
  const std::optional<std::int64_t> number = request.number ? request.number : number_of_branch(*request.branch);
  if (!number) return v2_error(404, "PR_NOT_FOUND", "no pull request has the head branch " + *request.branch);
  trunk::SetImpactedTargetsRequest set;
  set.repo = *repo;
  set.target_branch = request.target_branch;
  set.pr.number = *number;
  set.pr.sha = request.sha;
  if (request.impacts_all_targets) {
    set.targets = trunk::AllTargets::all;
  } else {
    set.targets = *request.impacted_targets;
  }
  auto outcome = queues_.with_queue(*repo, request.target_branch,
                                    [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
                                      return queue.set_impacted_targets(set, settings);
                                    });
  if (auto refused = v2::refusal_of(outcome, "MERGE_QUEUE_NOT_FOUND", "PR_NOT_FOUND", "PR_NOT_IN_ACTIVE_STATE")) {
    return *std::move(refused);
  }
  Reply reply;
  reply.status = 202;
  reply.content_type.clear();
  return reply;
}

template <>
Reply V2Service::answer<trunk::op::GetPullRequestImpactedTargets>(const trunk::PullRequestRefV2& request) {
  const auto pr = find_pull_request(request.id);
  if (!pr) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + request.id);
  const std::vector<Entry> entries = entries_of(pr->repo, pr->number);
  if (entries.empty() || !entries.back().view.targets) {
    return v2_error(404, "IMPACTED_TARGETS_NOT_FOUND", "no impacted targets were uploaded for its head commit");
  }
  const MergeQueue::EntryView& latest = entries.back().view;
  trunk::PullRequestImpactedTargets out;
  out.sha = latest.sha;
  out.impacts_all_targets = latest.all_targets;
  std::vector<std::string> targets = latest.all_targets ? std::vector<std::string>{} : *latest.targets;
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  out.total_impacted_targets = static_cast<std::int64_t>(targets.size());
  out.impacted_targets = std::move(targets);
  return json_reply(trunk::to_json(out));
}

}  // namespace trunk::sandbox
