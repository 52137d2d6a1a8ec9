// Everything the API reports follows from the generated runs. The expected answers are computed here,
// independently, from the history as save_data writes it (the data-file JSON), not from sandbox internals.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kGetTestDetails;
using trunk::paths::kListFailingTests;
using trunk::paths::kListUnhealthyTests;

constexpr std::int64_t kHourUs = 3'600'000'000;

std::int64_t micros(trunk::Timestamp t) { return t.time_since_epoch().count(); }

class DataConsistency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sandbox_ = start_sandbox(small_options(600)).release();
    dir_ = new TempDir();
    sandbox_->save_data(dir_->file("data.json"));
    data_ = new Json(Json::parse(read_text(dir_->file("data.json"))));
  }
  static void TearDownTestSuite() {
    delete sandbox_;
    delete data_;
    delete dir_;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }
  static const Json& repo_data(std::size_t i) { return (*data_)["repos"][i]; }

  /// Ids with a failing run in [start, end), computed from the saved runs.
  static std::set<std::string> expected_failing(const Json& repo, std::int64_t start, std::int64_t end) {
    std::set<std::string> ids;
    for (const auto& test : repo["tests"]) {
      for (const auto& run : test["runs"]) {
        const std::int64_t t = run[0];
        if (run[2].get<int>() >= 0 && t >= start && t < end) {
          ids.insert(test["id"]);
          break;
        }
      }
    }
    return ids;
  }

  static std::vector<Json> list_all(const Json& repo, trunk::Timestamp start, trunk::Timestamp end) {
    Json body = {{"repo", {{"host", repo["host"]}, {"owner", repo["owner"]}, {"name", repo["name"]}}},
                 {"org_url_slug", sandbox().org_url_slug()},
                 {"start_time", trunk::format_rfc3339(start)},
                 {"end_time", trunk::format_rfc3339(end)},
                 {"page_query", {{"page_size", 100}}}};
    std::vector<Json> tests;
    for (int pages = 0; pages < 1000; ++pages) {
      const auto reply = post(sandbox(), std::string(kListFailingTests), body);
      EXPECT_EQ(reply.status, 200) << reply.body;
      if (reply.status != 200) break;
      const Json json = reply.json();
      for (const auto& test : json["tests"]) tests.push_back(test);
      const std::string next = json["page"]["next_page_token"];
      if (next.empty()) break;
      body["page_query"]["page_token"] = next;
    }
    return tests;
  }

  static trunk::sandbox::Sandbox* sandbox_;
  static TempDir* dir_;
  static Json* data_;
};
trunk::sandbox::Sandbox* DataConsistency::sandbox_ = nullptr;
TempDir* DataConsistency::dir_ = nullptr;
Json* DataConsistency::data_ = nullptr;

TEST_F(DataConsistency, SavedHistoryDescribesTheServedRepositories) {
  EXPECT_EQ((*data_)["now"], "2026-11-20T12:00:00Z");
  const auto repos = sandbox().repos();
  ASSERT_EQ((*data_)["repos"].size(), repos.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < repos.size(); ++r) {
    EXPECT_EQ(repo_data(r)["host"], repos[r].host);
    EXPECT_EQ(repo_data(r)["owner"], repos[r].owner);
    EXPECT_EQ(repo_data(r)["name"], repos[r].name);
    total += repo_data(r)["tests"].size();
    EXPECT_GT(repo_data(r)["tests"].size(), 0U);
  }
  EXPECT_EQ(total, 600U);
}

TEST_F(DataConsistency, FailingListEqualsTestsWithAFailingRunInTheWindow) {
  const auto now = fixed_now();
  const std::pair<trunk::Timestamp, trunk::Timestamp> windows[] = {
      {now - std::chrono::hours(24 * 7), now},
      {now - std::chrono::hours(24), now},
      {now - std::chrono::hours(24 * 20), now - std::chrono::hours(24 * 13)},
      {now - std::chrono::hours(72), now - std::chrono::hours(71)},
      {now - std::chrono::hours(24 * 3) + std::chrono::microseconds(123), now - std::chrono::hours(24 * 2)},
  };
  for (std::size_t r = 0; r < 2; ++r) {
    for (const auto& [start, end] : windows) {
      const auto expected = expected_failing(repo_data(r), micros(start), micros(end));
      std::set<std::string> actual;
      for (const auto& test : list_all(repo_data(r), start, end)) actual.insert(test["id"]);
      EXPECT_EQ(actual, expected) << "repo " << r << " window " << trunk::format_rfc3339(start) << " .. "
                                  << trunk::format_rfc3339(end);
    }
  }
  // The 7-day window holds most tests: the benchmarks list thousands of failing tests from one window.
  const auto week = expected_failing(repo_data(0), micros(now - std::chrono::hours(24 * 7)), micros(now));
  EXPECT_GT(week.size(), repo_data(0)["tests"].size() * 6 / 10);
}

