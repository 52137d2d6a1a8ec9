#include "queue_store.hpp"

#include <sys/stat.h>

#include "data_file.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"

namespace trunk::sandbox {

namespace {
constexpr const char* kStateFormat = "trunk-sandbox-queues";

template <typename E>
E enum_or_fail(const Json& value, const std::string& where) {
  if (value.is_string()) {
    if (auto known = trunk::enum_from_wire<E>(value.get<std::string>())) return *known;
  }
  throw trunk::Error(where + ": not a known value: " + value.dump());
}
}  // namespace

QueueStore::QueueStore(std::string state_file, std::chrono::milliseconds switching_duration, Clock clock)
    : state_file_(std::move(state_file)), switching_duration_(switching_duration), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return std::chrono::steady_clock::now(); };
}

trunk::QueueSettings QueueStore::settings_of(const Queue& q, const std::string& branch) const {
  trunk::QueueSettings s;
  s.state = clock_() < q.switching_until ? trunk::QueueState::switching_modes : q.state;
  s.branch = branch;
  s.concurrency = q.concurrency;
  s.testing_timeout_minutes = q.testing_timeout_minutes;
  s.mode = q.mode;
  s.can_optimistically_merge = q.can_optimistically_merge;
  s.pending_failure_depth = q.pending_failure_depth;
  s.batch = q.batch;
  s.batching_max_wait_time_minutes = q.batching_max_wait_time_minutes;
  s.batching_min_size = q.batching_min_size;
  s.create_prs_for_testing_branches = q.create_prs_for_testing_branches;
  s.comments_enabled = q.comments_enabled;
  s.commands_enabled = q.commands_enabled;
  s.status_check_enabled = q.status_check_enabled;
  s.bisection_concurrency = q.bisection_concurrency;
  s.required_statuses = q.manual_required_statuses ? *q.manual_required_statuses : kBranchProtectionStatuses;
  s.direct_merge_mode = q.direct_merge_mode;
  s.optimization_mode = q.optimization_mode;
  s.merge_method = q.merge_method;
  return s;
}

trunk::QueueSettings QueueStore::get(const trunk::Repo& repo, const std::string& branch) const {
  std::lock_guard lock(mutex_);
  auto it = queues_.find({repo.to_string(), branch});
  return settings_of(it == queues_.end() ? Queue{} : it->second, branch);
}

trunk::QueueSettings QueueStore::update(const trunk::UpdateQueueRequest& r) {
  std::lock_guard lock(mutex_);
  Queue& q = queues_[{r.repo.to_string(), r.target_branch}];
  const Queue before = q;
  if (r.state) q.state = *r.state;
  if (r.mode && *r.mode != q.mode) {
    q.mode = *r.mode;
    q.switching_until = clock_() + switching_duration_;
  }
  if (r.concurrency) q.concurrency = *r.concurrency;
  if (r.bisection_concurrency) q.bisection_concurrency = *r.bisection_concurrency;
  if (r.testing_timeout_minutes) q.testing_timeout_minutes = *r.testing_timeout_minutes;
  if (r.pending_failure_depth) q.pending_failure_depth = *r.pending_failure_depth;
  if (r.can_optimistically_merge) q.can_optimistically_merge = *r.can_optimistically_merge;
  if (r.batch) q.batch = *r.batch;
  if (r.batching_max_wait_time_minutes) q.batching_max_wait_time_minutes = *r.batching_max_wait_time_minutes;
  if (r.batching_min_size) q.batching_min_size = *r.batching_min_size;
  if (r.comments_enabled) q.comments_enabled = *r.comments_enabled;
  if (r.commands_enabled) q.commands_enabled = *r.commands_enabled;
  if (r.create_prs_for_testing_branches) q.create_prs_for_testing_branches = *r.create_prs_for_testing_branches;
  if (r.direct_merge_mode) q.direct_merge_mode = *r.direct_merge_mode;
  if (r.optimization_mode) q.optimization_mode = *r.optimization_mode;
  if (r.merge_method) q.merge_method = *r.merge_method;
  if (r.status_check_enabled) q.status_check_enabled = *r.status_check_enabled;
  if (r.required_statuses) q.manual_required_statuses = *r.required_statuses;
  if (r.delete_required_statuses.value_or(false)) q.manual_required_statuses.reset();
  try {
    persist();
  } catch (...) {
    q = before;  // the answer must describe what is stored: a failed write changes nothing
    throw;
  }
  return settings_of(q, r.target_branch);
}

