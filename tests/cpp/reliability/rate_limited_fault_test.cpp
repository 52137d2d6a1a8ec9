// The sandbox's rate_limited_rate fault (added for the soak): a fraction of requests answered 429 with the
// configured Retry-After, tagged "rate_limit" in the request record; out-of-range options are refused.
#include <gtest/gtest.h>

#include <httplib.h>

#include <string>

#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace {

TEST(RateLimitedFault, EveryRequestIs429WithTheConfiguredRetryAfterAtRateOne) {
  trunk::sandbox::SandboxOptions options;
  options.tests = 20;
  options.now = trunk::parse_rfc3339("2026-11-20T12:00:00Z");
  options.faults.rate_limited_rate = 1.0;
  options.faults.rate_limited_retry_after_seconds = 7;
  trunk::sandbox::Sandbox box(options);
  box.start();
  httplib::Client http("127.0.0.1", box.port());
  for (int i = 0; i < 3; ++i) {
    auto answer = http.Post("/v1/updateQueue", httplib::Headers{{"x-api-token", box.token()}}, "{}", "application/json");
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 429);
    EXPECT_EQ(answer->get_header_value("Retry-After"), "7");
  }
  const auto records = box.requests();
  ASSERT_EQ(records.size(), 3U);
  for (const auto& record : records) {
    EXPECT_EQ(record.status, 429);
    EXPECT_EQ(record.fault, "rate_limit");
  }
}

TEST(RateLimitedFault, ZeroMeansNoneAndRecordsNoFault) {
  trunk::sandbox::SandboxOptions options;
  options.tests = 20;
  options.now = trunk::parse_rfc3339("2026-11-20T12:00:00Z");
  trunk::sandbox::Sandbox box(options);
  box.start();
  httplib::Client http("127.0.0.1", box.port());
  auto answer = http.Post("/v1/updateQueue", httplib::Headers{{"x-api-token", box.token()}}, "{}", "application/json");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400);  // reached the service: the body is simply invalid
  EXPECT_EQ(box.requests().at(0).fault, "");
}

TEST(RateLimitedFault, OutOfRangeOptionsAreRefusedNamingTheField) {
  trunk::sandbox::Sandbox box;
  for (double rate : {-0.1, 1.01}) {
    trunk::sandbox::FaultOptions faults;
    faults.rate_limited_rate = rate;
    try {
      box.set_faults(faults);
      FAIL() << rate << " accepted";
    } catch (const trunk::ValidationError& error) {
      EXPECT_EQ(error.violations().at(0).field, "rate_limited_rate");
    }
  }
  trunk::sandbox::FaultOptions faults;
  faults.rate_limited_retry_after_seconds = -1;
  EXPECT_THROW(box.set_faults(faults), trunk::ValidationError);
  EXPECT_EQ(box.faults().rate_limited_rate, 0.0);  // nothing changed
}

}  // namespace
