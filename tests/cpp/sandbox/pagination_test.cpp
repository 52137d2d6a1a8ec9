// Pagination: walking every page yields each row once, page_index / totals / tokens are consistent, and a
// token issued for another query (or not issued here at all) is answered 500 like the real service.
#include <gtest/gtest.h>

#include <set>

#include "page_token.hpp"
#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kListFailingTests;
using trunk::paths::kListUnhealthyTests;

class Pagination : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sandbox_ = start_sandbox(small_options(400)).release(); }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }
  static trunk::sandbox::Sandbox* sandbox_;

  static Json week(int page_size, const std::string& token = "") {
    return failing_body(sandbox(), fixed_now() - std::chrono::hours(24 * 7), fixed_now(), page_size, token);
  }
  static Json page(const Json& body) {
    const auto reply = post(sandbox(), std::string(kListFailingTests), body);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply.status == 200 ? reply.json() : Json::object();
  }
};
trunk::sandbox::Sandbox* Pagination::sandbox_ = nullptr;

TEST_F(Pagination, WalkingNextTokensYieldsEveryRowExactlyOnce) {
  const int size = 7;
  std::vector<std::string> ids;
  std::string token;
  std::int64_t expected_index = 0;
  std::int64_t total_rows = -1, total_pages = -1;
  for (;;) {
    const Json reply = page(week(size, token));
    const Json& info = reply["page"];
    if (total_rows < 0) {
      total_rows = info["total_rows"];
      total_pages = info["total_pages"];
    }
    EXPECT_EQ(info["total_rows"], total_rows);
    EXPECT_EQ(info["total_pages"], total_pages);
    EXPECT_EQ(info["page_index"], expected_index);
    EXPECT_EQ(info["prev_page_token"] == "", expected_index == 0);
    const bool last = expected_index == total_pages - 1;
    EXPECT_EQ(reply["tests"].size(), last ? static_cast<std::size_t>(total_rows - size * (total_pages - 1)) : size);
    for (const auto& test : reply["tests"]) ids.push_back(test["id"]);
    ++expected_index;
    token = info["next_page_token"];
    EXPECT_EQ(token.empty(), last);
    EXPECT_EQ(info["last_page_token"] == "", last);
    if (token.empty()) break;
    ASSERT_LT(expected_index, 10'000) << "runaway pagination";
  }
  ASSERT_GT(total_rows, 2 * size) << "the window should span several pages";
  EXPECT_EQ(total_pages, (total_rows + size - 1) / size);
  EXPECT_EQ(static_cast<std::int64_t>(ids.size()), total_rows);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size()) << "a row appeared twice";

  // Stable order: one big page holds the same ids in the same order.
  std::vector<std::string> at_once;
  std::string next;
  do {
    const Json reply = page(week(100, next));
    for (const auto& test : reply["tests"]) at_once.push_back(test["id"]);
    next = reply["page"]["next_page_token"];
  } while (!next.empty());
  EXPECT_EQ(at_once, ids);
}

TEST_F(Pagination, PrevAndLastTokensLeadToThePagesTheyName) {
  const Json first = page(week(5));
  const Json second = page(week(5, first["page"]["next_page_token"]));
  EXPECT_EQ(second["page"]["page_index"], 1);
  const Json back = page(week(5, second["page"]["prev_page_token"]));
  EXPECT_EQ(back["page"]["page_index"], 0);
  EXPECT_EQ(back["tests"], first["tests"]);
  const Json last = page(week(5, first["page"]["last_page_token"]));
  EXPECT_EQ(last["page"]["page_index"], first["page"]["total_pages"].get<int>() - 1);
  EXPECT_EQ(last["page"]["next_page_token"], "");
  EXPECT_EQ(last["page"]["last_page_token"], "");  // decision: "" on the last page itself
  EXPECT_NE(last["page"]["prev_page_token"], "");
}

TEST_F(Pagination, SinglePageAndEmptyResults) {
  const auto far_past = fixed_now() - std::chrono::hours(24 * 365);
  const auto reply = post(sandbox(), std::string(kListFailingTests),
                          failing_body(sandbox(), far_past, far_past + std::chrono::hours(24), 10));
  ASSERT_EQ(reply.status, 200);
  const Json empty = reply.json();
  EXPECT_TRUE(empty["tests"].empty());
  EXPECT_EQ(empty["page"]["total_rows"], 0);
  EXPECT_EQ(empty["page"]["total_pages"], 0);
  EXPECT_EQ(empty["page"]["page_index"], 0);
  for (const char* token : {"next_page_token", "prev_page_token", "last_page_token"}) EXPECT_EQ(empty["page"][token], "");

  const Json one = page(week(100));
  ASSERT_GT(one["page"]["total_rows"].get<int>(), 0);
  const Json all_in_one_page = page(failing_body(sandbox(), fixed_now() - std::chrono::hours(2), fixed_now(), 100));
  EXPECT_LE(all_in_one_page["page"]["total_pages"].get<int>(), 1);
  EXPECT_EQ(all_in_one_page["page"]["next_page_token"], "");
}

