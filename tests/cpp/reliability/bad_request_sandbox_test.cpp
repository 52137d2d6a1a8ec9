// Bad-input matrix, sandbox side: raw HTTP bodies a buggy or hostile client could send (malformed JSON,
// wrong types, non-UTF-8, oversized, deeply nested). Each gets its status (400, or 413 for an oversized body)
// with a message naming the field, and the sandbox keeps serving: a valid request right after still gets 200.
#include <gtest/gtest.h>

#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

#include "trunk/codec.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace {

trunk::sandbox::SandboxOptions matrix_options() {
  trunk::sandbox::SandboxOptions options;
  options.tests = 100;
  options.now = trunk::parse_rfc3339("2026-11-20T12:00:00Z");
  return options;
}

/// One sandbox for the whole matrix. A static object rather than a leaked pointer: its destructor stops the
/// server and joins its threads at exit, before the sandbox library's own statics are destroyed (a leaked,
/// still-serving sandbox raced with them under ThreadSanitizer).
trunk::sandbox::Sandbox& box() {
  static trunk::sandbox::Sandbox shared(matrix_options());
  static const bool started = (shared.start(), true);
  (void)started;
  return shared;
}

std::string repo_json() {
  const auto repo = box().repos().at(0);
  return R"({"host":")" + repo.host + R"(","owner":")" + repo.owner + R"(","name":")" + repo.name + R"("})";
}
std::string org() { return "\"" + box().org_url_slug() + "\""; }
std::string window() { return R"("start_time":"2026-11-19T12:00:00Z","end_time":"2026-11-20T12:00:00Z")"; }

struct Posted {
  int status = 0;
  std::string body;
};

Posted post(std::string_view path, const std::string& body) {
  httplib::Client http("127.0.0.1", box().port());
  http.set_read_timeout(10, 0);
  httplib::Headers headers{{"x-api-token", box().token()}};
  auto result = http.Post(std::string(path), headers, body, "application/json");
  if (!result) return {};
  return {result->status, result->body};
}

struct BadRequest {
  std::string name;
  std::string_view path;
  std::string body;
  int status;
  std::string field;  ///< must appear in the answer ("" for a 413, which httplib answers before any parsing)
};

