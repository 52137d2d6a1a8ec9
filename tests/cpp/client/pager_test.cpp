// Pager<Page> for a listing that only specialises PageTraits: the cursor style of listPullRequests
// (nextCursor absent on the last page), with iteration, prefetching, limit_prefetch and the loop guard coming
// from the template. The pages come from a real local server through the client's transfer engine, as a
// listing of the library would fetch them.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <optional>
#include <ranges>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "client_internals.hpp"
#include "test_servers.hpp"
#include "test_support.hpp"
#include "transfer_engine.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/pager.hpp"

namespace trunk {

/// A page of a cursor-style listing, reduced to what the pager needs: pull request numbers and nextCursor.
struct NumberPage {
  std::vector<int> numbers;
  std::optional<std::string> next_cursor;
};

template <>
struct PageTraits<NumberPage> {
  using Item = int;
  static constexpr PagingStyle style = PagingStyle::cursor;
  static std::vector<int>& items(NumberPage& page) noexcept { return page.numbers; }
  static std::optional<std::string> next(const NumberPage& page) { return page.next_cursor; }
};

namespace {

using testing::HttpTestServer;

static_assert(std::ranges::input_range<Pager<NumberPage>>);

std::string cursor_of(const std::string& body) { return nlohmann::json::parse(body).value("cursor", ""); }

/// Pages keyed by the cursor the client sends ("" = none, the first page); nextCursor absent when `next` is "".
struct ServedPage {
  std::vector<int> numbers;
  std::optional<std::string> next;
};

void serve(HttpTestServer& server, std::map<std::string, ServedPage> pages) {
  server.set_handler([pages = std::move(pages)](const httplib::Request& request, httplib::Response& response) {
    const auto found = pages.find(cursor_of(request.body));
    if (found == pages.end()) {
      response.status = 404;
      response.set_content("no such cursor", "text/plain");
      return;
    }
    nlohmann::json body{{"pullRequests", nlohmann::json::array()}};
    for (int number : found->second.numbers) body["pullRequests"].push_back({{"prNumber", number}});
    if (found->second.next) body["nextCursor"] = *found->second.next;
    response.set_content(body.dump(), "application/json");
  });
}

/// A number for the calling thread, never given to another thread (std::thread::id values may be reused once a
/// thread has ended).
int thread_serial() {
  static std::atomic<int> next{0};
  thread_local const int serial = next++;
  return serial;
}

/// A pager over `client`'s listPullRequests-like listing, fetched through the client's transfer engine;
/// `fetched_on`, when given, records the thread_serial() each page was fetched on.
Pager<NumberPage> pull_requests(Client& client, bool prefetch, std::vector<int>* fetched_on = nullptr) {
  return Pager<NumberPage>(
      [&client, fetched_on](const std::string& cursor, const FetchContext& context) {
        if (fetched_on != nullptr) fetched_on->push_back(thread_serial());  // one fetch at a time
        detail::HttpRequest request;
        request.operation = "list_pull_requests";
        request.url = client.base_url() + "/v1/listPullRequests";
        nlohmann::json body{{"repo", {{"host", "github.com"}, {"owner", "o"}, {"name", "n"}}},
                            {"targetBranch", "main"}};
        if (!cursor.empty()) body["cursor"] = cursor;
        request.body = body.dump();
        const auto answer = nlohmann::json::parse(detail::ClientInternals::send(client, request, context.stop));
        NumberPage page;
        for (const auto& pr : answer["pullRequests"]) page.numbers.push_back(pr["prNumber"].get<int>());
        if (answer.contains("nextCursor")) page.next_cursor = answer["nextCursor"].get<std::string>();
        return page;
      },
      "", PrefetchOptions{prefetch, {}});
}

const std::string kCursor2 = testing::uuid_for(2);
const std::string kCursor3 = testing::uuid_for(3);

std::map<std::string, ServedPage> three_pages() {
  return {{"", {{1, 2}, kCursor2}}, {kCursor2, {{3}, kCursor3}}, {kCursor3, {{4, 5}, std::nullopt}}};
}

std::vector<std::string> sent_cursors(const HttpTestServer& server) {
  std::vector<std::string> cursors;
  for (const auto& request : server.requests()) cursors.push_back(cursor_of(request.body));
  return cursors;
}

TEST(CursorPager, IteratesEveryItemAndStopsWhereTheCursorIsAbsent) {
  for (bool prefetch : {false, true}) {
    HttpTestServer server;
    serve(server, three_pages());
    Client client(testing::test_options(server.base_url()));
    std::vector<int> seen;
    for (int number : pull_requests(client, prefetch)) seen.push_back(number);
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5})) << prefetch;
    EXPECT_EQ(sent_cursors(server), (std::vector<std::string>{"", kCursor2, kCursor3})) << prefetch;
  }
}

