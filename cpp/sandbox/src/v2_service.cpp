#include "v2_service.hpp"

#include <algorithm>
#include <cstdio>

#include "failure_model.hpp"
#include "identifiers.hpp"
#include "random.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"
#include "trunk/validation.hpp"
#include "trunk/wire_request.hpp"

namespace trunk::sandbox {

namespace {

/// Whether `authorization` is "Bearer <key>" with the sandbox's key (compared in constant time).
bool bearer_matches(const std::string& authorization, const std::string& key) {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() != kBearer.size() + key.size() || !authorization.starts_with(kBearer)) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < key.size(); ++i) {
    difference |= static_cast<unsigned char>(authorization[kBearer.size() + i] ^ key[i]);
  }
  return difference == 0;
}

/// The cursor of the page that starts at `offset` of a listing filtered by `filter`: bound to the filter, as v2's
/// cursors are.
std::string cursor_for(std::size_t offset, const std::string& filter) {
  char text[64];
  std::snprintf(text, sizeof text, "c%zu.%016llx", offset, static_cast<unsigned long long>(text_hash(filter)));
  return text;
}
std::optional<std::size_t> offset_of(const std::string& cursor, const std::string& filter) {
  std::size_t offset = 0;
  unsigned long long hash = 0;
  char tail = 0;
  if (std::sscanf(cursor.c_str(), "c%zu.%16llx%c", &offset, &hash, &tail) != 2) return std::nullopt;
  if (cursor != cursor_for(offset, filter)) return std::nullopt;
  return offset;
}

Reply of_refusal(const Refusal& refusal, std::string_view conflict_code) {
  if (refusal.status == 404) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", refusal.message);
  if (refusal.status == 409) return v2_error(409, conflict_code, refusal.message);
  if (refusal.status >= 500) return v2_error(500, "INTERNAL_ERROR", refusal.message);
  return v2_error(400, "VALIDATION_FAILED", refusal.message);
}

template <typename E>
std::optional<E> known(const std::optional<trunk::OpenEnum<E>>& value) {
  return value ? value->known() : std::nullopt;
}

}  // namespace

