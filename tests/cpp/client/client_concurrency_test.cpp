// Connection reuse and thread safety: sequential calls share one TCP connection, and one client serves
// many threads at once with every answer going to the right caller.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;

/// Answers get-test-details with the test id that was asked for.
void echo_test_id(HttpTestServer& server) {
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    const auto body = nlohmann::json::parse(request.body);
    response.set_content(testing::details_json(body["test_id"].get<std::string>()), "application/json");
  });
}

TEST(ClientConcurrency, FiftySequentialCallsUseOneConnection) {
  HttpTestServer server;
  echo_test_id(server);
  Client client(testing::test_options(server.base_url()));
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(client.get_test_details(testing::details_request(testing::uuid_for(i))).test.id, testing::uuid_for(i));
  }
  EXPECT_EQ(server.request_count(), 50U);
  EXPECT_EQ(server.client_ports().size(), 1U);
}

TEST(ClientConcurrency, AnErrorAnswerDoesNotCostTheConnection) {
  HttpTestServer server;
  server.set_replies({{404, "no such test", "text/plain"}, {200, testing::details_json()}});
  Client client(testing::test_options(server.base_url()));
  EXPECT_ANY_THROW(client.get_test_details(testing::details_request()));
  EXPECT_NO_THROW(client.get_test_details(testing::details_request()));
  EXPECT_EQ(server.client_ports().size(), 1U);
}

TEST(ClientConcurrency, EightThreadsTimesHundredCallsOnOneClientAreAllCorrect) {
  HttpTestServer server;
  echo_test_id(server);
  Client client(testing::test_options(server.base_url()));
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 100;
  std::atomic<int> correct{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        const std::string id = testing::uuid_for(t * 1000 + i);
        try {
          (client.get_test_details(testing::details_request(id)).test.id == id ? correct : wrong)++;
        } catch (...) {
          wrong++;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(correct.load(), kThreads * kCallsPerThread);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(server.request_count(), static_cast<std::size_t>(kThreads * kCallsPerThread));
  // Connections are pooled, not opened per call: at most one per thread.
  EXPECT_LE(server.client_ports().size(), static_cast<std::size_t>(kThreads));
}

}  // namespace
}  // namespace trunk
