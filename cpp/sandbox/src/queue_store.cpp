#include "queue_store.hpp"

#include "queue_setting_starts.hpp"

#include <sys/stat.h>

#include "data_file.hpp"
#include "queue_metrics.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/validation.hpp"

namespace trunk::sandbox {

namespace {

constexpr const char* kStateFormat = "trunk-sandbox-queues";
/// 2: the file lists every queue that exists (1: only the configured ones; `main` existed implicitly).
/// 3: the file holds the label and extension settings too (queue_setting_rows.hpp); older files take
/// their defaults.
constexpr int kStateVersion = 3;

/// Copies every setting the request sets onto the queue's settings.
void apply_set_fields(const trunk::UpdateQueueRequest& request, trunk::QueueSettings& settings) {
#define TRUNK_SANDBOX_APPLY_(X, value, member, ...) \
  if (request.member) settings.member.emplace(*request.member);
  TRUNK_QUEUE_SETTING_ROWS(TRUNK_SANDBOX_APPLY_, ~)
#undef TRUNK_SANDBOX_APPLY_
}

/// A stored setting as a request would carry it: an enumeration value this library knows (a state file could
/// hold any text), else the value itself.
template <typename Value>
const Value& requested(const Value& value, const std::string&, std::string_view) {
  return value;
}
template <typename E>
E requested(const trunk::OpenEnum<E>& value, const std::string& where, std::string_view wire) {
  if (!value.known()) throw trunk::Error(where + "." + std::string(wire) + ": not a known value: " + value.wire());
  return *value.known();
}

/// The request that would set every stored setting: the state file is checked with updateQueue's own rules
/// (ranges, known values, no switching_modes), so it cannot hold what no request could have set.
/// Settings the file lacks are added to `missing` (wire names).
trunk::UpdateQueueRequest as_request(const trunk::QueueSettings& settings, const std::string& where,
                                     std::vector<std::string>& missing) {
  trunk::UpdateQueueRequest request;
  request.repo = {"h", "o", "n"};
  request.target_branch = "b";
#define TRUNK_SANDBOX_AS_REQUEST_(X, value, member, wire, ...)   \
  if (settings.member) {                                          \
    request.member = requested(*settings.member, where, wire);    \
  } else {                                                        \
    missing.emplace_back(wire);                                   \
  }
  TRUNK_QUEUE_SETTING_ROWS(TRUNK_SANDBOX_AS_REQUEST_, ~)
#undef TRUNK_SANDBOX_AS_REQUEST_
  return request;
}

}  // namespace

QueueStore::Queue QueueStore::default_queue() {
  // What a queue starts with: each setting's start value (queue_setting_rows.hpp).
  Queue queue;
  queue.settings = start_settings();
  return queue;
}

QueueStore::QueueStore(std::string state_file, Clock clock, SimulationOptions simulation)
    : state_file_(std::move(state_file)),
      clock_(std::move(clock)),
      simulation_(simulation) {
  if (!clock_) {
    clock_ = [] { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); };
  }
}

FailureModel QueueStore::model_of(const std::string& repo_key) const {
  auto it = models_.find(repo_key);
  FailureModel model = it == models_.end() ? FailureModel{} : it->second;
  model.seed = simulation_.seed;
  if (simulation_.flaky_failure_rate) model.flaky_run_failure = *simulation_.flaky_failure_rate;
  if (simulation_.broken_pull_request_rate) model.broken_pull_request = *simulation_.broken_pull_request_rate;
  return model;
}

std::shared_ptr<MergeQueue> QueueStore::new_simulation(const std::string& repo_key, const std::string& branch) const {
  auto sim = std::make_shared<MergeQueue>(repo_key, branch, model_of(repo_key), clock_(), simulation_.run_duration);
  attach_sink(*sim, repo_key, branch);
  return sim;
}

void QueueStore::attach_sink(MergeQueue& sim, const std::string& repo_key, const std::string& branch) const {
  if (!sink_) return sim.on_transition({});
  sim.on_transition([sink = sink_, repo_key, branch](const Transition& t) { sink(repo_key, branch, t); });
}

void QueueStore::set_transition_sink(TransitionSink sink) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
  for (auto& [key, q] : queues_) attach_sink(*q.sim, key.first, key.second);
}

void QueueStore::adopt_repositories(const std::vector<std::pair<trunk::Repo, FailureModel>>& repositories) {
  std::lock_guard lock(mutex_);
  for (const auto& [repo, model] : repositories) models_[repo.to_string()] = model;
  for (auto& [key, q] : queues_) q.sim->set_failure_model(model_of(key.first));
  if (queues_listed_) return;
  for (const auto& [repo, model] : repositories) {
    const Key key{repo.to_string(), kDefaultBranch};
    if (queues_.count(key) != 0) continue;
    Queue q = default_queue();
    q.sim = new_simulation(key.first, key.second);
    queues_.emplace(key, std::move(q));
  }
}

