// Pager<Page> over a fetch function, for a listing that only specialises PageTraits: the cursor style of
// listPullRequests (nextCursor absent on the last page), with iteration, the limit and the loop guard (PageWalk)
// coming from the template; the pages are fetched on demand. They come from a real local server through the
// client's transfer engine, as a listing of the library would fetch them. (The Client's own listings read from
// its page pipeline instead: test_prefetch.cpp.)

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <ranges>
#include <span>
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

/// A pager over `client`'s listPullRequests-like listing, fetched through the client's transfer engine;
/// `wanted`, when given, records what each fetch was told (FetchContext::wanted).
Pager<NumberPage> pull_requests(Client& client, std::vector<std::optional<std::size_t>>* wanted = nullptr) {
  return Pager<NumberPage>(
      [&client, wanted](const std::string& cursor, const FetchContext& context) {
        if (wanted != nullptr) wanted->push_back(context.wanted);
        detail::HttpRequest request;
        request.operation = "list_pull_requests";
        request.url = client.base_url() + "/v1/listPullRequests";
        nlohmann::json body{{"repo", {{"host", "github.com"}, {"owner", "o"}, {"name", "n"}}},
                            {"targetBranch", "main"}};
        if (!cursor.empty()) body["cursor"] = cursor;
        request.body = body.dump();
        const auto answer = nlohmann::json::parse(detail::ClientInternals::send(client, request));
        NumberPage page;
        for (const auto& pr : answer["pullRequests"]) page.numbers.push_back(pr["prNumber"].get<int>());
        if (answer.contains("nextCursor")) page.next_cursor = answer["nextCursor"].get<std::string>();
        return page;
      },
      "");
}

const std::string kCursor2 = testing::uuid_for(2);
const std::string kCursor3 = testing::uuid_for(3);

std::map<std::string, ServedPage> three_served_pages() {
  return {{"", {{1, 2}, kCursor2}}, {kCursor2, {{3}, kCursor3}}, {kCursor3, {{4, 5}, std::nullopt}}};
}

std::vector<std::string> sent_cursors(const HttpTestServer& server) {
  std::vector<std::string> cursors;
  for (const auto& request : server.requests()) cursors.push_back(cursor_of(request.body));
  return cursors;
}

TEST(CursorPager, IteratesEveryItemAndStopsWhereTheCursorIsAbsent) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  std::vector<int> seen;
  for (int number : pull_requests(client)) seen.push_back(number);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(sent_cursors(server), (std::vector<std::string>{"", kCursor2, kCursor3}));
}

TEST(CursorPager, PageByPageOnDemand) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  std::vector<std::size_t> sizes;
  while (auto page = pager.next_page()) {
    sizes.push_back(page->numbers.size());
    EXPECT_EQ(server.request_count(), sizes.size());  // nothing is fetched before it is asked for
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 1, 2}));
  EXPECT_TRUE(pager.done());
  EXPECT_EQ(pager.pages_fetched(), 3U);
}

TEST(CursorPager, PagesReadIntoOnePageOnDemand) {
  // next_page_into over a fetch function: each fetched page replaces the one given, and after the last page
  // the one given is left as it was.
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  NumberPage page;
  std::vector<std::vector<int>> pages;
  while (pager.next_page_into(page)) pages.push_back(page.numbers);
  EXPECT_EQ(pages, (std::vector<std::vector<int>>{{1, 2}, {3}, {4, 5}}));
  EXPECT_EQ(page.numbers, (std::vector<int>{4, 5}));
  EXPECT_EQ(pager.pages_fetched(), 3U);
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(CursorPager, AnEmptyPageInTheMiddleDoesNotEndTheWalk) {
  HttpTestServer server;
  serve(server, {{"", {{1}, kCursor2}}, {kCursor2, {{}, kCursor3}}, {kCursor3, {{3}, std::nullopt}}});
  Client client(testing::test_options(server.base_url()));
  std::vector<int> seen;
  for (int number : pull_requests(client)) seen.push_back(number);
  EXPECT_EQ(seen, (std::vector<int>{1, 3}));
}

TEST(CursorPager, ARepeatedCursorIsAPaginationError) {
  HttpTestServer server;
  serve(server, {{"", {{1}, kCursor2}}, {kCursor2, {{2}, kCursor2}}});
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_TRUE(pager.done());
  EXPECT_EQ(server.request_count(), 2U);  // the repeated cursor is never requested
}

TEST(CursorPager, AnEmptyCursorLeadsBackToTheStartAndIsAPaginationError) {
  // Only an absent nextCursor ends a cursor listing; "" would ask for the first page again.
  HttpTestServer server;
  serve(server, {{"", {{1}, ""}}});
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(CursorPager, AnErrorEndsTheWalk) {
  // As a Python generator that raised: the error once, then nothing, and nothing more is requested.
  HttpTestServer server;
  serve(server, {{"", {{1}, kCursor2}}});  // kCursor2 is not served: 404
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  ASSERT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), NotFoundError);
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_TRUE(pager.done());
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(CursorPager, TheFetchIsToldHowManyItemsAreStillWanted) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  std::vector<std::optional<std::size_t>> wanted;
  auto pager = pull_requests(client, &wanted);
  pager.max_results(4);
  while (pager.next_page()) {
  }
  // Pages of 2, 1 and 2 items: 4 wanted, then 2, then 1.
  EXPECT_EQ(wanted, (std::vector<std::optional<std::size_t>>{4, 2, 1}));
}

