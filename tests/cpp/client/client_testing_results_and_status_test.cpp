// listMergeQueueTestingResults and GET /v1/status through the public Client, against a real local server
// (docs/reference/service.md#list-merge-queue-testing-results, #service-status): the exact request each sends,
// the answers read tolerantly, take and offset checked at their edges before anything is sent, and no credential
// header at all on the status call.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/async_client.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;

using testing::kRepo;

ListMergeQueueTestingResultsRequest window() {
  ListMergeQueueTestingResultsRequest request;
  request.repo = kRepo;
  request.target_branch = "main";
  request.since = parse_rfc3339("2024-01-01T00:00:00Z");
  return request;
}

TEST(ListMergeQueueTestingResults, SendsTheFieldsSetAndTakeAlways) {
  HttpTestServer server;
  server.set_replies({{200, R"({"results":[],"total":0})"}});
  Client client(testing::test_options(server.base_url()));
  client.list_merge_queue_testing_results(window());
  ListMergeQueueTestingResultsRequest full = window();
  full.until = parse_rfc3339("2024-01-08T00:00:00Z");
  full.offset = 0;
  full.take = 100;
  client.list_merge_queue_testing_results(full);
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 2U);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].path, "/v1/listMergeQueueTestingResults");
  EXPECT_EQ(sent[0].header("x-api-token"), testing::kToken);
  const Json repo = {{"host", "github.com"}, {"owner", "acme"}, {"name", "widgets"}};
  // until and offset were not set, so they are not sent; take has the service's own default.
  EXPECT_EQ(Json::parse(sent[0].body),
            Json({{"repo", repo}, {"targetBranch", "main"}, {"since", "2024-01-01T00:00:00Z"}, {"take", 50}}));
  EXPECT_EQ(Json::parse(sent[1].body), Json({{"repo", repo},
                                             {"targetBranch", "main"},
                                             {"since", "2024-01-01T00:00:00Z"},
                                             {"until", "2024-01-08T00:00:00Z"},
                                             {"offset", 0},
                                             {"take", 100}}));
}

TEST(ListMergeQueueTestingResults, TheAnswerIsReadTolerantly) {
  HttpTestServer server;
  server.set_replies({{200, R"({"results":[{"testRunId":"r1","prNumber":7,"endedAt":"2024-01-02T03:04:05Z",)"
                            R"("outcome":"a_new_outcome","isBisection":false,"new":1}],"total":12,"more":true})"}});
  Client client(testing::test_options(server.base_url()));
  const MergeQueueTestingResults answer = client.list_merge_queue_testing_results(window());
  ASSERT_EQ(answer.results.size(), 1U);
  EXPECT_EQ(answer.results[0].test_run_id, "r1");
  EXPECT_EQ(answer.results[0].pr_number, 7);
  EXPECT_EQ(answer.results[0].ended_at, parse_rfc3339("2024-01-02T03:04:05Z"));
  EXPECT_EQ(answer.results[0].outcome->wire(), "a_new_outcome");  // kept, not an error
  EXPECT_FALSE(answer.results[0].testing_duration_ms.has_value());
  EXPECT_EQ(answer.results[0].extra, Json({{"new", 1}}));
  EXPECT_EQ(answer.total, 12);
  EXPECT_EQ(answer.extra, Json({{"more", true}}));
  const auto empty = from_json<MergeQueueTestingResults>(Json::object());
  EXPECT_TRUE(empty.results.empty());
  EXPECT_FALSE(empty.total.has_value());
}

