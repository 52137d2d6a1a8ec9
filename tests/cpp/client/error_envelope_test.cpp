// Trunk v2's error envelope, {"error": {"code": "...", "message": "..."}}, and the X-Request-Id of every
// answer, read into the typed exceptions against a real local server: code() and request_id(), both named in
// what(); the envelope's message preferred over the raw body; v1's plain text and the edge's plain 429 as
// before; malformed or huge bodies leave code() empty without a crash; a token the server echoes never reaches
// a message.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using std::chrono::milliseconds;
using testing::HttpTestServer;
using testing::kToken;
using testing::Reply;
using testing::SleepRecorder;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::string envelope(std::string_view code, std::string_view message) {
  return R"({"error": {"code": ")" + std::string(code) + R"(", "message": ")" + std::string(message) + R"("}})";
}

ClientOptions no_retries(const std::string& base_url) {
  ClientOptions options = testing::test_options(base_url);
  options.retry.max_retries = 0;
  return options;
}

/// The ApiError the client throws for one get_test_details answered by `replies` (no retries).
template <typename Expected = ApiError>
Expected call_expecting(std::vector<Reply> replies) {
  HttpTestServer server;
  server.set_replies(std::move(replies));
  Client client(no_retries(server.base_url()));
  try {
    client.get_test_details(testing::details_request());
  } catch (const Expected& error) {
    return error;
  }
  ADD_FAILURE() << "expected " << typeid(Expected).name();
  throw std::logic_error("unreachable");
}

TEST(ErrorEnvelope, ConflictCarriesCodeRequestIdAndTheEnvelopesMessage) {
  const std::string body = envelope("QUEUE_ALREADY_EXISTS", "A merge queue for main exists already");
  const ConflictError error =
      call_expecting<ConflictError>({Reply(409, body, "application/json", {{"X-Request-Id", "req-1"}})});
  EXPECT_EQ(error.status_code(), 409);
  EXPECT_EQ(error.code(), "QUEUE_ALREADY_EXISTS");
  EXPECT_EQ(error.request_id(), "req-1");
  EXPECT_EQ(error.body(), body);  // the raw body, as it came
  EXPECT_EQ(error.operation(), "get_test_details");
  EXPECT_STREQ(error.what(),
               "get_test_details: HTTP 409 (QUEUE_ALREADY_EXISTS): A merge queue for main exists already "
               "[request id: req-1]");
}

TEST(ErrorEnvelope, EveryMappedStatusReadsTheEnvelope) {
  const std::vector<std::pair<int, std::type_index>> statuses = {
      {400, typeid(BadRequestError)}, {401, typeid(AuthenticationError)}, {403, typeid(PermissionDeniedError)},
      {404, typeid(NotFoundError)},   {409, typeid(ConflictError)},       {422, typeid(ApiError)},
      {429, typeid(RateLimitError)},  {500, typeid(ServerError)},         {503, typeid(ServerError)},
  };
  for (const auto& entry : statuses) {
    const int status = entry.first;
    const std::type_index type = entry.second;
    const ApiError error = [&] {
      HttpTestServer server;
      server.set_replies({Reply(status, envelope("SOME_NEW_CODE", "what went wrong"), "application/json",
                                {{"X-Request-Id", "rid-" + std::to_string(status)}})});
      Client client(no_retries(server.base_url()));
      try {
        client.get_test_details(testing::details_request());
      } catch (const ApiError& caught) {
        EXPECT_EQ(std::type_index(typeid(caught)), type) << status;
        return caught;  // sliced: the base's accessors are what this test reads
      }
      ADD_FAILURE() << status;
      return ApiError(0, "", "");
    }();
    EXPECT_EQ(error.code(), "SOME_NEW_CODE") << status;  // codes are not a closed list
    EXPECT_EQ(error.request_id(), "rid-" + std::to_string(status)) << status;
    EXPECT_TRUE(contains(error.what(), "(SOME_NEW_CODE): ")) << error.what();
    EXPECT_TRUE(contains(error.what(), "what went wrong")) << error.what();
    EXPECT_TRUE(contains(error.what(), "[request id: rid-" + std::to_string(status) + "]")) << error.what();
  }
}

