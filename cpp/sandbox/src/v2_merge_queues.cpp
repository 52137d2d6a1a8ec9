// The sandbox's v2 merge queues (docs/sandbox.md#v2): each mergeQueues operation's answer, over the queue store
// v1 uses, so a queue reads the same through either version. The settings v2 has and v1 does not are kept in
// V2Service (v2_only_).
#include <algorithm>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_settings_map.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

trunk::MergeQueue V2Service::to_merge_queue(const QueueKey& key, const trunk::QueueSettings& s) {
  const std::string id = merge_queue_id(key.repo.to_string(), key.branch);
  trunk::MergeQueue queue;
  queue.id = id;
  queue.repository_id = repository_id(key.repo.to_string());
  queue.target_branch = key.branch;
  queue.state = trunk::to_v2(v2::known(s.state).value_or(trunk::QueueState::running));
  queue.mode = trunk::to_v2(v2::known(s.mode).value_or(trunk::QueueMode::single));
  queue.managed_state = trunk::ManagedState::manual;
  queue.repository_url = "/v2/repositories/" + *queue.repository_id;
  queue.pull_requests_url = "/v2/merge-queues/" + id + "/pull-requests";
  trunk::MergeQueueConfig& c = queue.config.emplace();
  v2::copy_v1_to_v2(s, c);
  if (auto mode = v2::known(s.optimization_mode)) c.optimization_mode = trunk::to_v2(*mode);
  if (auto method = v2::known(s.merge_method)) c.merge_method = trunk::to_v2(*method);
  std::lock_guard lock(mutex_);
  V2OnlySettings& only = v2_only_[id];
  if (!only.created_at) only.created_at = only.updated_at = clock_();
  queue.created_at = only.created_at;
  queue.updated_at = only.updated_at;
  c.not_ready_timeout_minutes = only.not_ready_timeout_minutes;
  c.allowed_bot_submitters = only.allowed_bot_submitters;
  c.batching_rules = only.batching_rules;
  c.test_branch_construction_mode = only.test_branch_construction;
  return queue;
}

trunk::MergeQueueStateChange V2Service::to_state_change(const QueueKey& key, const trunk::QueueSettings& s) const {
  trunk::MergeQueueStateChange change;
  change.id = merge_queue_id(key.repo.to_string(), key.branch);
  change.state = trunk::to_v2(v2::known(s.state).value_or(trunk::QueueState::running));
  change.mode = trunk::to_v2(v2::known(s.mode).value_or(trunk::QueueMode::single));
  change.pull_requests_url = "/v2/merge-queues/" + *change.id + "/pull-requests";
  return change;
}

template <typename Respond>
Reply V2Service::update(const std::string& id, trunk::UpdateQueueRequest change, Respond&& respond) {
  const std::optional<QueueKey> key = find_queue(id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + id);
  change.repo = key->repo;
  change.target_branch = key->branch;
  const bool changes = change != trunk::UpdateQueueRequest{.repo = change.repo, .target_branch = change.target_branch};
  auto outcome = queues_.update(change);
  if (const auto* refused = std::get_if<Refusal>(&outcome)) return v2::of_refusal(*refused, "MERGE_QUEUE_NOT_FOUND", "MODE_CHANGE_IN_PROGRESS");
  if (changes) {
    std::lock_guard lock(mutex_);
    V2OnlySettings& only = v2_only_[id];
    if (!only.created_at) only.created_at = clock_();
    only.updated_at = clock_();
  }
  return respond(*key, std::get<trunk::QueueSettings>(outcome));
}

// ---- one answer per operation --------------------------------------------------------------------------------

template <>
Reply V2Service::answer<trunk::op::ListMergeQueues>(const trunk::ListMergeQueuesRequest& request) {
  if (request.target_branch && !request.repository_id) {
    return v2_error(400, "VALIDATION_FAILED", "targetBranch needs repositoryId");
  }
  std::vector<trunk::MergeQueue> all;
  for (const auto& stored : queues_.keys()) {
    // Named copies, not a structured binding: clang 14 cannot capture a binding in the lambda below.
    const std::string& repo_key = stored.first;
    const std::string& branch = stored.second;
    if (request.repository_id && repository_id(repo_key) != lower(*request.repository_id)) continue;
    if (request.target_branch && branch != *request.target_branch) continue;
    // The key is at hand: no search by id (find_queue walks every queue) for each queue listed.
    const trunk::Repo* repo = repo_of(repo_key);
    if (repo == nullptr) continue;
    const std::optional<QueueKey> key = QueueKey{*repo, branch};
    auto settings = queues_.get(key->repo, key->branch);
    if (const auto* found = std::get_if<trunk::QueueSettings>(&settings)) all.push_back(to_merge_queue(*key, *found));
  }
  return v2::page_reply(v2::page_of<trunk::MergeQueueList>(
      std::move(all), request, request.repository_id.value_or("") + "\n" + request.target_branch.value_or("")));
}

