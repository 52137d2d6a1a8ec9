// The sandbox's v2 pull requests (docs/sandbox.md#v2): the pullRequests operations and the queue's submit and
// listing, over the same queue simulations v1 uses, so a pull request submitted through either version reads the
// same through both.
//
// A pull request is known once it has been submitted to a queue of its repository; its id is a UUID derived from
// the repository and number (pull_request_id), the same across submissions and restarts. Each submission is a
// queue entry, with the simulation's id for it. A pull request's queue entry is its latest one; its base branch the
// branch of that entry's queue; its head branch "pr-<number>" (the simulation invents no branch names).
#include <algorithm>
#include <map>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

std::string head_branch(std::int64_t number) { return "pr-" + std::to_string(number); }

/// v2's priority fields as the simulation's (v1's) priority: the value, else the name; nullopt for neither.
template <typename Request>
std::optional<trunk::Priority> priority_of(const Request& request) {
  if (request.priority_value) return trunk::Priority{*request.priority_value};
  if (request.priority_name) return trunk::Priority{*request.priority_name};
  return std::nullopt;
}

}  // namespace

std::map<std::int64_t, std::vector<V2Service::Entry>> V2Service::entries_by_number(const trunk::Repo& repo) {
  std::map<std::int64_t, std::vector<Entry>> out;
  const std::string repo_key = repo.to_string();
  for (const auto& [key, branch] : queues_.keys()) {
    if (key != repo_key) continue;
    queues_.with_queue(repo, branch, [&, &queue_branch = branch](MergeQueue& queue, const trunk::QueueSettings&) {
      for (MergeQueue::EntryView& view : queue.entries()) out[view.number].push_back(Entry{queue_branch, std::move(view)});
      return 0;
    });
  }
  for (auto& [number, entries] : out) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.view.submitted_at < b.view.submitted_at; });
  }
  return out;
}

std::vector<V2Service::Entry> V2Service::entries_of(const trunk::Repo& repo, std::int64_t number) {
  auto all = entries_by_number(repo);
  const auto it = all.find(number);
  return it == all.end() ? std::vector<Entry>{} : std::move(it->second);
}

std::optional<V2Service::PullRequestKey> V2Service::find_pull_request(const std::string& id) {
  const std::string wanted = lower(id);
  {
    std::lock_guard lock(mutex_);
    if (const auto it = pull_requests_.find(wanted); it != pull_requests_.end()) return it->second;
  }
  // Not seen yet: every submission of every queue, once; what is found is remembered.
  std::optional<PullRequestKey> found;
  for (const auto& [repo_key, branch] : queues_.keys()) {
    const trunk::Repo* repo = repo_of(repo_key);
    if (repo == nullptr) continue;
    std::vector<std::int64_t> numbers;
    queues_.with_queue(*repo, branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
      for (const MergeQueue::EntryView& view : queue.entries()) numbers.push_back(view.number);
      return 0;
    });
    std::lock_guard lock(mutex_);
    for (const std::int64_t number : numbers) {
      const std::string pr_id = pull_request_id(repo_key, number);
      pull_requests_.try_emplace(pr_id, PullRequestKey{*repo, number});
      if (pr_id == wanted) found = PullRequestKey{*repo, number};
    }
  }
  return found;
}

trunk::PullRequestV2 V2Service::to_pull_request(const trunk::Repo& repo, const std::vector<Entry>& all,
                                                const Entry* entry) const {
  const std::string repo_key = repo.to_string();
  if (entry == nullptr) entry = &all.back();
  const MergeQueue::EntryView& e = entry->view;
  trunk::PullRequestV2 pr;
  pr.id = pull_request_id(repo_key, e.number);
  pr.repository_id = repository_id(repo_key);
  pr.number = e.number;
  pr.title = e.title;
  pr.branch = head_branch(e.number);
  pr.sha = e.sha;
  pr.base_branch = entry->branch;
  pr.author = e.author;
  pr.url = "/v2/pull-requests/" + *pr.id;
  pr.html_url = "https://" + repo_key + "/pull/" + std::to_string(e.number);
  const bool merged = std::any_of(all.begin(), all.end(),
                                  [](const Entry& x) { return x.view.state == trunk::PullRequestState::merged; });
  pr.state = merged ? trunk::PullRequestProviderState::merged : trunk::PullRequestProviderState::open;
  pr.is_currently_submitted_to_queue =
      std::any_of(all.begin(), all.end(), [](const Entry& x) { return !x.view.concluded; });
  pr.created_at = all.front().view.submitted_at;
  trunk::QueueEntry& q = pr.queue_entry.emplace();
  q.id = e.id;
  q.merge_queue_id = merge_queue_id(repo_key, entry->branch);
  q.state = trunk::to_v2(e.state);
  q.state_changed_at = e.state_changed_at;
  q.priority_value = e.priority_value;
  q.priority_name = e.priority_name;
  if (e.used_default_priority) q.used_default_priority_name = e.priority_name;
  q.skips_the_line = e.priority_value == 0;
  q.allow_batching = !e.no_batch;
  q.direct = e.direct;
  q.verified_by_verification_run_id = e.passed_run;
  trunk::ReadinessV2& r = q.readiness.emplace();
  r.requires_impacted_targets = e.requires_targets;
  r.has_impacted_targets = e.has_targets;
  r.does_base_branch_match = true;
  r.mergeability = e.mergeable ? trunk::Mergeability::mergeable : trunk::Mergeability::in_progress;
  q.created_at = e.submitted_at;
  q.updated_at = e.updated_at;
  return pr;
}

