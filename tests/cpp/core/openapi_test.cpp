// The OpenAPI document: generated from the declarations, so these tests walk the same declarations and check
// that each one shows up, plus a few contract values written out (ranges, required lists, the request states)
// so that a wrong declaration and a wrong generator cannot agree with each other unnoticed.
#include "trunk/openapi.hpp"
#include "trunk/wire_request.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "trunk/models.hpp"
#include "trunk/operations.hpp"
#include "trunk/version.hpp"

namespace {

using trunk::Json;

const Json& document() {
  static const Json parsed = Json::parse(trunk::openapi_document());
  return parsed;
}

const Json& schema(const std::string& name) { return document().at("components").at("schemas").at(name); }

/// Follows a local reference ("#/components/schemas/X") inside the document.
const Json& resolve(const Json& node) {
  if (!node.contains("$ref")) return node;
  const auto target = node.at("$ref").get<std::string>();
  return document().at(Json::json_pointer(target.substr(1)));
}

const Json& property(const std::string& model, const std::string& wire) {
  return schema(model).at("properties").at(wire);
}

std::vector<std::string> strings(const Json& array) { return array.get<std::vector<std::string>>(); }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Calls f(node, json_path) for every value of the document.
void walk(const Json& node, const std::string& path,
          const std::function<void(const Json&, const std::string&)>& f) {
  f(node, path);
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) walk(value, path + "/" + key, f);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], path + "/" + std::to_string(i), f);
  }
}

TEST(OpenApi, IsAnOpenApi31DocumentOfThisVersionOfTheLibrary) {
  EXPECT_EQ(document().at("openapi"), "3.1.0");
  EXPECT_EQ(document().at("info").at("title"), "Trunk API, v1 and v2 (as implemented by trunk-api)");
  EXPECT_EQ(document().at("info").at("version"), trunk::kVersion);
  EXPECT_EQ(document().at("servers").at(0).at("url"), "https://api.trunk.io");
  const Json& scheme = document().at("components").at("securitySchemes").at("x-api-token");
  EXPECT_EQ(scheme.at("type"), "apiKey");
  EXPECT_EQ(scheme.at("in"), "header");
  EXPECT_EQ(scheme.at("name"), "x-api-token");
  const Json& bearer = document().at("components").at("securitySchemes").at("apiKey");
  EXPECT_EQ(bearer.at("type"), "http");
  EXPECT_EQ(bearer.at("scheme"), "bearer");
}

// Pretty and stable, so that a copy checked in somewhere diffs meaningfully between versions.
TEST(OpenApi, TextIsIndentedByTwoSpacesAndTheSameOnEveryCall) {
  const std::string text = trunk::openapi_document();
  EXPECT_EQ(text, trunk::openapi_document());
  EXPECT_EQ(text.rfind("{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\n    \"title\"", 0), 0U)
      << text.substr(0, 80);
}

