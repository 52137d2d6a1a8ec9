// Credentials of the two API versions (docs/reference/credentials.md): the organization token goes with v1 calls
// as x-api-token, a v2 API key with v2 calls as Authorization: Bearer; the environment's TRUNK_API_KEY holds
// either kind, told apart by the trunk_v2_ prefix; a call whose version has no credential fails before anything
// is sent; a key of the wrong kind is refused when the client is made; both are redacted everywhere.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "client_internals.hpp"
#include "secret_access.hpp"
#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::kToken;
using testing::ScopedEnv;

constexpr const char* kApiKey = "trunk_v2_KEY-SECRET-8c1d77";

/// Neither variable set, for the scope of a test.
struct CleanEnvironment {
  ScopedEnv token{"TRUNK_API_TOKEN", std::nullopt};
  ScopedEnv key{"TRUNK_API_KEY", std::nullopt};
};

/// A v2 request as the client's own calls build it (the transport-level check; the v2 operations have their own).
detail::HttpRequest v2_request(const Client& client) {
  detail::HttpRequest request;
  request.operation = "v2_probe";
  request.method = detail::HttpMethod::get;
  request.url = client.base_url() + "/v2/merge-queues";
  request.credential = Credential::api_key;
  return request;
}

ClientOptions options_with(const std::string& base_url, std::optional<std::string> token,
                           std::optional<std::string> api_key) {
  ClientOptions options = testing::test_options(base_url);
  options.token.reset();
  if (token) options.token = *token;
  if (api_key) options.api_key = *api_key;
  return options;
}

std::string construction_error(ClientOptions options) {
  try {
    Client client(std::move(options));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Credentials, EachVersionSendsItsOwnCredentialAndNeverTheOther) {
  CleanEnvironment clean;
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}, {200, R"({"data":[],"nextCursor":null,"hasMore":false})"}});
  Client client(options_with(server.base_url(), kToken, kApiKey));
  client.get_test_details(testing::details_request());
  detail::ClientInternals::send(client, v2_request(client));
  ASSERT_EQ(server.request_count(), 2U);
  const auto requests = server.requests();
  EXPECT_EQ(requests[0].header("x-api-token"), kToken);
  EXPECT_EQ(requests[0].header("Authorization"), "");
  EXPECT_EQ(requests[1].header("Authorization"), std::string("Bearer ") + kApiKey);
  EXPECT_EQ(requests[1].header("x-api-token"), "");
}

TEST(Credentials, ACallWhoseVersionHasNoCredentialFailsBeforeSendingAndSaysWhichItNeeds) {
  CleanEnvironment clean;
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  {
    Client only_key(options_with(server.base_url(), std::nullopt, kApiKey));
    try {
      only_key.get_test_details(testing::details_request());
      FAIL() << "a v1 call without the token was sent";
    } catch (const MissingTokenError& error) {
      EXPECT_EQ(error.needed(), Credential::token);
      EXPECT_EQ(error.operation(), "get_test_details");
      EXPECT_NE(std::string(error.what()).find("ClientOptions::token"), std::string::npos) << error.what();
    }
    // The pagers and the bulk call check too, when they are made.
    EXPECT_THROW(only_key.unhealthy_tests(ListUnhealthyTestsRequest{}), MissingTokenError);
    EXPECT_THROW(only_key.get_test_details_many(testing::sample_repo(), "trunk-org", {testing::kTestId}),
                 MissingTokenError);
  }
  {
    Client only_token(options_with(server.base_url(), kToken, std::nullopt));
    try {
      detail::ClientInternals::send(only_token, v2_request(only_token));
      FAIL() << "a v2 call without an API key was sent";
    } catch (const MissingTokenError& error) {
      EXPECT_EQ(error.needed(), Credential::api_key);
      EXPECT_NE(std::string(error.what()).find("ClientOptions::api_key"), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(Credentials, TrunkApiKeyHoldsEitherKindToldApartByThePrefix) {
  testing::HttpTestServer server;
  server.set_replies({{200, "{}"}, {200, testing::details_json()}});
  {
    ScopedEnv token("TRUNK_API_TOKEN", std::nullopt);
    ScopedEnv key("TRUNK_API_KEY", kApiKey);  // a v2 key: the client has no token
    Client client(options_with(server.base_url(), std::nullopt, std::nullopt));
    detail::ClientInternals::send(client, v2_request(client));
    EXPECT_THROW(client.get_test_details(testing::details_request()), MissingTokenError);
  }
  {
    ScopedEnv token("TRUNK_API_TOKEN", "v1-from-env");
    ScopedEnv key("TRUNK_API_KEY", kApiKey);  // both kinds, one in each variable
    Client client(options_with(server.base_url(), std::nullopt, std::nullopt));
    client.get_test_details(testing::details_request());
  }
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].header("Authorization"), std::string("Bearer ") + kApiKey);
  EXPECT_EQ(requests[1].header("x-api-token"), "v1-from-env");
  {
    ScopedEnv token("TRUNK_API_TOKEN", kApiKey);  // a v2 key in the token's variable still fills the key
    ScopedEnv key("TRUNK_API_KEY", std::nullopt);
    Client client(options_with(server.base_url(), std::nullopt, std::nullopt));
    EXPECT_THROW(client.get_test_details(testing::details_request()), MissingTokenError);
  }
}

TEST(Credentials, AnOptionBeatsTheEnvironmentForItsOwnCredentialOnly) {
  ScopedEnv token("TRUNK_API_TOKEN", std::nullopt);
  ScopedEnv key("TRUNK_API_KEY", "trunk_v2_from-env");
  testing::HttpTestServer server;
  server.set_replies({{200, "{}"}, {200, "{}"}});
  {
    Client client(options_with(server.base_url(), kToken, std::nullopt));  // the key still comes from the environment
    detail::ClientInternals::send(client, v2_request(client));
  }
  {
    Client client(options_with(server.base_url(), std::nullopt, kApiKey));
    detail::ClientInternals::send(client, v2_request(client));
  }
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].header("Authorization"), "Bearer trunk_v2_from-env");
  EXPECT_EQ(requests[1].header("Authorization"), std::string("Bearer ") + kApiKey);
}