TEST(ErrorEnvelope, PermissionDeniedNamesTheOperationAndTheMissingPermission) {
  const PermissionDeniedError error = call_expecting<PermissionDeniedError>(
      {Reply(403, envelope("INSUFFICIENT_PERMISSIONS", "The key may not read flaky tests"), "application/json",
             {{"X-Request-Id", "req-403"}})});
  EXPECT_EQ(error.code(), "INSUFFICIENT_PERMISSIONS");
  EXPECT_EQ(error.request_id(), "req-403");
  EXPECT_EQ(error.operation(), "get_test_details");
  EXPECT_STREQ(error.what(),
               "get_test_details: HTTP 403 (INSUFFICIENT_PERMISSIONS): the credential sent lacks a permission that "
               "get_test_details needs: The key may not read flaky tests [request id: req-403]");
}

TEST(ErrorEnvelope, PermissionDeniedWithoutEnvelopeStillNamesTheOperation) {
  const PermissionDeniedError error = call_expecting<PermissionDeniedError>({Reply(403, "Forbidden", "text/plain")});
  EXPECT_EQ(error.code(), "");
  EXPECT_EQ(error.request_id(), "");
  EXPECT_STREQ(error.what(),
               "get_test_details: HTTP 403: the credential sent lacks a permission that get_test_details needs: "
               "Forbidden");
}

TEST(ErrorEnvelope, V1PlainTextHasNoCodeButKeepsTheRequestId) {
  const BadRequestError with_id = call_expecting<BadRequestError>(
      {Reply(400, "page_size must be at most 100\nsee the docs", "text/plain", {{"X-Request-Id", "v1-req-7"}})});
  EXPECT_EQ(with_id.code(), "");
  EXPECT_EQ(with_id.request_id(), "v1-req-7");
  EXPECT_EQ(with_id.body(), "page_size must be at most 100\nsee the docs");
  EXPECT_STREQ(with_id.what(), "get_test_details: HTTP 400: page_size must be at most 100 [request id: v1-req-7]");

  const BadRequestError without_id =
      call_expecting<BadRequestError>({Reply(400, "page_size must be at most 100", "text/plain")});
  EXPECT_EQ(without_id.code(), "");
  EXPECT_EQ(without_id.request_id(), "");
  EXPECT_STREQ(without_id.what(), "get_test_details: HTTP 400: page_size must be at most 100");
}

TEST(ErrorEnvelope, RequestIdHeaderNameIsCaseInsensitiveAndTrimmed) {
  for (const char* name : {"x-request-id", "X-REQUEST-ID", "X-Request-ID"}) {
    const NotFoundError error =
        call_expecting<NotFoundError>({Reply(404, "no such test", "text/plain", {{name, "  abc-123  "}})});
    EXPECT_EQ(error.request_id(), "abc-123") << name;
  }
}

TEST(ErrorEnvelope, RequestIdIsThatOfTheFinalAnswer) {
  HttpTestServer server;
  server.set_replies(
      {Reply(503, envelope("UNAVAILABLE", "try later"), "application/json", {{"X-Request-Id", "first"}}),
       Reply(503, "plain and without an id", "text/plain")});
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 1;
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
    FAIL() << "expected ServerError";
  } catch (const ServerError& error) {
    EXPECT_EQ(error.code(), "");
    EXPECT_EQ(error.request_id(), "");
    EXPECT_STREQ(error.what(), "get_test_details: HTTP 503: plain and without an id");
  }
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ErrorEnvelope, EdgeRateLimitWithoutEnvelopeIsRetriedAsBefore) {
  HttpTestServer server;
  server.set_replies({Reply(429, "Too Many Requests", "text/plain", {{"Retry-After", "2"}}),
                      Reply(200, testing::details_json())});
  auto sleeps = std::make_shared<SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  EXPECT_EQ(client.get_test_details(testing::details_request()).test.id, testing::kTestId);
  EXPECT_EQ(server.request_count(), 2U);
  EXPECT_EQ(sleeps->snapshot(), std::vector<milliseconds>{milliseconds(2000)});
}