TEST(OpenApi, EveryOperationHasItsPathMethodBodyAnswerErrorsAndToken) {
  std::size_t operations = 0;
  trunk::for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    if constexpr (Op::credential != trunk::Credential::api_key) {  // v1's; v2's are the next test's
    ++operations;
    const std::string path(Op::path);
    SCOPED_TRACE(path);
    ASSERT_TRUE(document().at("paths").contains(path));
    const Json& paths_item = document().at("paths").at(path);
    ASSERT_TRUE(paths_item.contains(lower(Op::method)));
    EXPECT_EQ(paths_item.size(), 1U) << "only the declared method";
    const Json& op = paths_item.at(lower(Op::method));
    EXPECT_EQ(op.at("operationId"), std::string(Op::name));
    EXPECT_EQ(op.at("summary"), std::string(Op::doc));
    // GET /v1/status declares no credential: the publisher's `security: []`, kept as it is.
    EXPECT_EQ(op.at("security"), Op::credential == trunk::Credential::none
                                     ? Json::array()
                                     : Json::parse(R"([{"x-api-token": []}])"));
    if constexpr (std::is_same_v<Op, trunk::op::GetStatus>) {
      EXPECT_FALSE(op.contains("requestBody"));  // no body, no query
      EXPECT_FALSE(op.contains("parameters"));
    } else if constexpr (Op::method == std::string_view("GET")) {
      // getMergeQueueMetrics: the repository in the query, as the metrics guide queries it; no body.
      EXPECT_FALSE(op.contains("requestBody"));
      EXPECT_EQ(op.at("parameters").at(0).at("name"), "repo");
      EXPECT_EQ(op.at("parameters").at(0).at("required"), false);  // absent: every repository (declared optional)
      EXPECT_EQ(op.at("parameters").at(1).at("name"), "repoHost");
    } else {
      EXPECT_EQ(op.at("requestBody").at("content").at("application/json").at("schema").at("$ref"),
                "#/components/schemas/" + std::string(trunk::schema::Model<typename Op::Request>::name));
    }
    if constexpr (trunk::kTextAnswer<typename Op::Response>) {
      EXPECT_EQ(op.at("responses").at("200").at("content").at("text/plain").at("schema").at("type"), "string");
    } else {
      EXPECT_EQ(op.at("responses").at("200").at("content").at("application/json").at("schema").at("$ref"),
                "#/components/schemas/" + std::string(trunk::schema::Model<typename Op::Response>::name));
    }
    EXPECT_EQ(op.at("responses").contains("409"), (std::is_same_v<Op, trunk::op::CreateQueue>));
    for (const char* code : {"400", "401", "404", "429", "500"}) {
      const Json& answer = resolve(op.at("responses").at(code));
      EXPECT_FALSE(answer.at("description").get<std::string>().empty()) << code;
      EXPECT_EQ(answer.at("content").at("text/plain").at("schema").at("type"), "string") << code;
    }
    EXPECT_TRUE(resolve(op.at("responses").at("429")).at("headers").contains("Retry-After"));
    EXPECT_FALSE(resolve(op.at("responses").at("400")).contains("headers"));
    }
  });
  // v1: the stored description's 17, getSubmittedPullRequests, listMergeQueueTestingResults and status.
  EXPECT_EQ(operations, 20U);
}

TEST(OpenApi, EveryV2OperationHasItsPathParametersQueryOrBodyStatusAndEnvelopeErrors) {
  std::size_t operations = 0;
  std::set<std::string> operation_paths;
  trunk::for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    using Request = typename Op::Request;
    operation_paths.insert(std::string(Op::path));
    if constexpr (Op::credential == trunk::Credential::api_key) {
      ++operations;
      const std::string path(Op::path);
      SCOPED_TRACE(path + " " + std::string(Op::method));
      const Json& op = document().at("paths").at(path).at(lower(Op::method));
      EXPECT_EQ(op.at("operationId"), std::string(Op::name));
      EXPECT_EQ(op.at("security"), Json::parse(R"([{"apiKey": []}])"));
      EXPECT_EQ(op.at("tags").at(0), std::string(Op::resource));
      const bool query = Op::method == std::string_view("GET") || Op::method == std::string_view("DELETE");
      std::map<std::string, std::string> parameters;  // name -> in
      for (const Json& parameter : op.value("parameters", Json::array())) {
        parameters[parameter.at("name")] = parameter.at("in");
        if (parameter.at("in") == "path") {
          EXPECT_EQ(parameter.at("required"), true);
          EXPECT_NE(path.find("{" + parameter.at("name").get<std::string>() + "}"), std::string::npos);
        }
      }
      trunk::schema::for_each_field<Request>([&](const auto& field) {
        const std::string wire(field.wire);
        if (field.rules.path) {
          EXPECT_EQ(parameters[wire], "path") << wire;
        } else if (query) {
          EXPECT_EQ(parameters[wire], "query") << wire;
        } else {
          EXPECT_FALSE(parameters.contains(wire)) << wire << " is in the body";
        }
      });
      EXPECT_EQ(op.contains("requestBody"), !query && trunk::has_body_fields<Request>());  // pause: none
      const Json& success = op.at("responses").at(std::to_string(Op::status));
      EXPECT_EQ(success.contains("content"), !(std::is_same_v<typename Op::Response, trunk::NoContent>));
      for (const char* code : {"400", "401", "403", "404", "409", "422", "429", "500", "502"}) {
        const Json& answer = resolve(op.at("responses").at(code));
        EXPECT_EQ(answer.at("content").at("application/json").at("schema").at("$ref"),
                  "#/components/schemas/ErrorResponse")
            << code;
      }
    }
  });
