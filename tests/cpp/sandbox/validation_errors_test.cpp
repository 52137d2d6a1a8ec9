// Every validation rule answered 400 with one line of text naming the field (and the value and rule), with
// boundary cases on both sides of each limit.
#include <gtest/gtest.h>

#include <functional>

#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

class ValidationErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sandbox_ = start_sandbox(small_options(100)).release();
    post(*sandbox_, std::string(trunk::paths::kCreateQueue), queue());  // only main has a queue from the start
  }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }

  static Json failing() { return failing_body(sandbox(), fixed_now() - std::chrono::hours(24), fixed_now(), 10); }
  static Json unhealthy() {
    return {{"repo", repo_json(sandbox().repos().at(0))},
            {"org_url_slug", sandbox().org_url_slug()},
            {"status", "BROKEN"},
            {"page_query", {{"page_size", 10}}}};
  }
  static Json details() {
    return {{"repo", repo_json(sandbox().repos().at(0))},
            {"org_url_slug", sandbox().org_url_slug()},
            {"test_id", sandbox().test_ids(sandbox().repos().at(0)).at(0)}};
  }
  static Json queue() { return {{"repo", repo_json(sandbox().repos().at(0))}, {"targetBranch", "validation"}}; }

  /// Expects 400 whose single line names every one of `mentions`.
  static void expect_400(std::string_view path, const Json& body, std::initializer_list<std::string> mentions) {
    const auto reply = post(sandbox(), std::string(path), body.dump());
    EXPECT_EQ(reply.status, 400) << path << " " << body.dump() << " -> " << reply.body;
    EXPECT_EQ(reply.header("Content-Type"), "text/plain; charset=utf-8");
    EXPECT_EQ(reply.body.find('\n'), reply.body.size() - 1) << "one line: " << reply.body;
    for (const auto& mention : mentions) {
      EXPECT_NE(reply.body.find(mention), std::string::npos) << "missing \"" << mention << "\" in: " << reply.body;
    }
  }
  static void expect_200(std::string_view path, const Json& body) {
    const auto reply = post(sandbox(), std::string(path), body.dump());
    EXPECT_EQ(reply.status, 200) << path << " " << body.dump() << " -> " << reply.body;
  }

  static trunk::sandbox::Sandbox* sandbox_;
};
trunk::sandbox::Sandbox* ValidationErrors::sandbox_ = nullptr;

using trunk::paths::kGetTestDetails;
using trunk::paths::kListFailingTests;
using trunk::paths::kListUnhealthyTests;
using trunk::paths::kUpdateQueue;

TEST_F(ValidationErrors, MalformedJsonAndNonObjectBodiesAre400) {
  for (auto path : {kListFailingTests, kListUnhealthyTests, kGetTestDetails, kUpdateQueue}) {
    const auto truncated = post(sandbox(), std::string(path), std::string("{\"repo\":"));
    EXPECT_EQ(truncated.status, 400) << path;
    EXPECT_NE(truncated.body.find("malformed"), std::string::npos) << truncated.body;
    EXPECT_EQ(post(sandbox(), std::string(path), std::string("[]")).status, 400) << path;
    EXPECT_EQ(post(sandbox(), std::string(path), std::string("")).status, 400) << path;
    // A number beyond a double's range is malformed input, not a server error (fuzz finding F1).
    EXPECT_EQ(post(sandbox(), std::string(path), std::string(R"({"repo": 1e400})")).status, 400) << path;
  }
}

TEST_F(ValidationErrors, RepoAndItsPartsAreRequiredAndNonEmptyEverywhere) {
  for (auto [path, make] : std::initializer_list<std::pair<std::string_view, std::function<Json()>>>{
           {kListFailingTests, failing}, {kListUnhealthyTests, unhealthy}, {kGetTestDetails, details}, {kUpdateQueue, queue}}) {
    Json body = make();
    body.erase("repo");
    expect_400(path, body, {"repo"});
    for (const char* part : {"host", "owner", "name"}) {
      body = make();
      body["repo"][part] = "";
      expect_400(path, body, {std::string("repo.") + part, "must not be empty"});
      body["repo"][part] = 7;
      expect_400(path, body, {std::string("repo.") + part});
    }
  }
}

