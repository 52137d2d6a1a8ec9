// The transfer engine through the client's internal entry point (client_internals.hpp), against real local
// servers: the retry rule of requests that are not safe to repeat (one test per rule, each beside the safe
// request's behaviour for contrast), a GET of a text body, and explicit cancellation by a stop_token.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "client_internals.hpp"
#include "retry_policy.hpp"
#include "test_servers.hpp"
#include "test_support.hpp"
#include "transfer_engine.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using detail::ClientInternals;
using detail::HttpRequest;
using detail::Repeat;
using std::chrono::milliseconds;
using testing::HttpTestServer;
using testing::RawAction;
using testing::RawTestServer;
using testing::SleepRecorder;

/// A POST of `repeat` kind to `path` of `client`'s base URL (the body of a pull request submission, say).
HttpRequest write_request(const Client& client, Repeat repeat, const std::string& path = "/v1/submitPullRequest") {
  HttpRequest request;
  request.operation = repeat == Repeat::safe ? "safe_write" : "unsafe_write";
  request.url = client.base_url() + path;
  request.body = R"({"repo":{"host":"github.com","owner":"o","name":"n"},"pr":{"number":7},"targetBranch":"main"})";
  request.repeat = repeat;
  return request;
}

TEST(NotSafeToRepeat, ARefusedConnectionIsRetried) {
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options("http://127.0.0.1:" + std::to_string(testing::closed_port()), sleeps));
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::not_safe)), TransportError);
  EXPECT_EQ(sleeps->snapshot().size(), 3U);  // max_retries = 3: nothing was sent, so every retry is allowed
}

TEST(NotSafeToRepeat, RateLimitedAndUnavailableAnswersAreRetried) {
  HttpTestServer server;
  server.set_replies({{429, "slow down", "text/plain"}, {503, "busy", "text/plain"}, {200, "{}"}});
  Client client(testing::test_options(server.base_url()));
  EXPECT_EQ(ClientInternals::send(client, write_request(client, Repeat::not_safe)), "{}");
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(NotSafeToRepeat, ServerErrorsThatMayFollowProcessingAreNotRetried) {
  for (int status : {500, 502, 504}) {
    for (Repeat repeat : {Repeat::not_safe, Repeat::safe}) {
      HttpTestServer server;
      server.set_replies({{status, "failed", "text/plain"}, {200, "{}"}});
      auto sleeps = std::make_shared<SleepRecorder>();
      Client client(testing::test_options(server.base_url(), sleeps));
      if (repeat == Repeat::not_safe) {
        EXPECT_THROW(ClientInternals::send(client, write_request(client, repeat)), ServerError) << status;
        EXPECT_EQ(server.request_count(), 1U) << status;
        EXPECT_TRUE(sleeps->snapshot().empty()) << status;
      } else {
        EXPECT_EQ(ClientInternals::send(client, write_request(client, repeat)), "{}") << status;
        EXPECT_EQ(server.request_count(), 2U) << status;
      }
    }
  }
}

TEST(NotSafeToRepeat, ATimeoutIsNotRetried) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang(milliseconds(2000));
    response.set_content("{}", "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.timeout = milliseconds(200);
  options.retry.max_retries = 1;
  std::vector<std::string> records;
  options.log = [&records](LogLevel, std::string_view message) { records.emplace_back(message); };
  Client client(std::move(options));
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::not_safe)), TimeoutError);
  EXPECT_EQ(server.request_count(), 1U);
  ASSERT_FALSE(records.empty());
  EXPECT_NE(records.back().find("not safe to repeat"), std::string::npos) << records.back();

  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::safe)), TimeoutError);
  EXPECT_EQ(server.request_count(), 3U);  // the safe request was tried twice
}

TEST(NotSafeToRepeat, AConnectionDroppedAfterSendingIsNotRetried) {
  RawTestServer server({RawAction::drop, RawAction::ok}, "{}");
  Client client(testing::test_options(server.base_url()));
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::not_safe)), TransportError);
  EXPECT_EQ(server.requests_seen(), 1U);  // the request arrived: it may have been processed
}

TEST(NotSafeToRepeat, ATruncatedAnswerIsNotRetried) {
  RawTestServer server({RawAction::half_body, RawAction::ok}, "{\"padding\":\"0123456789\"}");
  Client client(testing::test_options(server.base_url()));
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::not_safe)), TransportError);
  EXPECT_EQ(server.requests_seen(), 1U);
}