#define TRUNK_COUNT_ROW_(...) +1
  EXPECT_EQ(operations, 0U TRUNK_V2_OPERATIONS(TRUNK_COUNT_ROW_)) << "every row of TRUNK_V2_OPERATIONS is a v2 operation";
#undef TRUNK_COUNT_ROW_
  EXPECT_EQ(document().at("paths").size(), operation_paths.size()) << "one path item per path, no other";
}

template <typename T>
void expect_model_fields() {
  const std::string name(trunk::schema::Model<T>::name);
  SCOPED_TRACE(name);
  const Json& model = schema(name);
  EXPECT_EQ(model.at("type"), "object");
  EXPECT_EQ(model.at("description"), std::string(trunk::schema::Model<T>::doc));
  // Requests are checked strictly by the sandbox; answers may grow keys the decoder keeps in `extra`.
  EXPECT_EQ(model.at("additionalProperties"), trunk::schema::HasExtras<T>);
  std::vector<std::string> required;
  std::size_t path_fields = 0;
  trunk::schema::for_each_field<T>([&](const auto& field) {
    const std::string wire(field.wire);
    if (field.rules.path) {  // in the path, never in a body or a query
      ++path_fields;
      EXPECT_FALSE(model.at("properties").contains(wire)) << wire;
      return;
    }
    ASSERT_TRUE(model.at("properties").contains(wire)) << wire;
    const Json& value = model.at("properties").at(wire);
    EXPECT_EQ(value.at("description").get<std::string>().rfind(std::string(field.doc), 0), 0U) << wire;
    if (field.rules.required) required.push_back(wire);
    if (field.rules.has_range()) {
      // A list's items, or the integer alternative of a variant (priority: a number or a name).
      const Json* number = &value;
      if (value.contains("oneOf")) {
        for (const Json& alternative : value.at("oneOf")) {
          if (alternative.value("type", "") == "integer") number = &alternative;
        }
      } else if (value.at("type") == "array") {
        number = &value.at("items");
      }
      // Each bound that is set (offset has a least value and no greatest).
      if (field.rules.min != std::numeric_limits<std::int64_t>::min()) {
        EXPECT_EQ(number->at("minimum"), field.rules.min) << wire;
      } else {
        EXPECT_FALSE(number->contains("minimum")) << wire;
      }
      if (field.rules.max != std::numeric_limits<std::int64_t>::max()) {
        EXPECT_EQ(number->at("maximum"), field.rules.max) << wire;
      } else {
        EXPECT_FALSE(number->contains("maximum")) << wire;
      }
    }
  });
  EXPECT_EQ(model.at("properties").size(), trunk::schema::field_count<T>() - path_fields)
      << "no property without a field";
  if (required.empty()) {
    EXPECT_FALSE(model.contains("required"));
  } else {
    EXPECT_EQ(strings(model.at("required")), required);
  }
}

TEST(OpenApi, EveryModelFieldAppearsUnderItsWireNameWithItsDocAndRules) {
#define TRUNK_TEST_MODEL_(Type) expect_model_fields<trunk::Type>();
  TRUNK_ALL_MODELS(TRUNK_TEST_MODEL_)
#undef TRUNK_TEST_MODEL_
}

