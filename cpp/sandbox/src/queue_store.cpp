#include "queue_store.hpp"

#include <sys/stat.h>

#include "data_file.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/validation.hpp"

namespace trunk::sandbox {

namespace {

constexpr const char* kStateFormat = "trunk-sandbox-queues";

/// Copies every field the request sets onto the setting with the same wire name (updateQueue's fields are
/// the settings' own names): the store spells no setting, so a new one needs nothing here.
void apply_set_fields(const trunk::UpdateQueueRequest& request, trunk::QueueSettings& settings) {
  trunk::schema::for_each_field<trunk::UpdateQueueRequest>([&](const auto& from) {
    using From = typename std::remove_cvref_t<decltype(from)>::member_type;
    if constexpr (trunk::schema::IsOptional<From>::value) {  // repo and targetBranch name the queue
      const From& value = request.*(from.member);
      if (!value) return;
      trunk::schema::for_each_field<trunk::QueueSettings>([&](const auto& to) {
        using To = typename std::remove_cvref_t<decltype(to)>::member_type;
        if constexpr (std::is_assignable_v<To&, const typename From::value_type&>) {
          if (from.wire == to.wire) settings.*(to.member) = *value;
        } else if constexpr (requires(To& out) { out.emplace(*value); }) {
          if (from.wire == to.wire) (settings.*(to.member)).emplace(*value);
        }
      });
    }
  });
}

/// The request that would set every stored setting: the state file is checked with updateQueue's own rules
/// (ranges, known values, no switching_modes), so it cannot hold what no request could have set.
/// Settings the file lacks are added to `missing` (wire names).
trunk::UpdateQueueRequest as_request(const trunk::QueueSettings& settings, const std::string& where,
                                     std::vector<std::string>& missing) {
  trunk::UpdateQueueRequest request;
  request.repo = {"h", "o", "n"};
  request.target_branch = "b";
  trunk::schema::for_each_field<trunk::QueueSettings>([&](const auto& from) {
    trunk::schema::for_each_field<trunk::UpdateQueueRequest>([&](const auto& to) {
      if (from.wire != to.wire) return;
      using Value = typename std::remove_cvref_t<decltype(from)>::member_type::value_type;
      using To = typename std::remove_cvref_t<decltype(to)>::member_type;
      const auto& value = settings.*(from.member);
      if (!value) {
        missing.emplace_back(from.wire);
        return;
      }
      if constexpr (requires { typename Value::is_open_enum; }) {
        if constexpr (std::is_same_v<To, std::optional<typename Value::enum_type>>) {
          if (!value->known()) {
            throw trunk::Error(where + "." + std::string(from.wire) + ": not a known value: " + value->wire());
          }
          request.*(to.member) = *value->known();
        }
      } else if constexpr (std::is_assignable_v<To&, const Value&>) {
        request.*(to.member) = *value;
      }
    });
  });
  return request;
}

}  // namespace

QueueStore::Queue QueueStore::default_queue() {
  // The settings a queue starts with (the service's documented defaults where it has them).
  Queue queue;
  trunk::QueueSettings& s = queue.settings;
  s.state = trunk::QueueState::running;
  s.mode = trunk::QueueMode::single;
  s.concurrency = 1;
  s.bisection_concurrency = 1;
  s.testing_timeout_minutes = 240;
  s.pending_failure_depth = 1;
  s.can_optimistically_merge = false;
  s.batch = false;
  s.batching_max_wait_time_minutes = 5;
  s.batching_min_size = 1;
  s.comments_enabled = true;
  s.commands_enabled = true;
  s.create_prs_for_testing_branches = true;
  s.status_check_enabled = true;
  s.direct_merge_mode = trunk::DirectMergeMode::off;
  s.optimization_mode = trunk::OptimizationMode::off;
  s.merge_method = trunk::MergeMethod::squash;
  return queue;
}

QueueStore::QueueStore(std::string state_file, std::chrono::milliseconds switching_duration, Clock clock)
    : state_file_(std::move(state_file)), switching_duration_(switching_duration), clock_(std::move(clock)) {
  if (!clock_) clock_ = [] { return std::chrono::steady_clock::now(); };
}

trunk::QueueSettings QueueStore::settings_of(const Queue& q, const std::string& branch) const {
  trunk::QueueSettings s = q.settings;
  if (clock_() < q.switching_until) s.state = trunk::QueueState::switching_modes;
  s.branch = branch;
  s.required_statuses = q.manual_required_statuses ? *q.manual_required_statuses : kBranchProtectionStatuses;
  return s;
}

trunk::QueueSettings QueueStore::get(const trunk::Repo& repo, const std::string& branch) const {
  std::lock_guard lock(mutex_);
  auto it = queues_.find({repo.to_string(), branch});
  return settings_of(it == queues_.end() ? default_queue() : it->second, branch);
}

trunk::QueueSettings QueueStore::update(const trunk::UpdateQueueRequest& r) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = queues_.try_emplace({r.repo.to_string(), r.target_branch}, default_queue());
  Queue& q = it->second;
  const Queue before = q;
  apply_set_fields(r, q.settings);
  if (q.settings.mode != before.settings.mode) q.switching_until = clock_() + switching_duration_;
  if (r.required_statuses) q.manual_required_statuses = *r.required_statuses;
  if (r.delete_required_statuses.value_or(false)) q.manual_required_statuses.reset();
  try {
    persist();
  } catch (...) {
    if (inserted) {
      queues_.erase(it);
    } else {
      q = before;  // the answer must describe what is stored: a failed write changes nothing
    }
    throw;
  }
  return settings_of(q, r.target_branch);
}

void QueueStore::persist() const {
  if (state_file_.empty()) return;
  // Each entry is the settings' wire JSON, with the queue's key and the manual list (null: from branch
  // protection) in place of what settings_of computes.
  Json queues = Json::array();
  for (const auto& [key, q] : queues_) {
    Json entry = trunk::to_json(q.settings);
    entry.erase("branch");
    entry["repo"] = key.first;
    entry["targetBranch"] = key.second;
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
    q.settings.required_statuses = q.manual_required_statuses.value_or(std::vector<std::string>{});
    std::vector<std::string> missing;
    const auto violations = trunk::check(as_request(q.settings, at, missing));
    q.settings.required_statuses.reset();
    if (!violations.empty()) {
      const auto& v = violations.front();
      throw trunk::Error(at + "." + v.field + ": " + v.value + " " + v.rule);
    }
    if (!missing.empty()) throw trunk::Error(at + "." + missing.front() + ": missing");
    loaded[key] = std::move(q);
  }
  std::lock_guard lock(mutex_);
  queues_ = std::move(loaded);
}

}  // namespace trunk::sandbox