TEST_F(ValidationErrors, OrgSlugIsRequiredAndNonEmpty) {
  for (auto [path, make] : std::initializer_list<std::pair<std::string_view, std::function<Json()>>>{
           {kListFailingTests, failing}, {kListUnhealthyTests, unhealthy}, {kGetTestDetails, details}}) {
    Json body = make();
    body.erase("org_url_slug");
    expect_400(path, body, {"org_url_slug"});
    body["org_url_slug"] = "";
    expect_400(path, body, {"org_url_slug"});
  }
}

TEST_F(ValidationErrors, WindowOfExactlySevenDaysPassesOneMicrosecondMoreFails) {
  const auto start = fixed_now() - std::chrono::hours(24 * 7);
  expect_200(kListFailingTests, failing_body(sandbox(), start, fixed_now()));
  expect_400(kListFailingTests, failing_body(sandbox(), start, fixed_now() + std::chrono::microseconds(1)),
             {"end_time", "2026-11-20T12:00:00.000001Z", "7 days"});
  expect_200(kListFailingTests, failing_body(sandbox(), fixed_now() - std::chrono::microseconds(1), fixed_now()));
  expect_400(kListFailingTests, failing_body(sandbox(), fixed_now(), fixed_now()), {"end_time", "after start_time"});
  expect_400(kListFailingTests, failing_body(sandbox(), fixed_now(), fixed_now() - std::chrono::hours(1)),
             {"end_time", "after start_time"});
}

TEST_F(ValidationErrors, TimestampsMustBeRfc3339Strings) {
  for (const char* field : {"start_time", "end_time"}) {
    Json body = failing();
    body[field] = "yesterday";
    expect_400(kListFailingTests, body, {field, "yesterday"});
    body[field] = 1700000000;
    expect_400(kListFailingTests, body, {field});
    body.erase(field);
    expect_400(kListFailingTests, body, {field});
  }
  Json body = failing();
  body["start_time"] = "2026-11-19T12:00:00";  // no offset: read as UTC (project decision)
  expect_200(kListFailingTests, body);
}

TEST_F(ValidationErrors, PageSizeBoundaries) {
  for (auto [path, make] : std::initializer_list<std::pair<std::string_view, std::function<Json()>>>{
           {kListFailingTests, failing}, {kListUnhealthyTests, unhealthy}}) {
    Json body = make();
    for (int ok : {1, 100}) {
      body["page_query"]["page_size"] = ok;
      expect_200(path, body);
    }
    for (long long bad : {0LL, 101LL, -1LL, 4294967296LL}) {
      body["page_query"]["page_size"] = bad;
      expect_400(path, body, {"page_query.page_size", std::to_string(bad)});
    }
    body["page_query"]["page_size"] = "10a";  // "10" is 10 (integers as decimal strings: below)
    expect_400(path, body, {"page_query.page_size", "expected integer, got string"});
    body["page_query"] = Json::object();
    expect_400(path, body, {"page_query.page_size"});
    body.erase("page_query");
    expect_400(path, body, {"page_query"});
    body = make();
    body["page_query"]["page_token"] = 12;
    expect_400(path, body, {"page_query.page_token"});
  }
}

TEST_F(ValidationErrors, UnhealthyStatusMustBeFlakyOrBroken) {
  Json body = unhealthy();
  body["status"] = "FLAKY";
  expect_200(kListUnhealthyTests, body);
  for (const char* bad : {"flaky", "HEALTHY", ""}) {
    body["status"] = bad;
    expect_400(kListUnhealthyTests, body, {"status"});
  }
  body.erase("status");
  expect_400(kListUnhealthyTests, body, {"status"});
}

TEST_F(ValidationErrors, TestIdMustBeAUuid) {
  Json body = details();
  for (const char* bad : {"not-a-uuid", "", "123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000",
                          "123e4567-e89b-12d3-a456-42661417400g"}) {
    body["test_id"] = bad;
    expect_400(kGetTestDetails, body, {"test_id", "UUID"});
  }
  body.erase("test_id");
  expect_400(kGetTestDetails, body, {"test_id"});
}

