// listMergeQueueTestingResults and GET /v1/status against the real local sandbox on its virtual clock
// (docs/reference/service.md#list-merge-queue-testing-results, #service-status): the results are the runs that
// getMergeQueueTestingDetails describes, newest first, windowed by offset and take with the total; the sandbox
// refuses the take and offset the client would not send; status needs no token and can be made impacted.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace sandbox_test {
namespace {

namespace paths = trunk::paths;
using trunk::sandbox::ClockMode;

class TestingResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto options = small_options(60);
    options.clock = ClockMode::virtual_time;
    options.flaky_failure_rate = 0;
    options.broken_pull_request_rate = 0;
    sandbox_ = start_sandbox(std::move(options));
    trunk::ClientOptions client_options;
    client_options.base_url = sandbox_->url();
    client_options.token = sandbox_->token();
    client_options.retry.max_retries = 0;
    client_ = std::make_unique<trunk::Client>(std::move(client_options));
  }
  trunk::Repo repo() const { return sandbox_->repos().at(0); }
  void submit(std::int64_t number) {
    trunk::SubmitPullRequestRequest request;
    request.repo = repo();
    request.pr.number = number;
    request.target_branch = "main";
    client_->submit_pull_request(request);
  }
  trunk::ListMergeQueueTestingResultsRequest all_since(trunk::Timestamp since) const {
    trunk::ListMergeQueueTestingResultsRequest request;
    request.repo = repo();
    request.target_branch = "main";
    request.since = since;
    return request;
  }
  Json body(Json fields) const {
    Json out = {{"repo", repo_json(repo())}, {"targetBranch", "main"}, {"since", "2020-01-01T00:00:00Z"}};
    out.update(fields);
    return out;
  }

  std::unique_ptr<trunk::sandbox::Sandbox> sandbox_;
  std::unique_ptr<trunk::Client> client_;
};

TEST_F(TestingResultsTest, EachResultIsARunThatTestingDetailsDescribesNewestFirst) {
  const trunk::Timestamp start = sandbox_->clock_now();
  for (std::int64_t number : {11, 12, 13}) submit(number);
  sandbox_->advance(std::chrono::hours(3));
  const trunk::MergeQueueTestingResults answer = client_->list_merge_queue_testing_results(all_since(start));
  ASSERT_FALSE(answer.results.empty());
  EXPECT_EQ(answer.total, static_cast<std::int64_t>(answer.results.size()));
  std::set<std::int64_t> tested;
  for (std::size_t i = 0; i < answer.results.size(); ++i) {
    const auto& result = answer.results[i];
    if (i > 0) {
      EXPECT_GE(*answer.results[i - 1].ended_at, *result.ended_at) << "newest first";
    }
    trunk::GetMergeQueueTestingDetailsRequest details;
    details.repo = repo();
    details.target_branch = "main";
    details.test_run_id = *result.test_run_id;
    const trunk::TestRunDetails run = client_->get_merge_queue_testing_details(details);
    ASSERT_TRUE(run.status.has_value());
    EXPECT_NE(run.status->wire(), "in_progress") << "only completed testing is listed";
    bool listed = false;
    for (const Json& pr : run.tested_pull_requests.value_or(Json::array())) {
      listed = listed || pr["number"] == *result.pr_number;
    }
    EXPECT_TRUE(listed) << "pull request " << *result.pr_number << " is one the run tested";
    EXPECT_GE(*result.testing_duration_ms, 0);
    tested.insert(*result.pr_number);
  }
  EXPECT_EQ(tested, (std::set<std::int64_t>{11, 12, 13}));
}

TEST_F(TestingResultsTest, OffsetAndTakeWindowTheResultsAndTotalCountsThemAll) {
  const trunk::Timestamp start = sandbox_->clock_now();
  for (std::int64_t number : {21, 22, 23}) submit(number);
  sandbox_->advance(std::chrono::hours(3));
  const auto all = client_->list_merge_queue_testing_results(all_since(start));
  ASSERT_GE(all.results.size(), 3U);
  auto request = all_since(start);
  request.offset = 1;
  request.take = 1;
  const auto second = client_->list_merge_queue_testing_results(request);
  ASSERT_EQ(second.results.size(), 1U);
  EXPECT_EQ(second.results[0], all.results[1]);
  EXPECT_EQ(second.total, all.total);
  request.offset = static_cast<std::int64_t>(all.results.size());
  EXPECT_TRUE(client_->list_merge_queue_testing_results(request).results.empty());
}