TEST_F(Pagination, UnhealthyListingPagesToo) {
  for (const char* status : {"FLAKY", "BROKEN"}) {
    Json body = {{"repo", repo_json(sandbox().repos().at(0))},
                 {"org_url_slug", sandbox().org_url_slug()},
                 {"status", status},
                 {"page_query", {{"page_size", 4}}}};
    std::set<std::string> ids;
    std::int64_t total = -1;
    for (int pages = 0;; ++pages) {
      ASSERT_LT(pages, 1000);
      const auto reply = post(sandbox(), std::string(kListUnhealthyTests), body);
      ASSERT_EQ(reply.status, 200) << reply.body;
      const Json json = reply.json();
      total = json["page"]["total_rows"];
      for (const auto& test : json["tests"]) {
        EXPECT_TRUE(ids.insert(test["id"]).second);
        EXPECT_EQ(test["status"]["value"], status == std::string("FLAKY") ? "flaky" : "broken");
        // The unhealthy listing carries no failure fields.
        EXPECT_FALSE(test.contains("most_common_failures"));
        EXPECT_FALSE(test.contains("failure_rate_last_7d"));
        EXPECT_FALSE(test.contains("failure_rate_last_24h"));
      }
      const std::string next = json["page"]["next_page_token"];
      if (next.empty()) break;
      body["page_query"]["page_token"] = next;
    }
    EXPECT_GT(total, 0) << status;
    EXPECT_EQ(static_cast<std::int64_t>(ids.size()), total);
  }
}

TEST_F(Pagination, TokensOfAnotherQueryOrForgedAre500) {
  const std::string token = page(week(5))["page"]["next_page_token"];
  ASSERT_FALSE(token.empty());
  auto status_with = [&](Json body) { return post(sandbox(), std::string(kListFailingTests), body).status; };
  EXPECT_EQ(status_with(week(5, token)), 200);
  EXPECT_EQ(status_with(week(6, token)), 500) << "page size is part of the query";
  EXPECT_EQ(status_with(failing_body(sandbox(), fixed_now() - std::chrono::hours(24 * 6), fixed_now(), 5, token)), 500);
  Json other_repo = week(5, token);
  other_repo["repo"] = repo_json(sandbox().repos().at(1));
  EXPECT_EQ(status_with(other_repo), 500);
  std::string tampered = token;
  tampered[3] = tampered[3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(status_with(week(5, tampered)), 500);
  EXPECT_EQ(status_with(week(5, "garbage")), 500);
  EXPECT_EQ(status_with(week(5, token + "A")), 500);
  // A failing-tests token is not an unhealthy-tests token.
  const auto unhealthy = post(sandbox(), std::string(kListUnhealthyTests),
                              Json{{"repo", repo_json(sandbox().repos().at(0))},
                                   {"org_url_slug", sandbox().org_url_slug()},
                                   {"status", "FLAKY"},
                                   {"page_query", {{"page_size", 5}, {"page_token", token}}}});
  EXPECT_EQ(unhealthy.status, 500);
  EXPECT_NE(unhealthy.body.find("page_token"), std::string::npos);
}

TEST_F(Pagination, TokensOfASandboxWithAnotherSeedAreForeign) {
  auto options = small_options(400);
  options.seed = 7;
  auto other = start_sandbox(options);
  const auto body = failing_body(*other, fixed_now() - std::chrono::hours(24 * 7), fixed_now(), 5);
  const auto reply = post(*other, std::string(kListFailingTests), body);
  ASSERT_EQ(reply.status, 200);
  const std::string foreign = reply.json()["page"]["next_page_token"];
  EXPECT_EQ(post(sandbox(), std::string(kListFailingTests), week(5, foreign)).status, 500);
}

TEST(PageTokens, OpenAcceptsOnlyWhatIssueGaveForTheSameQuery) {
  const trunk::sandbox::PageTokens tokens(1, 2);
  const auto digest = tokens.query_digest("query a");
  for (std::uint32_t offset : {0U, 1U, 100U, 4294967295U}) {
    const std::string token = tokens.issue(digest, offset);
    EXPECT_EQ(tokens.open(token, digest), offset);
    EXPECT_EQ(tokens.open(token, tokens.query_digest("query b")), std::nullopt);
    EXPECT_EQ(trunk::sandbox::PageTokens(1, 3).open(token, digest), std::nullopt) << "another key";
    for (char c : token) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << token;
  }
  EXPECT_EQ(tokens.open("", digest), std::nullopt);
}

TEST(PageTokens, SipHashMatchesTheReferenceVector) {
  // Test vector of the SipHash paper: key 00..0f, message 00..0e (15 bytes) -> a129ca6149be45e5.
  std::string message;
  for (int i = 0; i < 15; ++i) message += static_cast<char>(i);
  EXPECT_EQ(trunk::sandbox::siphash24(0x0706050403020100ULL, 0x0F0E0D0C0B0A0908ULL, message), 0xA129CA6149BE45E5ULL);
}

}  // namespace
}  // namespace sandbox_test