TEST_F(ValidationErrors, TargetBranchIsRequired) {
  Json body = queue();
  body.erase("targetBranch");
  expect_400(kUpdateQueue, body, {"targetBranch"});
  body["targetBranch"] = "";
  expect_400(kUpdateQueue, body, {"targetBranch"});
}

TEST_F(ValidationErrors, IntegerSettingsAcceptOneTo4294967295) {
  for (const char* field : {"concurrency", "bisectionConcurrency", "testingTimeoutMinutes", "pendingFailureDepth",
                            "batchingMaxWaitTimeMinutes", "batchingMinSize"}) {
    Json body = queue();
    for (long long ok : {1LL, 4294967295LL}) {
      body[field] = ok;
      const auto reply = post(sandbox(), std::string(kUpdateQueue), body);
      ASSERT_EQ(reply.status, 200) << field << "=" << ok << ": " << reply.body;
      EXPECT_EQ(reply.json()[field], ok);
    }
    // pendingFailureDepth takes 0 as the service does (its default, which getQueue answers); the others start at 1.
    const bool takes_zero = std::string_view(field) == "pendingFailureDepth";
    for (long long bad : {0LL, 4294967296LL, -1LL}) {
      body[field] = bad;
      if (bad == 0 && takes_zero) {
        const auto reply = post(sandbox(), std::string(kUpdateQueue), body);
        ASSERT_EQ(reply.status, 200) << reply.body;
        EXPECT_EQ(reply.json()[field], 0);
        continue;
      }
      expect_400(kUpdateQueue, body, {field, std::to_string(bad), "4294967295"});
    }
    body[field] = 2.5;
    expect_400(kUpdateQueue, body, {field});
    body[field] = "3.0";  // a decimal string is an integer, but only in JSON's integer spelling (below)
    expect_400(kUpdateQueue, body, {field, "expected integer, got string"});
  }
}

// The service reads integers as protobuf's JSON mapping does: a decimal string is the integer (the
// publisher's GitHub Action sends pr.number so). Over HTTP, the string and the number get the same answer:
// the same settings, or the same 400 (the field's range); any other string is the wrong type.
TEST_F(ValidationErrors, AnIntegerGivenAsADecimalStringIsAnsweredAsTheNumber) {
  for (const char* value : {"1", "3", "4294967295", "0", "-1", "4294967296", "-0"}) {
    Json as_string = queue();
    as_string["concurrency"] = value;
    Json as_number = queue();
    as_number["concurrency"] = Json::parse(value);
    const auto string_reply = post(sandbox(), std::string(kUpdateQueue), as_string);
    const auto number_reply = post(sandbox(), std::string(kUpdateQueue), as_number);
    EXPECT_EQ(string_reply.status, number_reply.status) << value;
    EXPECT_EQ(string_reply.body, number_reply.body) << value;
  }
  for (const char* value : {"", " 1", "1 ", "+1", "01", "1.5", "1e3", "12a"}) {
    Json body = queue();
    body["concurrency"] = value;
    expect_400(kUpdateQueue, body, {"concurrency: expected integer, got string"});
  }
  Json body = queue();
  body["concurrency"] = "9223372036854775808";
  expect_400(kUpdateQueue, body, {"concurrency: integer 9223372036854775808 is out of range"});
}

// JSON Schema's "integer" (the OpenAPI document's type) is any number with a zero fraction: 5.0 and 1e3 are
// read as 5 and 1000 and answered as integers; 2.5 is not an integer (above).
TEST_F(ValidationErrors, IntegersWithAZeroFractionOrAnExponentAreIntegers) {
  Json body = queue();
  body["concurrency"] = 3.0;
  body["batchingMinSize"] = Json::parse("1e3");
  body["testingTimeoutMinutes"] = 4294967295.0;
  const auto reply = post(sandbox(), std::string(kUpdateQueue), body);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()["concurrency"].dump(), "3");
  EXPECT_EQ(reply.json()["batchingMinSize"].dump(), "1000");
  EXPECT_EQ(reply.json()["testingTimeoutMinutes"].dump(), "4294967295");
  Json page = failing();
  page["page_query"]["page_size"] = 5.0;
  const auto listed = post(sandbox(), std::string(kListFailingTests), page);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.json()["tests"].size(), 5U);
}