TEST(Credentials, AKeyOfTheWrongKindIsRefusedWhenTheClientIsMadeWithoutQuotingIt) {
  CleanEnvironment clean;
  const std::string base = "http://127.0.0.1:1";
  std::string message = construction_error(options_with(base, kApiKey, std::nullopt));
  EXPECT_NE(message.find("ClientOptions::api_key"), std::string::npos) << message;
  EXPECT_EQ(message.find("KEY-SECRET"), std::string::npos) << message;

  message = construction_error(options_with(base, std::nullopt, "v1-token-SECRET"));
  EXPECT_NE(message.find("trunk_v2_"), std::string::npos) << message;
  EXPECT_EQ(message.find("v1-token-SECRET"), std::string::npos) << message;

  // Boundaries of the prefix rule: the prefix alone is not a key, one character more is.
  EXPECT_NE(construction_error(options_with(base, std::nullopt, "trunk_v2_")), "");
  EXPECT_EQ(construction_error(options_with(base, std::nullopt, "trunk_v2_x")), "");
  EXPECT_NE(construction_error(options_with(base, std::nullopt, "Trunk_v2_x")), "");  // the prefix is exact
  EXPECT_NE(construction_error(options_with(base, std::nullopt, "trunk_v2_x\r\nX-Evil: 1")), "");
  EXPECT_NE(construction_error(options_with(base, std::nullopt, "")), "");
}

TEST(Credentials, NeitherCredentialFailsAtConstructionNamingBothOptionsAndVariables) {
  CleanEnvironment clean;
  try {
    Client client(options_with("http://127.0.0.1:1", std::nullopt, std::nullopt));
    FAIL() << "a client without credentials was made";
  } catch (const MissingTokenError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.needed(), Credential::any);
    for (const char* word : {"ClientOptions::token", "ClientOptions::api_key", "TRUNK_API_TOKEN", "TRUNK_API_KEY"}) {
      EXPECT_NE(message.find(word), std::string::npos) << word << " in " << message;
    }
  }
}

TEST(Credentials, TheApiKeyIsRedactedFromErrorsAndLogs) {
  CleanEnvironment clean;
  testing::HttpTestServer server;
  server.set_replies({{401, std::string(R"({"error":{"code":"UNAUTHENTICATED","message":"bad key )") + kApiKey + "\"}}"}});
  ClientOptions options = options_with(server.base_url(), std::nullopt, kApiKey);
  std::string logged;
  options.log = [&logged](LogLevel, std::string_view message) { logged.append(message).append("\n"); };
  Client client(std::move(options));
  try {
    detail::ClientInternals::send(client, v2_request(client));
    FAIL() << "a 401 was not an error";
  } catch (const ApiError& error) {
    EXPECT_EQ(std::string(error.what()).find("KEY-SECRET"), std::string::npos) << error.what();
    EXPECT_EQ(error.body().find("KEY-SECRET"), std::string::npos) << error.body();
    EXPECT_NE(error.body().find("[REDACTED]"), std::string::npos) << error.body();
  }
  EXPECT_EQ(logged.find("KEY-SECRET"), std::string::npos) << logged;
}