template <typename F>
Reply V2Service::with_entry(const std::string& id, F&& f) {
  const auto key = find_pull_request(id);
  if (!key) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + id);
  const std::vector<Entry> before = entries_of(key->repo, key->number);
  if (before.empty()) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + id);
  const auto active = std::find_if(before.rbegin(), before.rend(), [](const Entry& e) { return !e.view.concluded; });
  const std::string& branch = active != before.rend() ? active->branch : before.back().branch;
  auto outcome = queues_.with_queue(key->repo, branch, [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
    return f(queue, settings, key->number);
  });
  if (auto refused = v2::refusal_of(outcome, "PR_NOT_FOUND", "PR_NOT_FOUND", "PR_NOT_IN_ACTIVE_STATE")) {
    return *std::move(refused);
  }
  return json_reply(trunk::to_json(to_pull_request(key->repo, entries_of(key->repo, key->number))));
}

// ---- one answer per operation --------------------------------------------------------------------------------

template <>
Reply V2Service::answer<trunk::op::SubmitToMergeQueue>(const trunk::SubmitPullRequestRequestV2& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  trunk::SubmitPullRequestRequest submit;
  submit.repo = key->repo;
  submit.target_branch = key->branch;
  submit.pr.number = request.number;
  submit.priority = priority_of(request);
  if (request.allow_batching) submit.no_batch = !*request.allow_batching;
  auto outcome = queues_.with_queue(key->repo, key->branch, [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
    return queue.submit(submit, settings, request.direct.value_or(false));
  });
  if (auto refused = v2::refusal_of(outcome, "MERGE_QUEUE_NOT_FOUND", "MERGE_QUEUE_NOT_FOUND", "PR_ALREADY_ENQUEUED")) {
    return *std::move(refused);
  }
  {
    std::lock_guard lock(mutex_);
    pull_requests_.try_emplace(pull_request_id(key->repo.to_string(), request.number),
                               PullRequestKey{key->repo, request.number});
  }
  return json_reply(trunk::to_json(to_pull_request(key->repo, entries_of(key->repo, request.number))), 201);
}

template <>
Reply V2Service::answer<trunk::op::ListMergeQueuePullRequests>(const trunk::ListQueuePullRequestsRequest& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  std::vector<MergeQueue::EntryView> views;
  queues_.with_queue(key->repo, key->branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
    views = queue.entries();
    return 0;
  });
  const auto wanted = [&](const MergeQueue::EntryView& e) {
    if (request.state && std::find(request.state->begin(), request.state->end(), trunk::to_v2(e.state)) ==
                             request.state->end()) {
      return false;
    }
    if (request.author && e.author != *request.author) return false;
    if (request.concluded_after && !(e.concluded_at && *e.concluded_at > *request.concluded_after)) return false;
    if (request.concluded_before && !(e.concluded_at && *e.concluded_at < *request.concluded_before)) return false;
    return true;
  };
  // Newest submission first; each entry shown as its pull request with that entry (the pull request's own
  // fields from all its entries, in any queue of the repository: one pass over them, not one per pull request).
  const auto by_number = entries_by_number(key->repo);
  std::vector<const MergeQueue::EntryView*> selected;
  for (auto it = views.rbegin(); it != views.rend(); ++it) {
    if (wanted(*it)) selected.push_back(&*it);
  }
  std::string filter = request.id;
  if (request.state) {
    for (const auto s : *request.state) filter += "," + std::string(trunk::to_wire(s));
  }
  filter += "\n" + request.author.value_or("");
  if (request.concluded_after) filter += "\n" + trunk::format_rfc3339(*request.concluded_after);
  if (request.concluded_before) filter += "\n" + trunk::format_rfc3339(*request.concluded_before);
  return v2::page_reply(v2::page_of<trunk::PullRequestList>(selected.size(), request, filter, [&](std::size_t i) {
    const Entry entry{key->branch, *selected[i]};
    return to_pull_request(key->repo, by_number.at(selected[i]->number), &entry);
  }));
}

