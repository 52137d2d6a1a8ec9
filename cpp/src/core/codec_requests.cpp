// Encoding and strict decoding of the four requests (the sandbox decodes what clients send).
// Wire names: snake_case for the flaky-test operations, camelCase for updateQueue (interface.md §4).
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

template <typename E>
void put_enum(Json& out, const char* key, const std::optional<E>& value) {
  if (value) out[key] = to_wire(*value);
}

/// Collects the problems of one request; throws them together when the request has been read.
class StrictRead {
 public:
  ObjectReader object(const Json& json, std::string path) {
    return ObjectReader(json, std::move(path), Mode::request, &violations_);
  }
  std::vector<Violation>& violations() { return violations_; }
  void finish() {
    if (!violations_.empty()) throw ValidationError(std::move(violations_));
  }

 private:
  std::vector<Violation> violations_;
};

/// A required string: missing is a violation (value "" then, which validate() would also reject).
std::string required_string(ObjectReader& reader, std::string_view key) {
  const Json* value = reader.require(key);
  return value == nullptr ? std::string() : detail::read_string(*value, reader.path_of(key));
}

Repo repo_fields(ObjectReader& reader, StrictRead&) {
  Repo repo;
  repo.host = required_string(reader, "host");
  repo.owner = required_string(reader, "owner");
  repo.name = required_string(reader, "name");
  return repo;
}

PageQuery page_query_fields(ObjectReader& reader, StrictRead&) {
  PageQuery page_query;
  if (const Json* size = reader.require("page_size")) {
    page_query.page_size = detail::read_integer(*size, reader.path_of("page_size"), Mode::request);
  }
  page_query.page_token = reader.string("page_token").value_or("");
  return page_query;
}

/// Reads the required object under key with `fields`; a missing one is a violation and reads as default.
template <typename Fields>
auto read_nested(ObjectReader& parent, std::string_view key, StrictRead& context, Fields fields) {
  const Json* value = parent.require(key);
  if (value == nullptr) return decltype(fields(parent, context)){};
  ObjectReader reader = context.object(*value, parent.path_of(key));
  auto result = fields(reader, context);
  reader.reject_unknown_keys();
  return result;
}

/// A required timestamp: missing or malformed are violations; the default (epoch) stands in.
Timestamp required_timestamp(ObjectReader& reader, std::string_view key) {
  if (reader.require(key) == nullptr) return {};
  return reader.timestamp(key).value_or(Timestamp{});
}

/// Reads a top-level request object; `path` is "" unless the caller nests it.
template <typename Body>
auto read_request(const Json& json, const std::string& path, Body body) {
  StrictRead context;
  ObjectReader reader = context.object(json, path);
  auto request = body(reader, context);
  reader.reject_unknown_keys();
  context.finish();
  return request;
}

}  // namespace