TEST(ErrorEnvelope, EdgeRateLimitWithoutEnvelopeIsARateLimitErrorWithRetryAfter) {
  const RateLimitError error = call_expecting<RateLimitError>(
      {Reply(429, "Too Many Requests", "text/plain", {{"Retry-After", "2"}, {"X-Request-Id", "edge-9"}})});
  ASSERT_TRUE(error.retry_after().has_value());
  EXPECT_EQ(*error.retry_after(), 2.0);
  EXPECT_EQ(error.code(), "");
  EXPECT_EQ(error.request_id(), "edge-9");
  EXPECT_EQ(error.body(), "Too Many Requests");
  EXPECT_STREQ(error.what(), "get_test_details: HTTP 429: Too Many Requests (retry after 2 s) [request id: edge-9]");

  const RateLimitError bare = call_expecting<RateLimitError>({Reply(429, "", "text/plain")});
  EXPECT_FALSE(bare.retry_after().has_value());
  EXPECT_STREQ(bare.what(), "get_test_details: HTTP 429");
}

TEST(ErrorEnvelope, RateLimitWithEnvelopeKeepsRetryAfterAndCode) {
  const RateLimitError error = call_expecting<RateLimitError>(
      {Reply(429, envelope("RATE_LIMITED", "Slow down"), "application/json",
             {{"Retry-After", "3"}, {"X-Request-Id", "r-429"}})});
  ASSERT_TRUE(error.retry_after().has_value());
  EXPECT_EQ(*error.retry_after(), 3.0);
  EXPECT_EQ(error.code(), "RATE_LIMITED");
  EXPECT_STREQ(error.what(),
               "get_test_details: HTTP 429 (RATE_LIMITED): Slow down (retry after 3 s) [request id: r-429]");
}

struct MalformedCase {
  const char* name;
  std::string body;
};

