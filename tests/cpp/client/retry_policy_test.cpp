// White-box tests of the retry policy and the redaction helper (pure functions, no network).

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

#include "redaction.hpp"
#include "retry_policy.hpp"

namespace trunk::detail {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicy, RetryableStatusesAreExactlyTheDocumentedOnes) {
  for (long status : {429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(is_retryable_status(status)) << status;
  for (long status : {200L, 301L, 400L, 401L, 403L, 404L, 408L, 422L, 501L, 505L, 599L}) {
    EXPECT_FALSE(is_retryable_status(status)) << status;
  }
}

TEST(RetryPolicy, RetryableTransportFailures) {
  for (CURLcode code : {CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
                        CURLE_SEND_ERROR, CURLE_RECV_ERROR}) {
    EXPECT_TRUE(is_retryable_transport(code)) << code;
  }
  for (CURLcode code : {CURLE_COULDNT_RESOLVE_HOST, CURLE_PEER_FAILED_VERIFICATION, CURLE_URL_MALFORMAT,
                        CURLE_ABORTED_BY_CALLBACK, CURLE_WRITE_ERROR, CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_FALSE(is_retryable_transport(code)) << code;
  }
}

TEST(RetryPolicy, OnlyFailuresBeforeTheServiceSawTheRequestCountAsNeverReachingIt) {
  for (CURLcode code : {CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT}) {
    EXPECT_TRUE(never_reached_service(code, 0)) << code;
  }
  for (CURLcode code : {CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
                        CURLE_PARTIAL_FILE, CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_FALSE(never_reached_service(code, 0)) << code;
  }
  EXPECT_TRUE(never_reached_service(CURLE_OK, 429));
  EXPECT_TRUE(never_reached_service(CURLE_OK, 503));
  for (long status : {200L, 400L, 500L, 502L, 504L}) EXPECT_FALSE(never_reached_service(CURLE_OK, status)) << status;
}

TEST(RetryPolicy, ANotSafeRequestIsRetriedOnlyWhenRetryableAndNeverReached) {
  EXPECT_TRUE(may_retry(Repeat::not_safe, CURLE_COULDNT_CONNECT, 0));
  EXPECT_TRUE(may_retry(Repeat::not_safe, CURLE_OK, 429));
  EXPECT_TRUE(may_retry(Repeat::not_safe, CURLE_OK, 503));
  for (long status : {500L, 502L, 504L}) {
    EXPECT_FALSE(may_retry(Repeat::not_safe, CURLE_OK, status)) << status;
    EXPECT_TRUE(may_retry(Repeat::safe, CURLE_OK, status)) << status;
  }
  for (CURLcode code : {CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
                        CURLE_PARTIAL_FILE}) {
    EXPECT_FALSE(may_retry(Repeat::not_safe, code, 0)) << code;
    EXPECT_TRUE(may_retry(Repeat::safe, code, 0)) << code;
  }
  // A name that does not resolve never reached the service, but resolving again would fail the same way.
  EXPECT_FALSE(may_retry(Repeat::not_safe, CURLE_COULDNT_RESOLVE_HOST, 0));
  EXPECT_FALSE(may_retry(Repeat::safe, CURLE_COULDNT_RESOLVE_HOST, 0));
  EXPECT_FALSE(may_retry(Repeat::safe, CURLE_OK, 404));
}

TEST(RetryPolicy, ParsesRetryAfterSecondsAndDates) {
  const std::time_t now = 1445412480;  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parse_retry_after("0", now), 0.0);
  EXPECT_EQ(parse_retry_after("120", now), 120.0);
  EXPECT_EQ(parse_retry_after("  5 ", now), 5.0);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), 30.0);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), 0.0);  // in the past: no wait
  EXPECT_FALSE(parse_retry_after("", now).has_value());
  EXPECT_FALSE(parse_retry_after("-5", now).has_value());
  EXPECT_FALSE(parse_retry_after("1.5", now).has_value());
  EXPECT_FALSE(parse_retry_after("soon", now).has_value());
  EXPECT_GT(*parse_retry_after("99999999999999999999999", now), 1e20);  // saturates, no overflow
}

TEST(RetryPolicy, FullJitterBackoffIsBoundedByTheExponentialCeiling) {
  RetryOptions options;  // 250 ms initial, 8 s cap
  EXPECT_EQ(backoff_delay(options, 0, 0.0), milliseconds(0));
  EXPECT_EQ(backoff_delay(options, 0, 0.5), milliseconds(125));
  EXPECT_EQ(backoff_delay(options, 1, 0.5), milliseconds(250));
  EXPECT_EQ(backoff_delay(options, 4, 0.5), milliseconds(2000));
  EXPECT_EQ(backoff_delay(options, 5, 0.5), milliseconds(4000));  // 8000 cap reached
  EXPECT_EQ(backoff_delay(options, 6, 0.5), milliseconds(4000));
  EXPECT_EQ(backoff_delay(options, 1000, 0.5), milliseconds(4000));  // huge retry numbers do not overflow
  EXPECT_LT(backoff_delay(options, 5, 0.999999), milliseconds(8000));
}

TEST(RetryPolicy, RetryAfterReplacesBackoffAndIsCapped) {
  RetryOptions options;
  options.max_retry_after = milliseconds(60000);
  EXPECT_EQ(retry_delay(options, 0, 0.5, 2.0), milliseconds(2000));
  EXPECT_EQ(retry_delay(options, 0, 0.5, 0.0), milliseconds(0));
  EXPECT_EQ(retry_delay(options, 0, 0.5, 60.0), milliseconds(60000));
  EXPECT_EQ(retry_delay(options, 0, 0.5, 61.0), milliseconds(60000));
  EXPECT_EQ(retry_delay(options, 3, 0.5, std::nullopt), milliseconds(1000));
}

TEST(Redaction, ReplacesEveryOccurrence) {
  EXPECT_EQ(redact("a SECRET b SECRETSECRET", "SECRET"), "a [REDACTED] b [REDACTED][REDACTED]");
  EXPECT_EQ(redact("nothing here", "SECRET"), "nothing here");
  EXPECT_EQ(redact("SECRET", "SECRET"), "[REDACTED]");
  EXPECT_EQ(redact("keeps text", ""), "keeps text");
}

}  // namespace
}  // namespace trunk::detail