std::string repository_id(const std::string& repo_key) {
  const std::uint64_t high = text_hash("repository\n" + repo_key), low = mix64(high ^ 0x5EED5EED5EED5EEDULL);
  char text[40];
  std::snprintf(text, sizeof text, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                static_cast<unsigned long long>(high >> 32), static_cast<unsigned long long>((high >> 16) & 0xFFFF),
                static_cast<unsigned long long>(high & 0xFFF), static_cast<unsigned long long>((low >> 48) & 0xFFF),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return text;
}

std::string merge_queue_id(const std::string& repo_key, const std::string& branch) {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::uint64_t bits = text_hash("queue\n" + repo_key + "\n" + branch);
  std::string id;
  for (int i = 0; i < 8; ++i, bits /= 62) id += kAlphabet[bits % 62];
  return id;
}

Reply v2_error(int status, std::string_view code, std::string message) {
  // A message may quote what the caller sent, which need not be UTF-8: such bytes become U+FFFD, never a 500.
  Reply reply;
  reply.status = status;
  reply.body = trunk::Json{{"error", {{"code", std::string(code)}, {"message", std::move(message)}}}}.dump(
      -1, ' ', false, trunk::Json::error_handler_t::replace);
  return reply;
}

V2Service::V2Service(QueueStore& queues, std::vector<trunk::Repo> repos, std::string api_key, QueueStore::Clock clock)
    : queues_(queues), repos_(std::move(repos)), api_key_(std::move(api_key)), clock_(std::move(clock)) {}

std::optional<V2Service::QueueKey> V2Service::find_queue(const std::string& id) const {
  for (const auto& [repo_key, branch] : queues_.keys()) {
    if (merge_queue_id(repo_key, branch) != id) continue;
    for (const trunk::Repo& repo : repos_) {
      if (repo.to_string() == repo_key) return QueueKey{repo, branch};
    }
  }
  return std::nullopt;
}

std::optional<trunk::Repo> V2Service::find_repository(const std::string& id) const {
  for (const trunk::Repo& repo : repos_) {
    if (repository_id(repo.to_string()) == lower(id)) return repo;
  }
  return std::nullopt;
}

trunk::MergeQueue V2Service::to_merge_queue(const QueueKey& key, const trunk::QueueSettings& s) {
  const std::string id = merge_queue_id(key.repo.to_string(), key.branch);
  trunk::MergeQueue queue;
  queue.id = id;
  queue.repository_id = repository_id(key.repo.to_string());
  queue.target_branch = key.branch;
  queue.state = trunk::to_v2(known(s.state).value_or(trunk::QueueState::running));
  queue.mode = trunk::to_v2(known(s.mode).value_or(trunk::QueueMode::single));
  queue.managed_state = trunk::ManagedState::manual;
  queue.repository_url = "/v2/repositories/" + *queue.repository_id;
  queue.pull_requests_url = "/v2/merge-queues/" + id + "/pull-requests";
  trunk::MergeQueueConfig& c = queue.config.emplace();
  c.concurrency = s.concurrency;
  c.bisection_concurrency = s.bisection_concurrency;
  c.pending_failure_depth = s.pending_failure_depth;
  c.can_optimistically_merge = s.can_optimistically_merge;
  c.allow_batching = s.batch;
  c.batching_max_wait_time_minutes = s.batching_max_wait_time_minutes;
  c.batching_min_size = s.batching_min_size;
  c.testing_timeout_minutes = s.testing_timeout_minutes;
  c.creates_prs_for_testing_branches = s.create_prs_for_testing_branches;
  c.are_comments_enabled = s.comments_enabled;
  c.are_commands_enabled = s.commands_enabled;
  c.is_status_check_enabled = s.status_check_enabled;
  c.is_extension_enabled = s.extension_enabled;
  c.are_label_commands_enabled = s.label_commands_enabled;
  c.are_state_labels_enabled = s.state_labels_enabled;
  c.required_statuses = s.required_statuses;
  c.direct_merge_mode = s.direct_merge_mode;
  if (auto mode = known(s.optimization_mode)) c.optimization_mode = trunk::to_v2(*mode);
  if (auto method = known(s.merge_method)) c.merge_method = trunk::to_v2(*method);
  c.enqueueing_label = s.enqueueing_label;
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
  change.state = trunk::to_v2(known(s.state).value_or(trunk::QueueState::running));
  change.mode = trunk::to_v2(known(s.mode).value_or(trunk::QueueMode::single));
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
  if (const auto* refused = std::get_if<Refusal>(&outcome)) return of_refusal(*refused, "MODE_CHANGE_IN_PROGRESS");
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
    const auto repo = std::find_if(repos_.begin(), repos_.end(),
                                   [&](const trunk::Repo& r) { return r.to_string() == repo_key; });
    if (repo == repos_.end()) continue;
    const std::optional<QueueKey> key = QueueKey{*repo, branch};
    auto settings = queues_.get(key->repo, key->branch);
    if (const auto* found = std::get_if<trunk::QueueSettings>(&settings)) all.push_back(to_merge_queue(*key, *found));
  }
  const std::string filter = request.repository_id.value_or("") + "\n" + request.target_branch.value_or("") + "\n" +
                             std::to_string(request.limit.value_or(25));
  std::size_t offset = 0;
  if (request.cursor) {
    const auto at = offset_of(*request.cursor, filter);
    if (!at) return v2_error(400, "INVALID_CURSOR", "the cursor was not made for this listing");
    offset = *at;
  }
  const std::size_t limit = static_cast<std::size_t>(request.limit.value_or(25));
  trunk::MergeQueueList page;
  for (std::size_t i = offset; i < all.size() && i < offset + limit; ++i) page.data.push_back(std::move(all[i]));
  const bool more = offset + limit < all.size();
  page.has_more = more;
  if (more) page.next_cursor = cursor_for(offset + limit, filter);
  if (request.include_total.value_or(false)) page.total = static_cast<std::int64_t>(all.size());
  trunk::Json json = trunk::to_json(page);
  if (!more) json["nextCursor"] = nullptr;  // null on the last page, as v2 answers
  return json_reply(json);
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
  if (auto refused = queues_.create(create)) return of_refusal(*refused, "QUEUE_ALREADY_EXISTS");
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
  return update(request.id, {}, [this](const QueueKey& key, const trunk::QueueSettings& s) {
    return json_reply(trunk::to_json(to_merge_queue(key, s)));
  });
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
    return of_refusal(*refused, "QUEUE_HAS_ACTIVE_ENTRIES");
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
  change.concurrency = r.concurrency;
  change.bisection_concurrency = r.bisection_concurrency;
  change.pending_failure_depth = r.pending_failure_depth;
  change.can_optimistically_merge = r.can_optimistically_merge;
  change.batch = r.allow_batching;
  change.batching_max_wait_time_minutes = r.batching_max_wait_time_minutes;
  change.batching_min_size = r.batching_min_size;
  change.testing_timeout_minutes = r.testing_timeout_minutes;
  change.create_prs_for_testing_branches = r.creates_prs_for_testing_branches;
  change.comments_enabled = r.are_comments_enabled;
  change.commands_enabled = r.are_commands_enabled;
  change.status_check_enabled = r.is_status_check_enabled;
  change.extension_enabled = r.is_extension_enabled;
  change.label_commands_enabled = r.are_label_commands_enabled;
  change.state_labels_enabled = r.are_state_labels_enabled;
  change.required_statuses = r.required_statuses;
  change.direct_merge_mode = r.direct_merge_mode;
  if (r.optimization_mode) change.optimization_mode = trunk::to_v1(*r.optimization_mode);
  if (r.merge_method) change.merge_method = trunk::to_v1(*r.merge_method);
  change.enqueueing_label = r.enqueueing_label;
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

// ---- routing ---------------------------------------------------------------------------------------------------

template <typename Op>
Reply V2Service::serve(const std::vector<std::pair<std::string, std::string>>& parameters, std::string_view body,
                       std::string_view query) {
  using Request = typename Op::Request;
  try {
    trunk::Json object = trunk::Json::object();
    const bool has_body = Op::method != std::string_view("GET") && Op::method != std::string_view("DELETE");
    // A request whose fields are all in its path (pause, resume, drain) declares no body: any is ignored.
    if (has_body && trunk::has_body_fields<Request>()) {
      if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return v2_error(400, "VALIDATION_FAILED", "the request body is required (a JSON object)");
      }
      try {
        object = trunk::Json::parse(body);
      } catch (const std::exception&) {  // its message would quote the bytes, which may not even be UTF-8
        return v2_error(400, "VALIDATION_FAILED", "the request body is not valid JSON");
      }
      if (!object.is_object()) return v2_error(400, "VALIDATION_FAILED", "the body must be a JSON object");
    }
    const Request request =
        trunk::decode<Request>(trunk::dump_json(trunk::request_json<Request>(parameters, has_body ? "" : query, object)));
    if (auto violations = trunk::check(request); !violations.empty()) {
      throw trunk::ValidationError(std::move(violations));
    }
    return answer<Op>(request);
  } catch (const trunk::ValidationError& e) {
    return v2_error(400, "VALIDATION_FAILED", e.what());
  } catch (const trunk::DecodeError& e) {
    return v2_error(400, "VALIDATION_FAILED", e.what());
  } catch (const std::exception& e) {  // malformed JSON, a number beyond range: still the caller's mistake
    return v2_error(400, "VALIDATION_FAILED", std::string("malformed request: ") + e.what());
  }
}