TEST_F(TestingResultsTest, TheRangeBoundsAreInclusiveAndBeyondThemIsEmpty) {
  const trunk::Timestamp start = sandbox_->clock_now();
  submit(31);
  sandbox_->advance(std::chrono::hours(3));
  const auto all = client_->list_merge_queue_testing_results(all_since(start));
  ASSERT_FALSE(all.results.empty());
  const trunk::Timestamp newest = *all.results.front().ended_at;
  auto exactly = all_since(newest);
  exactly.until = newest;
  EXPECT_FALSE(client_->list_merge_queue_testing_results(exactly).results.empty()) << "both ends inclusive";
  auto before = all_since(start);
  before.until = start;
  EXPECT_EQ(client_->list_merge_queue_testing_results(before).total, 0);
  auto inverted = all_since(newest + std::chrono::hours(1));
  inverted.until = start;  // since after until matches nothing; not an error
  EXPECT_EQ(client_->list_merge_queue_testing_results(inverted).total, 0);
}

TEST_F(TestingResultsTest, TheSandboxRefusesTheTakeAndOffsetTheClientWouldNotSend) {
  const std::string path(paths::kListMergeQueueTestingResults);
  for (int take : {1, 100}) EXPECT_EQ(post(*sandbox_, path, body({{"take", take}})).status, 200) << take;
  for (int take : {0, 101}) {
    const auto refused = post(*sandbox_, path, body({{"take", take}}));
    EXPECT_EQ(refused.status, 400) << take;
    EXPECT_NE(refused.body.find("take"), std::string::npos) << refused.body;
  }
  EXPECT_EQ(post(*sandbox_, path, body({{"offset", 0}})).status, 200);
  const auto negative = post(*sandbox_, path, body({{"offset", -1}}));
  EXPECT_EQ(negative.status, 400);
  EXPECT_NE(negative.body.find("offset"), std::string::npos) << negative.body;
  Json no_since = body(Json::object());
  no_since.erase("since");
  EXPECT_EQ(post(*sandbox_, path, no_since).status, 400);
  Json other_branch = body(Json::object());
  other_branch["targetBranch"] = "no-such-branch";
  EXPECT_EQ(post(*sandbox_, path, other_branch).status, 404);
}

TEST_F(TestingResultsTest, StatusNeedsNoTokenAndRecordsNone) {
  sandbox_->clear_requests();
  const std::string raw = raw_exchange(sandbox_->port(),
                                       "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(raw.rfind("HTTP/1.1 200", 0), 0U) << raw.substr(0, 200);
  const Json answer = Json::parse(raw.substr(raw.find("\r\n\r\n") + 4));
  EXPECT_EQ(answer["overallStatus"]["type"], "up");
  EXPECT_EQ(answer["overallStatus"]["color"], "green");
  EXPECT_FALSE(answer["overallStatus"].contains("impactedStatuses"));
  EXPECT_FALSE(answer["statuses"].empty());

  const trunk::ServiceStatus through_client = client_->status(trunk::StatusRequest{});
  EXPECT_EQ(trunk::to_json(through_client), answer);
  const auto records = sandbox_->requests();
  ASSERT_EQ(records.size(), 2U);
  for (const auto& record : records) {
    EXPECT_EQ(record.method, "GET");
    EXPECT_EQ(record.status, 200);
    for (const auto& [name, value] : record.headers) {
      EXPECT_NE(name, "x-api-token");
      EXPECT_NE(name, "Authorization");
      EXPECT_EQ(value.find(sandbox_->token()), std::string::npos) << name;
    }
  }
  // A POST is not the operation's method.
  EXPECT_EQ(post(*sandbox_, "/v1/status", Json::object()).status, 405);
}

TEST_F(TestingResultsTest, StatusCanBeMadeImpactedAndBackUp) {
  trunk::ServiceStatus impacted;
  impacted.overall_status.emplace();
  impacted.overall_status->type = "impacted";
  impacted.overall_status->color = "red";
  impacted.overall_status->overall_status_description = "Impacted";
  trunk::ComponentStatus down;
  down.name = "Merge Queue";
  down.color = "red";
  down.status_description = "Major outage";
  impacted.overall_status->impacted_statuses = std::vector<trunk::ComponentStatus>{down};
  impacted.statuses = {down};
  sandbox_->set_service_status(impacted);
  EXPECT_EQ(client_->status(trunk::StatusRequest{}), impacted);
  sandbox_->set_service_status(std::nullopt);
  EXPECT_EQ(client_->status(trunk::StatusRequest{}).overall_status->type, "up");
}

}  // namespace
}  // namespace sandbox_test
