#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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

/// The JSON paths of every null in `json`.
void find_nulls(const Json& json, const std::string& path, std::vector<std::string>& out) {
  if (json.is_null()) out.push_back(path.empty() ? "<root>" : path);
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) find_nulls(value, path.empty() ? key : path + "." + key, out);
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) find_nulls(json[i], path + "[" + std::to_string(i) + "]", out);
  }
}

// The client never sends null (the sandbox refuses it, below): every request, with nothing set and with
// everything set, encodes without one.
TEST(RequestEncode, NoRequestCarriesNullButARequiredNullableFieldLeftUnset) {
  std::vector<std::string> nulls;
#define TRUNK_TEST_NO_NULL_(Type) find_nulls(to_json(Type{}), #Type, nulls);
  TRUNK_ALL_REQUEST_MODELS(TRUNK_TEST_NO_NULL_)
#undef TRUNK_TEST_NO_NULL_
  find_nulls(to_json(full_update()), "full_update", nulls);
  find_nulls(to_json(failing_request()), "failing_request", nulls);
  // Dynamic CI's plan requests need baseSha and prNumber said, null for a run off pull requests: the only nulls.
  EXPECT_EQ(nulls, (std::vector<std::string>{"CiPlanRequest.baseSha", "CiPlanRequest.prNumber",
                                             "BuildkitePlanRequest.baseSha", "BuildkitePlanRequest.prNumber"}));
  nulls.clear();
  CiPlanRequest set;
  set.base_sha = "abc";
  set.pr_number = 7;
  find_nulls(to_json(set), "set", nulls);
  EXPECT_TRUE(nulls.empty()) << "null at " << ::testing::PrintToString(nulls);
  // The check itself finds a null where there is one.
  find_nulls(Json::parse(R"({"a": [1, null]})"), "", nulls);
  EXPECT_EQ(nulls, (std::vector<std::string>{"a[1]"}));
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

TEST(RequestDecode, AcceptsEveryTimestampForm) {
  const auto request = decode<ListFailingTestsRequest>(R"({
    "repo": {"host": "h", "owner": "o", "name": "n"}, "org_url_slug": "s",
    "start_time": "2024-05-01 02:00:00+02:00", "end_time": "2024-05-02t00:00:00z",
    "page_query": {"page_size": 10}})");
  EXPECT_EQ(request.start_time, parse_rfc3339("2024-05-01T00:00:00Z"));
  EXPECT_EQ(request.end_time, parse_rfc3339("2024-05-02T00:00:00Z"));
  EXPECT_EQ(request.page_query.page_token, "");
}

// Decision (issue 17): no request field is nullable. The published description gives none null and the client
// never sends it, so a request's null is a wrong type like any other, naming the field, null and the type:
// optional fields, required ones (not "missing": the key is there), nested ones and list elements alike.
TEST(RequestDecode, NullIsAWrongTypeForEveryField) {
  const std::string repo = R"("repo": {"host": "h", "owner": "o", "name": "n"})";
  const std::pair<std::string, std::string> update_cases[] = {
      {R"("testingTimeoutMinutes": null)", "testingTimeoutMinutes: expected integer, got null"},
      {R"("deleteRequiredStatuses": null)", "deleteRequiredStatuses: expected boolean, got null"},
      {R"("requiredStatuses": null)", "requiredStatuses: expected array, got null"},
      {R"("requiredStatuses": ["ci", null])", "requiredStatuses[1]: expected string, got null"},
      {R"("state": null)", "state: expected string, got null"},
      {R"("concurrency": null)", "concurrency: expected integer, got null"},
  };
  for (const auto& [field, message] : update_cases) {
    const std::string body = "{" + repo + R"(, "targetBranch": "b", )" + field + "}";
    EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(body); }), message) << body;
  }
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>("{" + repo + R"(, "targetBranch": null})"); }),
            "targetBranch: expected string, got null");
  EXPECT_EQ(decode_error_of([] { decode<UpdateQueueRequest>(R"({"repo": null, "targetBranch": "b"})"); }),
            "repo: expected object, got null");
  EXPECT_EQ(decode_error_of([] {
              decode<UpdateQueueRequest>(R"({"repo": {"host": "h", "owner": null, "name": "n"}, "targetBranch": "b"})");
            }),
            "repo.owner: expected string, got null");
  const std::string failing = "{" + repo + R"(, "org_url_slug": "s", "start_time": "2024-05-01T00:00:00Z",
      "end_time": "2024-05-02T00:00:00Z", "page_query": {"page_size": 10, "page_token": null}})";
  EXPECT_EQ(decode_error_of([&] { decode<ListFailingTestsRequest>(failing); }),
            "page_query.page_token: expected string, got null");
  // The nested pull request; and the one field the published description gives null (submitPullRequest's
  // priority, "or null"), declared nullable: null reads as absent there, the queue's default.
  EXPECT_EQ(decode_error_of([&] {
              decode<SubmitPullRequestRequest>("{" + repo + R"(, "targetBranch": "b", "pr": {"number": null}})");
            }),
            "pr.number: expected integer, got null");
  EXPECT_FALSE(decode<SubmitPullRequestRequest>("{" + repo + R"(, "targetBranch": "b", "pr": {"number": 1}, "priority": null})")
                   .priority.has_value());
  EXPECT_EQ(decode_error_of([&] {
              decode<SubmitPullRequestRequest>("{" + repo + R"(, "targetBranch": "b", "pr": {"number": 1}, "noBatch": null})");
            }),
            "noBatch: expected boolean, got null");
  // The boundary's other side: the same requests without the null key are read.
  EXPECT_FALSE(decode<UpdateQueueRequest>("{" + repo + R"(, "targetBranch": "b"})").testing_timeout_minutes);
  EXPECT_EQ(decode<UpdateQueueRequest>("{" + repo + R"(, "targetBranch": "b", "deleteRequiredStatuses": false})")
                .delete_required_statuses,
            false);
}