namespace detail {

Repo read(const Json& json, const std::string& path, Tag<Repo>) {
  return read_request(json, path, repo_fields);
}

PageQuery read(const Json& json, const std::string& path, Tag<PageQuery>) {
  return read_request(json, path, page_query_fields);
}

ListFailingTestsRequest read(const Json& json, const std::string& path, Tag<ListFailingTestsRequest>) {
  return read_request(json, path, [](ObjectReader& reader, StrictRead& context) {
    ListFailingTestsRequest request;
    request.repo = read_nested(reader, "repo", context, repo_fields);
    request.org_url_slug = required_string(reader, "org_url_slug");
    request.start_time = required_timestamp(reader, "start_time");
    request.end_time = required_timestamp(reader, "end_time");
    request.page_query = read_nested(reader, "page_query", context, page_query_fields);
    return request;
  });
}

ListUnhealthyTestsRequest read(const Json& json, const std::string& path, Tag<ListUnhealthyTestsRequest>) {
  return read_request(json, path, [](ObjectReader& reader, StrictRead& context) {
    ListUnhealthyTestsRequest request;
    request.repo = read_nested(reader, "repo", context, repo_fields);
    request.org_url_slug = required_string(reader, "org_url_slug");
    request.page_query = read_nested(reader, "page_query", context, page_query_fields);
    if (auto status = reader.closed_enum<HealthStatus>("status", reader.require("status"))) {
      request.status = *status;
    }
    return request;
  });
}

GetTestDetailsRequest read(const Json& json, const std::string& path, Tag<GetTestDetailsRequest>) {
  return read_request(json, path, [](ObjectReader& reader, StrictRead& context) {
    GetTestDetailsRequest request;
    request.repo = read_nested(reader, "repo", context, repo_fields);
    request.org_url_slug = required_string(reader, "org_url_slug");
    request.test_id = required_string(reader, "test_id");
    return request;
  });
}

UpdateQueueRequest read(const Json& json, const std::string& path, Tag<UpdateQueueRequest>) {
  return read_request(json, path, [](ObjectReader& reader, StrictRead& context) {
    UpdateQueueRequest request;
    request.repo = read_nested(reader, "repo", context, repo_fields);
    request.target_branch = required_string(reader, "targetBranch");
    // switching_modes is a known value (validate() rejects it in a request), but not one to suggest.
    request.state = reader.closed_enum<QueueState>("state", reader.find("state"),
                                                   enum_wire_values<QueueState>().first(3));
    request.concurrency = reader.integer("concurrency");
    request.bisection_concurrency = reader.integer("bisectionConcurrency");
    request.testing_timeout_minutes = reader.integer("testingTimeoutMinutes");
    request.pending_failure_depth = reader.integer("pendingFailureDepth");
    request.can_optimistically_merge = reader.boolean("canOptimisticallyMerge");
    request.batch = reader.boolean("batch");
    request.batching_max_wait_time_minutes = reader.integer("batchingMaxWaitTimeMinutes");
    request.batching_min_size = reader.integer("batchingMinSize");
    request.mode = reader.closed_enum<QueueMode>("mode", reader.find("mode"));
    request.comments_enabled = reader.boolean("commentsEnabled");
    request.commands_enabled = reader.boolean("commandsEnabled");
    request.create_prs_for_testing_branches = reader.boolean("createPrsForTestingBranches");
    request.direct_merge_mode =
        reader.closed_enum<DirectMergeMode>("directMergeMode", reader.find("directMergeMode"));
    request.optimization_mode =
        reader.closed_enum<OptimizationMode>("optimizationMode", reader.find("optimizationMode"));
    request.merge_method = reader.closed_enum<MergeMethod>("mergeMethod", reader.find("mergeMethod"));
    request.status_check_enabled = reader.boolean("statusCheckEnabled");
    request.required_statuses = reader.strings("requiredStatuses");
    request.delete_required_statuses = reader.boolean("deleteRequiredStatuses");
    return request;
  });
}

}  // namespace detail

Json to_json(const Repo& v) { return {{"host", v.host}, {"owner", v.owner}, {"name", v.name}}; }

Json to_json(const PageQuery& v) {
  Json out = {{"page_size", v.page_size}};
  // "" asks for the first page; it is the default and is not sent.
  if (!v.page_token.empty()) out["page_token"] = v.page_token;
  return out;
}

Json to_json(const ListFailingTestsRequest& v) {
  return {{"repo", to_json(v.repo)},
          {"org_url_slug", v.org_url_slug},
          {"start_time", format_rfc3339(v.start_time)},
          {"end_time", format_rfc3339(v.end_time)},
          {"page_query", to_json(v.page_query)}};
}

Json to_json(const ListUnhealthyTestsRequest& v) {
  return {{"repo", to_json(v.repo)},
          {"org_url_slug", v.org_url_slug},
          {"page_query", to_json(v.page_query)},
          {"status", to_wire(v.status)}};
}

Json to_json(const GetTestDetailsRequest& v) {
  return {{"repo", to_json(v.repo)}, {"org_url_slug", v.org_url_slug}, {"test_id", v.test_id}};
}

Json to_json(const UpdateQueueRequest& v) {
  Json out = {{"repo", to_json(v.repo)}, {"targetBranch", v.target_branch}};
  put_enum(out, "state", v.state);
  put(out, "concurrency", v.concurrency);
  put(out, "bisectionConcurrency", v.bisection_concurrency);
  put(out, "testingTimeoutMinutes", v.testing_timeout_minutes);
  put(out, "pendingFailureDepth", v.pending_failure_depth);
  put(out, "canOptimisticallyMerge", v.can_optimistically_merge);
  put(out, "batch", v.batch);
  put(out, "batchingMaxWaitTimeMinutes", v.batching_max_wait_time_minutes);
  put(out, "batchingMinSize", v.batching_min_size);
  put_enum(out, "mode", v.mode);
  put(out, "commentsEnabled", v.comments_enabled);
  put(out, "commandsEnabled", v.commands_enabled);
  put(out, "createPrsForTestingBranches", v.create_prs_for_testing_branches);
  put_enum(out, "directMergeMode", v.direct_merge_mode);
  put_enum(out, "optimizationMode", v.optimization_mode);
  put_enum(out, "mergeMethod", v.merge_method);
  put(out, "statusCheckEnabled", v.status_check_enabled);
  // Set-to-empty is meaningful ("no statuses required") and is sent as [].
  if (v.required_statuses) out["requiredStatuses"] = *v.required_statuses;
  put(out, "deleteRequiredStatuses", v.delete_required_statuses);
  return out;
}

}  // namespace trunk
