// Retry behaviour against a real server: which statuses are retried, backoff and Retry-After values handed
// to the (injected) sleep, the retry budget, the overall deadline, and the log records of each attempt.

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using std::chrono::milliseconds;
using testing::HttpTestServer;
using testing::Reply;
using testing::SleepRecorder;

Reply status_reply(int status, std::vector<std::pair<std::string, std::string>> headers = {}) {
  return Reply{status, "busy, try later", "text/plain", std::move(headers)};
}

/// An HTTP-date `seconds` from now, as a server would send it in Retry-After.
std::string http_date_in(int seconds) {
  const std::time_t when = std::time(nullptr) + seconds;
  std::tm parts{};
  gmtime_r(&when, &parts);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return buffer;
}

TEST(ClientRetry, TwoServiceUnavailableThenSuccessTakesThreeAttempts) {
  HttpTestServer server;
  server.set_replies({status_reply(503), status_reply(503), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));

  EXPECT_EQ(client.get_test_details(testing::details_request()).test.id, testing::kTestId);
  EXPECT_EQ(server.request_count(), 3U);
  // Full jitter with random() = 0.5: half of 250 ms, then half of 500 ms.
  EXPECT_EQ(sleeps->snapshot(), (std::vector<milliseconds>{milliseconds(125), milliseconds(250)}));
}

TEST(ClientRetry, EveryRetryableStatusIsRetried) {
  for (int status : {429, 500, 502, 503, 504}) {
    HttpTestServer server;
    server.set_replies({status_reply(status), {200, testing::details_json()}});
    Client client(testing::test_options(server.base_url()));
    EXPECT_NO_THROW(client.get_test_details(testing::details_request())) << status;
    EXPECT_EQ(server.request_count(), 2U) << status;
  }
}

TEST(ClientRetry, NonRetryableStatusesAreTriedOnce) {
  for (int status : {400, 401, 403, 404, 409, 418, 422, 501}) {
    HttpTestServer server;
    server.set_replies({status_reply(status), {200, testing::details_json()}});
    auto sleeps = std::make_shared<SleepRecorder>();
    Client client(testing::test_options(server.base_url(), sleeps));
    EXPECT_THROW(client.get_test_details(testing::details_request()), ApiError) << status;
    EXPECT_EQ(server.request_count(), 1U) << status;
    EXPECT_TRUE(sleeps->snapshot().empty()) << status;
  }
}

