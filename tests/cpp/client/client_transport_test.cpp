// Transport failures against real sockets: dropped connections, half bodies, refused connections, attempt
// timeouts, oversized responses, and cancellation through interrupt_check.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using std::chrono::milliseconds;
using testing::HttpTestServer;
using testing::RawAction;
using testing::RawTestServer;
using testing::SleepRecorder;

/// A transport failure must be a TransportError but not its TimeoutError subclass.
template <typename Call>
void expect_plain_transport_error(Call call) {
  try {
    call();
    FAIL() << "expected TransportError";
  } catch (const TimeoutError& error) {
    FAIL() << "unexpected TimeoutError: " << error.what();
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("get_test_details"), std::string::npos) << error.what();
  }
}

TEST(ClientTransport, DroppedConnectionsAreRetriedThenSucceed) {
  RawTestServer server({RawAction::drop, RawAction::drop, RawAction::ok}, testing::details_json());
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  EXPECT_EQ(client.get_test_details(testing::details_request()).test.id, testing::kTestId);
  EXPECT_EQ(server.requests_seen(), 3U);
  EXPECT_EQ(sleeps->snapshot().size(), 2U);
}

TEST(ClientTransport, DroppedConnectionsExhaustTheBudgetWithTransportError) {
  RawTestServer server({RawAction::drop}, testing::details_json());
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 2;
  Client client(std::move(options));
  expect_plain_transport_error([&] { client.get_test_details(testing::details_request()); });
  EXPECT_EQ(server.requests_seen(), 3U);
}

TEST(ClientTransport, HalfBodyIsRetriedThenSucceeds) {
  RawTestServer server({RawAction::half_body, RawAction::ok}, testing::details_json());
  Client client(testing::test_options(server.base_url()));
  EXPECT_EQ(client.get_test_details(testing::details_request()).test.id, testing::kTestId);
  EXPECT_EQ(server.requests_seen(), 2U);
}

TEST(ClientTransport, HalfBodyEveryTimeFailsWithTransportError) {
  RawTestServer server({RawAction::half_body}, testing::details_json());
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 1;
  Client client(std::move(options));
  expect_plain_transport_error([&] { client.get_test_details(testing::details_request()); });
  EXPECT_EQ(server.requests_seen(), 2U);
}

TEST(ClientTransport, RefusedConnectionIsRetriedThenFails) {
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options =
      testing::test_options("http://127.0.0.1:" + std::to_string(testing::closed_port()), sleeps);
  options.retry.max_retries = 2;
  Client client(std::move(options));
  expect_plain_transport_error([&] { client.get_test_details(testing::details_request()); });
  EXPECT_EQ(sleeps->snapshot().size(), 2U);  // two retries were made
}

TEST(ClientTransport, AttemptTimeoutIsRetriedThenThrowsTimeoutError) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang();
    response.set_content(testing::details_json(), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.timeout = milliseconds(200);
  options.retry.max_retries = 1;
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected TimeoutError";
  } catch (const TimeoutError& error) {
    EXPECT_NE(std::string(error.what()).find("timed out"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ClientTransport, SlowAttemptThenFastAttemptSucceeds) {
  std::atomic<int> calls{0};
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&server, &calls](const httplib::Request&, httplib::Response& response) {
    if (calls.fetch_add(1) == 0) server.hang();
    response.set_content(testing::details_json(), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.timeout = milliseconds(200);
  Client client(std::move(options));
  EXPECT_EQ(client.get_test_details(testing::details_request()).test.id, testing::kTestId);
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ClientTransport, InterruptCheckCancelsAHangingTransfer) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request&, httplib::Response& response) {
    server.hang();
    response.set_content(testing::details_json(), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  // Ask to stop once the server has the request: the call is then blocked on the network.
  options.interrupt_check = [&server] { return server.request_count() > 0; };
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected CancelledError";
  } catch (const CancelledError& error) {
    EXPECT_NE(std::string(error.what()).find("get_test_details"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientTransport, InterruptCheckCancelsTheDefaultSleepBetweenAttempts) {
  HttpTestServer server;
  server.set_replies({{503, "busy", "text/plain", {{"Retry-After", "3600"}}}});
  ClientOptions options;
  options.base_url = server.base_url();
  options.token = testing::kToken;
  options.retry.max_retry_after = std::chrono::hours(1);
  options.retry.overall_deadline = milliseconds(0);  // no deadline: only the interrupt can end the wait
  std::atomic<int> polls_after_answer{0};
  // Let the first attempt finish, then interrupt while the client sleeps for an hour.
  options.interrupt_check = [&] { return server.request_count() > 0 && polls_after_answer.fetch_add(1) >= 2; };
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), CancelledError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientTransport, InterruptBeforeSendingSendsNothing) {
  HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  ClientOptions options = testing::test_options(server.base_url());
  options.interrupt_check = [] { return true; };
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details(testing::details_request()), CancelledError);
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(ClientTransport, ResponseLargerThanTheLimitIsATransportErrorNotRetried) {
  const std::string huge(65 << 20, ' ');  // 65 MiB of JSON whitespace: over the 64 MiB limit
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&huge](const httplib::Request&, httplib::Response& response) {
    response.set_content(huge, "application/octet-stream");  // not a compressible type: sent as is
  });
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected TransportError";
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("larger than"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientTransport, TlsHandshakeFailureIsNotRetried) {
  HttpTestServer server;  // speaks plain HTTP: a TLS client hello gets no valid answer
  server.set_replies({{200, testing::details_json()}});
  auto sleeps = std::make_shared<SleepRecorder>();
  ClientOptions options =
      testing::test_options("https://127.0.0.1:" + std::to_string(server.port()), sleeps);
  Client client(std::move(options));
  expect_plain_transport_error([&] { client.get_test_details(testing::details_request()); });
  EXPECT_TRUE(sleeps->snapshot().empty());
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(ClientTransport, MissingCaBundleIsATransportErrorNotRetried) {
  auto sleeps = std::make_shared<SleepRecorder>();
  RawTestServer server({RawAction::drop}, testing::details_json());
  ClientOptions options = testing::test_options("https://127.0.0.1:" + std::to_string(server.port()), sleeps);
  options.ca_bundle = "/nonexistent/ca-bundle.pem";
  Client client(std::move(options));
  expect_plain_transport_error([&] { client.get_test_details(testing::details_request()); });
  EXPECT_TRUE(sleeps->snapshot().empty());
}

}  // namespace
}  // namespace trunk