TEST(OpenApi, IntegerRangesOfTheContractAreMinimumAndMaximum) {
  for (const char* wire : {"concurrency", "bisectionConcurrency", "testingTimeoutMinutes",
                           "pendingFailureDepth", "batchingMaxWaitTimeMinutes", "batchingMinSize"}) {
    const Json& value = property("UpdateQueueRequest", wire);
    EXPECT_EQ(value.at("type"), "integer") << wire;
    EXPECT_EQ(value.at("format"), "int64") << wire;
    EXPECT_EQ(value.at("minimum"), 1) << wire;
    EXPECT_EQ(value.at("maximum"), 4294967295LL) << wire;
  }
  EXPECT_EQ(property("PageQuery", "page_size").at("minimum"), 1);
  EXPECT_EQ(property("PageQuery", "page_size").at("maximum"), 100);
  // Answers carry no range of their own: what the service reports is read as it is.
  EXPECT_FALSE(property("QueueSettings", "concurrency").contains("minimum"));
}

TEST(OpenApi, RequiredListsAreThoseOfTheContract) {
  using V = std::vector<std::string>;
  EXPECT_EQ(strings(schema("Repo").at("required")), (V{"host", "owner", "name"}));
  EXPECT_EQ(strings(schema("ListFailingTestsRequest").at("required")),
            (V{"repo", "org_url_slug", "start_time", "end_time", "page_query"}));
  EXPECT_EQ(strings(schema("GetTestDetailsRequest").at("required")), (V{"repo", "org_url_slug", "test_id"}));
  EXPECT_EQ(strings(schema("UpdateQueueRequest").at("required")), (V{"repo", "targetBranch"}));
  EXPECT_EQ(strings(schema("PageQuery").at("required")), (V{"page_size"}));
  EXPECT_EQ(strings(schema("TestPage").at("required")), (V{"tests", "page"}));
  const V settings = strings(schema("QueueSettings").at("required"));
  EXPECT_NE(std::find(settings.begin(), settings.end(), "mergeMethod"), settings.end());
  EXPECT_EQ(std::find(settings.begin(), settings.end(), "enqueuedPullRequests"), settings.end())
      << "getQueue only";
  EXPECT_FALSE(schema("TestCase").contains("required")) << "the contract promises no field of a test case";
}

TEST(OpenApi, TextRulesAndTimesBecomeFormatsAndLengths) {
  EXPECT_EQ(property("GetTestDetailsRequest", "test_id").at("format"), "uuid");
  EXPECT_EQ(property("GetTestDetailsRequest", "org_url_slug").at("minLength"), 1);
  EXPECT_EQ(property("Repo", "host").at("minLength"), 1);
  EXPECT_EQ(property("ListFailingTestsRequest", "start_time").at("format"), "date-time");
  EXPECT_EQ(property("QuarantinedTest", "quarantined_at").at("format"), "date-time");
  // Each listed status must be non-empty; the list itself may be empty ([] sets it empty).
  const Json& statuses = property("UpdateQueueRequest", "requiredStatuses");
  EXPECT_EQ(statuses.at("type"), "array");
  EXPECT_EQ(statuses.at("items").at("minLength"), 1);
  EXPECT_FALSE(statuses.contains("minItems"));
  EXPECT_EQ(property("TestCase", "failure_rate_last_7d").at("type"), "number");
  EXPECT_EQ(property("TestCase", "quarantined").at("type"), "boolean");
  EXPECT_EQ(property("TestPage", "tests").at("items").at("$ref"), "#/components/schemas/TestCase");
}

