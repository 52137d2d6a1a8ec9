#include <gtest/gtest.h>

#include <string>

#include "trunk/error.hpp"

namespace {

using namespace trunk;

TEST(ValidationErrorMessage, ListsEveryViolationAsFieldValueRule) {
  const ValidationError error({{"page_query.page_size", "0", "must be between 1 and 100"},
                               {"org_url_slug", "\"\"", "must not be empty"}});
  EXPECT_STREQ(error.what(),
               "page_query.page_size: 0: must be between 1 and 100; org_url_slug: \"\": must not be empty");
  ASSERT_EQ(error.violations().size(), 2U);
  EXPECT_EQ(error.violations()[1].field, "org_url_slug");
}

TEST(DecodeErrorMessage, IsPathThenProblemOrJustTheProblemAtTheRoot) {
  const DecodeError nested("tests[3].failure_rate_last_7d", "expected number, got string");
  EXPECT_STREQ(nested.what(), "tests[3].failure_rate_last_7d: expected number, got string");
  EXPECT_EQ(nested.path(), "tests[3].failure_rate_last_7d");
  const DecodeError root("", "malformed JSON: unexpected end of input");
  EXPECT_STREQ(root.what(), "malformed JSON: unexpected end of input");
  EXPECT_EQ(root.path(), "");
}

TEST(ApiErrorMessage, NamesOperationStatusAndTheFirstLineOfTheBody) {
  const ApiError error(418, "I'm a teapot\nsecond line\n", "update_queue");
  EXPECT_STREQ(error.what(), "update_queue: HTTP 418: I'm a teapot");
  EXPECT_EQ(error.status_code(), 418);
  EXPECT_EQ(error.body(), "I'm a teapot\nsecond line\n");
  EXPECT_EQ(error.operation(), "update_queue");
  EXPECT_STREQ(ApiError(502, "", "list_failing_tests").what(), "list_failing_tests: HTTP 502");
  EXPECT_STREQ(ApiError(500, "\r\nrest", "x").what(), "x: HTTP 500");
}

TEST(ApiErrorMessage, BoundsTheExcerptAndTheKeptBody) {
  const std::string huge(100000, 'a');
  const ApiError error(500, huge, "get_test_details");
  EXPECT_LT(std::string(error.what()).size(), 300U);
  EXPECT_NE(std::string(error.what()).find("(100000 bytes)"), std::string::npos);
  EXPECT_EQ(error.body().size(), ApiError::kMaxErrorBodyBytes);
  // A multi-byte character straddling the bound is dropped whole, so the kept body stays UTF-8.
  std::string body(ApiError::kMaxErrorBodyBytes - 1, 'b');
  body += "\xC3\xA9tail";
  EXPECT_EQ(ApiError(500, body, "x").body(), std::string(ApiError::kMaxErrorBodyBytes - 1, 'b'));
}

TEST(ApiErrorMessage, EscapesBytesThatAreNotText) {
  const ApiError error(400, std::string("bad \xff\x01 byte", 11), "x");
  EXPECT_STREQ(error.what(), "x: HTTP 400: bad \\xFF\\x01 byte");
}

/// Status code -> the subclass throw_api_error must pick.
template <typename Expected>
void expect_maps(int status) {
  try {
    throw_api_error(status, "body", "op");
  } catch (const Expected& error) {
    EXPECT_EQ(error.status_code(), status);
    EXPECT_EQ(error.body(), "body");
    return;
  } catch (...) {
  }
  ADD_FAILURE() << "status " << status << " did not map to the expected class";
}

TEST(ThrowApiError, MapsStatusCodesToSubclasses) {
  expect_maps<BadRequestError>(400);
  expect_maps<AuthenticationError>(401);
  expect_maps<PermissionDeniedError>(403);
  expect_maps<NotFoundError>(404);
  expect_maps<RateLimitError>(429);
  expect_maps<ServerError>(500);
  expect_maps<ServerError>(503);
  expect_maps<ServerError>(599);
}

TEST(ThrowApiError, UsesPlainApiErrorForOtherStatuses) {
  for (int status : {300, 402, 409, 422, 499, 600}) {
    try {
      throw_api_error(status, "", "op");
    } catch (const BadRequestError&) {
      ADD_FAILURE() << status;
    } catch (const ServerError&) {
      ADD_FAILURE() << status;
    } catch (const RateLimitError&) {
      ADD_FAILURE() << status;
    } catch (const NotFoundError&) {
      ADD_FAILURE() << status;
    } catch (const ApiError& error) {
      EXPECT_EQ(error.status_code(), status);
    }
  }
}

TEST(ThrowApiError, RateLimitCarriesRetryAfter) {
  try {
    throw_api_error(429, "Too Many Requests", "list_unhealthy_tests", 2.5);
  } catch (const RateLimitError& error) {
    ASSERT_TRUE(error.retry_after().has_value());
    EXPECT_DOUBLE_EQ(*error.retry_after(), 2.5);
    EXPECT_STREQ(error.what(), "list_unhealthy_tests: HTTP 429: Too Many Requests (retry after 2.5 s)");
  }
  try {
    throw_api_error(429, "", "op");
  } catch (const RateLimitError& error) {
    EXPECT_FALSE(error.retry_after().has_value());
    EXPECT_STREQ(error.what(), "op: HTTP 429");
  }
}

TEST(Hierarchy, EveryErrorIsATrunkError) {
  EXPECT_THROW(throw TimeoutError("deadline"), TransportError);
  EXPECT_THROW(throw TimeoutError("deadline"), Error);
  EXPECT_THROW(throw ValidationError({}), Error);
  EXPECT_THROW(throw DecodeError("", "x"), Error);
  EXPECT_THROW(throw PaginationError("x"), Error);
  EXPECT_THROW(throw CancelledError("x"), Error);
  EXPECT_THROW(throw_api_error(404, "", "x"), Error);
}

}  // namespace