std::vector<BadRequest> bad_requests() {
  using trunk::paths::kGetTestDetails;
  using trunk::paths::kListFailingTests;
  using trunk::paths::kListUnhealthyTests;
  using trunk::paths::kUpdateQueue;
  const std::string fail_prefix = "{\"repo\":" + repo_json() + ",\"org_url_slug\":" + org() + "," + window();
  auto failing = [&](const std::string& page_query) { return fail_prefix + ",\"page_query\":" + page_query + "}"; };
  const std::string details_prefix = "{\"repo\":" + repo_json() + ",\"org_url_slug\":" + org();
  auto details = [&](const std::string& test_id) { return details_prefix + ",\"test_id\":" + test_id + "}"; };
  auto queue = [&](const std::string& extra) {
    return "{\"repo\":" + repo_json() + ",\"targetBranch\":\"main\"" + (extra.empty() ? "" : "," + extra) + "}";
  };
  std::string deep(1000, '[');
  std::string oversized = queue("\"requiredStatuses\":[\"" + std::string(5 << 20, 'x') + "\"]");
  return {
      {"NotJson", kListFailingTests, "hello", 400, "JSON"},
      {"EmptyBody", kListFailingTests, "", 400, "JSON"},
      {"ArrayBody", kGetTestDetails, "[]", 400, "object"},
      {"NestedTooDeep", kUpdateQueue, deep, 400, "JSON"},
      {"RepoIsAString", kGetTestDetails, R"({"repo":"github.com/a/b","org_url_slug":"x","test_id":"x"})", 400, "repo"},
      {"RepoHostIsANumber", kUpdateQueue, R"({"repo":{"host":1,"owner":"a","name":"b"},"targetBranch":"main"})", 400,
       "repo.host"},
      {"PageSizeIsText", kListFailingTests, failing(R"({"page_size":"ten"})"), 400, "page_query.page_size"},
      {"PageSizeIsFractional", kListFailingTests, failing(R"({"page_size":5.5})"), 400, "page_query.page_size"},
      {"PageSizeHuge", kListFailingTests, failing(R"({"page_size":99999999999999999999})"), 400, "page_query.page_size"},
      {"PageSizeNegative", kListFailingTests, failing(R"({"page_size":-3})"), 400, "page_query.page_size"},
      {"PageQueryMissing", kListFailingTests, fail_prefix + "}", 400, "page_query"},
      {"PageTokenIsANumber", kListFailingTests, failing(R"({"page_size":10,"page_token":12})"), 400,
       "page_query.page_token"},
      {"StartTimeIsNotATime", kListFailingTests,
       "{\"repo\":" + repo_json() + ",\"org_url_slug\":" + org() +
           R"(,"start_time":"last tuesday","end_time":"2026-11-20T12:00:00Z","page_query":{"page_size":10}})",
       400, "start_time"},
      {"WindowSevenDaysPlusOneMicrosecond", kListFailingTests,
       "{\"repo\":" + repo_json() + ",\"org_url_slug\":" + org() +
           R"(,"start_time":"2026-11-13T11:59:59.999999Z","end_time":"2026-11-20T12:00:00Z","page_query":{"page_size":10}})",
       400, "end_time"},
      {"UnknownStatus", kListUnhealthyTests,
       "{\"repo\":" + repo_json() + ",\"org_url_slug\":" + org() + R"(,"status":"SICK","page_query":{"page_size":10}})",
       400, "status"},
      {"BadUuid", kGetTestDetails, details("\"1234\""), 400, "test_id"},
      {"TestIdIsANumber", kGetTestDetails, details("1234"), 400, "test_id"},
      {"NonUtf8OrgSlug", kGetTestDetails,
       "{\"repo\":" + repo_json() + ",\"org_url_slug\":\"\xc3\x28\",\"test_id\":\"0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80\"}",
       400, "JSON"},
      {"UnknownKey", kUpdateQueue, queue(R"("turbo":true)"), 400, "turbo"},
      {"ConcurrencyTooLarge", kUpdateQueue, queue(R"("concurrency":4294967296)"), 400, "concurrency"},
      {"ConcurrencyIsText", kUpdateQueue, queue(R"("concurrency":"4.0")"), 400, "concurrency"},
      {"BatchIsANumber", kUpdateQueue, queue(R"("batch":1)"), 400, "batch"},
      {"UnknownMode", kUpdateQueue, queue(R"("mode":"turbo")"), 400, "mode"},
      {"StateSwitchingModes", kUpdateQueue, queue(R"("state":"switching_modes")"), 400, "state"},
      {"RequiredStatusesIsAString", kUpdateQueue, queue(R"("requiredStatuses":"ci")"), 400, "requiredStatuses"},
      {"RequiredStatusesWithDelete", kUpdateQueue, queue(R"("requiredStatuses":["ci"],"deleteRequiredStatuses":true)"),
       400, "deleteRequiredStatuses"},
      {"TargetBranchMissing", kUpdateQueue, "{\"repo\":" + repo_json() + "}", 400, "targetBranch"},
      {"OversizedBody", kUpdateQueue, oversized, 413, ""},
  };
}

class SandboxBadRequest : public ::testing::TestWithParam<BadRequest> {};

TEST_P(SandboxBadRequest, GetsItsStatusNamingTheFieldAndTheSandboxKeepsServing) {
  const BadRequest& input = GetParam();
  const Posted answer = post(input.path, input.body);
  EXPECT_EQ(answer.status, input.status) << answer.body;
  if (!input.field.empty()) {
    EXPECT_NE(answer.body.find(input.field), std::string::npos) << answer.body;
  }
  EXPECT_LT(answer.body.size(), 4096U) << "the error echoes too much of the input";

  const Posted after = post(trunk::paths::kUpdateQueue, "{\"repo\":" + repo_json() + ",\"targetBranch\":\"main\"}");
  EXPECT_EQ(after.status, 200) << after.body;
}

INSTANTIATE_TEST_SUITE_P(Matrix, SandboxBadRequest, ::testing::ValuesIn(bad_requests()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