TEST(CursorPager, PageByPage) {
  HttpTestServer server;
  serve(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client, true);
  std::vector<std::size_t> sizes;
  while (auto page = pager.next_page()) sizes.push_back(page->numbers.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 1, 2}));
  EXPECT_TRUE(pager.done());
  EXPECT_EQ(pager.pages_fetched(), 3U);
}

TEST(CursorPager, EveryPrefetchRunsOnTheSameBackgroundThread) {
  // One thread for the pager's life, not one per page: its thread-local decoder state stays warm.
  HttpTestServer server;
  serve(server, {{"", {{1}, kCursor2}}, {kCursor2, {{2}, kCursor3}}, {kCursor3, {{3}, testing::uuid_for(4)}},
                 {testing::uuid_for(4), {{4}, std::nullopt}}});
  Client client(testing::test_options(server.base_url()));
  std::vector<int> fetched_on;
  std::vector<int> seen;
  for (int number : pull_requests(client, true, &fetched_on)) seen.push_back(number);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
  ASSERT_EQ(fetched_on.size(), 4U);
  EXPECT_EQ(fetched_on[0], thread_serial());  // the first page: asked for, fetched by the caller
  EXPECT_NE(fetched_on[1], thread_serial());
  EXPECT_EQ(fetched_on[2], fetched_on[1]);
  EXPECT_EQ(fetched_on[3], fetched_on[1]);
}

TEST(CursorPager, ARepeatedCursorIsAPaginationError) {
  HttpTestServer server;
  serve(server, {{"", {{1}, kCursor2}}, {kCursor2, {{2}, kCursor2}}});
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client, true);
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_EQ(server.request_count(), 2U);  // the repeated cursor is never requested
}

TEST(CursorPager, AnEmptyCursorLeadsBackToTheStartAndIsAPaginationError) {
  // Only an absent nextCursor ends a cursor listing; "" would ask for the first page again.
  HttpTestServer server;
  serve(server, {{"", {{1}, ""}}});
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client, false);
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(CursorPager, ALimitStopsPrefetchingOnceThePagesHoldEnoughItems) {
  HttpTestServer server;
  serve(server, three_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client, true);
  pager.limit_prefetch(3);
  ASSERT_TRUE(pager.next_page().has_value());  // 2 items: page 2 is prefetched
  ASSERT_TRUE(pager.next_page().has_value());  // 3 items: enough, page 3 is not requested
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(sent_cursors(server), (std::vector<std::string>{"", kCursor2}));
}

TEST(CursorPager, DroppingThePagerStopsThePrefetchInFlight) {
  HttpTestServer server;  // declared first: outlives the client
  server.set_handler([&server](const httplib::Request& request, httplib::Response& response) {
    if (cursor_of(request.body).empty()) {
      response.set_content(R"({"pullRequests":[{"prNumber":1}],"nextCursor":")" + kCursor2 + "\"}",
                           "application/json");
      return;
    }
    server.hang();  // page 2 never comes
  });
  Client client(testing::test_options(server.base_url()));
  {
    auto pager = pull_requests(client, true);
    ASSERT_TRUE(pager.next_page().has_value());
    while (server.request_count() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }  // the destructor requests the prefetch's stop and joins its thread
  // The client is still usable: the stopped transfer's handle was removed, and a new call gets an answer.
  server.set_replies({{200, R"({"pullRequests":[]})"}});
  EXPECT_FALSE(pull_requests(client, false).next_page()->next_cursor.has_value());
}

}  // namespace
}  // namespace trunk
