// The page pipeline (ClientOptions::prefetch_pages): the next page is requested while the caller holds the
// current one; order, the repeated-token check and errors are unchanged; dropping a pager cancels its prefetch.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "page_pipeline.hpp"
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
  pager.max_results(3);
  ASSERT_TRUE(pager.next_page().has_value());  // 2 tests: fewer than 3, page 2 is prefetched
  EXPECT_TRUE(wait_for_requests(server, 2));
  ASSERT_TRUE(pager.next_page().has_value());  // 4 tests: enough, page 3 is not requested
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(Prefetch, PagesReadIntoOnePageAreThePagesReadFresh) {
  // next_page_into reads each page into the previous one (reusing its memory): the same pages as next_page,
  // the last page shorter than the one before, and `page` untouched after the last.
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto fresh = client.failing_tests(failing_request());
  auto reused = client.failing_tests(failing_request());
  TestPage page;
  for (int i = 0; i < 3; ++i) {
    const auto expected = fresh.next_page();
    ASSERT_TRUE(expected.has_value());
    ASSERT_TRUE(reused.next_page_into(page));
    EXPECT_EQ(page, *expected) << "page " << i + 1;
  }
  EXPECT_FALSE(fresh.next_page().has_value());
  const TestPage last = page;
  EXPECT_FALSE(reused.next_page_into(page));
  EXPECT_EQ(page, last);
  EXPECT_EQ(reused.pages_fetched(), 3U);
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
  // The engine thread reports the cancelled transfer when it has taken it down, which on a loaded machine can
  // come a moment after the destructor returned: wait for that record (bounded) rather than for a moment.
  const auto cancelled_logged = [&] {
    std::lock_guard lock(mutex);
    return std::any_of(records.begin(), records.end(),
                       [](const std::string& r) { return r.find("cancelled") != std::string::npos; });
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!cancelled_logged() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(cancelled_logged()) << "no record of the cancelled transfer";
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

/// peek_page on `body` parsed as the decoder's syntax check parses it.
detail::PagePeek peek(const std::string& body, const WireAt& at) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  EXPECT_EQ(parser.parse(body).get(root), simdjson::SUCCESS) << body;
  return detail::peek_page(root, at);
}

TEST(PeekPage, FindsTheNextCursorAndCountsTheItems) {
  const WireAt tests = PageTraits<TestPage>::wire_at();
  EXPECT_EQ(tests.items, "tests");
  EXPECT_EQ(tests.next[0], "page");
  EXPECT_EQ(tests.next[1], "next_page_token");
  // Any key order, unknown keys, escapes in the cursor (read as the decoder reads them).
  auto found = peek(R"({"page":{"next_page_token":"a\"b\u00e9","total_rows":3},"x":[{}],"tests":[{},{"id":1},[]]})",
                    tests);
  EXPECT_TRUE(found.ok);
  EXPECT_EQ(found.items, 3U);
  EXPECT_EQ(found.next, "a\"b\u00e9");
  found = peek(R"({"tests":[],"page":{}})", tests);
  EXPECT_TRUE(found.ok);
  EXPECT_EQ(found.items, 0U);
  EXPECT_FALSE(found.next.has_value());
  for (const char* body : {R"({"tests":[],"page":{"next_page_token":null}})", R"({"tests":[],"page":[]})",
                           R"({"tests":[],"page":"p2"})", R"({"tests":[],"page":{"next_page_token":7}})"}) {
    found = peek(body, tests);
    EXPECT_TRUE(found.ok) << body;
    EXPECT_FALSE(found.next.has_value()) << body;
  }

  const WireAt pull_requests = PageTraits<PullRequestPage>::wire_at();
  EXPECT_EQ(pull_requests.items, "pullRequests");
  EXPECT_EQ(pull_requests.next[0], "nextCursor");
  EXPECT_TRUE(pull_requests.next[1].empty());
  found = peek(R"({"nextCursor":"c2","pullRequests":[{"prNumber":1}]})", pull_requests);
  EXPECT_TRUE(found.ok && found.items == 1U && found.next == "c2");
}

TEST(PeekPage, AnAnswerShapedOtherwiseIsLeftToTheDecoder) {
  const WireAt at = PageTraits<TestPage>::wire_at();
  for (const char* body : {"[]", R"({"page":{"next_page_token":"p2"}})", R"({"tests":{},"page":{}})", "null",
                           R"({"tests":"[]"})", "7"}) {
    EXPECT_FALSE(peek(body, at).ok) << body;
  }
}