Reply V2Service::handle(std::string_view method, std::string_view path,
                        const std::optional<std::string>& authorization, std::string_view body,
                        std::string_view query) {
  using Serve = Reply (V2Service::*)(const std::vector<std::pair<std::string, std::string>>&, std::string_view,
                                     std::string_view);
  Serve operation = nullptr;
  std::string allowed;  // the methods of a known path, for the 405
  std::vector<std::pair<std::string, std::string>> parameters;
  bool path_known = false;
  trunk::for_each_operation([&](auto candidate) {
    using Op = decltype(candidate);
    if constexpr (Op::credential == trunk::Credential::api_key) {
      if (operation != nullptr) return;
      auto matched = trunk::match_path(Op::path, path);
      if (!matched) return;
      path_known = true;
      if (method == Op::method) {
        operation = &V2Service::serve<Op>;
        parameters = std::move(*matched);
      } else {
        allowed += (allowed.empty() ? "" : ", ") + std::string(Op::method);
      }
    }
  });
  if (!path_known) return v2_error(404, "NOT_FOUND", "no operation at " + std::string(path));
  if (!authorization) return v2_error(401, "AUTHENTICATION_REQUIRED", "send the API key as Authorization: Bearer");
  if (!bearer_matches(*authorization, api_key_)) return v2_error(401, "INVALID_TOKEN", "not a valid API key");
  if (operation == nullptr) {
    Reply reply = v2_error(405, "METHOD_NOT_ALLOWED", std::string(method) + " is not an operation of " + std::string(path));
    if (!allowed.empty()) reply.headers.emplace_back("Allow", std::string(allowed));
    return reply;
  }
  try {
    return (this->*operation)(parameters, body, query);
  } catch (const std::exception& e) {
    return v2_error(500, "INTERNAL_ERROR", e.what());
  }
}

}  // namespace trunk::sandbox
