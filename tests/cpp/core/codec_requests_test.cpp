#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace {

using namespace trunk;

std::set<std::string> keys(const Json& object) {
  std::set<std::string> result;
  for (const auto& [key, value] : object.items()) result.insert(key);
  return result;
}

using Keys = std::set<std::string>;

ListFailingTestsRequest failing_request() {
  ListFailingTestsRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.org_url_slug = "acme";
  request.start_time = parse_rfc3339("2024-05-01T00:00:00Z");
  request.end_time = parse_rfc3339("2024-05-07T12:30:00.25+02:00");
  request.page_query = {25, ""};
  return request;
}

UpdateQueueRequest full_update() {
  UpdateQueueRequest request;
  request.repo = {"gitlab.com", "group/sub", "project"};
  request.target_branch = "main";
  request.state = QueueState::paused;
  request.concurrency = 1;
  request.bisection_concurrency = 4294967295;
  request.testing_timeout_minutes = 60;
  request.pending_failure_depth = 2;
  request.can_optimistically_merge = true;
  request.batch = false;
  request.batching_max_wait_time_minutes = 5;
  request.batching_min_size = 3;
  request.mode = QueueMode::parallel;
  request.comments_enabled = false;
  request.commands_enabled = true;
  request.create_prs_for_testing_branches = true;
  request.direct_merge_mode = DirectMergeMode::off;
  request.optimization_mode = OptimizationMode::bisection_skip_redundant_tests;
  request.merge_method = MergeMethod::rebase;
  request.status_check_enabled = true;
  request.required_statuses = std::vector<std::string>{"ci/build"};
  return request;
}

/// Runs fn and returns the ValidationError it throws (fails the test if it throws something else).
template <typename Fn>
std::vector<Violation> violations_of(Fn fn) {
  try {
    fn();
  } catch (const ValidationError& error) {
    return error.violations();
  }
  ADD_FAILURE() << "expected ValidationError";
  return {};
}

