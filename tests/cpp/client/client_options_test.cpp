// ClientOptions resolution: token and base address from options or environment, the insecure-http guard.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "endpoint.hpp"
#include "secret_access.hpp"
#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::kToken;
using testing::ScopedEnv;

/// A copy of what these tests set (ClientOptions is move-only: its token is a trunk::Secret).
ClientOptions copy(const ClientOptions& options) {
  ClientOptions copied;
  copied.base_url = options.base_url;
  if (options.token) copied.token = detail::SecretAccess::view(*options.token);
  copied.allow_insecure_http = options.allow_insecure_http;
  return copied;
}

std::string error_message_of(const ClientOptions& options) {
  try {
    Client client(copy(options));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ClientOptions, MissingTokenNamesBothVariables) {
  ScopedEnv token("TRUNK_API_TOKEN", std::nullopt);
  ScopedEnv key("TRUNK_API_KEY", std::nullopt);
  ClientOptions options;
  options.base_url = "http://127.0.0.1:1";
  const std::string message = error_message_of(options);
  EXPECT_NE(message.find("TRUNK_API_TOKEN"), std::string::npos) << message;
  EXPECT_NE(message.find("TRUNK_API_KEY"), std::string::npos) << message;
  // Its own type, which the bindings catch to word the remedy for their callers; C++ callers read C++ words.
  EXPECT_THROW(Client{copy(options)}, MissingTokenError);
  EXPECT_NE(message.find("ClientOptions::token"), std::string::npos) << message;
}

TEST(ClientOptions, AnEmptyEnvironmentVariableIsNoToken) {
  ScopedEnv token("TRUNK_API_TOKEN", "");
  ScopedEnv key("TRUNK_API_KEY", std::nullopt);
  ClientOptions options;
  options.base_url = "http://127.0.0.1:1";
  EXPECT_THROW(Client{copy(options)}, MissingTokenError);
}

TEST(ClientOptions, TokenFromEnvironmentIsSentPreferringTrunkApiToken) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  ScopedEnv token("TRUNK_API_TOKEN", "from-api-token");
  ScopedEnv key("TRUNK_API_KEY", "from-api-key");
  ClientOptions options;
  options.base_url = server.base_url();
  Client(copy(options)).get_test_details(testing::details_request());
  ASSERT_EQ(server.request_count(), 1U);
  EXPECT_EQ(server.requests()[0].header("x-api-token"), "from-api-token");
}

TEST(ClientOptions, TokenFallsBackToTrunkApiKey) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  ScopedEnv token("TRUNK_API_TOKEN", std::nullopt);
  ScopedEnv key("TRUNK_API_KEY", "from-api-key");
  ClientOptions options;
  options.base_url = server.base_url();
  Client(copy(options)).get_test_details(testing::details_request());
  EXPECT_EQ(server.requests().at(0).header("x-api-token"), "from-api-key");
}

TEST(ClientOptions, ExplicitTokenWinsOverEnvironment) {
  ScopedEnv token("TRUNK_API_TOKEN", "from-env");
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  Client(testing::test_options(server.base_url())).get_test_details(testing::details_request());
  EXPECT_EQ(server.requests().at(0).header("x-api-token"), kToken);
}

TEST(ClientOptions, EmptyTokenAndHeaderInjectionAreRefusedWithoutQuotingTheToken) {
  ClientOptions options;
  options.base_url.emplace("http://127.0.0.1:1");  // not `= "..."`: g++ 12 -O2 warns there (maybe-uninitialized, a false positive)
  options.token = "";
  EXPECT_NE(error_message_of(options).find("empty"), std::string::npos);
  options.token = "abc123\r\nX-Evil: 1";
  const std::string message = error_message_of(options);
  EXPECT_NE(message.find("control character"), std::string::npos) << message;
  EXPECT_EQ(message.find("abc123"), std::string::npos) << message;
}

TEST(ClientOptions, BaseUrlDefaultsToEnvironmentThenTheRealService) {
  {
    ScopedEnv base("TRUNK_BASE_URL", std::nullopt);
    ClientOptions options;
    options.token = kToken;
    EXPECT_EQ(Client(copy(options)).base_url(), "https://api.trunk.io");
  }
  {
    ScopedEnv base("TRUNK_BASE_URL", "https://api.trunk-staging.io/");
    ClientOptions options;
    options.token = kToken;
    EXPECT_EQ(Client(copy(options)).base_url(), "https://api.trunk-staging.io");  // trailing '/' dropped
  }
}

// The publisher's tools spell the address with the version (https://api.trunk.io/v1): one final "/v1" path
// segment is dropped, since the operation paths carry it. Only that segment, decided on the parsed path.
TEST(ClientOptions, BaseUrlWithOrWithoutTheVersionNamesTheSameService) {
  const std::pair<const char*, const char*> cases[] = {
      {"https://api.trunk.io/v1", "https://api.trunk.io"},
      {"https://api.trunk.io/v1/", "https://api.trunk.io"},
      {"https://api.trunk.io/v1//", "https://api.trunk.io"},
      {"https://api.trunk.io", "https://api.trunk.io"},
      {"https://api.trunk.io/", "https://api.trunk.io"},
      {"https://api.trunk.io:443/v1", "https://api.trunk.io:443"},
      {"https://api.trunk.io/api/v1", "https://api.trunk.io/api"},
      {"https://api.trunk.io/api/v1/", "https://api.trunk.io/api"},
      {"https://api.trunk.io/v1/v1", "https://api.trunk.io/v1"},  // one segment only
      {"https://api.trunk.io/v10", "https://api.trunk.io/v10"},
      {"https://api.trunk.io/V1", "https://api.trunk.io/V1"},  // paths are case-sensitive
      {"https://api.trunk.io/xv1", "https://api.trunk.io/xv1"},
      {"https://api.trunk.io/v1x", "https://api.trunk.io/v1x"},
      {"https://v1", "https://v1"},  // a host named v1 is not a path
      {"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"},
  };
  ClientOptions options;
  options.token = kToken;
  for (const auto& [given, resolved] : cases) {
    options.base_url = given;
    EXPECT_EQ(Client(copy(options)).base_url(), resolved) << given;
  }
  ScopedEnv base("TRUNK_BASE_URL", "https://api.trunk.io/v1");
  options.base_url.reset();
  EXPECT_EQ(Client(copy(options)).base_url(), "https://api.trunk.io") << "the environment's value: the same rule";
}