// ---- the listing cursor: max_results, the rest of a half-read page, the counts ---------------------------------

std::vector<std::size_t> page_sizes(Pager<NumberPage>& pager) {
  std::vector<std::size_t> sizes;
  while (auto page = pager.next_page()) sizes.push_back(page->numbers.size());
  return sizes;
}

TEST(ListingCursor, MaxResultsCutsThePageThatCrossesItWhicheverWayTheListingIsRead) {
  // Pages of 2, 1 and 2, a budget of 4: the pages are [2, 1, 1]; items, drains and the iterator stop at 4 too.
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto by_pages = pull_requests(client);
  by_pages.max_results(4);
  EXPECT_EQ(page_sizes(by_pages), (std::vector<std::size_t>{2, 1, 1}));
  auto by_items = pull_requests(client);
  by_items.max_results(4);
  std::vector<int> taken;
  while (auto number = by_items.take_item()) taken.push_back(*number);
  EXPECT_EQ(taken, (std::vector<int>{1, 2, 3, 4}));
  auto drained = pull_requests(client);
  drained.max_results(4);
  std::vector<int> sunk;
  drained.drain([&](std::span<int> page) { sunk.insert(sunk.end(), page.begin(), page.end()); });
  EXPECT_EQ(sunk, taken);
  auto iterated = pull_requests(client);
  iterated.max_results(4);
  std::vector<int> seen;
  for (int number : iterated) seen.push_back(number);
  EXPECT_EQ(seen, taken);
  EXPECT_TRUE(iterated.finished());
}

TEST(ListingCursor, APageAfterSomeOfItsItemsIsTheRestOfIt) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  EXPECT_EQ(pager.take_item(), 1);
  EXPECT_EQ(pager.unread(), 1U);
  const auto rest = pager.next_page();
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(rest->numbers, (std::vector<int>{2}));
  EXPECT_EQ(pager.unread(), 0U);
  EXPECT_EQ(pager.take_item(), 3);  // the next page, fetched
  EXPECT_EQ(pager.take_item(), 4);
  std::vector<int> drained;
  pager.drain([&](std::span<int> page) { drained.insert(drained.end(), page.begin(), page.end()); });
  EXPECT_EQ(drained, (std::vector<int>{5}));
  EXPECT_FALSE(pager.take_item().has_value());
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_EQ(server.request_count(), 3U);  // every page once
}

TEST(ListingCursor, CountsSayWhatWasFetchedAndHandedOut) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  pager.max_results(4);
  std::vector<std::size_t> reported;
  pager.on_page([&](const NumberPage& page) { reported.push_back(page.numbers.size()); });
  EXPECT_EQ(pager.counts().pages, 0U);
  pager.take_item();
  pager.take_item();
  pager.take_item();
  ListingCounts counts = pager.counts();
  EXPECT_EQ(counts.pages, 2U);
  EXPECT_EQ(counts.items, 3U);
  EXPECT_EQ(counts.given, 3U);
  EXPECT_FALSE(counts.total.has_value());  // NumberPage says no total
  EXPECT_FALSE(pager.finished());
  EXPECT_EQ(page_sizes(pager), (std::vector<std::size_t>{1}));  // the budget's last item, from page 3
  counts = pager.counts();
  EXPECT_EQ(counts.items, 5U);  // page 3 was fetched whole; one of its items was handed out
  EXPECT_EQ(counts.given, 4U);
  EXPECT_EQ(reported, (std::vector<std::size_t>{2, 1, 2}));
  EXPECT_TRUE(pager.finished());
}

TEST(ListingCursor, ABudgetOfNothingFetchesNothing) {
  HttpTestServer server;
  serve(server, three_served_pages());
  Client client(testing::test_options(server.base_url()));
  auto pager = pull_requests(client);
  pager.max_results(0);
  EXPECT_TRUE(pager.finished());
  EXPECT_FALSE(pager.take_item().has_value());
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_EQ(pager.begin(), std::default_sentinel_t{});
  bool ready = false;
  pager.when_ready([&] { ready = true; });
  EXPECT_TRUE(ready);  // at once: nothing more will be read
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(ListingCursor, AnInterruptedFetchLeavesNothingToReadTwice) {
  // Page 2's first fetch is interrupted (Ctrl-C): nothing of page 1 is handed out again, and the next read fetches
  // page 2 again and goes on.
  int attempts = 0;
  Pager<NumberPage> pager(
      [&attempts](const std::string& cursor, const FetchContext&) {
        if (cursor.empty()) return NumberPage{{1, 2}, "p2"};
        if (++attempts == 1) throw CancelledError("interrupted");
        return NumberPage{{3}, std::nullopt};
      },
      "");
  EXPECT_EQ(pager.take_item(), 1);
  EXPECT_EQ(pager.take_item(), 2);
  EXPECT_THROW(pager.take_item(), CancelledError);
  EXPECT_EQ(pager.unread(), 0U);
  EXPECT_FALSE(pager.finished());
  EXPECT_EQ(pager.take_item(), 3);
  EXPECT_FALSE(pager.take_item().has_value());
  EXPECT_EQ(pager.counts().given, 3U);
}

}  // namespace
}  // namespace trunk