template <>
Reply V2Service::answer<trunk::op::CreateMergeQueue>(const trunk::CreateMergeQueueRequest& request) {
  const auto repo = find_repository(request.repository_id);
  if (!repo) return v2_error(404, "REPOSITORY_NOT_FOUND", "no repository has the id " + request.repository_id);
  trunk::CreateQueueRequest create;
  create.repo = *repo;
  create.target_branch = request.target_branch;
  if (request.mode) create.mode = trunk::to_v1(*request.mode);
  create.concurrency = request.concurrency;
  if (auto refused = queues_.create(create)) return v2::of_refusal(*refused, "MERGE_QUEUE_NOT_FOUND", "QUEUE_ALREADY_EXISTS");
  trunk::UpdateQueueRequest settings;
  settings.bisection_concurrency = request.bisection_concurrency;
  settings.enqueueing_label = request.enqueueing_label;
  Reply reply = update(merge_queue_id(repo->to_string(), request.target_branch), settings,
                       [this](const QueueKey& key, const trunk::QueueSettings& s) {
                         return json_reply(trunk::to_json(to_merge_queue(key, s)), 201);
                       });
  return reply;
}

template <>
Reply V2Service::answer<trunk::op::GetMergeQueue>(const trunk::MergeQueueRef& request) {
  // A read: the store's get, not an empty update (which takes the write path).
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  auto settings = queues_.get(key->repo, key->branch);
  if (const auto* refused = std::get_if<Refusal>(&settings)) {
    return v2::of_refusal(*refused, "MERGE_QUEUE_NOT_FOUND", "MODE_CHANGE_IN_PROGRESS");
  }
  return json_reply(trunk::to_json(to_merge_queue(*key, std::get<trunk::QueueSettings>(settings))));
}

template <>
Reply V2Service::answer<trunk::op::DeleteMergeQueue>(const trunk::MergeQueueRef& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  trunk::DeleteQueueRequest remove;
  remove.repo = key->repo;
  remove.target_branch = key->branch;
  if (auto refused = queues_.remove(remove)) {
    if (refused->status == 400) return v2_error(409, "QUEUE_HAS_ACTIVE_ENTRIES", refused->message);
    return v2::of_refusal(*refused, "MERGE_QUEUE_NOT_FOUND", "QUEUE_HAS_ACTIVE_ENTRIES");
  }
  Reply reply;
  reply.status = 204;
  reply.content_type.clear();
  return reply;
}

namespace {
trunk::UpdateQueueRequest state_change(trunk::QueueState state) {
  trunk::UpdateQueueRequest change;
  change.state = state;
  return change;
}
}  // namespace

#define TRUNK_V2_STATE_ANSWER_(Op, state)                                                                  \
  template <>                                                                                              \
  Reply V2Service::answer<trunk::op::Op>(const trunk::MergeQueueRef& request) {                            \
    return update(request.id, state_change(state), [this](const QueueKey& key, const trunk::QueueSettings& s) { \
      return json_reply(trunk::to_json(to_state_change(key, s)));                                         \
    });                                                                                                    \
  }
TRUNK_V2_STATE_ANSWER_(PauseMergeQueue, trunk::QueueState::paused)
TRUNK_V2_STATE_ANSWER_(ResumeMergeQueue, trunk::QueueState::running)
TRUNK_V2_STATE_ANSWER_(DrainMergeQueue, trunk::QueueState::draining)
#undef TRUNK_V2_STATE_ANSWER_

template <>
Reply V2Service::answer<trunk::op::SwitchMergeQueueMode>(const trunk::SwitchModesRequest& request) {
  trunk::UpdateQueueRequest change;
  change.mode = trunk::to_v1(request.mode);
  return update(request.id, change, [this](const QueueKey& key, const trunk::QueueSettings& s) {
    return json_reply(trunk::to_json(to_state_change(key, s)));
  });
}

template <>
Reply V2Service::answer<trunk::op::UpdateMergeQueueConfig>(const trunk::UpdateMergeQueueConfigRequest& r) {
  trunk::UpdateQueueRequest change;
  v2::copy_v2_to_v1(r, change);
  if (r.optimization_mode) change.optimization_mode = trunk::to_v1(*r.optimization_mode);
  if (r.merge_method) change.merge_method = trunk::to_v1(*r.merge_method);
  // v1's queue store knows no 0 for the settings v2 allows it in: 0 means "off" there; kept as v2 reads it.
  return update(r.id, change, [this, &r](const QueueKey& key, const trunk::QueueSettings& s) {
    {
      std::lock_guard lock(mutex_);
      V2OnlySettings& only = v2_only_[merge_queue_id(key.repo.to_string(), key.branch)];
      if (r.not_ready_timeout_minutes) only.not_ready_timeout_minutes = *r.not_ready_timeout_minutes;
      if (r.allowed_bot_submitters) only.allowed_bot_submitters = *r.allowed_bot_submitters;
      if (r.batching_rules) only.batching_rules = *r.batching_rules;
      if (r.test_branch_construction_mode) only.test_branch_construction = *r.test_branch_construction_mode;
    }
    return json_reply(trunk::to_json(to_merge_queue(key, s)));
  });
}


namespace {
Reply prometheus_reply(std::string text) {
  Reply reply;
  reply.body = std::move(text);
  reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return reply;
}
}  // namespace

template <>
Reply V2Service::answer<trunk::op::GetOrganizationMergeQueueMetrics>(const trunk::OrganizationMetricsRequest& request) {
  std::optional<trunk::Repo> repo;
  if (request.repository_id) {
    repo = find_repository(*request.repository_id);
    if (!repo) return v2_error(404, "REPOSITORY_NOT_FOUND", "no repository has the id " + *request.repository_id);
  }
  return prometheus_reply(queues_.metrics(repo));
}

template <>
Reply V2Service::answer<trunk::op::GetMergeQueueMetricsV2>(const trunk::MergeQueueRef& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  return prometheus_reply(queues_.metrics(key->repo, key->branch));
}

}  // namespace trunk::sandbox
