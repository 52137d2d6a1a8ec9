// The sandbox splices cached per-test JSON into its pages (encoded_tests.hpp). These tests hold it to the
// encoding it replaced: every page and detail reply must be byte for byte trunk::to_json(<model>).dump() of
// the same answer built from the history (to_test_case), whatever the window, page size, listing or cache
// budget (including a budget too small to keep anything), and under concurrent workers.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "generator.hpp"
#include "service.hpp"
#include "trunk/codec.hpp"
#include "trunk/time.hpp"

namespace sandbox_test {
namespace {

using trunk::Json;
using trunk::sandbox::History;
using trunk::sandbox::Service;

constexpr const char* kToken = "cache-test-token";
constexpr const char* kOrg = "cache-org";
constexpr std::int64_t kHourUs = 3'600'000'000;

trunk::Timestamp now() { return trunk::parse_rfc3339("2026-11-20T12:00:00Z"); }

History history() { return trunk::sandbox::generate_history(7, 900, now()); }

std::unique_ptr<Service> make_service(std::size_t budget) {
  return std::make_unique<Service>(history(), kToken, kOrg, std::make_unique<trunk::sandbox::QueueStore>(""),
                                   trunk::sandbox::PageTokens(11, 12), budget);
}

Json repo_json(const trunk::Repo& repo) { return {{"host", repo.host}, {"owner", repo.owner}, {"name", repo.name}}; }

/// What the service encoded before the cache: the whole TestPage as one nlohmann DOM, dumped.
std::string reference_page(const trunk::sandbox::RepoHistory& repo, const std::vector<std::uint32_t>& rows,
                           std::size_t offset, std::size_t count, const trunk::PageInfo& info, bool with_failure_fields,
                           trunk::Timestamp at) {
  trunk::TestPage page;
  for (std::size_t i = offset; i < offset + count; ++i) {
    const auto& test = repo.tests[rows[i]];
    page.tests.push_back(trunk::sandbox::to_test_case(repo, test, trunk::sandbox::derive(repo, test, at), kOrg,
                                                      with_failure_fields));
  }
  page.page = info;
  return trunk::to_json(page).dump();
}

/// Pages through one listing, checking every page against the reference; returns the bodies.
std::vector<std::string> check_listing(Service& service, const std::string& path, Json body,
                                       const trunk::sandbox::RepoHistory& repo,
                                       const std::vector<std::uint32_t>& rows, bool with_failure_fields) {
  std::vector<std::string> bodies;
  const auto page_size = body["page_query"]["page_size"].get<std::size_t>();
  std::string token;
  std::size_t offset = 0;
  do {
    if (!token.empty()) body["page_query"]["page_token"] = token;
    const auto reply = service.handle("POST", path, std::string(kToken), body.dump());
    EXPECT_EQ(reply.status, 200) << reply.body;
    if (reply.status != 200) break;
    const auto info = trunk::from_json<trunk::PageInfo>(Json::parse(reply.body)["page"]);
    const std::size_t count = std::min(page_size, rows.size() - offset);
    EXPECT_EQ(reply.body, reference_page(repo, rows, offset, count, info, with_failure_fields, now()))
        << path << " offset " << offset;
    bodies.push_back(reply.body);
    token = info.next_page_token.value_or("");
    offset += count;
  } while (!token.empty());
  EXPECT_EQ(offset, rows.size());
  return bodies;
}

std::vector<std::uint32_t> failing_rows(const trunk::sandbox::RepoHistory& repo, std::int64_t start, std::int64_t end) {
  std::vector<std::uint32_t> rows;
  for (std::uint32_t t = 0; t < repo.tests.size(); ++t) {
    if (trunk::sandbox::failed_in(repo.tests[t], start, end)) rows.push_back(t);
  }
  return rows;
}

Json failing_body(const trunk::sandbox::RepoHistory& repo, std::int64_t start, std::int64_t end, int page_size) {
  return {{"repo", repo_json(repo.repo)},
          {"org_url_slug", kOrg},
          {"start_time", trunk::format_rfc3339(trunk::sandbox::from_micros(start))},
          {"end_time", trunk::format_rfc3339(trunk::sandbox::from_micros(end))},
          {"page_query", {{"page_size", page_size}}}};
}

class TestJsonCacheBytes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TestJsonCacheBytes, FailingPagesEqualTheDomEncodingForManyWindowsAndPageSizes) {
  auto service = make_service(GetParam());
  const std::int64_t end = trunk::sandbox::to_micros(now());
  const struct { std::int64_t start, end; } windows[] = {
      {end - 7 * 24 * kHourUs, end}, {end - 24 * kHourUs, end}, {end - 27 * 24 * kHourUs, end - 20 * 24 * kHourUs},
      {end - kHourUs, end}, {end - 2 * kHourUs, end - kHourUs}};
  for (std::size_t r = 0; r < service->history().repos.size(); ++r) {
    const auto& repo = service->history().repos[r];
    for (const auto& window : windows) {
      for (int page_size : {1, 7, 100}) {
        if (page_size == 1 && r != 2) continue;  // one-test pages: the smallest repository is enough
        check_listing(*service, std::string(trunk::paths::kListFailingTests),
                      failing_body(repo, window.start, window.end, page_size), repo,
                      failing_rows(repo, window.start, window.end), true);
      }
    }
  }
  EXPECT_LE(service->test_json_cache().cached_bytes(), GetParam());
}

TEST_P(TestJsonCacheBytes, UnhealthyPagesOmitTheFailureFieldsExactlyAsTheDomEncoding) {
  auto service = make_service(GetParam());
  for (const auto& repo : service->history().repos) {
    for (const auto health : {trunk::sandbox::Health::flaky, trunk::sandbox::Health::broken}) {
      const char* status = health == trunk::sandbox::Health::flaky ? "FLAKY" : "BROKEN";
      std::vector<std::uint32_t> rows;
      for (std::uint32_t t = 0; t < repo.tests.size(); ++t) {
        if (trunk::sandbox::derive(repo, repo.tests[t], now()).health == health) rows.push_back(t);
      }
      ASSERT_FALSE(rows.empty()) << status;
      Json body = {{"repo", repo_json(repo.repo)}, {"org_url_slug", kOrg}, {"status", status},
                   {"page_query", {{"page_size", 50}}}};
      check_listing(*service, std::string(trunk::paths::kListUnhealthyTests), body, repo, rows, false);
    }
  }
  // The same test after its failing variant was cached: the variants do not share a slot.
  const auto& repo = service->history().repos[0];
  const std::int64_t end = trunk::sandbox::to_micros(now());
  check_listing(*service, std::string(trunk::paths::kListFailingTests), failing_body(repo, end - 7 * 24 * kHourUs, end, 100),
                repo, failing_rows(repo, end - 7 * 24 * kHourUs, end), true);
}

TEST_P(TestJsonCacheBytes, DetailsEqualTheDomEncodingForEveryTestAndRepeatRequests) {
  auto service = make_service(GetParam());
  for (const auto& repo : service->history().repos) {
    for (const auto& test : repo.tests) {
      trunk::TestDetails details;
      details.test = trunk::sandbox::to_test_case(repo, test, trunk::sandbox::derive(repo, test, now()), kOrg, true);
      const std::string expected = trunk::to_json(details).dump();
      // Upper-case id: the lookup ignores case, the answer carries the stored (lower-case) id.
      std::string id = test.id;
      for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const Json body = {{"repo", repo_json(repo.repo)}, {"org_url_slug", kOrg}, {"test_id", id}};
      for (int repeat = 0; repeat < 2; ++repeat) {  // miss, then hit
        const auto reply = service->handle("POST", trunk::paths::kGetTestDetails, std::string(kToken), body.dump());
        ASSERT_EQ(reply.status, 200) << reply.body;
        ASSERT_EQ(reply.body, expected) << test.id;
      }
    }
  }
  EXPECT_LE(service->test_json_cache().cached_bytes(), GetParam());
}

// The default budget; a budget that fits part of the data (the rest is encoded per request); none at all.
INSTANTIATE_TEST_SUITE_P(Budgets, TestJsonCacheBytes,
                         ::testing::Values(trunk::sandbox::kDefaultTestJsonCacheBytes, std::size_t{20000}, std::size_t{0}));

TEST(TestJsonCache, KeepsWhatFitsTheBudgetAndNothingWhenTheBudgetIsZero) {
  auto full = make_service(trunk::sandbox::kDefaultTestJsonCacheBytes);
  auto none = make_service(0);
  const auto& repo = full->history().repos[0];
  const Json body = {{"repo", repo_json(repo.repo)}, {"org_url_slug", kOrg}, {"test_id", repo.tests[0].id}};
  EXPECT_EQ(full->test_json_cache().cached_bytes(), 0u);
  const auto first = full->handle("POST", trunk::paths::kGetTestDetails, std::string(kToken), body.dump());
  // {"test":...} around exactly the cached fragment.
  EXPECT_EQ(full->test_json_cache().cached_bytes(), first.body.size() - std::string(R"({"test":})").size());
  EXPECT_EQ(none->handle("POST", trunk::paths::kGetTestDetails, std::string(kToken), body.dump()).body, first.body);
  EXPECT_EQ(none->test_json_cache().cached_bytes(), 0u);
}

TEST(TestJsonCache, ConcurrentWorkersMissingTheSameTestsAllServeIdenticalPages) {
  auto reference = make_service(0);
  const auto& repo = reference->history().repos[0];
  const std::int64_t end = trunk::sandbox::to_micros(now());
  const Json body = failing_body(repo, end - 7 * 24 * kHourUs, end, 100);
  const auto expected = check_listing(*reference, std::string(trunk::paths::kListFailingTests), body, repo,
                                      failing_rows(repo, end - 7 * 24 * kHourUs, end), true);
  ASSERT_GT(expected.size(), 3u);

  for (std::size_t budget : {trunk::sandbox::kDefaultTestJsonCacheBytes, std::size_t{50000}}) {
    auto shared = make_service(budget);
    constexpr int kWorkers = 16;
    std::vector<std::vector<std::string>> seen(kWorkers);
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back([&, w] {
        Json request = body;
        std::string token;
        do {
          if (!token.empty()) request["page_query"]["page_token"] = token;
          const auto reply = shared->handle("POST", trunk::paths::kListFailingTests, std::string(kToken), request.dump());
          seen[static_cast<std::size_t>(w)].push_back(reply.body);
          if (reply.status != 200) break;
          token = Json::parse(reply.body)["page"]["next_page_token"].get<std::string>();
        } while (!token.empty());
      });
    }
    for (auto& worker : workers) worker.join();
    for (const auto& pages : seen) EXPECT_EQ(pages, expected) << "budget " << budget;
    EXPECT_LE(shared->test_json_cache().cached_bytes(), budget);
  }
}

}  // namespace
}  // namespace sandbox_test
