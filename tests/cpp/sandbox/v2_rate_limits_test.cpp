// v2's documented rate limits in the sandbox (v2_rate_limits.hpp): the rows say which requests count together, the
// window slides over one second, and with SandboxOptions::v2_rate_limits the client meets them as a 429
// RATE_LIMITED with Retry-After; off by default.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "v2_rate_limits.hpp"
#include "v2_service.hpp"

namespace sandbox_test {
namespace {

using trunk::sandbox::v2::RateLimits;
using namespace std::chrono_literals;

TEST(DocumentedLimits, EachRowCountsItsOwnRequests) {
  using trunk::sandbox::v2::limit_of;
  EXPECT_NE(limit_of("GET", "/v2/pull-requests"), nullptr);
  EXPECT_NE(limit_of("GET", "/v2/pull-requests/abc/queue-entry-history"), nullptr);
  EXPECT_EQ(limit_of("POST", "/v2/pull-requests/abc/dequeue"), nullptr);  // only the reads
  EXPECT_NE(limit_of("GET", "/v2/merge-queues/metrics"), nullptr);
  EXPECT_NE(limit_of("GET", "/v2/merge-queues/q1/metrics"), nullptr);
  EXPECT_EQ(limit_of("GET", "/v2/merge-queues/q1"), nullptr);
  EXPECT_NE(limit_of("GET", "/v2/pull-requests"), limit_of("GET", "/v2/merge-queues/metrics"));
}

TEST(DocumentedLimits, FiveASecondPerKeyOverASlidingWindow) {
  RateLimits limits;
  const RateLimits::Clock::time_point start{};
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(limits.admit("GET", "/v2/pull-requests", "key-a", start + i * 100ms).has_value()) << i;
  }
  const auto over = limits.admit("GET", "/v2/pull-requests", "key-a", start + 500ms);
  ASSERT_TRUE(over.has_value());
  EXPECT_EQ(over->first->per_second, 5);
  EXPECT_EQ(over->second, 1);  // the first request leaves the window 0.5 s later: Retry-After rounds up
  EXPECT_FALSE(limits.admit("GET", "/v2/pull-requests", "key-b", start + 500ms).has_value());  // per key
  EXPECT_FALSE(limits.admit("GET", "/v2/merge-queues", "key-a", start + 500ms).has_value());   // not limited
  // One second after the first, it has left the window (a refused request was not counted).
  EXPECT_FALSE(limits.admit("GET", "/v2/pull-requests", "key-a", start + 1000ms).has_value());
  EXPECT_TRUE(limits.admit("GET", "/v2/pull-requests", "key-a", start + 1000ms).has_value());
}

TEST(DocumentedLimits, MetricsCountEveryKeyOfTheOrganizationTogether) {
  RateLimits limits;
  const RateLimits::Clock::time_point start{};
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(limits.admit("GET", "/v2/merge-queues/metrics", "key-" + std::to_string(i), start).has_value());
  }
  EXPECT_TRUE(limits.admit("GET", "/v2/merge-queues/q1/metrics", "key-9", start).has_value());
}

class RateLimitsV2 : public ::testing::Test {
 protected:
  std::unique_ptr<trunk::Client> client_of(const trunk::sandbox::Sandbox& sandbox, int retries) {
    trunk::ClientOptions options;
    options.base_url = sandbox.url();
    options.api_key = sandbox.api_key();
    options.retry.max_retries = retries;
    return std::make_unique<trunk::Client>(std::move(options));
  }
  static trunk::ResolvePullRequestsRequest by_number(const trunk::sandbox::Sandbox& sandbox) {
    trunk::ResolvePullRequestsRequest request;
    request.repository_id = trunk::sandbox::repository_id(sandbox.repos().at(0).to_string());
    request.number = std::vector<std::int64_t>{1};
    return request;
  }
};

TEST_F(RateLimitsV2, OffByDefault) {
  auto sandbox = start_sandbox(small_options(10));
  auto client = client_of(*sandbox, 0);
  for (int i = 0; i < 8; ++i) EXPECT_NO_THROW(client->resolve_pull_requests(by_number(*sandbox))) << i;
}

TEST_F(RateLimitsV2, TheSixthReadInASecondIs429WithRetryAfterAndARetryGetsThrough) {
  auto options = small_options(10);
  options.v2_rate_limits = true;
  auto sandbox = start_sandbox(std::move(options));
  auto client = client_of(*sandbox, 0);
  for (int i = 0; i < 5; ++i) client->resolve_pull_requests(by_number(*sandbox));
  try {
    client->resolve_pull_requests(by_number(*sandbox));
    FAIL() << "not limited";
  } catch (const trunk::RateLimitError& error) {
    EXPECT_EQ(error.code(), "RATE_LIMITED");
    ASSERT_TRUE(error.retry_after().has_value());
    EXPECT_GE(*error.retry_after(), 1.0);
  }
  // The client's own retry waits out Retry-After (a read is safe to repeat).
  auto patient = client_of(*sandbox, 2);
  EXPECT_NO_THROW(patient->resolve_pull_requests(by_number(*sandbox)));
}

}  // namespace
}  // namespace sandbox_test
