// Pipelined paging (ClientOptions::prefetch_pages): the next page is requested while the caller holds the
// current one; order, the repeated-token check and errors are unchanged; dropping a pager cancels its prefetch.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/time.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;
using testing::uuid_for;

std::string page_token_of(const std::string& body) {
  return nlohmann::json::parse(body)["page_query"].value("page_token", "");
}

/// Serves pages keyed by page token; unknown tokens get 404.
void serve_pages(HttpTestServer& server, std::map<std::string, std::string> pages) {
  server.set_handler([pages = std::move(pages)](const httplib::Request& request, httplib::Response& response) {
    const auto found = pages.find(page_token_of(request.body));
    if (found == pages.end()) {
      response.status = 404;
      response.set_content("no such page", "text/plain");
      return;
    }
    response.set_content(found->second, "application/json");
  });
}

ListFailingTestsRequest failing_request() {
  ListFailingTestsRequest request;
  request.repo = testing::sample_repo();
  request.org_url_slug = "trunk-org";
  request.start_time = parse_rfc3339("2026-01-01T00:00:00Z");
  request.end_time = parse_rfc3339("2026-01-02T00:00:00Z");
  request.page_query.page_size = 2;
  return request;
}

/// Waits (bounded) until the server has seen `count` requests; false if it never does.
bool wait_for_requests(const HttpTestServer& server, std::size_t count) {
  for (int i = 0; i < 1000 && server.request_count() < count; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return server.request_count() >= count;
}

std::map<std::string, std::string> three_pages() {
  return {{"", testing::page_json({uuid_for(1), uuid_for(2)}, "p2", 0)},
          {"p2", testing::page_json({uuid_for(3), uuid_for(4)}, "p3", 1)},
          {"p3", testing::page_json({uuid_for(5)}, "", 2)}};
}

TEST(Prefetch, TheNextPageIsRequestedBeforeTheCallerAsks) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));  // prefetch_pages is on by default
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_TRUE(wait_for_requests(server, 2));  // page 2 is on its way while we hold page 1
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_TRUE(wait_for_requests(server, 3));
  const auto last = pager.next_page();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->tests.at(0).id, uuid_for(5));
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_EQ(server.request_count(), 3U);  // nothing requested after the last page
}

TEST(Prefetch, SwitchedOffPagesAreFetchedOnlyOnDemand) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  ClientOptions options = testing::test_options(server.base_url());
  options.prefetch_pages = false;
  Client client(std::move(options));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(Prefetch, ALimitStopsPrefetchingOnceThePagesHoldEnoughTests) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  pager.limit_prefetch(3);
  ASSERT_TRUE(pager.next_page().has_value());  // 2 tests: fewer than 3, page 2 is prefetched
  EXPECT_TRUE(wait_for_requests(server, 2));
  ASSERT_TRUE(pager.next_page().has_value());  // 4 tests: enough, page 3 is not requested
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(Prefetch, IterationYieldsEveryTestInOrder) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  std::vector<std::string> seen;
  for (const TestCase& test : client.failing_tests(failing_request())) seen.push_back(test.id.value_or(""));
  EXPECT_EQ(seen, (std::vector<std::string>{uuid_for(1), uuid_for(2), uuid_for(3), uuid_for(4), uuid_for(5)}));
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 3U);
  EXPECT_EQ(page_token_of(sent[1].body), "p2");
  EXPECT_EQ(page_token_of(sent[2].body), "p3");
}

TEST(Prefetch, ARepeatedTokenIsCaughtBeforeItIsRequestedAgain) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(2)}, "p2", 1)}});
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_FALSE(pager.next_page().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(Prefetch, AnErrorOfThePrefetchedPageSurfacesWhenThatPageIsAskedFor) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "missing", 0)}});
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  const auto first = pager.next_page();  // the failure of page 2 does not leak into page 1
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->tests.at(0).id, uuid_for(1));
  EXPECT_THROW(pager.next_page(), NotFoundError);
}

TEST(Prefetch, DroppingThePagerCancelsThePrefetchInFlight) {
  std::atomic<int> calls{0};
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    if (++calls == 1) {
      response.set_content(testing::page_json({uuid_for(1)}, "p2", 0), "application/json");
      return;
    }
    server.hang();  // page 2 never comes
    static_cast<void>(request);
  });
  std::mutex mutex;
  std::vector<std::string> records;
  ClientOptions options = testing::test_options(server.base_url());
  options.log = [&](LogLevel, std::string_view message) {
    std::lock_guard lock(mutex);
    records.emplace_back(message);
  };
  Client client(std::move(options));
  {
    auto pager = client.failing_tests(failing_request());
    ASSERT_TRUE(pager.next_page().has_value());
    ASSERT_TRUE(wait_for_requests(server, 2));
  }  // the destructor cancels page 2's transfer and joins the thread
  std::lock_guard lock(mutex);
  ASSERT_FALSE(records.empty());
  EXPECT_NE(records.back().find("cancelled"), std::string::npos) << records.back();
}

TEST(Prefetch, AnInterruptWhileWaitingForThePrefetchedPageCancels) {
  std::atomic<int> calls{0};
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&](const httplib::Request&, httplib::Response& response) {
    if (++calls == 1) {
      response.set_content(testing::page_json({uuid_for(1)}, "p2", 0), "application/json");
      return;
    }
    server.hang();
  });
  std::atomic<bool> stop{false};
  ClientOptions options = testing::test_options(server.base_url());
  options.interrupt_check = [&] { return stop.load(); };
  Client client(std::move(options));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  ASSERT_TRUE(wait_for_requests(server, 2));
  stop = true;
  EXPECT_THROW(pager.next_page(), CancelledError);
}

TEST(Prefetch, AMovedPagerKeepsWalking) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  TestPager moved = std::move(pager);  // abandons the prefetch; the page is requested again
  std::size_t pages = 1;
  while (moved.next_page()) ++pages;
  EXPECT_EQ(pages, 3U);
}

}  // namespace
}  // namespace trunk