template <typename Fn>
std::string decode_error_of(Fn fn) {
  try {
    fn();
  } catch (const DecodeError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected DecodeError";
  return {};
}

// ---- encoding: exact key sets ---------------------------------------------------------------------------
TEST(RequestEncode, ListFailingTestsUsesSnakeCaseAndUtcTimes) {
  const Json json = to_json(failing_request());
  EXPECT_EQ(json, Json::parse(R"({
    "repo": {"host": "github.com", "owner": "acme", "name": "widgets"},
    "org_url_slug": "acme",
    "start_time": "2024-05-01T00:00:00Z",
    "end_time": "2024-05-07T10:30:00.250000Z",
    "page_query": {"page_size": 25}
  })"));
}

TEST(RequestEncode, PageTokenIsSentOnlyWhenNotEmpty) {
  auto request = failing_request();
  EXPECT_EQ(keys(to_json(request)["page_query"]), Keys{"page_size"});
  request.page_query.page_token = "cGFnZToy";
  EXPECT_EQ(to_json(request)["page_query"], Json({{"page_size", 25}, {"page_token", "cGFnZToy"}}));
}

TEST(RequestEncode, ListUnhealthyTestsSendsTheUpperCaseFilter) {
  ListUnhealthyTestsRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.org_url_slug = "acme";
  request.status = HealthStatus::broken;
  const Json json = to_json(request);
  EXPECT_EQ(keys(json), (Keys{"repo", "org_url_slug", "page_query", "status"}));
  EXPECT_EQ(json["status"], "BROKEN");
  EXPECT_EQ(json["page_query"], Json({{"page_size", 100}}));  // the project's default page size
}

TEST(RequestEncode, GetTestDetails) {
  const GetTestDetailsRequest request{
      {"github.com", "acme", "widgets"}, "acme", "3F2C9A1E-7B4D-4C8E-9F01-23456789ABCD"};
  EXPECT_EQ(to_json(request), Json::parse(R"({
    "repo": {"host": "github.com", "owner": "acme", "name": "widgets"},
    "org_url_slug": "acme",
    "test_id": "3F2C9A1E-7B4D-4C8E-9F01-23456789ABCD"
  })"));
}

TEST(RequestEncode, UpdateQueueMinimalSendsOnlyRepoAndTargetBranch) {
  UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.target_branch = "main";
  EXPECT_EQ(encode(request),
            R"({"repo":{"host":"github.com","name":"widgets","owner":"acme"},"targetBranch":"main"})");
}

TEST(RequestEncode, UpdateQueueEveryFieldInCamelCase) {
  EXPECT_EQ(to_json(full_update()), Json::parse(R"({
    "repo": {"host": "gitlab.com", "owner": "group/sub", "name": "project"},
    "targetBranch": "main",
    "state": "paused",
    "concurrency": 1,
    "bisectionConcurrency": 4294967295,
    "testingTimeoutMinutes": 60,
    "pendingFailureDepth": 2,
    "canOptimisticallyMerge": true,
    "batch": false,
    "batchingMaxWaitTimeMinutes": 5,
    "batchingMinSize": 3,
    "mode": "parallel",
    "commentsEnabled": false,
    "commandsEnabled": true,
    "createPrsForTestingBranches": true,
    "directMergeMode": "off",
    "optimizationMode": "bisection_skip_redundant_tests",
    "mergeMethod": "rebase",
    "statusCheckEnabled": true,
    "requiredStatuses": ["ci/build"]
  })"));
}

TEST(RequestEncode, EmptyRequiredStatusesIsSentAndDifferentFromDelete) {
  UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.target_branch = "main";
  request.required_statuses = std::vector<std::string>{};
  Json json = to_json(request);
  EXPECT_EQ(keys(json), (Keys{"repo", "targetBranch", "requiredStatuses"}));
  EXPECT_EQ(json["requiredStatuses"], Json::array());

  request.required_statuses.reset();
  request.delete_required_statuses = true;
  json = to_json(request);
  EXPECT_EQ(keys(json), (Keys{"repo", "targetBranch", "deleteRequiredStatuses"}));
  EXPECT_EQ(json["deleteRequiredStatuses"], true);
}

TEST(RequestEncode, FalseBooleansAreSentNotDropped) {
  UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.target_branch = "main";
  request.batch = false;
  request.delete_required_statuses = false;
  EXPECT_EQ(keys(to_json(request)), (Keys{"repo", "targetBranch", "batch", "deleteRequiredStatuses"}));
}

// ---- strict decoding (the sandbox's side) ---------------------------------------------------------------
TEST(RequestDecode, RoundTripsEveryRequest) {
  const auto failing = failing_request();
  EXPECT_EQ(decode<ListFailingTestsRequest>(encode(failing)), failing);
  ListUnhealthyTestsRequest unhealthy{{"github.com", "acme", "w"}, "acme", HealthStatus::broken, {7, "tok"}};
  EXPECT_EQ(decode<ListUnhealthyTestsRequest>(encode(unhealthy)), unhealthy);
  const GetTestDetailsRequest details{
      {"github.com", "acme", "w"}, "acme", "3f2c9a1e-7b4d-4c8e-9f01-23456789abcd"};
  EXPECT_EQ(decode<GetTestDetailsRequest>(encode(details)), details);
  const auto update = full_update();
  EXPECT_EQ(decode<UpdateQueueRequest>(encode(update)), update);
  UpdateQueueRequest minimal;
  minimal.repo = {"h", "o", "n"};
  minimal.target_branch = "b";
  EXPECT_EQ(decode<UpdateQueueRequest>(encode(minimal)), minimal);
  EXPECT_EQ(decode<Repo>(encode(Repo{"h", "o/p", "n"})), (Repo{"h", "o/p", "n"}));
  EXPECT_EQ(decode<PageQuery>(encode(PageQuery{3, "t"})), (PageQuery{3, "t"}));
}

TEST(RequestDecode, AcceptsEveryTimestampFormAndNullAsAbsent) {
  const auto request = decode<ListFailingTestsRequest>(R"({
    "repo": {"host": "h", "owner": "o", "name": "n"}, "org_url_slug": "s",
    "start_time": "2024-05-01 02:00:00+02:00", "end_time": "2024-05-02t00:00:00z",
    "page_query": {"page_size": 10, "page_token": null}})");
  EXPECT_EQ(request.start_time, parse_rfc3339("2024-05-01T00:00:00Z"));
  EXPECT_EQ(request.page_query.page_token, "");
  const auto update = decode<UpdateQueueRequest>(
      R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": null})");
  EXPECT_FALSE(update.concurrency.has_value());
}