TEST(ClientRetry, RetryAfterSecondsIsHonoured) {
  HttpTestServer server;
  server.set_replies({status_reply(429, {{"Retry-After", "7"}}), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  EXPECT_NO_THROW(client.get_test_details(testing::details_request()));
  EXPECT_EQ(sleeps->snapshot(), std::vector<milliseconds>{milliseconds(7000)});
}

TEST(ClientRetry, RetryAfterHttpDateIsHonoured) {
  HttpTestServer server;
  server.set_replies({status_reply(503, {{"Retry-After", http_date_in(30)}}), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  EXPECT_NO_THROW(client.get_test_details(testing::details_request()));
  const auto delays = sleeps->snapshot();
  ASSERT_EQ(delays.size(), 1U);
  // Whole seconds, and a second boundary may pass between the server's clock read and the client's.
  EXPECT_GE(delays[0], milliseconds(28000));
  EXPECT_LE(delays[0], milliseconds(30000));
}

TEST(ClientRetry, RetryAfterIsCappedAtMaxRetryAfter) {
  HttpTestServer server;
  server.set_replies({status_reply(429, {{"Retry-After", "3600"}}), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options = testing::test_options(server.base_url(), sleeps);
  options.retry.max_retry_after = milliseconds(1500);
  Client client(std::move(options));
  EXPECT_NO_THROW(client.get_test_details(testing::details_request()));
  EXPECT_EQ(sleeps->snapshot(), std::vector<milliseconds>{milliseconds(1500)});
}

TEST(ClientRetry, UnparseableRetryAfterFallsBackToBackoff) {
  HttpTestServer server;
  server.set_replies({status_reply(429, {{"Retry-After", "soon-ish"}}), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  EXPECT_NO_THROW(client.get_test_details(testing::details_request()));
  EXPECT_EQ(sleeps->snapshot(), std::vector<milliseconds>{milliseconds(125)});
}

TEST(ClientRetry, BudgetRunsOutAndTheLastErrorIsThrown) {
  HttpTestServer server;
  server.set_replies({status_reply(500), status_reply(502), status_reply(503)});
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options = testing::test_options(server.base_url(), sleeps);
  options.retry.max_retries = 2;
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected ServerError";
  } catch (const ServerError& error) {
    EXPECT_EQ(error.status_code(), 503);  // the last answer, not the first
  }
  EXPECT_EQ(server.request_count(), 3U);
  EXPECT_EQ(sleeps->snapshot().size(), 2U);
}

TEST(ClientRetry, RateLimitBudgetRunsOutWithRetryAfterOnTheError) {
  HttpTestServer server;
  server.set_replies({status_reply(429, {{"Retry-After", "2"}})});
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 1;
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected RateLimitError";
  } catch (const RateLimitError& error) {
    ASSERT_TRUE(error.retry_after().has_value());
    EXPECT_EQ(*error.retry_after(), 2.0);
    EXPECT_EQ(error.status_code(), 429);
  }
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ClientRetry, ZeroRetriesMeansOneAttempt) {
  HttpTestServer server;
  server.set_replies({status_reply(503), {200, testing::details_json()}});
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 0;
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), ServerError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientRetry, BackoffGrowsExponentiallyUpToTheCap) {
  HttpTestServer server;
  server.set_replies({status_reply(503)});
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options = testing::test_options(server.base_url(), sleeps);
  options.random = [] { return 0.999; };
  options.retry.max_retries = 6;
  options.retry.initial_backoff = milliseconds(100);
  options.retry.max_backoff = milliseconds(1000);
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), ServerError);
  EXPECT_EQ(sleeps->snapshot(), (std::vector<milliseconds>{milliseconds(99), milliseconds(199), milliseconds(399),
                                                           milliseconds(799), milliseconds(999), milliseconds(999)}));
}

TEST(ClientRetry, NoRetryWhoseWaitWouldPassTheOverallDeadline) {
  HttpTestServer server;
  server.set_replies({status_reply(503, {{"Retry-After", "30"}}), {200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options = testing::test_options(server.base_url(), sleeps);
  options.retry.overall_deadline = milliseconds(5000);
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), ServerError);
  EXPECT_EQ(server.request_count(), 1U);
  EXPECT_TRUE(sleeps->snapshot().empty());
}

TEST(ClientRetry, OverallDeadlineCutsAHangingAttemptShort) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang();
    response.set_content(testing::details_json(), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.timeout = milliseconds(60000);
  options.retry.overall_deadline = milliseconds(300);
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected TimeoutError";
  } catch (const TimeoutError& error) {
    EXPECT_NE(std::string(error.what()).find("overall deadline"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server.request_count(), 1U);  // a deadline timeout is final
}

TEST(ClientRetry, WithoutAnAttemptTimeoutTheOverallDeadlineStillEndsTheCall) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang();
    response.set_content(testing::details_json(), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.timeout = milliseconds(0);  // no per-attempt limit
  options.retry.overall_deadline = milliseconds(300);
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), TimeoutError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientRetry, LogHasOneDebugRecordPerAttemptAndOneInfoPerRetry) {
  HttpTestServer server;
  server.set_replies({status_reply(503), status_reply(429), {200, testing::details_json()}});
  std::vector<std::pair<LogLevel, std::string>> records;
  ClientOptions options = testing::test_options(server.base_url());
  options.log = [&records](LogLevel level, std::string_view message) { records.emplace_back(level, message); };
  Client client(std::move(options));
  client.get_test_details(testing::details_request());

  std::vector<std::string> debug;
  std::vector<std::string> info;
  for (const auto& [level, message] : records) (level == LogLevel::debug ? debug : info).push_back(message);
  ASSERT_EQ(debug.size(), 3U);
  EXPECT_EQ(info.size(), 2U);
  EXPECT_NE(debug[0].find("attempt 1/4"), std::string::npos) << debug[0];
  EXPECT_NE(debug[0].find("HTTP 503"), std::string::npos) << debug[0];
  EXPECT_NE(debug[1].find("HTTP 429"), std::string::npos) << debug[1];
  EXPECT_NE(debug[2].find("HTTP 200"), std::string::npos) << debug[2];
  EXPECT_NE(info[0].find("get_test_details"), std::string::npos) << info[0];
}

}  // namespace
}  // namespace trunk