TEST(Credentials, ATrunkTokenGoesWithV2CallsWhenThereIsNoApiKey) {
  CleanEnvironment clean;
  constexpr const char* kTrunkToken = "tt-TRUNK-TOKEN-SECRET-41f0";
  testing::HttpTestServer server;
  server.set_replies({{200, R"({"data":[],"nextCursor":null,"hasMore":false})"},
                      {401, std::string(R"({"error":{"code":"INVALID_TOKEN","message":"expired )") + kTrunkToken +
                                "\"}}"},
                      {200, R"({"data":[],"nextCursor":null,"hasMore":false})"}});
  ClientOptions options = options_with(server.base_url(), std::nullopt, std::nullopt);
  options.trunk_token = std::string(kTrunkToken);
  std::string logged;
  options.log = [&logged](LogLevel, std::string_view message) { logged.append(message).append("\n"); };
  Client client(std::move(options));  // a trunk token alone is a credential
  detail::ClientInternals::send(client, v2_request(client));
  EXPECT_EQ(server.requests()[0].header("x-trunk-token"), kTrunkToken);
  EXPECT_EQ(server.requests()[0].header("Authorization"), "");
  try {
    detail::ClientInternals::send(client, v2_request(client));
    FAIL() << "a 401 was not an error";
  } catch (const ApiError& error) {  // redacted as the token and the API key are
    EXPECT_EQ(std::string(error.what()).find("TRUNK-TOKEN-SECRET"), std::string::npos) << error.what();
    EXPECT_EQ(error.body().find("TRUNK-TOKEN-SECRET"), std::string::npos) << error.body();
  }
  EXPECT_EQ(logged.find("TRUNK-TOKEN-SECRET"), std::string::npos) << logged;
  // v1 takes only its organization token.
  EXPECT_THROW(client.get_test_details(testing::details_request()), MissingTokenError);

  // With an API key too, the key goes, and the trunk token stays home.
  ClientOptions both = options_with(server.base_url(), std::nullopt, kApiKey);
  both.trunk_token = std::string(kTrunkToken);
  Client keyed(std::move(both));
  detail::ClientInternals::send(keyed, v2_request(keyed));
  EXPECT_EQ(server.requests()[2].header("Authorization"), std::string("Bearer ") + kApiKey);
  EXPECT_EQ(server.requests()[2].header("x-trunk-token"), "");
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(Credentials, ATrunkTokenThatIsAnApiKeyOrHoldsAControlCharacterIsRefused) {
  CleanEnvironment clean;
  ClientOptions key_as_token = options_with("https://api.trunk.io", std::nullopt, std::nullopt);
  key_as_token.trunk_token = std::string(kApiKey);
  const std::string message = construction_error(std::move(key_as_token));
  EXPECT_NE(message.find("ClientOptions::api_key"), std::string::npos) << message;
  EXPECT_EQ(message.find("KEY-SECRET"), std::string::npos) << message;
  ClientOptions broken = options_with("https://api.trunk.io", std::nullopt, std::nullopt);
  broken.trunk_token = std::string("tt-SECRET\r\nx: y");
  EXPECT_NE(construction_error(std::move(broken)).find("control character"), std::string::npos);
  ClientOptions empty = options_with("https://api.trunk.io", std::nullopt, std::nullopt);
  empty.trunk_token = std::string();
  EXPECT_NE(construction_error(std::move(empty)).find("empty"), std::string::npos);
}

TEST(Credentials, TheBaseAddressMayEndInEitherVersion) {
  CleanEnvironment clean;
  for (const std::string suffix : {"/v1", "/v2", "/v2/"}) {
    ClientOptions options = options_with("https://api.trunk.io" + suffix, kToken, std::nullopt);
    EXPECT_EQ(Client(std::move(options)).base_url(), "https://api.trunk.io") << suffix;
  }
  ClientOptions options = options_with("https://api.trunk.io/v3", kToken, std::nullopt);
  EXPECT_EQ(Client(std::move(options)).base_url(), "https://api.trunk.io/v3");
}

}  // namespace
}  // namespace trunk