std::vector<std::pair<std::string, std::string>> QueueStore::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(queues_.size());
  for (const auto& [key, queue] : queues_) out.push_back(key);
  return out;
}

QueueStore::Queue* QueueStore::find(const trunk::Repo& repo, const std::string& branch) {
  auto it = queues_.find({repo.to_string(), branch});
  return it == queues_.end() ? nullptr : &it->second;
}

Refusal QueueStore::no_queue(const trunk::Repo& repo, const std::string& branch) {
  return Refusal{404, "not found: no merge queue for branch " + branch + " of repository " + repo.to_string()};
}

trunk::QueueSettings QueueStore::settings_of(const Queue& q, const std::string& branch, bool answer) const {
  trunk::QueueSettings s = q.settings;
  if (!s.bisection_concurrency) s.bisection_concurrency = s.concurrency;
  if (answer && q.sim && q.sim->switching()) s.state = trunk::QueueState::switching_modes;
  s.branch = branch;
  s.required_statuses = q.manual_required_statuses ? *q.manual_required_statuses : kBranchProtectionStatuses;
  return s;
}

trunk::QueueSettings QueueStore::run_to_now(Queue& q, const std::string& branch) {
  q.sim->advance_to(clock_(), settings_of(q, branch, false));
  return settings_of(q, branch);
}

void QueueStore::run_all_to_now() {
  std::lock_guard lock(mutex_);
  for (auto& [key, q] : queues_) run_to_now(q, key.second);
}

std::optional<trunk::Timestamp> QueueStore::next_event() {
  std::lock_guard lock(mutex_);
  std::optional<trunk::Timestamp> next;
  for (auto& [key, q] : queues_) {
    const auto t = q.sim->next_event(settings_of(q, key.second, false));
    if (t && (!next || *t < *next)) next = t;
  }
  return next;
}

std::variant<trunk::QueueSettings, Refusal> QueueStore::get(const trunk::Repo& repo, const std::string& branch) {
  std::lock_guard lock(mutex_);
  Queue* q = find(repo, branch);
  if (q == nullptr) return no_queue(repo, branch);
  trunk::QueueSettings settings = run_to_now(*q, branch);
  settings.enqueued_pull_requests = q->sim->enqueued();
  return settings;
}

std::variant<trunk::QueueSettings, Refusal> QueueStore::update(const trunk::UpdateQueueRequest& r) {
  std::lock_guard lock(mutex_);
  Queue* found = find(r.repo, r.target_branch);
  if (found == nullptr) return no_queue(r.repo, r.target_branch);
  Queue& q = *found;
  run_to_now(q, r.target_branch);  // the past ran on the settings of the past
  const Queue before = q;
  apply_set_fields(r, q.settings);
  if (r.required_statuses) q.manual_required_statuses = *r.required_statuses;
  if (r.delete_required_statuses.value_or(false)) q.manual_required_statuses.reset();
  if (auto refused = persist()) {
    q = before;  // the answer must describe what is stored: a failed write changes nothing
    return *refused;
  }
  if (q.settings.mode != before.settings.mode) q.sim->begin_mode_switch();
  // A change (resume, more concurrency...) may start runs at once.
  return run_to_now(q, r.target_branch);
}

std::optional<Refusal> QueueStore::create(const trunk::CreateQueueRequest& r) {
  std::lock_guard lock(mutex_);
  const Key key{r.repo.to_string(), r.target_branch};
  if (queues_.count(key) != 0) {
    return Refusal{409, "conflict: a merge queue for branch " + r.target_branch + " of repository " + key.first +
                            " exists already"};
  }
  Queue q = default_queue();
  if (r.mode) q.settings.mode = *r.mode;
  if (r.concurrency) q.settings.concurrency = *r.concurrency;
  q.sim = new_simulation(key.first, key.second);
  queues_.emplace(key, std::move(q));
  if (auto refused = persist()) {
    queues_.erase(key);
    return refused;
  }
  return std::nullopt;
}

std::optional<Refusal> QueueStore::remove(const trunk::DeleteQueueRequest& r) {
  std::lock_guard lock(mutex_);
  auto it = queues_.find({r.repo.to_string(), r.target_branch});
  if (it == queues_.end()) return no_queue(r.repo, r.target_branch);
  run_to_now(it->second, r.target_branch);
  if (const std::size_t held = it->second.sim->unconcluded(); held > 0) {
    return Refusal{400, "the merge queue for branch " + r.target_branch + " of repository " + r.repo.to_string() +
                            " holds " + std::to_string(held) + " pull request" + (held == 1 ? "" : "s") +
                            " not yet merged, failed or cancelled: only an empty queue may be deleted"};
  }
  Queue removed = std::move(it->second);
  const Key key = it->first;
  queues_.erase(it);
  if (auto refused = persist()) {
    queues_.emplace(key, std::move(removed));
    return refused;
  }
  return std::nullopt;
}