template <>
Reply V2Service::answer<trunk::op::ResolvePullRequests>(const trunk::ResolvePullRequestsRequest& request) {
  const auto repo = find_repository(request.repository_id);
  if (!repo) return v2::page_reply(v2::page_of<trunk::PullRequestList>(std::vector<trunk::PullRequestV2>{}, request, ""));
  if (!request.number && !request.branch) {
    return v2_error(400, "VALIDATION_FAILED", "give number (up to 50, comma-separated) or branch");
  }
  const auto by_number = entries_by_number(*repo);
  std::vector<trunk::PullRequestV2> all;
  std::string filter = lower(request.repository_id) + "\n";
  if (request.number) {
    std::vector<std::int64_t> numbers;  // each once, in the order asked
    for (const std::int64_t n : *request.number) {
      if (std::find(numbers.begin(), numbers.end(), n) == numbers.end()) numbers.push_back(n);
    }
    for (const std::int64_t n : numbers) {
      filter += std::to_string(n) + ",";
      if (const auto it = by_number.find(n); it != by_number.end()) all.push_back(to_pull_request(*repo, it->second));
    }
  } else {
    // The sandbox's head branches are "pr-<number>": the branch names one pull request, whose latest entry must
    // target base_branch when it is given.
    filter += *request.branch + "\n" + request.base_branch.value_or("");
    for (const auto& [number, entries] : by_number) {
      if (head_branch(number) != *request.branch) continue;
      const trunk::PullRequestV2 pr = to_pull_request(*repo, entries);
      if (!request.base_branch || pr.base_branch == *request.base_branch) all.push_back(pr);
    }
  }
  return v2::page_reply(v2::page_of<trunk::PullRequestList>(std::move(all), request, filter));
}

template <>
Reply V2Service::answer<trunk::op::GetPullRequest>(const trunk::PullRequestRefV2& request) {
  const auto key = find_pull_request(request.id);
  // A pull request seen before has no entries left once the queues it was in were deleted: unknown again.
  const std::vector<Entry> entries = key ? entries_of(key->repo, key->number) : std::vector<Entry>{};
  if (entries.empty()) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + request.id);
  return json_reply(trunk::to_json(to_pull_request(key->repo, entries)));
}

template <>
Reply V2Service::answer<trunk::op::ReprioritizePullRequest>(const trunk::ReprioritizeRequest& request) {
  return with_entry(request.id, [&](MergeQueue& queue, const trunk::QueueSettings& settings, std::int64_t number) {
    MergeQueue::EntryChange change;
    change.priority = priority_of(request);
    return queue.change_entry(number, change, settings);
  });
}

template <>
Reply V2Service::answer<trunk::op::UpdateQueueEntry>(const trunk::UpdateQueueEntryRequest& request) {
  MergeQueue::EntryChange change;
  change.priority = priority_of(request);
  change.direct = request.direct;
  if (request.allow_batching) change.no_batch = !*request.allow_batching;
  return with_entry(request.id, [&](MergeQueue& queue, const trunk::QueueSettings& settings, std::int64_t number) {
    return queue.change_entry(number, change, settings);
  });
}

template <>
Reply V2Service::answer<trunk::op::DequeuePullRequest>(const trunk::PullRequestRefV2& request) {
  return with_entry(request.id, [](MergeQueue& queue, const trunk::QueueSettings& settings, std::int64_t number) {
    return queue.cancel(number, settings);
  });
}

template <>
Reply V2Service::answer<trunk::op::RestartPullRequestTests>(const trunk::PullRequestRefV2& request) {
  return with_entry(request.id, [](MergeQueue& queue, const trunk::QueueSettings& settings, std::int64_t number) {
    return queue.restart(number, settings);
  });
}

}  // namespace trunk::sandbox