// JSON Schema's "integer" (the document's type of these fields) is any number with a zero fraction.
TEST(RequestDecode, IntegersMayBeWrittenWithAZeroFractionOrAnExponent) {
  const std::string head = R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", )";
  EXPECT_EQ(decode<UpdateQueueRequest>(head + R"("concurrency": 5.0})").concurrency, 5);
  EXPECT_EQ(decode<UpdateQueueRequest>(head + R"("concurrency": 1e3})").concurrency, 1000);
  EXPECT_EQ(decode<UpdateQueueRequest>(head + R"("bisectionConcurrency": 4294967295.0})").bisection_concurrency,
            4294967295);
  EXPECT_EQ(decode<UpdateQueueRequest>(head + R"("concurrency": -0.0})").concurrency, 0);  // then validate() says
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + R"("concurrency": 5.5})"); }),
            "concurrency: expected integer, got 5.5");
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + R"("concurrency": 1e-3})"); }),
            "concurrency: expected integer, got 0.001");
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + R"("concurrency": 1e19})"); }),
            "concurrency: expected integer, got 1e+19");
  EXPECT_EQ(decode<ListFailingTestsRequest>(R"({"repo": {"host": "h", "owner": "o", "name": "n"},
      "org_url_slug": "s", "start_time": "2024-05-01T00:00:00Z", "end_time": "2024-05-02T00:00:00Z",
      "page_query": {"page_size": 15.0}})").page_query.page_size, 15);
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
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": "5a"})",
       "concurrency: expected integer, got string"},
      {R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": 2.5})",
       "concurrency: expected integer, got 2.5"},
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
      decode_error_of([] { decode<ListFailingTestsRequest>(R"({"page_query": {"page_size": "10.0"}})"); }),
      "page_query.page_size: expected integer, got string");
  EXPECT_EQ(decode_error_of([] { decode<ListFailingTestsRequest>(R"({"start_time": 1714521600})"); }),
            "start_time: expected string, got number");
  EXPECT_EQ(decode_error_of([] { decode<GetTestDetailsRequest>(R"({"test_id": "x", "org_url_slug": 3})"); }),
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

// ---- integers as decimal strings (protobuf's JSON mapping) -----------------------------------------------

// One rule for every integer field: JSON's spelling of an integer inside a string is that integer; any other
// string is the wrong type with the usual message; beyond int64 is out of range; the field's own range is
// validation's, exactly as for the number.
TEST(RequestDecode, AnIntegerMayBeADecimalString) {
  const std::string head =
      R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "targetBranch": "b", "concurrency": )";
  const std::pair<const char*, std::int64_t> read[] = {
      {R"("123")", 123},
      {R"("0")", 0},
      {R"("-0")", 0},
      {R"("-7")", -7},
      {R"("4294967296")", 4294967296},
      {R"("9223372036854775807")", std::numeric_limits<std::int64_t>::max()},
      {R"("-9223372036854775808")", std::numeric_limits<std::int64_t>::min()},
      {R"("\u0031\u0032")", 12},  // the string's value is what counts, as for any string
  };
  for (const auto& [text, number] : read) {
    EXPECT_EQ(decode<UpdateQueueRequest>(head + text + "}").concurrency, number) << text;
  }
  for (const char* text : {R"("")", R"(" 1")", R"("1 ")", R"("+1")", R"("01")", R"("-01")", R"("1.5")", R"("1.0")",
                           R"("1e3")", R"("12a")", R"("0x10")", R"("-")", R"("--1")", R"("1_000")", R"("\u0661")"}) {
    EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + text + "}"); }),
              "concurrency: expected integer, got string")
        << text;
  }
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + R"("9223372036854775808"})"); }),
            "concurrency: integer 9223372036854775808 is out of range");
  EXPECT_EQ(decode_error_of([&] { decode<UpdateQueueRequest>(head + R"("-9223372036854775809"})"); }),
            "concurrency: integer -9223372036854775809 is out of range");
  // The field's range: the same violation as the number's.
  for (const char* value : {"0", "4294967296"}) {
    const auto as_string = check(decode<UpdateQueueRequest>(head + "\"" + value + "\"}"));
    const auto as_number = check(decode<UpdateQueueRequest>(head + value + "}"));
    ASSERT_EQ(as_string.size(), 1U) << value;
    ASSERT_EQ(as_number.size(), 1U) << value;
    EXPECT_EQ(as_string[0].field, as_number[0].field);
    EXPECT_EQ(as_string[0].value, as_number[0].value);
    EXPECT_EQ(as_string[0].rule, as_number[0].rule);
  }
  // Inside a list of integers and a nested object alike (one reader): setImpactedTargets' pr.number.
  const auto impacted = decode<SetImpactedTargetsRequest>(
      R"({"repo": {"host": "h", "owner": "o", "name": "n"}, "pr": {"number": "123", "sha": "abc"},
          "targetBranch": "main", "impactedTargets": ["a"]})");
  EXPECT_EQ(impacted.pr.number, 123);
}

}  // namespace