TEST(RequestDecode, ListsEveryMissingRequiredFieldAtOnce) {
  const auto violations = violations_of([] { decode<ListFailingTestsRequest>("{}"); });
  ASSERT_EQ(violations.size(), 5U);
  EXPECT_EQ(violations[0], (Violation{"repo", "<missing>", "is required"}));
  EXPECT_EQ(violations[1].field, "org_url_slug");
  EXPECT_EQ(violations[2].field, "start_time");
  EXPECT_EQ(violations[3].field, "end_time");
  EXPECT_EQ(violations[4].field, "page_query");

  const auto nested = violations_of([] {
    decode<ListUnhealthyTestsRequest>(R"({"repo": {"host": "h"}, "org_url_slug": "s", "page_query": {}})");
  });
  std::vector<std::string> fields;
  for (const auto& v : nested) fields.push_back(v.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"repo.owner", "repo.name", "page_query.page_size", "status"}));
}

TEST(RequestDecode, UnknownEnumValuesAreViolations) {
  const auto violations = violations_of([] {
    decode<UpdateQueueRequest>(R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b",
        "state": "hibernating", "mode": "Parallel", "directMergeMode": "sometimes",
        "optimizationMode": "max", "mergeMethod": "octopus"})");
  });
  ASSERT_EQ(violations.size(), 5U);
  EXPECT_EQ(violations[0],
            (Violation{"state", "\"hibernating\"", "must be one of running, paused, draining"}));
  EXPECT_EQ(violations[1], (Violation{"mode", "\"Parallel\"", "must be one of single, parallel"}));
  EXPECT_EQ(violations[2].field, "directMergeMode");
  EXPECT_EQ(violations[3].field, "optimizationMode");
  EXPECT_EQ(violations[4],
            (Violation{"mergeMethod", "\"octopus\"", "must be one of merge_commit, squash, rebase"}));

  const auto status = violations_of([] {
    decode<ListUnhealthyTestsRequest>(
        R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "org_url_slug": "s",
        "page_query": {"page_size": 1}, "status": "flaky"})");
  });
  ASSERT_EQ(status.size(), 1U);
  EXPECT_EQ(status[0], (Violation{"status", "\"flaky\"", "must be one of FLAKY, BROKEN"}));
}

TEST(RequestDecode, SwitchingModesDecodesButDoesNotValidate) {
  const auto request = decode<UpdateQueueRequest>(
      R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "state": "switching_modes"})");
  EXPECT_EQ(request.state, QueueState::switching_modes);
  EXPECT_EQ(check(request).size(), 1U);
}

TEST(RequestDecode, BadTimestampsAreViolationsNamingTheField) {
  const auto violations = violations_of([] {
    decode<ListFailingTestsRequest>(R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "org_url_slug": "s",
        "start_time": "2024-02-30T00:00:00Z", "end_time": "soon", "page_query": {"page_size": 1}})");
  });
  ASSERT_EQ(violations.size(), 2U);
  EXPECT_EQ(violations[0].field, "start_time");
  EXPECT_EQ(violations[0].value, "\"2024-02-30T00:00:00Z\"");
  EXPECT_NE(violations[0].rule.find("RFC 3339"), std::string::npos);
  EXPECT_EQ(violations[1].field, "end_time");
}

TEST(RequestDecode, UnknownKeysAreViolations) {
  const auto violations = violations_of([] {
    decode<UpdateQueueRequest>(R"({"repo": {"host": "h", "owner": "o", "name": "n", "id": 1},
        "targetBranch": "b", "target_branch": "b", "maxConcurrency": 3})");
  });
  ASSERT_EQ(violations.size(), 3U);
  EXPECT_EQ(violations[0], (Violation{"repo.id", "1", "is not a field of this request"}));
  EXPECT_EQ(violations[1].field, "maxConcurrency");
  EXPECT_EQ(violations[2].field, "target_branch");
}