TEST_F(DataConsistency, StartIsInclusiveAndEndExclusiveAtARunsExactTime) {
  // Take a failing run and place window edges exactly on it.
  const Json* chosen = nullptr;
  std::int64_t at = 0;
  for (const auto& test : repo_data(0)["tests"]) {
    for (const auto& run : test["runs"]) {
      if (run[2].get<int>() >= 0 && run[0].get<std::int64_t>() < micros(fixed_now()) - 2 * kHourUs) {
        chosen = &test;
        at = run[0];
      }
    }
    if (chosen != nullptr) break;
  }
  ASSERT_NE(chosen, nullptr);
  const auto t = trunk::Timestamp(std::chrono::microseconds(at));
  auto ids_of = [&](trunk::Timestamp start, trunk::Timestamp end) {
    std::set<std::string> ids;
    for (const auto& test : list_all(repo_data(0), start, end)) ids.insert(test["id"]);
    return ids;
  };
  EXPECT_EQ(ids_of(t, t + std::chrono::microseconds(1)).count((*chosen)["id"]), 1U) << "start is inclusive";
  EXPECT_EQ(ids_of(t - std::chrono::microseconds(1), t).count((*chosen)["id"]), 0U) << "end is exclusive";
}

TEST_F(DataConsistency, RatesPullRequestsAndFailuresFollowFromTheRuns) {
  const std::int64_t now = micros(fixed_now());
  const Json& repo = repo_data(0);
  int checked = 0;
  for (const auto& test : repo["tests"]) {
    if (checked++ >= 60) break;
    int runs7 = 0, fails7 = 0, runs24 = 0, fails24 = 0;
    std::set<std::int64_t> prs;
    std::map<int, std::pair<std::int64_t, std::int64_t>> kinds;  // kind -> (count, last)
    for (const auto& run : test["runs"]) {
      const std::int64_t t = run[0];
      const int kind = run[2];
      if (kind >= 0 && t < now) {
        kinds[kind].first++;
        kinds[kind].second = std::max(kinds[kind].second, t);
      }
      if (t < now - 168 * kHourUs || t >= now) continue;
      ++runs7;
      if (t >= now - 24 * kHourUs) ++runs24;
      if (kind < 0) continue;
      ++fails7;
      if (t >= now - 24 * kHourUs) ++fails24;
      prs.insert(run[1].get<std::int64_t>());
    }
    const auto reply = post(sandbox(), std::string(kGetTestDetails),
                            Json{{"repo", repo_json(sandbox().repos().at(0))},
                                 {"org_url_slug", sandbox().org_url_slug()},
                                 {"test_id", test["id"]}});
    ASSERT_EQ(reply.status, 200) << reply.body;
    const Json got = reply.json()["test"];
    const double rate7 = got["failure_rate_last_7d"];
    const double rate24 = got["failure_rate_last_24h"];
    EXPECT_GE(rate7, 0.0);
    EXPECT_LE(rate7, 1.0);
    EXPECT_GE(rate24, 0.0);
    EXPECT_LE(rate24, 1.0);
    EXPECT_DOUBLE_EQ(rate7, runs7 == 0 ? 0.0 : static_cast<double>(fails7) / runs7);
    EXPECT_DOUBLE_EQ(rate24, runs24 == 0 ? 0.0 : static_cast<double>(fails24) / runs24);
    EXPECT_EQ(got["pull_requests_impacted_last_7d"], static_cast<std::int64_t>(prs.size()));
    // most_common_failures: the most frequent messages, with their counts and last occurrences.
    const auto& failures = got["most_common_failures"];
    EXPECT_EQ(failures.size(), std::min<std::size_t>(3, kinds.size()));
    std::int64_t previous_count = INT64_MAX;
    for (const auto& failure : failures) {
      const std::string summary = failure["summary"];
      const auto& messages = repo["failure_messages"];
      const auto it = std::find(messages.begin(), messages.end(), summary);
      ASSERT_NE(it, messages.end()) << summary;
      const int kind = static_cast<int>(it - messages.begin());
      EXPECT_EQ(failure["occurrence_count"], kinds[kind].first);
      EXPECT_EQ(trunk::parse_rfc3339(failure["last_occurrence"].get<std::string>()).time_since_epoch().count(),
                kinds[kind].second);
      EXPECT_LE(failure["occurrence_count"].get<std::int64_t>(), previous_count) << "sorted by count";
      previous_count = failure["occurrence_count"];
    }
    // Every field of the contract is present on details.
    for (const char* field : {"id", "repository", "html_url", "name", "variant", "status", "codeowners", "quarantined",
                              "file_path", "parent", "classname"}) {
      EXPECT_TRUE(got.contains(field)) << field;
    }
    EXPECT_EQ(got["name"], test["name"]);
    EXPECT_EQ(got["file_path"], test["file_path"]);
    EXPECT_EQ(got["quarantined"], test["quarantined"]);
    EXPECT_EQ(got.contains("ticket"), !test["ticket_url"].get<std::string>().empty());
  }
}