void QueueStore::persist() const {
  if (state_file_.empty()) return;
  Json queues = Json::array();
  for (const auto& [key, q] : queues_) {
    Json entry = {{"repo", key.first},
                  {"targetBranch", key.second},
                  {"state", trunk::to_wire(q.state)},
                  {"mode", trunk::to_wire(q.mode)},
                  {"concurrency", q.concurrency},
                  {"bisectionConcurrency", q.bisection_concurrency},
                  {"testingTimeoutMinutes", q.testing_timeout_minutes},
                  {"pendingFailureDepth", q.pending_failure_depth},
                  {"canOptimisticallyMerge", q.can_optimistically_merge},
                  {"batch", q.batch},
                  {"batchingMaxWaitTimeMinutes", q.batching_max_wait_time_minutes},
                  {"batchingMinSize", q.batching_min_size},
                  {"commentsEnabled", q.comments_enabled},
                  {"commandsEnabled", q.commands_enabled},
                  {"createPrsForTestingBranches", q.create_prs_for_testing_branches},
                  {"statusCheckEnabled", q.status_check_enabled},
                  {"directMergeMode", trunk::to_wire(q.direct_merge_mode)},
                  {"optimizationMode", trunk::to_wire(q.optimization_mode)},
                  {"mergeMethod", trunk::to_wire(q.merge_method)}};
    entry["requiredStatuses"] = q.manual_required_statuses ? Json(*q.manual_required_statuses) : Json(nullptr);
    queues.push_back(std::move(entry));
  }
  const Json document = {{"format", kStateFormat}, {"version", 1}, {"queues", std::move(queues)}};
  write_file_atomically(state_file_, document.dump(2) + "\n");
}

void QueueStore::load() {
  if (state_file_.empty()) return;
  struct stat info {};
  if (::stat(state_file_.c_str(), &info) != 0) return;  // first start: no file yet
  const std::string where = "state file " + state_file_;
  Json document;
  try {
    document = Json::parse(read_file(state_file_));
  } catch (const Json::parse_error& e) {
    throw trunk::Error(where + ": malformed JSON (" + e.what() + ")");
  }
  if (!document.is_object() || document.value("format", "") != kStateFormat || !document.contains("queues") ||
      !document["queues"].is_array()) {
    throw trunk::Error(where + ": not a trunk-sandbox queue state file (expected {\"format\": \"" +
                       std::string(kStateFormat) + "\", \"queues\": [...]})");
  }
  std::map<Key, Queue> loaded;
  const Json& queues = document["queues"];
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const std::string at = where + ": queues[" + std::to_string(i) + "]";
    const Json& e = queues[i];
    auto need = [&](const char* key) -> const Json& {
      if (!e.is_object() || !e.contains(key)) throw trunk::Error(at + "." + key + ": missing");
      return e[key];
    };
    auto integer = [&](const char* key) {
      const Json& v = need(key);
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 4294967295) {
        throw trunk::Error(at + "." + key + ": expected an integer between 1 and 4294967295, got " + v.dump());
      }
      return v.get<std::int64_t>();
    };
    auto boolean = [&](const char* key) {
      const Json& v = need(key);
      if (!v.is_boolean()) throw trunk::Error(at + "." + key + ": expected a boolean, got " + v.dump());
      return v.get<bool>();
    };
    auto text = [&](const char* key) {
      const Json& v = need(key);
      if (!v.is_string()) throw trunk::Error(at + "." + key + ": expected a string, got " + v.dump());
      return v.get<std::string>();
    };
    Queue q;
    const Key key{text("repo"), text("targetBranch")};
    q.state = enum_or_fail<trunk::QueueState>(need("state"), at + ".state");
    if (q.state == trunk::QueueState::switching_modes) throw trunk::Error(at + ".state: switching_modes is not storable");
    q.mode = enum_or_fail<trunk::QueueMode>(need("mode"), at + ".mode");
    q.concurrency = integer("concurrency");
    q.bisection_concurrency = integer("bisectionConcurrency");
    q.testing_timeout_minutes = integer("testingTimeoutMinutes");
    q.pending_failure_depth = integer("pendingFailureDepth");
    q.can_optimistically_merge = boolean("canOptimisticallyMerge");
    q.batch = boolean("batch");
    q.batching_max_wait_time_minutes = integer("batchingMaxWaitTimeMinutes");
    q.batching_min_size = integer("batchingMinSize");
    q.comments_enabled = boolean("commentsEnabled");
    q.commands_enabled = boolean("commandsEnabled");
    q.create_prs_for_testing_branches = boolean("createPrsForTestingBranches");
    q.status_check_enabled = boolean("statusCheckEnabled");
    q.direct_merge_mode = enum_or_fail<trunk::DirectMergeMode>(need("directMergeMode"), at + ".directMergeMode");
    q.optimization_mode = enum_or_fail<trunk::OptimizationMode>(need("optimizationMode"), at + ".optimizationMode");
    q.merge_method = enum_or_fail<trunk::MergeMethod>(need("mergeMethod"), at + ".mergeMethod");
    const Json& statuses = need("requiredStatuses");
    if (!statuses.is_null()) {
      if (!statuses.is_array()) throw trunk::Error(at + ".requiredStatuses: expected an array or null");
      std::vector<std::string> list;
      for (const Json& s : statuses) {
        if (!s.is_string()) throw trunk::Error(at + ".requiredStatuses: expected strings, got " + s.dump());
        list.push_back(s.get<std::string>());
      }
      q.manual_required_statuses = std::move(list);
    }
    loaded[key] = std::move(q);
  }
  std::lock_guard lock(mutex_);
  queues_ = std::move(loaded);
}

}  // namespace trunk::sandbox
