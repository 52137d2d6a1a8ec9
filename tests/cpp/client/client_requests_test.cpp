// The exact request of each operation on the wire, the decoded responses, and validation before sending.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/time.hpp"
#include "trunk/version.hpp"

namespace trunk {
namespace {

using nlohmann::json;
using testing::HttpTestServer;
using testing::kToken;
using testing::RecordedRequest;

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

/// What every operation sends, whatever its body.
void expect_common_headers(const RecordedRequest& request) {
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.header("x-api-token"), kToken);
  EXPECT_EQ(request.header("Content-Type"), "application/json");
  EXPECT_EQ(request.header("Accept"), "application/json");
  EXPECT_EQ(request.header("User-Agent"), std::string("trunk-api-cpp/") + kVersion + " client-tests/1");
  EXPECT_NE(request.header("Accept-Encoding").find("gzip"), std::string::npos) << request.header("Accept-Encoding");
}

void expect_sample_repo(const json& repo) {
  EXPECT_EQ(repo, json({{"host", "github.com"}, {"owner", "trunk-io"}, {"name", "trunk"}}));
}

TEST(ClientRequests, ListFailingTestsSendsExactlyTheSetFields) {
  HttpTestServer server;
  server.set_replies({{200, testing::page_json({testing::uuid_for(1)}, "")}});
  Client client(testing::test_options(server.base_url()));
  ListFailingTestsRequest request;
  request.repo = testing::sample_repo();
  request.org_url_slug = "trunk-org";
  request.start_time = parse_rfc3339("2026-01-01T00:00:00Z");
  request.end_time = parse_rfc3339("2026-01-08T00:00:00Z");
  request.page_query.page_size = 25;

  const TestPage page = client.list_failing_tests(request);
  ASSERT_EQ(page.tests.size(), 1U);
  EXPECT_EQ(page.tests[0].id, testing::uuid_for(1));
  EXPECT_EQ(page.page.next_page_token, "");

  ASSERT_EQ(server.request_count(), 1U);
  const RecordedRequest sent = server.requests()[0];
  EXPECT_EQ(sent.path, "/v1/flaky-tests/list-failing-tests");
  expect_common_headers(sent);
  const json body = json::parse(sent.body);
  EXPECT_EQ(keys_of(body), (std::set<std::string>{"repo", "org_url_slug", "start_time", "end_time", "page_query"}));
  expect_sample_repo(body["repo"]);
  EXPECT_EQ(body["org_url_slug"], "trunk-org");
  EXPECT_EQ(body["start_time"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(body["end_time"], "2026-01-08T00:00:00Z");
  EXPECT_EQ(body["page_query"], json({{"page_size", 25}}));  // the empty first-page token is not sent
}

TEST(ClientRequests, ListUnhealthyTestsSendsStatusAndPageToken) {
  HttpTestServer server;
  server.set_replies({{200, testing::page_json({testing::uuid_for(2), testing::uuid_for(3)}, "")}});
  Client client(testing::test_options(server.base_url()));
  ListUnhealthyTestsRequest request;
  request.repo = testing::sample_repo();
  request.org_url_slug = "trunk-org";
  request.status = HealthStatus::broken;
  request.page_query = {100, "tok-page-2"};

  const TestPage page = client.list_unhealthy_tests(request);
  ASSERT_EQ(page.tests.size(), 2U);
  EXPECT_EQ(page.tests[1].id, testing::uuid_for(3));

  const RecordedRequest sent = server.requests().at(0);
  EXPECT_EQ(sent.path, "/v1/flaky-tests/list-unhealthy-tests");
  expect_common_headers(sent);
  const json body = json::parse(sent.body);
  EXPECT_EQ(keys_of(body), (std::set<std::string>{"repo", "org_url_slug", "status", "page_query"}));
  expect_sample_repo(body["repo"]);
  EXPECT_EQ(body["status"], "BROKEN");
  EXPECT_EQ(body["page_query"], json({{"page_size", 100}, {"page_token", "tok-page-2"}}));
}

TEST(ClientRequests, GetTestDetailsSendsTheIdAndDecodesTheTest) {
  HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  Client client(testing::test_options(server.base_url()));

  const TestDetails details = client.get_test_details(testing::details_request());
  EXPECT_EQ(details.test.id, testing::kTestId);
  EXPECT_EQ(details.test.name, "test_login");
  EXPECT_EQ(details.test.failure_rate_last_7d, 0.25);
  EXPECT_EQ(details.test.quarantined, true);

  const RecordedRequest sent = server.requests().at(0);
  EXPECT_EQ(sent.path, "/v1/flaky-tests/get-test-details");
  expect_common_headers(sent);
  const json body = json::parse(sent.body);
  EXPECT_EQ(keys_of(body), (std::set<std::string>{"repo", "org_url_slug", "test_id"}));
  expect_sample_repo(body["repo"]);
  EXPECT_EQ(body["org_url_slug"], "trunk-org");
  EXPECT_EQ(body["test_id"], testing::kTestId);
}

TEST(ClientRequests, UpdateQueueSendsOnlyTheFieldsThatAreSet) {
  HttpTestServer server;
  server.set_replies({{200, testing::queue_settings_json()}});
  Client client(testing::test_options(server.base_url()));
  UpdateQueueRequest request;
  request.repo = testing::sample_repo();
  request.target_branch = "main";
  request.state = QueueState::paused;
  request.concurrency = 4294967295;
  request.batch = false;
  request.required_statuses = std::vector<std::string>{};  // set to empty: sent as []

  const QueueSettings settings = client.update_queue(request);
  EXPECT_EQ(settings.branch, "main");
  ASSERT_TRUE(settings.state.has_value());
  EXPECT_EQ(*settings.state, QueueState::paused);
  EXPECT_EQ(settings.concurrency, 4);

  const RecordedRequest sent = server.requests().at(0);
  EXPECT_EQ(sent.path, "/v1/updateQueue");
  expect_common_headers(sent);
  const json body = json::parse(sent.body);
  EXPECT_EQ(keys_of(body),
            (std::set<std::string>{"repo", "targetBranch", "state", "concurrency", "batch", "requiredStatuses"}));
  expect_sample_repo(body["repo"]);
  EXPECT_EQ(body["targetBranch"], "main");
  EXPECT_EQ(body["state"], "paused");
  EXPECT_EQ(body["concurrency"], 4294967295LL);
  EXPECT_EQ(body["batch"], false);
  EXPECT_EQ(body["requiredStatuses"], json::array());
}

TEST(ClientRequests, InvalidRequestsAreRejectedBeforeAnyByteIsSent) {
  HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  Client client(testing::test_options(server.base_url()));

  EXPECT_THROW(client.get_test_details(testing::details_request("not-a-uuid")), ValidationError);

  ListFailingTestsRequest window;
  window.repo = testing::sample_repo();
  window.org_url_slug = "trunk-org";
  window.start_time = parse_rfc3339("2026-01-01T00:00:00Z");
  window.end_time = window.start_time + std::chrono::hours(24 * 7) + std::chrono::microseconds(1);
  EXPECT_THROW(client.list_failing_tests(window), ValidationError);
  EXPECT_THROW(client.failing_tests(window), ValidationError);  // the pager validates when made

  UpdateQueueRequest queue;
  queue.repo = testing::sample_repo();
  queue.target_branch = "main";
  queue.concurrency = 4294967296;
  EXPECT_THROW(client.update_queue(queue), ValidationError);

  ListUnhealthyTestsRequest unhealthy;
  unhealthy.repo = testing::sample_repo();
  unhealthy.org_url_slug = "trunk-org";
  unhealthy.page_query.page_size = 0;
  EXPECT_THROW(client.unhealthy_tests(unhealthy), ValidationError);

  EXPECT_EQ(server.request_count(), 0U);
}

TEST(ClientRequests, LargeResponsesArriveCompressedAndDecode) {
  std::vector<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(testing::uuid_for(i));
  const std::string body = testing::page_json(ids, "");
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&body](const httplib::Request&, httplib::Response& response) {
    response.set_content(body, "application/json");  // httplib compresses it for an Accept-Encoding client
  });
  Client client(testing::test_options(server.base_url()));
  ListUnhealthyTestsRequest request;
  request.repo = testing::sample_repo();
  request.org_url_slug = "trunk-org";
  const TestPage page = client.list_unhealthy_tests(request);
  ASSERT_EQ(page.tests.size(), 100U);
  EXPECT_EQ(page.tests[99].id, testing::uuid_for(99));
}

TEST(ClientRequests, AMalformedSuccessBodyIsADecodeError) {
  HttpTestServer server;
  server.set_replies({{200, R"({"test": {"name": 42}})"}});
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("test.name"), std::string::npos) << error.what();
  }
  server.set_replies({{200, "this is not json"}});
  EXPECT_THROW(client.get_test_details(testing::details_request()), DecodeError);
}

}  // namespace
}  // namespace trunk