// Decision (issue 17): no request field is nullable (the published description gives none null, the client
// never sends it), so null is refused like any other wrong type: 400 naming the field, null and the type.
// The boundary: the same request without the key is answered 200 and changes nothing.
TEST_F(ValidationErrors, NullForAnyFieldIs400NamingTheFieldAndTheType) {
  const std::pair<const char*, const char*> queue_fields[] = {{"testingTimeoutMinutes", "expected integer"},
                                                              {"deleteRequiredStatuses", "expected boolean"},
                                                              {"requiredStatuses", "expected array"},
                                                              {"mode", "expected string"},
                                                              {"targetBranch", "expected string"}};
  for (const auto& [field, type] : queue_fields) {
    Json body = queue();
    body[field] = nullptr;
    expect_400(kUpdateQueue, body, {std::string(field) + ": " + type + ", got null"});
  }
  Json body = failing();
  body["page_query"]["page_token"] = nullptr;
  expect_400(kListFailingTests, body, {"page_query.page_token: expected string, got null"});
  body = unhealthy();
  body["page_query"]["page_token"] = nullptr;
  expect_400(kListUnhealthyTests, body, {"page_query.page_token: expected string, got null"});
  body = details();
  body["repo"]["owner"] = nullptr;
  expect_400(kGetTestDetails, body, {"repo.owner: expected string, got null"});

  // The one nullable field (the published description's "or null"): submitPullRequest's priority, the default.
  Json submit = queue();
  submit["pr"] = {{"number", 4242}};
  submit["noBatch"] = nullptr;
  expect_400(trunk::paths::kSubmitPullRequest, submit, {"noBatch: expected boolean, got null"});
  submit.erase("noBatch");
  submit["priority"] = nullptr;
  expect_200(trunk::paths::kSubmitPullRequest, submit);

  const Json before = post(sandbox(), std::string(kUpdateQueue), queue()).json();
  body = failing();
  body["page_query"].erase("page_token");
  expect_200(kListFailingTests, body);
  EXPECT_EQ(post(sandbox(), std::string(kUpdateQueue), queue()).json(), before);
}

TEST_F(ValidationErrors, EnumsAreCheckedAndSwitchingModesCannotBeRequested) {
  const std::pair<const char*, const char*> bad_values[] = {{"state", "stopped"},
                                                             {"state", "switching_modes"},
                                                             {"mode", "serial"},
                                                             {"directMergeMode", "sometimes"},
                                                             {"optimizationMode", "fast"},
                                                             {"mergeMethod", "fast_forward"}};
  for (auto [field, value] : bad_values) {
    Json body = queue();
    body[field] = value;
    expect_400(kUpdateQueue, body, {field, value});
  }
  for (const char* field : {"canOptimisticallyMerge", "batch", "commentsEnabled", "commandsEnabled",
                            "createPrsForTestingBranches", "statusCheckEnabled", "deleteRequiredStatuses"}) {
    Json body = queue();
    body[field] = "yes";
    expect_400(kUpdateQueue, body, {field});
  }
}

TEST_F(ValidationErrors, RequiredStatusesRules) {
  Json body = queue();
  body["requiredStatuses"] = {"ci/build", ""};
  expect_400(kUpdateQueue, body, {"requiredStatuses[1]"});
  body["requiredStatuses"] = "ci/build";
  expect_400(kUpdateQueue, body, {"requiredStatuses"});
  body["requiredStatuses"] = {"ci/build"};
  body["deleteRequiredStatuses"] = true;
  expect_400(kUpdateQueue, body, {"requiredStatuses", "deleteRequiredStatuses"});
  body["deleteRequiredStatuses"] = false;  // false deletes nothing: no contradiction
  expect_200(kUpdateQueue, body);
}

TEST_F(ValidationErrors, EveryViolationIsListedOnTheSameLine) {
  Json body = failing();
  body["repo"]["host"] = "";
  body["page_query"]["page_size"] = 0;
  body["org_url_slug"] = "";
  expect_400(kListFailingTests, body, {"repo.host", "page_query.page_size", "org_url_slug"});
}

}  // namespace
}  // namespace sandbox_test
