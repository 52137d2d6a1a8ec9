// v2's verification runs, queue-entry history and metrics end to end: the simulation's test runs and transitions
// read through trunk::Client's v2 calls, checked against what v1 says of the same runs, on the virtual clock
// (docs/reference/v2.md, docs/sandbox.md#v2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sandbox_support.hpp"
#include "v2_fixture.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace sandbox_test {
namespace {

using trunk::QueueEntryState;

class RunsAndHistoryV2 : public V2Fixture {
 protected:
  std::vector<trunk::QueueEntryStateTransition> history(std::int64_t number,
                                                        std::optional<trunk::HistoryDirection> direction = {}) {
    trunk::QueueEntryHistoryRequest request;
    request.id = pr_id(number);
    request.direction = direction;
    std::vector<trunk::QueueEntryStateTransition> out;
    for (auto& t : client_->pager<trunk::op::ListQueueEntryHistory>(request)) out.push_back(t);
    return out;
  }

};

TEST_F(RunsAndHistoryV2, AQueuesRunsAreV1sTestRunsNewestFirstWithTheirChecksOnceEnded) {
  trunk::UpdateMergeQueueConfigRequest two_at_once;
  two_at_once.id = main_id();
  two_at_once.concurrency = 2;
  two_at_once.allow_batching = false;
  client_->update_merge_queue_config(two_at_once);
  submit(1);
  sandbox_->advance(std::chrono::minutes(2));
  submit(2);
  sandbox_->advance(std::chrono::minutes(2));
  trunk::ListQueueVerificationRunsRequest request;
  request.id = main_id();
  const trunk::VerificationRunList page = client_->list_merge_queue_verification_runs(request);
  ASSERT_EQ(page.data.size(), 2U);
  const trunk::VerificationRun& newest = page.data[0];
  EXPECT_GE(*newest.created_at, *page.data[1].created_at);
  EXPECT_EQ(*newest.status, trunk::VerificationRunStatus::in_progress);
  EXPECT_TRUE(newest.checks->empty());  // none until it ends
  ASSERT_EQ(newest.tested_pull_requests->size(), 1U);
  EXPECT_EQ(newest.tested_pull_requests->at(0).id, pr_id(2));
  ASSERT_EQ(newest.dependent_pull_requests->size(), 1U);  // tested on top of #1
  EXPECT_EQ(newest.dependent_pull_requests->at(0).number, 1);

  trunk::GetMergeQueueTestingDetailsRequest v1;
  v1.repo = repo();
  v1.target_branch = "main";
  v1.test_run_id = *newest.id;
  const trunk::TestRunDetails details = client_->get_merge_queue_testing_details(v1);
  EXPECT_EQ(details.test_branch, newest.test_branch);
  EXPECT_EQ(details.test_branch_sha, newest.test_branch_sha);
  trunk::VerificationRunRef ref;
  ref.id = *newest.id;
  EXPECT_EQ(client_->get_verification_run(ref), newest);

  sandbox_->advance(std::chrono::hours(3));
  const trunk::VerificationRun ended = client_->get_verification_run(ref);
  EXPECT_EQ(*ended.status, trunk::VerificationRunStatus::succeeded);
  ASSERT_EQ(ended.checks->size(), ended.required_statuses->size());
  ASSERT_FALSE(ended.checks->empty());
  EXPECT_EQ(*ended.checks->at(0).conclusion, trunk::CheckConclusion::success);
  EXPECT_EQ(ended.checks->at(0).name, ended.required_statuses->at(0));
  EXPECT_TRUE(ended.checks->at(0).url.has_value());  // required by the description (Schemathesis checks it)

  request.status = trunk::VerificationRunStatus::in_progress;
  EXPECT_TRUE(client_->list_merge_queue_verification_runs(request).data.empty());
  request.status = trunk::VerificationRunStatus::succeeded;
  EXPECT_EQ(client_->list_merge_queue_verification_runs(request).data.size(), 2U);
  request.status.reset();
  request.created_after = *page.data[1].created_at;  // strictly after: the first run is left out
  EXPECT_EQ(client_->list_merge_queue_verification_runs(request).data.size(), 1U);

  trunk::ListPullRequestVerificationRunsRequest of_pr;
  of_pr.id = pr_id(1);
  const auto runs_of_1 = client_->list_pull_request_verification_runs(of_pr);
  ASSERT_EQ(runs_of_1.data.size(), 1U);
  EXPECT_EQ(runs_of_1.data[0].tested_pull_requests->at(0).number, 1);
  ref.id = "nosuchrun";
  EXPECT_EQ(error_code([&] { client_->get_verification_run(ref); }, 404), "VERIFICATION_RUN_NOT_FOUND");
  of_pr.id = pr_id(99);
  EXPECT_EQ(error_code([&] { client_->list_pull_request_verification_runs(of_pr); }, 404), "PR_NOT_FOUND");
}

TEST_F(RunsAndHistoryV2, AHistoryIsEveryStateWithItsReasonOldestFirstUnlessAsked) {
  submit(5);
  sandbox_->advance(std::chrono::hours(3));  // ready, tested, merged
  const auto oldest = history(5);
  std::vector<QueueEntryState> states;
  for (const auto& t : oldest) states.push_back(*t.state->known());
  EXPECT_EQ(states, (std::vector<QueueEntryState>{QueueEntryState::not_ready, QueueEntryState::pending,
                                                  QueueEntryState::testing, QueueEntryState::tests_passed,
                                                  QueueEntryState::merged}));
  EXPECT_EQ(oldest[0].reason, "API_REQUESTED");
  EXPECT_EQ(oldest[0].not_ready->allow_batching, true);
  EXPECT_EQ(oldest[1].reason, "MERGE_ITEM_NOW_READY");
  EXPECT_FALSE(oldest[2].reason.has_value());  // testing carries no reason
  ASSERT_TRUE(oldest[2].verification_run_id.has_value());
  EXPECT_EQ(oldest[3].verification_run_id, oldest[2].verification_run_id);
  EXPECT_EQ(oldest[4].reason, "MERGE_GRAPH_MERGE");
  for (const auto& t : oldest) EXPECT_EQ(t.pull_request_id, pr_id(5));
  for (std::size_t i = 1; i < oldest.size(); ++i) EXPECT_LE(*oldest[i - 1].changed_at, *oldest[i].changed_at);

  auto newest = history(5, trunk::HistoryDirection::newest);
  std::reverse(newest.begin(), newest.end());
  EXPECT_EQ(newest, oldest);

  // The wire says null where a state has no reason.
  httplib::Client http(sandbox_->url());
  const auto raw = http.Get("/v2/pull-requests/" + pr_id(5) + "/queue-entry-history",
                            httplib::Headers{{"Authorization", "Bearer " + sandbox_->api_key()}});
  ASSERT_TRUE(raw);
  EXPECT_TRUE(Json::parse(raw->body).at("data").at(2).at("reason").is_null()) << raw->body;
}

TEST_F(RunsAndHistoryV2, TheBatchHistoryCountsPullRequestsAndNeverAnswersNotFound) {
  submit(7);
  submit(8);
  trunk::BatchQueueEntryHistoryRequest request;
  request.pull_request_ids = {pr_id(8), pr_id(7), pr_id(8), "00000000-0000-4000-8000-000000000000"};
  request.limit = 2;
  std::vector<std::string> ids;
  std::vector<std::size_t> sizes;
  for (const auto& group : client_->pager<trunk::op::ListQueueEntryHistories>(request)) {
    ids.push_back(*group.pull_request_id);
    sizes.push_back(group.transitions->size());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{pr_id(8), pr_id(7), "00000000-0000-4000-8000-000000000000"}));
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1, 0}));  // submitted: not ready; the unknown one: empty

  request.pull_request_ids = std::vector<std::string>(50, pr_id(7));
  EXPECT_NO_THROW(client_->list_queue_entry_histories(request));
  request.pull_request_ids = std::vector<std::string>(51, pr_id(7));
  EXPECT_THROW(client_->list_queue_entry_histories(request), trunk::ValidationError);
  request.pull_request_ids = {};
  EXPECT_THROW(client_->list_queue_entry_histories(request), trunk::ValidationError);
  request.pull_request_ids = {"7"};
  EXPECT_THROW(client_->list_queue_entry_histories(request), trunk::ValidationError);
}

