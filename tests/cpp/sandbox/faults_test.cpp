// Each fault: 503 rate, 429 + Retry-After, dropped connections, truncated bodies, latency; deterministic dice;
// adjustable while running.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "faults.hpp"
#include "sandbox_support.hpp"
#include "trunk/error.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kGetTestDetails;

Json details_body(const trunk::sandbox::Sandbox& sandbox) {
  return {{"repo", repo_json(sandbox.repos().at(0))},
          {"org_url_slug", sandbox.org_url_slug()},
          {"test_id", sandbox.test_ids(sandbox.repos().at(0)).at(0)}};
}

std::string raw_details_request(const trunk::sandbox::Sandbox& sandbox) {
  const std::string body = details_body(sandbox).dump();
  return "POST " + std::string(kGetTestDetails) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: " + sandbox.token() +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

trunk::sandbox::FaultOptions only(std::function<void(trunk::sandbox::FaultOptions&)> set) {
  trunk::sandbox::FaultOptions faults;
  set(faults);
  return faults;
}

TEST(Faults, ErrorRateAnswers503AboutThatOften) {
  auto sandbox = start_sandbox(small_options(20));
  sandbox->set_faults(only([](auto& f) { f.error_rate = 0.3; }));
  int unavailable = 0, ok = 0;
  for (int i = 0; i < 300; ++i) {
    const auto reply = post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox));
    if (reply.status == 503) {
      ++unavailable;
      EXPECT_EQ(reply.header("Content-Type"), "text/plain; charset=utf-8");
    } else {
      EXPECT_EQ(reply.status, 200);
      ++ok;
    }
  }
  EXPECT_GT(unavailable, 300 * 0.15);
  EXPECT_LT(unavailable, 300 * 0.45);
  EXPECT_EQ(ok + unavailable, 300);
  sandbox->set_faults({});  // adjustable at run time: off again
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 200);
}

TEST(Faults, SameSeedGivesTheSameSequenceOfFaults) {
  auto sequence = [](std::uint64_t seed) {
    trunk::sandbox::Faults faults(only([seed](auto& f) {
      f.error_rate = 0.5;
      f.drop_rate = 0.2;
      f.truncate_rate = 0.2;
      f.jitter = std::chrono::milliseconds(10);
      f.seed = seed;
    }));
    std::string out;
    for (int i = 0; i < 64; ++i) {
      const auto d = faults.roll();
      out += std::to_string(d.server_error) + std::to_string(d.drop) + std::to_string(d.truncate) + ":" +
             std::to_string(d.delay.count()) + " ";
    }
    return out;
  };
  EXPECT_EQ(sequence(1), sequence(1));
  EXPECT_NE(sequence(1), sequence(2));
}

TEST(Faults, RateLimitAnswers429WithRetryAfterSeconds) {
  auto sandbox = start_sandbox(small_options(20));
  // 0.01 requests/s: one request passes, the next one certainly finds the bucket empty.
  sandbox->set_faults(only([](auto& f) { f.rate_limit_rps = 0.01; }));
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 200);
  const auto limited = post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox));
  ASSERT_EQ(limited.status, 429);
  const std::string retry_after = limited.header("Retry-After");
  ASSERT_FALSE(retry_after.empty());
  EXPECT_GE(std::stoi(retry_after), 1);
  EXPECT_LE(std::stoi(retry_after), 100);
  EXPECT_THROW((void)limited.json(), Json::parse_error) << "429 bodies are not JSON, like the real edge";

  sandbox->set_faults(only([](auto& f) { f.rate_limit_rps = 1000; }));
  int passed = 0;
  for (int i = 0; i < 20; ++i) passed += post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status == 200;
  EXPECT_EQ(passed, 20) << "a burst within the bucket passes";
}

TEST(Faults, DroppedConnectionGetsNoAnswerAtAll) {
  auto sandbox = start_sandbox(small_options(20));
  sandbox->set_faults(only([](auto& f) { f.drop_rate = 1.0; }));
  EXPECT_EQ(raw_exchange(sandbox->port(), raw_details_request(*sandbox)), "") << "not a single byte";
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 0);
  const auto records = sandbox->requests();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back().status, 0);
  sandbox->set_faults({});
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 200) << "server survived";
}

TEST(Faults, TruncatedBodyDeclaresTheFullLengthButSendsLess) {
  auto sandbox = start_sandbox(small_options(20));
  sandbox->set_faults(only([](auto& f) { f.truncate_rate = 1.0; }));
  const std::string raw = raw_exchange(sandbox->port(), raw_details_request(*sandbox));
  const auto header_end = raw.find("\r\n\r\n");
  ASSERT_NE(header_end, std::string::npos) << raw;
  EXPECT_EQ(raw.rfind("HTTP/1.1 200", 0), 0U);
  const auto length_at = raw.find("Content-Length: ");
  ASSERT_NE(length_at, std::string::npos);
  const std::size_t declared = std::stoul(raw.substr(length_at + 16));
  const std::size_t received = raw.size() - header_end - 4;
  EXPECT_GT(declared, 100U);
  EXPECT_LT(received, declared);
  EXPECT_GT(received, 0U);
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 0) << "client sees a short read";
  sandbox->set_faults({});
  EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 200);
}

TEST(Faults, LatencyDelaysEveryAnswerByAtLeastItsValue) {
  auto sandbox = start_sandbox(small_options(20));
  sandbox->set_faults(only([](auto& f) {
    f.latency = std::chrono::milliseconds(150);
    f.jitter = std::chrono::milliseconds(20);
  }));
  for (int i = 0; i < 3; ++i) {
    const auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(post(*sandbox, std::string(kGetTestDetails), details_body(*sandbox)).status, 200);
    EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(150));
  }
  EXPECT_EQ(sandbox->faults().latency, std::chrono::milliseconds(150));
}

TEST(Faults, InvalidFaultSettingsAreRejectedNamingTheField) {
  auto sandbox = start_sandbox(small_options(20));
  try {
    sandbox->set_faults(only([](auto& f) { f.error_rate = 1.5; }));
    FAIL() << "expected ValidationError";
  } catch (const trunk::ValidationError& e) {
    EXPECT_EQ(e.violations().at(0).field, "error_rate");
  }
  EXPECT_THROW(sandbox->set_faults(only([](auto& f) { f.drop_rate = -0.1; })), trunk::ValidationError);
  EXPECT_THROW(sandbox->set_faults(only([](auto& f) { f.rate_limit_rps = -1; })), trunk::ValidationError);
  EXPECT_EQ(sandbox->faults().error_rate, 0.0) << "a rejected setting changes nothing";
}

}  // namespace
}  // namespace sandbox_test
