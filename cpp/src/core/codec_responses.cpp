// Encoding and tolerant decoding of the response models: page information, test cases and their parts,
// merge queue settings, and the two response envelopes.
#include "codec_internal.hpp"
#include "json_reader.hpp"
#include "trunk/codec.hpp"

namespace trunk {

namespace {

using detail::Mode;
using detail::ObjectReader;

template <typename T>
void put(Json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

void put(Json& out, const char* key, const std::optional<Timestamp>& value) {
  if (value) out[key] = format_rfc3339(*value);
}

template <typename E>
void put(Json& out, const char* key, const std::optional<OpenEnum<E>>& value) {
  if (value) out[key] = value->wire();
}

template <typename M>
void put_model(Json& out, const char* key, const std::optional<M>& value) {
  if (value) out[key] = to_json(*value);
}

/// Reads the object under key with the model's reader, or nullopt when missing/null.
template <typename M>
std::optional<M> read_child(ObjectReader& reader, std::string_view key) {
  const Json* value = reader.find(key);
  if (value == nullptr) return std::nullopt;
  return detail::read(*value, reader.path_of(key), detail::Tag<M>{});
}

template <typename M>
std::vector<M> read_array(const Json& value, const std::string& path) {
  if (!value.is_array()) detail::throw_wrong_type(path, "array", value);
  std::vector<M> result;
  result.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    result.push_back(detail::read(value[i], detail::index_path(path, i), detail::Tag<M>{}));
  }
  return result;
}

}  // namespace

namespace detail {

void merge_extras(Json& out, const Extras& extra) {
  if (!extra.is_object()) return;
  for (const auto& [key, value] : extra.items()) {
    if (!out.contains(key)) out[key] = value;
  }
}

PageInfo read(const Json& json, const std::string& path, Tag<PageInfo>) {
  ObjectReader reader(json, path, Mode::response);
  PageInfo page;
  page.total_rows = reader.integer("total_rows");
  page.total_pages = reader.integer("total_pages");
  page.next_page_token = reader.string("next_page_token");
  page.prev_page_token = reader.string("prev_page_token");
  page.last_page_token = reader.string("last_page_token");
  page.page_index = reader.integer("page_index");
  page.extra = reader.extras();
  return page;
}

RepositoryRef read(const Json& json, const std::string& path, Tag<RepositoryRef>) {
  ObjectReader reader(json, path, Mode::response);
  RepositoryRef repository;
  repository.html_url = reader.string("html_url");
  repository.extra = reader.extras();
  return repository;
}

TicketRef read(const Json& json, const std::string& path, Tag<TicketRef>) {
  ObjectReader reader(json, path, Mode::response);
  TicketRef ticket;
  ticket.html_url = reader.string("html_url");
  ticket.extra = reader.extras();
  return ticket;
}

TestStatus read(const Json& json, const std::string& path, Tag<TestStatus>) {
  ObjectReader reader(json, path, Mode::response);
  TestStatus status;
  status.reason = reader.string("reason");
  status.timestamp = reader.timestamp("timestamp");
  status.value = reader.string("value");
  status.extra = reader.extras();
  return status;
}

FailureSummary read(const Json& json, const std::string& path, Tag<FailureSummary>) {
  ObjectReader reader(json, path, Mode::response);
  FailureSummary failure;
  failure.summary = reader.string("summary");
  failure.occurrence_count = reader.integer("occurrence_count");
  failure.last_occurrence = reader.timestamp("last_occurrence");
  failure.extra = reader.extras();
  return failure;
}

TestCase read(const Json& json, const std::string& path, Tag<TestCase>) {
  ObjectReader reader(json, path, Mode::response);
  TestCase test;
  test.id = reader.string("id");
  test.repository = read_child<RepositoryRef>(reader, "repository");
  test.html_url = reader.string("html_url");
  test.name = reader.string("name");
  test.variant = reader.string("variant");
  test.status = read_child<TestStatus>(reader, "status");
  if (const Json* failures = reader.find("most_common_failures")) {
    test.most_common_failures = read_array<FailureSummary>(*failures, reader.path_of("most_common_failures"));
  }
  test.failure_rate_last_7d = reader.number("failure_rate_last_7d");
  test.failure_rate_last_24h = reader.number("failure_rate_last_24h");
  test.codeowners = reader.strings("codeowners");
  test.pull_requests_impacted_last_7d = reader.integer("pull_requests_impacted_last_7d");
  test.quarantined = reader.boolean("quarantined");
  test.file_path = reader.string("file_path");
  test.parent = reader.string("parent");
  test.classname = reader.string("classname");
  test.ticket = read_child<TicketRef>(reader, "ticket");
  test.extra = reader.extras();
  return test;
}

QueueSettings read(const Json& json, const std::string& path, Tag<QueueSettings>) {
  ObjectReader reader(json, path, Mode::response);
  QueueSettings settings;
  settings.state = reader.open_enum<QueueState>("state");
  settings.branch = reader.string("branch");
  settings.concurrency = reader.integer("concurrency");
  settings.testing_timeout_minutes = reader.integer("testingTimeoutMinutes");
  settings.mode = reader.open_enum<QueueMode>("mode");
  settings.can_optimistically_merge = reader.boolean("canOptimisticallyMerge");
  settings.pending_failure_depth = reader.integer("pendingFailureDepth");
  settings.batch = reader.boolean("batch");
  settings.batching_max_wait_time_minutes = reader.integer("batchingMaxWaitTimeMinutes");
  settings.batching_min_size = reader.integer("batchingMinSize");
  settings.create_prs_for_testing_branches = reader.boolean("createPrsForTestingBranches");
  settings.comments_enabled = reader.boolean("commentsEnabled");
  settings.commands_enabled = reader.boolean("commandsEnabled");
  settings.status_check_enabled = reader.boolean("statusCheckEnabled");
  settings.bisection_concurrency = reader.integer("bisectionConcurrency");
  settings.required_statuses = reader.strings("requiredStatuses");
  settings.direct_merge_mode = reader.open_enum<DirectMergeMode>("directMergeMode");
  settings.optimization_mode = reader.open_enum<OptimizationMode>("optimizationMode");
  settings.merge_method = reader.open_enum<MergeMethod>("mergeMethod");
  settings.extra = reader.extras();
  return settings;
}

TestPage read(const Json& json, const std::string& path, Tag<TestPage>) {
  ObjectReader reader(json, path, Mode::response);
  TestPage page;
  // Both keys are required by the contract; the tolerant reading of a missing one is "nothing there".
  if (const Json* tests = reader.find("tests"))
    page.tests = read_array<TestCase>(*tests, reader.path_of("tests"));
  if (auto info = read_child<PageInfo>(reader, "page")) page.page = std::move(*info);
  page.extra = reader.extras();
  return page;
}

TestDetails read(const Json& json, const std::string& path, Tag<TestDetails>) {
  ObjectReader reader(json, path, Mode::response);
  TestDetails details;
  if (auto test = read_child<TestCase>(reader, "test")) details.test = std::move(*test);
  details.extra = reader.extras();
  return details;
}

}  // namespace detail

Json to_json(const PageInfo& v) {
  Json out = Json::object();
  put(out, "total_rows", v.total_rows);
  put(out, "total_pages", v.total_pages);
  put(out, "next_page_token", v.next_page_token);
  put(out, "prev_page_token", v.prev_page_token);
  put(out, "last_page_token", v.last_page_token);
  put(out, "page_index", v.page_index);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const RepositoryRef& v) {
  Json out = Json::object();
  put(out, "html_url", v.html_url);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const TicketRef& v) {
  Json out = Json::object();
  put(out, "html_url", v.html_url);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const TestStatus& v) {
  Json out = Json::object();
  put(out, "reason", v.reason);
  put(out, "timestamp", v.timestamp);
  put(out, "value", v.value);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const FailureSummary& v) {
  Json out = Json::object();
  put(out, "summary", v.summary);
  put(out, "occurrence_count", v.occurrence_count);
  put(out, "last_occurrence", v.last_occurrence);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const TestCase& v) {
  Json out = Json::object();
  put(out, "id", v.id);
  put_model(out, "repository", v.repository);
  put(out, "html_url", v.html_url);
  put(out, "name", v.name);
  put(out, "variant", v.variant);
  put_model(out, "status", v.status);
  if (v.most_common_failures) {
    Json failures = Json::array();
    for (const auto& failure : *v.most_common_failures) failures.push_back(to_json(failure));
    out["most_common_failures"] = std::move(failures);
  }
  put(out, "failure_rate_last_7d", v.failure_rate_last_7d);
  put(out, "failure_rate_last_24h", v.failure_rate_last_24h);
  put(out, "codeowners", v.codeowners);
  put(out, "pull_requests_impacted_last_7d", v.pull_requests_impacted_last_7d);
  put(out, "quarantined", v.quarantined);
  put(out, "file_path", v.file_path);
  put(out, "parent", v.parent);
  put(out, "classname", v.classname);
  put_model(out, "ticket", v.ticket);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const QueueSettings& v) {
  Json out = Json::object();
  put(out, "state", v.state);
  put(out, "branch", v.branch);
  put(out, "concurrency", v.concurrency);
  put(out, "testingTimeoutMinutes", v.testing_timeout_minutes);
  put(out, "mode", v.mode);
  put(out, "canOptimisticallyMerge", v.can_optimistically_merge);
  put(out, "pendingFailureDepth", v.pending_failure_depth);
  put(out, "batch", v.batch);
  put(out, "batchingMaxWaitTimeMinutes", v.batching_max_wait_time_minutes);
  put(out, "batchingMinSize", v.batching_min_size);
  put(out, "createPrsForTestingBranches", v.create_prs_for_testing_branches);
  put(out, "commentsEnabled", v.comments_enabled);
  put(out, "commandsEnabled", v.commands_enabled);
  put(out, "statusCheckEnabled", v.status_check_enabled);
  put(out, "bisectionConcurrency", v.bisection_concurrency);
  put(out, "requiredStatuses", v.required_statuses);
  put(out, "directMergeMode", v.direct_merge_mode);
  put(out, "optimizationMode", v.optimization_mode);
  put(out, "mergeMethod", v.merge_method);
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const TestPage& v) {
  Json tests = Json::array();
  for (const auto& test : v.tests) tests.push_back(to_json(test));
  Json out = {{"tests", std::move(tests)}, {"page", to_json(v.page)}};
  detail::merge_extras(out, v.extra);
  return out;
}

Json to_json(const TestDetails& v) {
  Json out = {{"test", to_json(v.test)}};
  detail::merge_extras(out, v.extra);
  return out;
}

}  // namespace trunk