TEST(ClientOptions, BaseUrlWithTheVersionCallsEachPathOnce) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  for (const std::string suffix : {"/v1", "/v1/", ""}) {
    Client(testing::test_options(server.base_url() + suffix)).get_test_details(testing::details_request());
  }
  ASSERT_EQ(server.request_count(), 3U);
  for (const auto& request : server.requests()) EXPECT_EQ(request.path, "/v1/flaky-tests/get-test-details");
}

TEST(ClientOptions, PlainHttpToANonLoopbackHostIsRefusedUnlessAllowed) {
  ClientOptions options;
  options.token = kToken;
  options.base_url = "http://api.example.com";
  const std::string message = error_message_of(options);
  EXPECT_NE(message.find("allow_insecure_http"), std::string::npos) << message;
  EXPECT_EQ(message.find(kToken), std::string::npos);

  options.allow_insecure_http = true;
  EXPECT_EQ(Client(copy(options)).base_url(), "http://api.example.com");
}

TEST(ClientOptions, PlainHttpToLoopbackAndHttpsAnywhereAreAccepted) {
  ClientOptions options;
  options.token = kToken;
  for (const char* url : {"http://127.0.0.1:8080", "http://127.9.9.9", "http://localhost:1", "http://LOCALHOST",
                          "http://[::1]:8080", "https://api.example.com", "https://api.example.com/prefix"}) {
    options.base_url = url;
    EXPECT_NO_THROW(Client{copy(options)}) << url;
  }
}

TEST(ClientOptions, OtherSchemesAndMalformedUrlsAreRefused) {
  ClientOptions options;
  options.token = kToken;
  for (const char* url : {"ftp://api.example.com", "file:///etc/passwd", "", "not a url", "https://x/?q=1"}) {
    options.base_url = url;
    EXPECT_THROW(Client{copy(options)}, Error) << url;
  }
}

TEST(LoopbackHost, RecognizesEveryLoopbackFormAndNothingElse) {
  using detail::is_loopback_host;
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.0.0.0"));
  EXPECT_TRUE(is_loopback_host("127.255.255.255"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("126.255.255.255"));
  EXPECT_FALSE(is_loopback_host("localhost.example.com"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.example.com"));
  EXPECT_FALSE(is_loopback_host("[::2]"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
  EXPECT_FALSE(is_loopback_host(""));
}

TEST(ClientOptions, ClientIsMovableAndKeepsWorking) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  Client first(testing::test_options(server.base_url()));
  Client second(std::move(first));
  EXPECT_EQ(second.get_test_details(testing::details_request()).test.id, testing::kTestId);
  Client third(testing::test_options("http://127.0.0.1:1"));
  third = std::move(second);
  EXPECT_EQ(third.base_url(), server.base_url());
}

/// The rows (option_rows.hpp) declare the members with the defaults users rely on, and every option Python and
/// the command line see has one name; the retry waits are C++ only.
TEST(ClientOptions, RowsDeclareTheMembersAndTheirDefaults) {
  const ClientOptions defaults;
  EXPECT_EQ(defaults.timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(defaults.connect_timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(defaults.retry.max_retries, 3);
  EXPECT_EQ(defaults.retry.initial_backoff, std::chrono::milliseconds(250));
  EXPECT_EQ(defaults.retry.max_backoff, std::chrono::milliseconds(8000));
  EXPECT_EQ(defaults.retry.max_retry_after, std::chrono::milliseconds(60000));
  EXPECT_EQ(defaults.retry.overall_deadline, std::chrono::milliseconds(120000));
  EXPECT_TRUE(defaults.verify_tls && defaults.prefetch_pages && !defaults.allow_insecure_http);
  EXPECT_EQ(defaults.max_requests_per_second, 0.0);
  EXPECT_FALSE(defaults.base_url.has_value() || defaults.token.has_value() || defaults.api_key.has_value());

  std::vector<std::string> python_names;
  int secret_rows = 0;
  options::for_each_option<ClientOptions>([&](const auto& row) {
    if (!row.name.empty()) python_names.emplace_back(row.name);
    if (row.rule.secret) ++secret_rows;
  });
  options::for_each_option<RetryOptions>([&](const auto& row) {
    if (!row.name.empty()) python_names.emplace_back(row.name);
  });
  EXPECT_EQ(secret_rows, 3);  // the token, the API key and the trunk token, converted in their own place
  std::vector<std::string> sorted = python_names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "two rows share a Python name";
  EXPECT_EQ(python_names.size(), 14U);
}

}  // namespace
}  // namespace trunk