std::vector<MalformedCase> malformed_bodies() {
  std::string deep;
  // Deeper than the parser goes, in fewer bytes than an envelope may have: the parse itself refuses it.
  for (int i = 0; i < 5000; ++i) deep += R"({"error":)";
  deep += "1" + std::string(5000, '}');
  std::string huge_envelope = envelope("HUGE", std::string(200000, 'm'));  // well beyond what is parsed
  std::string long_code = envelope(std::string(1000, 'C'), "message");
  return {
      {"error_is_a_string", R"({"error": "x"})"},
      {"code_is_a_number", R"({"error": {"code": 5, "message": "five"}})"},
      {"code_is_null", R"({"error": {"code": null, "message": "null"}})"},
      {"code_is_missing", R"({"error": {"message": "no code"}})"},
      {"error_is_null", R"({"error": null})"},
      {"error_is_an_array", R"({"error": [{"code": "X"}]})"},
      {"code_beside_error", R"({"code": "QUEUE_ALREADY_EXISTS", "error": "exists"})"},
      {"root_is_an_array", R"([{"error": {"code": "X"}}])"},
      {"root_is_a_string", R"("QUEUE_ALREADY_EXISTS")"},
      {"truncated", R"({"error": {"code": "QUEUE_ALREADY_EXISTS", "mess)"},
      {"invalid_json", "{not json at all}"},
      {"trailing_garbage", envelope("X", "y") + " trailing"},
      {"invalid_utf8_in_code", std::string(R"({"error": {"code": "Q)") + "\xff\xfe" + R"(", "message": "m"}})"},
      {"out_of_range_number", R"({"error": {"code": "X", "limit": 1e400}})"},
      {"nested_too_deep", deep},
      {"huge_plain_text", std::string(1 << 20, 'x')},
      {"huge_envelope", huge_envelope},
      {"code_too_long", long_code},
      {"empty", ""},
      {"only_whitespace", " \r\n\t "},
  };
}

class ErrorEnvelopeMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(ErrorEnvelopeMalformed, LeavesCodeEmptyWithoutACrash) {
  const MalformedCase& param = GetParam();
  const BadRequestError error = call_expecting<BadRequestError>(
      {Reply(400, param.body, "application/json", {{"X-Request-Id", "malformed-1"}})});
  EXPECT_EQ(error.code(), "");
  EXPECT_EQ(error.request_id(), "malformed-1");
  EXPECT_EQ(error.status_code(), 400);
  EXPECT_LE(error.body().size(), ApiError::kMaxErrorBodyBytes);
  EXPECT_EQ(error.body(), param.body.substr(0, std::min(param.body.size(), ApiError::kMaxErrorBodyBytes)));
  const std::string message = error.what();
  EXPECT_LT(message.size(), 600U);
  EXPECT_TRUE(message.starts_with("get_test_details: HTTP 400")) << message;
  EXPECT_TRUE(message.ends_with(" [request id: malformed-1]")) << message;
}

INSTANTIATE_TEST_SUITE_P(ErrorEnvelope, ErrorEnvelopeMalformed, ::testing::ValuesIn(malformed_bodies()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(ErrorEnvelope, EnvelopeWithoutMessageQuotesTheBody) {
  const std::string body = R"({"error": {"code": "VALIDATION_FAILED"}})";
  const BadRequestError error = call_expecting<BadRequestError>({Reply(400, body)});
  EXPECT_EQ(error.code(), "VALIDATION_FAILED");
  EXPECT_EQ(std::string(error.what()), "get_test_details: HTTP 400 (VALIDATION_FAILED): " + body);
}

TEST(ErrorEnvelope, EnvelopeIsReadWhateverTheSpacingAndExtraKeys) {
  const std::string body =
      "\n  {\"request\": {\"path\": \"/v2/x\"},\n \"error\" : {\"details\": [1, 2], \"message\": \"First line\\n"
      "second line\", \"code\": \"INVALID_CURSOR\"}}\n";
  const BadRequestError error = call_expecting<BadRequestError>({Reply(400, body)});
  EXPECT_EQ(error.code(), "INVALID_CURSOR");
  EXPECT_EQ(error.body(), body);
  // The message's first line, as for a plain body.
  EXPECT_STREQ(error.what(), "get_test_details: HTTP 400 (INVALID_CURSOR): First line");
}

TEST(ErrorEnvelope, MessageAndCodeAreQuotedSafely) {
  const std::string body = R"({"error": {"code": "WEIRD\u0007CODE", "message": "tab\there \u00e9"}})";
  const BadRequestError error = call_expecting<BadRequestError>({Reply(400, body)});
  EXPECT_EQ(error.code(), "WEIRD\aCODE");
  EXPECT_STREQ(error.what(), "get_test_details: HTTP 400 (WEIRD\\x07CODE): tab\\x09here \xC3\xA9");
}

// ---- the token, echoed by the server --------------------------------------------------------------------------

/// Answers 400 with `make_body(token received)` and X-Request-Id `make_id(token)`; returns the error thrown and
/// leaves the client's log records in `log`.
BadRequestError echo(const std::function<std::string(const std::string&)>& make_body,
                     const std::function<std::string(const std::string&)>& make_id, std::vector<std::string>& log) {
  HttpTestServer server;
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    const std::string token = request.get_header_value("x-api-token");
    response.status = 400;
    response.set_header("X-Request-Id", make_id(token));
    response.set_content(make_body(token), "application/json");
  });
  ClientOptions options = no_retries(server.base_url());
  options.log = [&log](LogLevel, std::string_view line) { log.emplace_back(line); };
  Client client(std::move(options));
  try {
    client.get_test_details(testing::details_request());
  } catch (const BadRequestError& error) {
    return error;
  }
  ADD_FAILURE() << "expected BadRequestError";
  throw std::logic_error("unreachable");
}

// Failures here never stream the texts checked: they could hold the token.
void expect_no_token(const ApiError& error, const std::vector<std::string>& log) {
  EXPECT_FALSE(contains(error.what(), kToken)) << "what() holds the token";
  EXPECT_FALSE(contains(error.body(), kToken)) << "body() holds the token";
  EXPECT_FALSE(contains(error.code(), kToken)) << "code() holds the token";
  EXPECT_FALSE(contains(error.request_id(), kToken)) << "request_id() holds the token";
  EXPECT_FALSE(log.empty());
  for (const auto& line : log) EXPECT_FALSE(contains(line, kToken)) << "a log record holds the token";
}

TEST(ErrorEnvelope, TokenEchoedInTheEnvelopeIsRedacted) {
  std::vector<std::string> log;
  const BadRequestError error = echo(
      [](const std::string& token) {
        return envelope("VALIDATION_FAILED", "token " + token + " is not valid here");
      },
      [](const std::string&) { return std::string("req-echo"); }, log);
  expect_no_token(error, log);
  EXPECT_EQ(error.code(), "VALIDATION_FAILED");
  EXPECT_EQ(error.body(), envelope("VALIDATION_FAILED", "token [REDACTED] is not valid here"));
  EXPECT_STREQ(error.what(),
               "get_test_details: HTTP 400 (VALIDATION_FAILED): token [REDACTED] is not valid here [request id: "
               "req-echo]");
}

TEST(ErrorEnvelope, TokenEchoedInTheCodeOrTheRequestIdIsRedacted) {
  std::vector<std::string> log;
  const BadRequestError error = echo([](const std::string& token) { return envelope("BAD_" + token, "no"); },
                                     [](const std::string& token) { return "id-" + token; }, log);
  expect_no_token(error, log);
  EXPECT_EQ(error.code(), "BAD_[REDACTED]");
  EXPECT_EQ(error.request_id(), "id-[REDACTED]");
}

TEST(ErrorEnvelope, TokenEchoedWithAJsonEscapeIsNotUndoneIntoTheMessage) {
  // A JSON encoder may escape any character (\u0074 is "t"): byte-wise redaction of the body does not see the
  // token, and reading the envelope would undo the escape. Then nothing of the body is kept.
  std::vector<std::string> log;
  const BadRequestError error = echo(
      [](const std::string& token) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x",
                      static_cast<unsigned>(static_cast<unsigned char>(token[0])));
        return envelope("VALIDATION_FAILED", "token " + std::string(escaped) + token.substr(1) + " is not valid");
      },
      [](const std::string&) { return std::string("req-escaped"); }, log);
  expect_no_token(error, log);
  EXPECT_EQ(error.body(), "[REDACTED]");
  EXPECT_EQ(error.code(), "");
  EXPECT_EQ(error.request_id(), "req-escaped");
  EXPECT_STREQ(error.what(), "get_test_details: HTTP 400: [REDACTED] [request id: req-escaped]");
}