TEST_F(DataConsistency, FlakyAndBrokenClassificationFollowsFromTheRuns) {
  // Rule (documented in history.hpp): the last 3 runs failed -> broken; otherwise >= 2 failures and a pass in
  // the last 7 days -> flaky; else healthy.
  const std::int64_t now = micros(fixed_now());
  std::set<std::string> flaky, broken;
  for (const auto& test : repo_data(0)["tests"]) {
    std::vector<const Json*> runs;
    for (const auto& run : test["runs"]) {
      if (run[0].get<std::int64_t>() < now) runs.push_back(&run);
    }
    std::size_t streak = 0;
    for (auto it = runs.rbegin(); it != runs.rend() && (**it)[2].get<int>() >= 0; ++it) ++streak;
    int fails = 0, total = 0;
    for (const Json* run : runs) {
      if ((*run)[0].get<std::int64_t>() < now - 168 * kHourUs) continue;
      ++total;
      if ((*run)[2].get<int>() >= 0) ++fails;
    }
    if (streak >= 3) broken.insert(test["id"]);
    else if (fails >= 2 && total > fails) flaky.insert(test["id"]);
  }
  EXPECT_FALSE(flaky.empty());
  EXPECT_FALSE(broken.empty());
  for (auto [status, expected] : {std::pair<const char*, std::set<std::string>*>{"FLAKY", &flaky}, {"BROKEN", &broken}}) {
    Json body = {{"repo", repo_json(sandbox().repos().at(0))},
                 {"org_url_slug", sandbox().org_url_slug()},
                 {"status", status},
                 {"page_query", {{"page_size", 100}}}};
    std::set<std::string> actual;
    for (int pages = 0; pages < 100; ++pages) {
      const auto reply = post(sandbox(), std::string(kListUnhealthyTests), body);
      ASSERT_EQ(reply.status, 200);
      const Json json = reply.json();
      for (const auto& test : json["tests"]) actual.insert(test["id"]);
      if (json["page"]["next_page_token"] == "") break;
      body["page_query"]["page_token"] = json["page"]["next_page_token"];
    }
    EXPECT_EQ(actual, *expected) << status;
  }
}

TEST_F(DataConsistency, TestNamesLookBelievable) {
  const Json& tests = repo_data(0)["tests"];
  std::set<std::string> variants, owners;
  for (const auto& test : tests) {
    const std::string path = test["file_path"];
    EXPECT_EQ(path.rfind("tests/", 0), 0U) << path;
    EXPECT_EQ(path.substr(path.size() - 3), ".py");
    EXPECT_EQ(test["name"].get<std::string>().rfind("test_", 0), 0U);
    EXPECT_FALSE(test["codeowners"].empty());
    variants.insert(test["variant"]);
    for (const auto& owner : test["codeowners"]) owners.insert(owner);
  }
  EXPECT_GT(variants.size(), 2U);
  EXPECT_GT(owners.size(), 3U);
}

}  // namespace
}  // namespace sandbox_test