// switching_modes is reported by the service but cannot be asked for.
TEST(OpenApi, ARequestsQueueStateAllowsOnlyTheRequestableValues) {
  const Json& state = resolve(property("UpdateQueueRequest", "state"));
  EXPECT_EQ(state.at("type"), "string");
  EXPECT_EQ(strings(state.at("enum")), (std::vector<std::string>{"running", "paused", "draining"}));
  EXPECT_EQ(strings(schema("QueueState").at("enum")),
            (std::vector<std::string>{"running", "paused", "draining", "switching_modes"}));
  // An enumeration with no reported-only value is referenced as it is.
  EXPECT_EQ(property("UpdateQueueRequest", "mode").at("$ref"), "#/components/schemas/QueueMode");
  EXPECT_EQ(strings(resolve(property("ListUnhealthyTestsRequest", "status")).at("enum")),
            (std::vector<std::string>{"FLAKY", "BROKEN"}));
}

// The decoders keep unknown values of answers raw; a closed enum would make validators reject such answers.
TEST(OpenApi, AnswerEnumerationsAreOpenStringsWithTheKnownValuesAsExamples) {
  const Json& state = property("QueueSettings", "state");
  EXPECT_FALSE(state.contains("$ref"));
  EXPECT_FALSE(state.contains("enum"));
  EXPECT_EQ(state.at("type"), "string");
  EXPECT_EQ(strings(state.at("examples")),
            (std::vector<std::string>{"running", "paused", "draining", "switching_modes"}));
  EXPECT_NE(state.at("description").get<std::string>().find("switching_modes"), std::string::npos);
  EXPECT_FALSE(property("PullRequest", "state").contains("enum"));
  EXPECT_FALSE(property("QuarantinedTest", "quarantine_setting").contains("enum"));
}

TEST(OpenApi, EveryEnumerationIsASchemaWithAllItsWireValues){
#define TRUNK_TEST_ENUM_(Type)                                                                  \
  {                                                                                             \
    using D = trunk::schema::Enum<trunk::Type>;                                                 \
    const Json& e = schema(std::string(D::name));                                               \
    EXPECT_EQ(e.at("enum").size(), D::wire.size()) << D::name;                                  \
    for (std::size_t i = 0; i < D::wire.size(); ++i) EXPECT_EQ(e.at("enum").at(i), D::wire[i]); \
  }
    TRUNK_ALL_ENUMS(TRUNK_TEST_ENUM_)
#undef TRUNK_TEST_ENUM_
}

TEST(OpenApi, EveryReferenceResolvesInsideTheDocument) {
  std::size_t references = 0;
  walk(document(), "", [&](const Json& node, const std::string& path) {
    if (!node.is_object() || !node.contains("$ref")) return;
    ++references;
    const auto target = node.at("$ref").get<std::string>();
    ASSERT_EQ(target.rfind("#/", 0), 0U) << path << ": " << target;
    EXPECT_TRUE(document().contains(Json::json_pointer(target.substr(1)))) << path << ": " << target;
  });
  EXPECT_GT(references, 30U);
}