TEST(RequestDecode, RangesAreLeftToValidate) {
  const auto request = decode<UpdateQueueRequest>(
      R"({"repo": {"host": "", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": 0,
          "batchingMinSize": 4294967296, "pendingFailureDepth": -1})");
  EXPECT_EQ(request.concurrency, 0);
  EXPECT_EQ(request.batching_min_size, 4294967296);
  EXPECT_EQ(request.pending_failure_depth, -1);
  EXPECT_EQ(check(request).size(), 4U);
}

TEST(RequestDecode, WrongTypesAreDecodeErrorsWithPaths) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"repo": "github.com/a/b"})", "repo: expected object, got string"},
      {R"({"repo": {"host": 1}})", "repo.host: expected string, got number"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": "5"})",
       "concurrency: expected integer, got string"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": 5.0})",
       "concurrency: expected integer, got 5.0"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": 1e3})",
       "concurrency: expected integer, got 1000.0"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "batch": 1})",
       "batch: expected boolean, got number"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "batch": "true"})",
       "batch: expected boolean, got string"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "requiredStatuses": "ci"})",
       "requiredStatuses: expected array, got string"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "requiredStatuses": ["a", 1]})",
       "requiredStatuses[1]: expected string, got number"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "state": 0})",
       "state: expected string, got number"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": ["b"]})",
       "targetBranch: expected string, got array"},
      {R"([])", "expected object, got array"},
  };
  for (const auto& c : cases) {
    const char* body =
        c.first;  // a plain variable: lambdas may not capture structured bindings before C++20 DR
    EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(body); }), c.second) << body;
  }
  EXPECT_EQ(
      decode_error_of([] { decode<ListFailingTestsRequest>(R"({"page_query": {"page_size": "10"}})"); }),
      "page_query.page_size: expected integer, got string");
  EXPECT_EQ(decode_error_of([] { decode<ListFailingTestsRequest>(R"({"start_time": 1714521600})"); }),
            "start_time: expected string, got number");
  EXPECT_EQ(decode_error_of([] { decode<GetTestDetailsRequest>(R"({"test_id": null, "org_url_slug": 3})"); }),
            "org_url_slug: expected string, got number");
}

TEST(RequestDecode, MalformedJsonIsADecodeError) {
  EXPECT_EQ(decode_error_of([] { decode<UpdateQueueRequest>("{\"repo\": "); }).rfind("malformed JSON: ", 0),
            0U);
}

}  // namespace

namespace {

using namespace trunk;

TEST(DamagedRequests, NeverEscapeAsOtherExceptions) {
  const std::string original = encode(full_update());
  for (std::size_t pos = 0; pos < original.size(); ++pos) {
    for (const char replacement : {'"', '{', '[', '0', '-', 'x', '\xc3', ':'}) {
      std::string body = original;
      body[pos] = replacement;
      try {
        (void)decode<UpdateQueueRequest>(body);
      } catch (const DecodeError&) {
      } catch (const ValidationError&) {
      }
    }
    // Truncation too: the sandbox reads bodies cut short by clients that hang up.
    try {
      (void)decode<UpdateQueueRequest>(original.substr(0, pos));
      ADD_FAILURE() << "a truncated body decoded: " << original.substr(0, pos);
    } catch (const DecodeError&) {
    }
  }
}

}  // namespace

namespace {

using namespace trunk;

TEST(Encode, InvalidUtf8IsAValidationErrorNamingThePath) {
  UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.target_branch = "main";
  request.required_statuses = std::vector<std::string>{"ok", "bad\xff"};
  try {
    (void)encode(request);
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    ASSERT_EQ(error.violations().size(), 1U);
    EXPECT_EQ(error.violations()[0],
              (Violation{"requiredStatuses[1]", "\"bad\\xFF\"", "must be valid UTF-8"}));
  }
  TestCase test;
  test.extra = Json::object();
  test.extra["odd\xc3"] = 1;  // an invalid key in kept raw JSON is found too
  try {
    (void)encode(test);
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    EXPECT_EQ(error.violations()[0].field, "<document>");
    EXPECT_EQ(error.violations()[0].value, "\"odd\\xC3\"");
  }
}

}  // namespace