trunk::RequiredStatusesSource QueueStore::statuses_source(const trunk::Repo& repo, const std::string& branch) const {
  std::lock_guard lock(mutex_);
  auto it = queues_.find({repo.to_string(), branch});
  const bool manual = it != queues_.end() && it->second.manual_required_statuses.has_value();
  return manual ? trunk::RequiredStatusesSource::merge_instance
                : trunk::RequiredStatusesSource::repo_provider_branch_protection;
}

std::string QueueStore::metrics(const std::optional<trunk::Repo>& repo, const std::optional<std::string>& branch) {
  std::lock_guard lock(mutex_);
  std::vector<QueueView> views;
  for (auto& [queue_key, q] : queues_) {
    if (repo && queue_key.first != repo->to_string()) continue;
    if (branch && queue_key.second != *branch) continue;
    const trunk::QueueSettings settings = run_to_now(q, queue_key.second);
    // The label is owner/name: the key without its host.
    const std::string& key = queue_key.first;
    views.push_back({key.substr(key.find('/') + 1), queue_key.second, q.sim.get(), settings});
  }
  return prometheus_metrics(views);
}

std::optional<Refusal> QueueStore::persist() const {
  try {
    write_state();
  } catch (const trunk::Error& e) {
    return Refusal{500, std::string("internal error: could not store the queues: ") + e.what()};
  }
  return std::nullopt;
}

void QueueStore::write_state() const {
  if (state_file_.empty()) return;
  // Each entry is the settings' wire JSON, with the queue's key and the manual list (null: from branch
  // protection) in place of what settings_of computes.
  Json queues = Json::array();
  for (const auto& [key, q] : queues_) {
    Json entry = trunk::to_json(settings_of(q, key.second, false));
    entry.erase("requiredStatuses");
    entry.erase("branch");
    entry["repo"] = key.first;
    entry["targetBranch"] = key.second;
    entry["requiredStatuses"] = q.manual_required_statuses ? Json(*q.manual_required_statuses) : Json(nullptr);
    queues.push_back(std::move(entry));
  }
  const Json document = {{"format", kStateFormat}, {"version", kStateVersion}, {"queues", std::move(queues)}};
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
  const int version = document.value("version", 1);
  std::map<Key, Queue> loaded;
  const Json& queues = document["queues"];
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const std::string at = where + ": queues[" + std::to_string(i) + "]";
    Json entry = queues[i];
    auto take_text = [&](const char* key) {
      if (!entry.is_object() || !entry.contains(key) || !entry[key].is_string()) {
        throw trunk::Error(at + "." + key + ": expected a string");
      }
      std::string text = entry[key].get<std::string>();
      entry.erase(key);
      return text;
    };
    const Key key{take_text("repo"), take_text("targetBranch")};
    Queue q;
    const Json statuses = entry.value("requiredStatuses", Json());
    entry.erase("requiredStatuses");
    if (!statuses.is_null()) {
      if (!statuses.is_array()) throw trunk::Error(at + ".requiredStatuses: expected an array or null");
      std::vector<std::string> list;
      for (const Json& status : statuses) {
        if (!status.is_string()) throw trunk::Error(at + ".requiredStatuses: expected strings, got " + status.dump());
        list.push_back(status.get<std::string>());
      }
      q.manual_required_statuses = std::move(list);
    }
    try {
      q.settings = trunk::from_json<trunk::QueueSettings>(entry, at);
    } catch (const trunk::DecodeError& e) {
      throw trunk::Error(std::string(e.what()));
    }
    if (version < 3) {
      // Written before the label and extension settings existed (those an answer may lack): their start values.
      static const trunk::QueueSettings defaults = default_queue().settings;
#define TRUNK_SANDBOX_DEFAULT_IF_ABSENT_(X, value, member, wire, answer_rules, ...) \
  if (!(answer_rules).required && !q.settings.member) q.settings.member = defaults.member;
      TRUNK_QUEUE_SETTING_ROWS(TRUNK_SANDBOX_DEFAULT_IF_ABSENT_, ~)
#undef TRUNK_SANDBOX_DEFAULT_IF_ABSENT_
    }
    q.settings.required_statuses = q.manual_required_statuses.value_or(std::vector<std::string>{});
    std::vector<std::string> missing;
    trunk::UpdateQueueRequest as_update = as_request(q.settings, at, missing);
    const auto violations = trunk::check(as_update, "", trunk::Judge::service);
    q.settings.required_statuses.reset();
    if (!violations.empty()) {
      const auto& v = violations.front();
      throw trunk::Error(at + "." + v.field + ": " + v.value + " " + v.rule);
    }
    if (!missing.empty()) throw trunk::Error(at + "." + missing.front() + ": missing");
    loaded[key] = std::move(q);
  }
  std::lock_guard lock(mutex_);
  for (auto& [key, q] : loaded) q.sim = new_simulation(key.first, key.second);
  queues_ = std::move(loaded);
  queues_listed_ = version >= 2;
}

}  // namespace trunk::sandbox