// The client never sends null and the service promises none but one: absent is "not required", not "null". The
// nulls are where the published descriptions allow them: in a request, submitPullRequest's priority ("or null"),
// which the sandbox reads as absent (every other null in a request is a 400); in an answer, v2's nextCursor on a
// listing's last page, what v2 may not know of a repository (host, default branch, privacy), a check without a
// page, and a queue-entry transition without a reason.
TEST(OpenApi, DeclaresNullOnlyWhereTheDescriptionAllowsIt) {
  std::vector<std::string> nulls;
  walk(document(), "", [&](const Json& node, const std::string& path) {
    if (!node.is_object() || !node.contains("type")) return;
    // A map of properties is not a schema: its "type" is a field's name (the webhook events have one).
    if (path.ends_with("/properties")) return;
    EXPECT_TRUE(node.at("type").is_string()) << path << " (a list of types would admit null)";
    if (node.at("type") == "null") nulls.push_back(path);
  });
  const std::set<std::string> declared = {
      "/components/schemas/Check/properties/url/oneOf/1",
      "/components/schemas/QueueEntryStateTransition/properties/reason/oneOf/1",
      "/components/schemas/Repository/properties/defaultBranch/oneOf/1",
      "/components/schemas/Repository/properties/host/oneOf/1",
      "/components/schemas/Repository/properties/isPrivate/oneOf/1",
      "/components/schemas/SubmitPullRequestRequest/properties/priority/oneOf/2",
      // A quarantine change's reason (Trunk's schema for the event: "string or null"), in its model and in the
      // event's own schema.
      "/components/schemas/QuarantineSettingChange/properties/reason/oneOf/1",
      "/webhooks/test_case.quarantining_setting_changed/post/requestBody/content/application/json/schema/properties/"
      "quarantine_setting_changed/properties/reason/oneOf/1",
      // v2's flaky tests: what the description declares "or null" (a monitor id for the manual mark, what Trunk
      // has not recorded, a run off pull requests, metrics of a period without runs).
      "/components/schemas/ActiveMonitor/properties/monitorId/oneOf/1",
      "/components/schemas/ClassifyingMonitor/properties/monitorId/oneOf/1",
      "/components/schemas/LabelUser/properties/name/oneOf/1",
      "/components/schemas/QuarantineOverride/properties/reason/oneOf/1",
      "/components/schemas/TestCaseMetrics/properties/durationP95Ms/oneOf/1",
      "/components/schemas/TestCaseMetrics/properties/lastFailureAt/oneOf/1",
      "/components/schemas/TestCaseMetrics/properties/lastRunAt/oneOf/1",
      "/components/schemas/TestCollection/properties/description/oneOf/1",
      "/components/schemas/TestRunV2/properties/buildUrl/oneOf/1",
      "/components/schemas/TestRunV2/properties/jobName/oneOf/1",
      "/components/schemas/TestRunV2/properties/pullRequest/oneOf/1",
      "/components/schemas/TestRunV2/properties/workflow/oneOf/1",
      "/components/schemas/Ticket/properties/assignee/oneOf/1",
      // Dynamic CI: a run off pull requests (its plan requests' baseSha and prNumber, required and null then), a
      // job whose key Trunk has not resolved, a pipeline with no workflow file.
      "/components/schemas/CiPlanRequest/properties/baseSha/oneOf/1",
      "/components/schemas/CiPlanRequest/properties/prNumber/oneOf/1",
      "/components/schemas/BuildkitePlanRequest/properties/baseSha/oneOf/1",
      "/components/schemas/BuildkitePlanRequest/properties/prNumber/oneOf/1",
      "/components/schemas/CiJob/properties/jobKey/oneOf/1",
      "/components/schemas/CiWorkflow/properties/path/oneOf/1",
      // A monitor's state for a test: when its mute ends, null for none (not muted, or a mute with no end).
      "/components/schemas/MonitorTest/properties/mutedUntil/oneOf/1",
  };
  std::set<std::string> with_tests = declared;
  for (const char* test : {"TestCaseSummary", "TestCaseV2"}) {
    for (const char* field : {"crossVariantId", "metrics", "quarantinedSince", "statusSince"}) {
      with_tests.insert(std::string("/components/schemas/") + test + "/properties/" + field + "/oneOf/1");
    }
  }
  for (const char* field : {"firstSeenAt", "lastFailureAt", "quarantineOverride"}) {
    with_tests.insert(std::string("/components/schemas/TestCaseV2/properties/") + field + "/oneOf/1");
  }
  std::size_t next_cursors = 0;
  for (const std::string& path : nulls) {
    if (path.ends_with("List/properties/nextCursor/oneOf/1")) {
      ++next_cursors;  // every v2 page's
    } else {
      EXPECT_TRUE(with_tests.contains(path)) << path;
    }
  }
  EXPECT_EQ(nulls.size(), with_tests.size() + next_cursors);
  EXPECT_GE(next_cursors, 4U);
  EXPECT_EQ(schema("SubmitPullRequestRequest").at("properties").at("priority").at("oneOf").size(), 3U);
}

}  // namespace