TEST_F(RunsAndHistoryV2, MetricsArePrometheusTextForTheOrganizationARepositoryOrAQueue) {
  trunk::CreateMergeQueueRequest create;
  create.repository_id = trunk::sandbox::repository_id(repo().to_string());
  create.target_branch = "release";
  client_->create_merge_queue(create);
  const trunk::MergeQueueMetrics all = client_->get_organization_merge_queue_metrics({});
  EXPECT_NE(all.text.find("mq_depth_current"), std::string::npos);
  trunk::MergeQueueRef queue;
  queue.id = main_id();
  const trunk::MergeQueueMetrics one = client_->get_merge_queue_metrics_v2(queue);
  EXPECT_NE(one.text.find("branch=\"main\""), std::string::npos);
  EXPECT_EQ(one.text.find("branch=\"release\""), std::string::npos);
  EXPECT_NE(all.text.find("branch=\"release\""), std::string::npos);
  EXPECT_TRUE(one.value_of("mq_depth_current", Json{{"branch", "main"}, {"queue_type", "main"}}).has_value());
  trunk::OrganizationMetricsRequest unknown;
  unknown.repository_id = "00000000-0000-4000-8000-000000000000";
  EXPECT_EQ(error_code([&] { client_->get_organization_merge_queue_metrics(unknown); }, 404), "REPOSITORY_NOT_FOUND");
  queue.id = "nosuchq1";
  EXPECT_EQ(error_code([&] { client_->get_merge_queue_metrics_v2(queue); }, 404), "MERGE_QUEUE_NOT_FOUND");
}

}  // namespace
}  // namespace sandbox_test