TEST(ReadAhead, ThePageAfterNextIsRequestedAsSoonAsTheNextOnesAnswerIsIn) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  // While the caller holds page 1: page 2 is prefetched, and page 3 requested once page 2's answer is in.
  EXPECT_TRUE(wait_for_requests(server, 3));
  std::vector<std::string> ids;
  while (auto page = pager.next_page()) {
    for (const TestCase& test : page->tests) ids.push_back(test.id.value_or(""));
  }
  EXPECT_EQ(ids, (std::vector<std::string>{uuid_for(3), uuid_for(4), uuid_for(5)}));
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 3U);  // every page once, nothing after the last
  EXPECT_EQ(page_token_of(sent[2].body), "p3");
}

TEST(ReadAhead, NotPastWhatTheCallerWants) {
  // Pages of 2, 2 and 1 tests. A limit of 4 is met by pages 1 and 2: page 3 is never requested. A limit of 5
  // needs page 3 too, which is then read ahead while page 2 is decoded.
  for (const auto& [limit, requests] : {std::pair{4U, 2U}, std::pair{5U, 3U}}) {
    HttpTestServer server;
    serve_pages(server, three_pages());
    Client client(testing::test_options(server.base_url()));
    auto pager = client.failing_tests(failing_request());
    pager.max_results(limit);
    ASSERT_TRUE(pager.next_page().has_value());
    ASSERT_TRUE(wait_for_requests(server, requests)) << limit;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(server.request_count(), requests) << limit;
  }
}

TEST(ReadAhead, ACursorRequestedBeforeIsNeverReadAheadAgain) {
  // p2 -> p3 -> p2: the pager reports the repeated token; the read-ahead must not have requested p2 twice.
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(2)}, "p3", 1)},
                       {"p3", testing::page_json({uuid_for(3)}, "p2", 2)}});
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), PaginationError);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(ReadAhead, AnErrorOfThePageReadAheadSurfacesWhenThatPageIsAskedFor) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(2)}, "missing", 1)}});
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  ASSERT_TRUE(wait_for_requests(server, 3));  // page 3 ("missing", a 404) was read ahead
  const auto second = pager.next_page();     // its failure does not leak into page 2
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->tests.at(0).id, uuid_for(2));
  EXPECT_THROW(pager.next_page(), NotFoundError);
}

TEST(ReadAhead, DroppingThePagerCancelsTheReadAheadInFlight) {
  HttpTestServer server;
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    const std::string token = page_token_of(request.body);
    if (token.empty()) {
      response.set_content(testing::page_json({uuid_for(1)}, "p2", 0), "application/json");
    } else if (token == "p2") {
      response.set_content(testing::page_json({uuid_for(2)}, "p3", 1), "application/json");
    } else {
      server.hang();  // page 3, read ahead, never comes
    }
  });
  Client client(testing::test_options(server.base_url()));
  {
    auto pager = client.failing_tests(failing_request());
    ASSERT_TRUE(pager.next_page().has_value());
    ASSERT_TRUE(wait_for_requests(server, 3));
  }  // the pager goes with page 3's transfer in flight: cancelled, not waited out
  // The client still answers (the cancelled transfer left nothing behind that blocks it).
  server.set_replies({{200, testing::page_json({uuid_for(9)}, "", 0)}});
  EXPECT_EQ(client.failing_tests(failing_request()).next_page()->tests.at(0).id, uuid_for(9));
}

TEST(ReadAhead, SwitchedOffWithPrefetching) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  ClientOptions options = testing::test_options(server.base_url());
  options.prefetch_pages = false;
  Client client(std::move(options));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  ASSERT_TRUE(pager.next_page().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(Prefetch, AMovedPagerKeepsWalking) {
  HttpTestServer server;
  serve_pages(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = client.failing_tests(failing_request());
  ASSERT_TRUE(pager.next_page().has_value());
  TestPager moved = std::move(pager);  // the walk moves with it, its page in flight included
  std::size_t pages = 1;
  while (moved.next_page()) ++pages;
  EXPECT_EQ(pages, 3U);
}

}  // namespace
}  // namespace trunk
