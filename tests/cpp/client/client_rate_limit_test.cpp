// The client-side rate limit: requests are spaced 1/rate apart, the waits go through the client's sleep.

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <memory>

#include "rate_limiter.hpp"
#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"

namespace trunk {
namespace {

using std::chrono::milliseconds;

TEST(ClientRateLimit, SequentialCallsWaitForTheirSlot) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  auto sleeps = std::make_shared<testing::SleepRecorder>();
  ClientOptions options = testing::test_options(server.base_url(), sleeps);
  options.max_requests_per_second = 0.5;  // one request every 2 s
  Client client(std::move(options));
  for (int i = 0; i < 3; ++i) client.get_test_details(testing::details_request());

  // The recorded sleep does not wait, so the slots pile up: about 2 s, then about 4 s. The bounds leave a
  // whole second for the calls themselves; they check the spacing, not how fast anything ran.
  const auto delays = sleeps->snapshot();
  ASSERT_EQ(delays.size(), 2U);
  EXPECT_GT(delays[0], milliseconds(1000));
  EXPECT_LE(delays[0], milliseconds(2000));
  EXPECT_GT(delays[1], milliseconds(3000));
  EXPECT_LE(delays[1], milliseconds(4000));
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(ClientRateLimit, ZeroMeansNoLimit) {
  testing::HttpTestServer server;
  server.set_replies({{200, testing::details_json()}});
  auto sleeps = std::make_shared<testing::SleepRecorder>();
  Client client(testing::test_options(server.base_url(), sleeps));
  for (int i = 0; i < 5; ++i) client.get_test_details(testing::details_request());
  EXPECT_TRUE(sleeps->snapshot().empty());
}

TEST(RateLimiter, DisabledForNonPositiveOrNonFiniteRates) {
  EXPECT_FALSE(detail::RateLimiter(0).enabled());
  EXPECT_FALSE(detail::RateLimiter(-3).enabled());
  EXPECT_FALSE(detail::RateLimiter(std::numeric_limits<double>::infinity()).enabled());
  EXPECT_FALSE(detail::RateLimiter(std::numeric_limits<double>::quiet_NaN()).enabled());
  EXPECT_TRUE(detail::RateLimiter(100).enabled());
}

TEST(RateLimiter, FirstSlotIsFreeAndLaterOnesAreSpaced) {
  detail::RateLimiter limiter(1.0);  // 1 s apart: far more than these calls take
  EXPECT_EQ(limiter.reserve(), milliseconds(0));
  const milliseconds second = limiter.reserve();
  const milliseconds third = limiter.reserve();
  EXPECT_GT(second, milliseconds(500));
  EXPECT_LE(second, milliseconds(1000));
  EXPECT_GT(third, milliseconds(1500));
  EXPECT_LE(third, milliseconds(2000));
}

}  // namespace
}  // namespace trunk
