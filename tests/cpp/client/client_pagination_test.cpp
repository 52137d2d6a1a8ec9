// Lazy pagination: every test of every page in order, page-by-page stepping, the end of a listing, empty
// listings and pages, and a server that repeats a page token.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <ranges>
#include <string>
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

static_assert(std::ranges::input_range<TestPager>);

/// Serves pages keyed by the page_token the client sends ("" for the first page).
void serve_pages(HttpTestServer& server, std::map<std::string, std::string> pages) {
  server.set_handler([pages = std::move(pages)](const httplib::Request& request, httplib::Response& response) {
    const auto body = nlohmann::json::parse(request.body);
    const std::string token = body["page_query"].value("page_token", "");
    const auto found = pages.find(token);
    if (found == pages.end()) {
      response.status = 500;
      response.set_content("unknown page token", "text/plain");
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
  request.page_query.page_size = 3;
  return request;
}

std::vector<std::string> sent_tokens(const HttpTestServer& server) {
  std::vector<std::string> tokens;
  for (const auto& request : server.requests()) {
    const auto body = nlohmann::json::parse(request.body);
    tokens.push_back(body["page_query"].contains("page_token") ? body["page_query"]["page_token"].get<std::string>()
                                                               : "<absent>");
  }
  return tokens;
}

TEST(ClientPagination, IteratesEveryTestOfThreePagesInOrder) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1), uuid_for(2), uuid_for(3)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(4), uuid_for(5), uuid_for(6)}, "p3", 1)},
                       {"p3", testing::page_json({uuid_for(7)}, "", 2)}});
  Client client(testing::test_options(server.base_url()));

  std::vector<std::string> ids;
  for (const TestCase& test : client.failing_tests(failing_request())) ids.push_back(test.id.value_or("?"));

  EXPECT_EQ(ids, (std::vector<std::string>{uuid_for(1), uuid_for(2), uuid_for(3), uuid_for(4), uuid_for(5),
                                           uuid_for(6), uuid_for(7)}));
  EXPECT_EQ(sent_tokens(server), (std::vector<std::string>{"<absent>", "p2", "p3"}));
  for (const auto& request : server.requests()) EXPECT_EQ(request.path, "/v1/flaky-tests/list-failing-tests");
}

TEST(ClientPagination, NextPageStepsPageByPageAndStopsAtTheEmptyToken) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(2)}, "p3", 1)},
                       {"p3", testing::page_json({uuid_for(3)}, "", 2)}});
  Client client(testing::test_options(server.base_url()));
  ListUnhealthyTestsRequest request;
  request.repo = testing::sample_repo();
  request.org_url_slug = "trunk-org";
  TestPager pager = client.unhealthy_tests(request);
  EXPECT_EQ(server.request_count(), 0U);  // lazy: nothing fetched until asked

  std::vector<std::int64_t> indexes;
  while (auto page = pager.next_page()) indexes.push_back(page->page.page_index.value_or(-1));
  EXPECT_EQ(indexes, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(pager.done());
  EXPECT_EQ(pager.pages_fetched(), 3U);
  EXPECT_FALSE(pager.next_page().has_value());
  EXPECT_EQ(server.request_count(), 3U);  // nothing fetched after the last page
}

TEST(ClientPagination, StartsFromTheRequestedPageToken) {
  HttpTestServer server;
  serve_pages(server, {{"p2", testing::page_json({uuid_for(4)}, "p3", 1)},
                       {"p3", testing::page_json({uuid_for(7)}, "", 2)}});
  Client client(testing::test_options(server.base_url()));
  ListFailingTestsRequest request = failing_request();
  request.page_query.page_token = "p2";
  std::vector<std::string> ids;
  for (const TestCase& test : client.failing_tests(request)) ids.push_back(*test.id);
  EXPECT_EQ(ids, (std::vector<std::string>{uuid_for(4), uuid_for(7)}));
}

TEST(ClientPagination, EmptyListingYieldsNothingAfterOneRequest) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({}, "", 0)}});
  Client client(testing::test_options(server.base_url()));
  int count = 0;
  for (const TestCase& test : client.failing_tests(failing_request())) {
    (void)test;
    ++count;
  }
  EXPECT_EQ(count, 0);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(ClientPagination, EmptyPagesInTheMiddleAreSkipped) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({}, "p3", 1)},
                       {"p3", testing::page_json({uuid_for(3)}, "", 2)}});
  Client client(testing::test_options(server.base_url()));
  std::vector<std::string> ids;
  for (const TestCase& test : client.failing_tests(failing_request())) ids.push_back(*test.id);
  EXPECT_EQ(ids, (std::vector<std::string>{uuid_for(1), uuid_for(3)}));
}

TEST(ClientPagination, RepeatedTokenRaisesPaginationErrorInsteadOfLooping) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "p2", 0)},
                       {"p2", testing::page_json({uuid_for(2)}, "p2", 1)}});
  Client client(testing::test_options(server.base_url()));
  std::vector<std::string> ids;
  try {
    for (const TestCase& test : client.failing_tests(failing_request())) ids.push_back(*test.id);
    FAIL() << "expected PaginationError";
  } catch (const PaginationError& error) {
    // Says what happened without quoting the token: a hostile server could echo anything as a page token.
    EXPECT_NE(std::string(error.what()).find("already returned"), std::string::npos) << error.what();
  }
  EXPECT_EQ(ids, std::vector<std::string>{uuid_for(1)});
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ClientPagination, TokenLeadingBackToAnEarlierPageIsAlsoCaught) {
  HttpTestServer server;
  serve_pages(server, {{"a", testing::page_json({uuid_for(1)}, "b", 0)},
                       {"b", testing::page_json({uuid_for(2)}, "a", 1)}});
  Client client(testing::test_options(server.base_url()));
  ListFailingTestsRequest request = failing_request();
  request.page_query.page_token = "a";
  TestPager pager = client.failing_tests(request);
  EXPECT_TRUE(pager.next_page().has_value());
  EXPECT_THROW(pager.next_page(), PaginationError);
  EXPECT_FALSE(pager.next_page().has_value());  // and the pager stays stopped
  EXPECT_EQ(server.request_count(), 2U);
}

TEST(ClientPagination, ErrorsOfAPageFetchPropagate) {
  HttpTestServer server;
  serve_pages(server, {{"", testing::page_json({uuid_for(1)}, "gone", 0)}});  // "gone" answers 500
  ClientOptions options = testing::test_options(server.base_url());
  options.retry.max_retries = 1;
  Client client(std::move(options));
  std::vector<std::string> ids;
  EXPECT_THROW(
      {
        for (const TestCase& test : client.failing_tests(failing_request())) ids.push_back(*test.id);
      },
      ServerError);
  EXPECT_EQ(ids, std::vector<std::string>{uuid_for(1)});
  EXPECT_EQ(server.request_count(), 3U);  // the first page, then the bad token tried twice
}

}  // namespace
}  // namespace trunk
