// Every error status, in text and JSON bodies, maps to the right exception with status, body and operation;
// the token never leaks into messages, bodies or log records.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;
using testing::kToken;

struct StatusCase {
  int status;
  std::type_index expected;
  bool json_body;
};

std::string describe(const ::testing::TestParamInfo<StatusCase>& info) {
  return std::to_string(info.param.status) + (info.param.json_body ? "_json" : "_text");
}

class ClientErrorStatus : public ::testing::TestWithParam<StatusCase> {};

TEST_P(ClientErrorStatus, MapsToItsExceptionWithStatusBodyAndOperation) {
  const StatusCase& param = GetParam();
  HttpTestServer server;
  const std::string body = param.json_body ? R"({"error":"something went wrong","code":)" +
                                                 std::to_string(param.status) + "}"
                                           : "something went wrong\nsecond line";
  server.set_replies({{param.status, body, param.json_body ? "application/json" : "text/plain"}});
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 0;  // this test is about the mapping, not retries
  Client client(std::move(options));

  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected an ApiError for HTTP " << param.status;
  } catch (const ApiError& error) {
    EXPECT_EQ(std::type_index(typeid(error)), param.expected) << typeid(error).name();
    EXPECT_EQ(error.status_code(), param.status);
    EXPECT_EQ(error.body(), body);
    EXPECT_EQ(error.operation(), "get_test_details");
    const std::string message = error.what();
    EXPECT_NE(message.find("get_test_details"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(param.status)), std::string::npos) << message;
    EXPECT_NE(message.find("something went wrong"), std::string::npos) << message;
  }
  EXPECT_EQ(server.request_count(), 1U);
}

std::vector<StatusCase> all_status_cases() {
  const std::vector<std::pair<int, std::type_index>> statuses = {
      {400, typeid(BadRequestError)}, {401, typeid(AuthenticationError)}, {403, typeid(PermissionDeniedError)},
      {404, typeid(NotFoundError)},   {429, typeid(RateLimitError)},      {500, typeid(ServerError)},
      {502, typeid(ServerError)},     {503, typeid(ServerError)},         {504, typeid(ServerError)},
      {418, typeid(ApiError)},
  };
  std::vector<StatusCase> cases;
  for (const auto& [status, type] : statuses) {
    cases.push_back({status, type, false});
    cases.push_back({status, type, true});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllStatuses, ClientErrorStatus, ::testing::ValuesIn(all_status_cases()), describe);

TEST(ClientErrors, RedirectsAreNotFollowedAndBecomeApiErrors) {
  HttpTestServer server;
  server.set_handler([&server](const httplib::Request& request, httplib::Response& response) {
    if (request.path == "/elsewhere") {
      response.set_content(testing::details_json(), "application/json");
      return;
    }
    response.status = 302;
    response.set_header("Location", server.base_url() + "/elsewhere");
  });
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected ApiError";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.status_code(), 302);
  }
  ASSERT_EQ(server.request_count(), 1U);  // the token never went to the Location
  EXPECT_EQ(server.requests()[0].path, "/v1/flaky-tests/get-test-details");
}

TEST(ClientErrors, ErrorBodyIsBounded) {
  HttpTestServer server;
  server.set_replies({{400, std::string(1 << 20, 'x'), "text/plain"}});
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected BadRequestError";
  } catch (const BadRequestError& error) {
    EXPECT_EQ(error.body().size(), ApiError::kMaxErrorBodyBytes);
    EXPECT_LT(std::string(error.what()).size(), 1000U);
  }
}

TEST(ClientErrors, TokenEchoedByTheServerIsRedactedEverywhere) {
  HttpTestServer server;
  // The server echoes the token it received, in the first line (the message) and later in the body.
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    const std::string token = request.get_header_value("x-api-token");
    response.status = 401;
    response.set_content("invalid token " + token + "\nyou sent x-api-token: " + token, "text/plain");
  });
  std::vector<std::string> log_lines;
  ClientOptions options = testing::test_options(server.base_url());
  options.log = [&log_lines](LogLevel, std::string_view line) { log_lines.emplace_back(line); };
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected AuthenticationError";
  } catch (const AuthenticationError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find(kToken), std::string::npos) << message;
    EXPECT_NE(message.find("invalid token [REDACTED]"), std::string::npos) << message;
    EXPECT_EQ(error.body().find(kToken), std::string::npos) << error.body();
    EXPECT_EQ(error.body(), "invalid token [REDACTED]\nyou sent x-api-token: [REDACTED]");
  }
  ASSERT_FALSE(log_lines.empty());
  for (const auto& line : log_lines) EXPECT_EQ(line.find(kToken), std::string::npos) << line;
}

TEST(ClientErrors, TokenIsRedactedFromRetriedErrorsAndRetryLogs) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    response.status = 503;
    response.set_content("overloaded for " + request.get_header_value("x-api-token"), "text/plain");
  });
  std::vector<std::string> log_lines;
  ClientOptions options = testing::test_options(server.base_url());
  options.log = [&log_lines](LogLevel, std::string_view line) { log_lines.emplace_back(line); };
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected ServerError";
  } catch (const ServerError& error) {
    EXPECT_EQ(std::string(error.what()).find(kToken), std::string::npos) << error.what();
    EXPECT_EQ(error.body(), "overloaded for [REDACTED]");
  }
  EXPECT_EQ(server.request_count(), 4U);
  for (const auto& line : log_lines) EXPECT_EQ(line.find(kToken), std::string::npos) << line;
}

}  // namespace
}  // namespace trunk