// ---- the core's constructors, without a server ----------------------------------------------------------------

TEST(ErrorEnvelope, ThrowApiErrorReadsTheEnvelopeAndDefaultsTheRequestId) {
  try {
    throw_api_error(409, envelope("PR_ALREADY_ENQUEUED", "PR 7 is in the queue"), "submit_pull_request");
  } catch (const ConflictError& error) {
    EXPECT_EQ(error.code(), "PR_ALREADY_ENQUEUED");
    EXPECT_EQ(error.request_id(), "");
    EXPECT_STREQ(error.what(), "submit_pull_request: HTTP 409 (PR_ALREADY_ENQUEUED): PR 7 is in the queue");
  }
  try {
    throw_api_error(404, envelope("MERGE_QUEUE_NOT_FOUND", "No queue for main"), "get_queue", std::nullopt, "q-1");
  } catch (const NotFoundError& error) {
    EXPECT_EQ(error.code(), "MERGE_QUEUE_NOT_FOUND");
    EXPECT_EQ(error.request_id(), "q-1");
    EXPECT_STREQ(error.what(), "get_queue: HTTP 404 (MERGE_QUEUE_NOT_FOUND): No queue for main [request id: q-1]");
  }
  const ApiError direct(418, envelope("TEAPOT", "short and stout"), "update_queue");
  EXPECT_EQ(direct.code(), "TEAPOT");
  EXPECT_STREQ(direct.what(), "update_queue: HTTP 418 (TEAPOT): short and stout");
}

TEST(ErrorEnvelope, AVeryLongRequestIdIsBounded) {
  const ApiError error(500, "", "op", std::string(100000, 'r'));
  EXPECT_LE(error.request_id().size(), 256U);
  EXPECT_LT(std::string(error.what()).size(), 300U);
}

}  // namespace
}  // namespace trunk