TEST(NotSafeToRepeat, TheSafeKindIsRetriedAfterTheSameDropAndTruncation) {
  RawTestServer server({RawAction::drop, RawAction::half_body, RawAction::ok}, "{}");
  Client client(testing::test_options(server.base_url()));
  EXPECT_EQ(ClientInternals::send(client, write_request(client, Repeat::safe)), "{}");
  EXPECT_EQ(server.requests_seen(), 3U);
}

TEST(NotSafeToRepeat, EachWriteOpensItsOwnConnection) {
  // libcurl replays a request by itself when a reused connection turns out closed before answering; a write
  // that must not run twice never rides on a reused connection, so that replay cannot happen to it.
  HttpTestServer server;
  server.set_replies({{200, "{}"}});
  Client client(testing::test_options(server.base_url()));
  for (int i = 0; i < 3; ++i) ClientInternals::send(client, write_request(client, Repeat::not_safe));
  EXPECT_EQ(server.client_ports().size(), 3U);
  HttpTestServer reads;
  reads.set_replies({{200, "{}"}});
  Client reader(testing::test_options(reads.base_url()));
  for (int i = 0; i < 3; ++i) ClientInternals::send(reader, write_request(reader, Repeat::safe));
  EXPECT_EQ(reads.client_ports().size(), 1U);
}

TEST(TransferEngine, AGetSendsNoBodyAndReturnsATextAnswer) {
  const std::string metrics = "# TYPE queue_depth gauge\nqueue_depth{repo=\"o/n\"} 3\n";
  HttpTestServer server;
  server.set_replies({{200, metrics, "text/plain; version=0.0.4; charset=utf-8"}});
  Client client(testing::test_options(server.base_url()));
  HttpRequest request;
  request.operation = "get_merge_queue_metrics";
  request.method = detail::HttpMethod::get;
  request.url = client.base_url() + "/v1/getMergeQueueMetrics?repo=o/n&repoHost=github.com";
  request.answer = detail::BodyKind::text;
  EXPECT_EQ(ClientInternals::send(client, request), metrics);
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].method, "GET");
  EXPECT_EQ(sent[0].path, "/v1/getMergeQueueMetrics");
  EXPECT_TRUE(sent[0].body.empty());
  EXPECT_EQ(sent[0].header("x-api-token"), testing::kToken);
  EXPECT_NE(sent[0].header("Accept").find("text/plain"), std::string::npos) << sent[0].header("Accept");
}

TEST(TransferEngine, APostAfterAGetOnTheSameConnectionIsAPostAgain) {
  HttpTestServer server;
  server.set_replies({{200, "{}"}});
  Client client(testing::test_options(server.base_url()));
  HttpRequest get = write_request(client, Repeat::safe, "/v1/metrics");
  get.method = detail::HttpMethod::get;
  ClientInternals::send(client, get);
  ClientInternals::send(client, write_request(client, Repeat::safe));
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 2U);
  EXPECT_EQ(sent[1].method, "POST");
  EXPECT_EQ(sent[1].body, write_request(client, Repeat::safe).body);
  EXPECT_EQ(sent[1].header("Accept"), "application/json");
  EXPECT_EQ(server.client_ports().size(), 1U);
}

TEST(TransferEngine, AStopRequestedBeforeSendingSendsNothing) {
  HttpTestServer server;
  server.set_replies({{200, "{}"}});
  Client client(testing::test_options(server.base_url()));
  std::stop_source stop;
  stop.request_stop();
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::safe), stop.get_token()), CancelledError);
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(TransferEngine, AStopRequestedDuringTheTransferCancelsIt) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang();
    response.set_content("{}", "application/json");
  });
  Client client(testing::test_options(server.base_url()));
  std::stop_source stop;
  std::thread stopper([&] {
    while (server.request_count() == 0) std::this_thread::sleep_for(milliseconds(1));
    stop.request_stop();
  });
  EXPECT_THROW(ClientInternals::send(client, write_request(client, Repeat::safe), stop.get_token()), CancelledError);
  stopper.join();
  EXPECT_EQ(server.request_count(), 1U);
  // The client keeps working after a cancelled transfer (its handle was removed, not aborted mid-callback).
  server.set_replies({{200, "{}"}});
  EXPECT_EQ(ClientInternals::send(client, write_request(client, Repeat::safe)), "{}");
}

}  // namespace
}  // namespace trunk