TEST(ListMergeQueueTestingResults, TakeAndOffsetAreCheckedAtTheirEdgesBeforeAnythingIsSent) {
  HttpTestServer server;
  server.set_replies({{200, R"({"results":[],"total":0})"}});
  Client client(testing::test_options(server.base_url()));
  auto violations = [&](std::int64_t take, std::optional<std::int64_t> offset) {
    ListMergeQueueTestingResultsRequest request = window();
    request.take = take;
    request.offset = offset;
    try {
      client.list_merge_queue_testing_results(request);
    } catch (const ValidationError& error) {
      return error.violations();
    }
    return std::vector<Violation>{};
  };
  const std::vector<Violation> take0 = violations(0, std::nullopt);
  ASSERT_EQ(take0.size(), 1U);
  EXPECT_EQ(take0[0].field, "take");
  EXPECT_EQ(take0[0].value, "0");
  EXPECT_NE(take0[0].rule.find("1"), std::string::npos) << take0[0].rule;
  EXPECT_TRUE(violations(1, std::nullopt).empty());
  EXPECT_TRUE(violations(100, std::nullopt).empty());
  const std::vector<Violation> take101 = violations(101, std::nullopt);
  ASSERT_EQ(take101.size(), 1U);
  EXPECT_EQ(take101[0].field, "take");
  EXPECT_EQ(take101[0].value, "101");
  const std::vector<Violation> negative = violations(50, -1);
  ASSERT_EQ(negative.size(), 1U);
  EXPECT_EQ(negative[0].field, "offset");
  EXPECT_EQ(negative[0].value, "-1");
  EXPECT_TRUE(violations(50, 0).empty());
  EXPECT_EQ(server.request_count(), 3U);  // take 1, take 100, offset 0
}

TEST(ServiceStatus, IsAGetWithNoBodyAndNoCredentialHeader) {
  HttpTestServer server;
  server.set_replies({{200, R"({"overallStatus":{"type":"up","color":"green",)"
                            R"("overallStatusDescription":"All systems operational"},)"
                            R"("statuses":[{"name":"API","color":"green","statusDescription":"Operational"}]})"}});
  Client client(testing::test_options(server.base_url()));
  const ServiceStatus status = client.status(StatusRequest{});
  ASSERT_TRUE(status.overall_status.has_value());
  EXPECT_EQ(status.overall_status->type, "up");
  EXPECT_FALSE(status.overall_status->impacted_statuses.has_value());
  ASSERT_EQ(status.statuses.size(), 1U);
  EXPECT_EQ(status.statuses[0].name, "API");
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].method, "GET");
  EXPECT_EQ(sent[0].path, "/v1/status");
  EXPECT_EQ(sent[0].body, "");
  // No credential of any kind, and the token nowhere in what was sent.
  for (const char* name : {"x-api-token", "Authorization", "x-trunk-token"}) {
    EXPECT_FALSE(sent[0].headers.count(name)) << name;
  }
  for (const auto& [name, value] : sent[0].headers) {
    EXPECT_EQ(value.find(testing::kToken), std::string::npos) << name;
  }
  EXPECT_EQ(sent[0].header("Accept"), "application/json");
}

TEST(ServiceStatus, AnImpactedAnswerAndUnknownValuesAreRead) {
  HttpTestServer server;
  server.set_replies({{200, R"({"overallStatus":{"type":"impacted","color":"red","overallStatusDescription":"Impacted",)"
                            R"("impactedStatuses":[{"name":"Merge Queue","color":"red","statusDescription":"Down"}]},)"
                            R"("statuses":[{"name":"Merge Queue","color":"purple","statusDescription":"Down","x":1}]})"}});
  Client client(testing::test_options(server.base_url()));
  const ServiceStatus status = client.status(StatusRequest{});
  EXPECT_EQ(status.overall_status->type, "impacted");
  ASSERT_TRUE(status.overall_status->impacted_statuses.has_value());
  EXPECT_EQ(status.overall_status->impacted_statuses->at(0).name, "Merge Queue");
  EXPECT_EQ(status.statuses[0].color, "purple");  // a colour the description does not list is kept
  EXPECT_EQ(status.statuses[0].extra, Json({{"x", 1}}));
}

TEST(ServiceStatus, TheAsyncCallSendsNoCredentialEither) {
  HttpTestServer server;
  server.set_replies({{200, R"({"overallStatus":{"type":"up","color":"green","overallStatusDescription":"ok"},)"
                            R"("statuses":[]})"}});
  AsyncClient client(testing::test_options(server.base_url()));
  const ServiceStatus status = client.status(StatusRequest{}).future.get();
  EXPECT_EQ(status.overall_status->color, "green");
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_FALSE(sent[0].headers.count("x-api-token"));
  EXPECT_FALSE(sent[0].headers.count("Authorization"));
}

}  // namespace
}  // namespace trunk
