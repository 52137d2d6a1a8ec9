// v2's dispatch order, dependency graph, testing results and impacted targets end to end against the sandbox's
// queue simulation on the virtual clock (docs/reference/v2.md, docs/sandbox.md#v2).
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

class OrderAndTargetsV2 : public V2Fixture {
 protected:
  void configure(std::int64_t concurrency, std::optional<trunk::MergeQueueMode> mode = {}) {
    trunk::UpdateMergeQueueConfigRequest patch;
    patch.id = main_id();
    patch.concurrency = concurrency;
    patch.allow_batching = false;
    client_->update_merge_queue_config(patch);
    if (mode) {
      trunk::SwitchModesRequest to;
      to.id = main_id();
      to.mode = *mode;
      client_->switch_merge_queue_mode(to);
    }
  }
  trunk::PullRequestV2 submit(std::int64_t number) {
    trunk::SubmitPullRequestRequestV2 request;
    request.id = main_id();
    request.number = number;
    return client_->submit_to_merge_queue(request);
  }
  trunk::MergeQueueOrder order() {
    trunk::MergeQueueRef ref;
    ref.id = main_id();
    return client_->get_merge_queue_order(ref);
  }
  trunk::MergeGraph graph(bool targets = false) {
    trunk::MergeGraphRequest request;
    request.id = main_id();
    if (targets) request.include_impacted_targets = true;
    return client_->get_merge_queue_graph(request);
  }
  static std::vector<std::pair<std::int64_t, std::int64_t>> edges(const trunk::MergeGraph& g) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& e : *g.edges) out.emplace_back(*e.from_pull_request_number, *e.to_pull_request_number);
    return out;
  }

};

TEST_F(OrderAndTargetsV2, TheOrderIsTheTrainTheLineAndWhatIsNotReady) {
  configure(1);
  for (std::int64_t n : {1, 2, 3}) submit(n);
  sandbox_->advance(std::chrono::minutes(2));
  submit(4);  // not ready for a minute
  const trunk::MergeQueueOrder now = order();
  EXPECT_EQ(*now.mode, trunk::MergeQueueMode::queue);
  EXPECT_EQ(*now.queue_state, trunk::MergeQueueState::running);
  ASSERT_EQ(now.batches->size(), 1U);
  EXPECT_EQ(now.batches->at(0).pull_requests->at(0).number, 1);
  EXPECT_EQ(*now.batches->at(0).state, QueueEntryState::testing);
  ASSERT_EQ(now.pending->size(), 2U);
  EXPECT_EQ(now.pending->at(0).pull_request->number, 2);
  EXPECT_TRUE(now.pending->at(0).directly_ahead->empty());
  EXPECT_EQ(now.pending->at(1).directly_ahead->at(0).number, 2);
  EXPECT_EQ(*now.pending->at(1).schedulability, trunk::PendingSchedulability::schedulable);
  ASSERT_EQ(now.awaiting_admission->size(), 1U);
  EXPECT_EQ(now.awaiting_admission->at(0).id, pr_id(4));
  EXPECT_EQ(now.awaiting_admission_total, 1);
  const trunk::MergeGraph g = graph();
  EXPECT_EQ(g.nodes->size(), 4U);
  EXPECT_TRUE(g.edges->empty());  // one unit under test: nothing on top of anything
}

TEST_F(OrderAndTargetsV2, QueueModeIsOneChainAndGraphModeLanesByImpactedTargets) {
  configure(3);
  for (std::int64_t n : {1, 2, 3}) submit(n);
  sandbox_->advance(std::chrono::minutes(2));
  EXPECT_EQ(edges(graph()), (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2}, {2, 3}}));  // not 1 -> 3
  sandbox_->advance(std::chrono::hours(3));  // all merged: an empty graph

  configure(3, trunk::MergeQueueMode::graph);
  std::vector<std::string> shas;
  for (std::int64_t n : {11, 12, 13}) shas.push_back(*submit(n).sha);
  const auto upload = [&](std::int64_t number, const std::string& sha, std::vector<std::string> targets) {
    trunk::UploadImpactedTargetsRequest request;
    request.repository_id = repo_id();
    request.target_branch = "main";
    request.sha = sha;
    request.number = number;
    request.impacted_targets = std::move(targets);
    client_->upload_impacted_targets(request);  // 202, no body
  };
  upload(11, shas[0], {"api", "web"});
  upload(12, shas[1], {"docs"});
  upload(13, shas[2], {"web", "cli"});
  sandbox_->advance(std::chrono::minutes(2));
  EXPECT_EQ(edges(graph()), (std::vector<std::pair<std::int64_t, std::int64_t>>{{11, 13}}));  // web; 12 alone
  const trunk::MergeGraph with_targets = graph(true);
  ASSERT_EQ(with_targets.edges->size(), 1U);
  EXPECT_EQ(*with_targets.edges->at(0).common_impacted_targets, (std::vector<std::string>{"web"}));
  EXPECT_EQ(*with_targets.nodes->at(0).impacted_targets, (std::vector<std::string>{"api", "web"}));
  EXPECT_FALSE(graph().nodes->at(0).impacted_targets.has_value());  // only when asked
  EXPECT_EQ(*order().mode, trunk::MergeQueueMode::graph);
}

TEST_F(OrderAndTargetsV2, ImpactedTargetsAreUploadedByNumberOrBranchAndReadBack) {
  const std::string sha = *submit(21).sha;
  trunk::PullRequestRefV2 ref;
  ref.id = pr_id(21);
  EXPECT_EQ(error_code([&] { client_->get_pull_request_impacted_targets(ref); }, 404), "IMPACTED_TARGETS_NOT_FOUND");
  trunk::UploadImpactedTargetsRequest request;
  request.repository_id = repo_id();
  request.target_branch = "main";
  request.sha = sha;
  request.branch = "pr-21";
  request.impacted_targets = std::vector<std::string>{"web", "api", "web"};
  client_->upload_impacted_targets(request);
  const trunk::PullRequestImpactedTargets read = client_->get_pull_request_impacted_targets(ref);
  EXPECT_EQ(read.sha, sha);
  EXPECT_EQ(read.impacts_all_targets, false);
  EXPECT_EQ(*read.impacted_targets, (std::vector<std::string>{"api", "web"}));  // sorted, once each
  EXPECT_EQ(read.total_impacted_targets, 2);
  request.impacted_targets.reset();
  request.impacts_all_targets = true;
  client_->upload_impacted_targets(request);
  EXPECT_EQ(client_->get_pull_request_impacted_targets(ref).impacts_all_targets, true);

  // The request's rules, before anything is sent: exactly one of each pair, a sha of letters and digits.
  auto both = request;
  both.number = 21;
  EXPECT_THROW(client_->upload_impacted_targets(both), trunk::ValidationError);
  auto neither = request;
  neither.branch.reset();
  EXPECT_THROW(client_->upload_impacted_targets(neither), trunk::ValidationError);
  auto all_false = request;
  all_false.impacts_all_targets = false;
  EXPECT_THROW(client_->upload_impacted_targets(all_false), trunk::ValidationError);
  auto two_kinds = request;
  two_kinds.impacted_targets = std::vector<std::string>{};
  EXPECT_THROW(client_->upload_impacted_targets(two_kinds), trunk::ValidationError);
  auto bad_sha = request;
  bad_sha.sha = "abc-123";
  EXPECT_THROW(client_->upload_impacted_targets(bad_sha), trunk::ValidationError);
  auto empty_list = request;  // an empty list is an upload: it impacts nothing
  empty_list.impacts_all_targets.reset();
  empty_list.impacted_targets = std::vector<std::string>{};
  EXPECT_NO_THROW(client_->upload_impacted_targets(empty_list));
  auto other_branch = empty_list;
  other_branch.branch = "feature/x";
  EXPECT_EQ(error_code([&] { client_->upload_impacted_targets(other_branch); }, 404), "PR_NOT_FOUND");
}

TEST_F(OrderAndTargetsV2, TestingResultsAreEachFinishedRunPerPullRequestWithinTheWindow) {
  configure(1);
  const trunk::Timestamp start = sandbox_->clock_now();
  for (std::int64_t n : {31, 32}) submit(n);
  sandbox_->advance(std::chrono::hours(3));
  trunk::ListTestingResultsRequest request;
  request.id = main_id();
  request.since = start;
  std::vector<trunk::TestingResult> results;
  for (const auto& r : client_->pager<trunk::op::ListTestingResults>(request)) results.push_back(r);
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].pull_request_number, 31);  // in the order the runs ended
  for (const auto& r : results) {
    EXPECT_EQ(*r.outcome, trunk::TestingOutcome::passed);
    EXPECT_EQ(*r.entry_conclusion, trunk::QueueEntryConclusion::merged);
    EXPECT_GT(*r.testing_duration_ms, 0);
    EXPECT_EQ(r.started_bisection, false);
    EXPECT_TRUE(r.verification_run_id.has_value());
  }
  request.since = sandbox_->clock_now() + std::chrono::minutes(1);
  request.until = request.since + std::chrono::minutes(1);
  EXPECT_TRUE(client_->list_testing_results(request).data.empty());
  request.until.reset();  // until is now: a since after it is refused
  EXPECT_EQ(error_code([&] { client_->list_testing_results(request); }, 400), "VALIDATION_FAILED");

  // The window: until at most 45 days after since, and not before it.
  request.since = start;
  request.until = start + trunk::kTestingResultsWindow;
  EXPECT_NO_THROW(client_->list_testing_results(request));
  request.until = start + trunk::kTestingResultsWindow + std::chrono::seconds(1);
  EXPECT_THROW(client_->list_testing_results(request), trunk::ValidationError);
  request.until = start - std::chrono::seconds(1);
  EXPECT_THROW(client_->list_testing_results(request), trunk::ValidationError);
  request.until.reset();
  request.since = sandbox_->clock_now() - trunk::kTestingResultsWindow - std::chrono::hours(1);  // until: now
  EXPECT_EQ(error_code([&] { client_->list_testing_results(request); }, 400), "VALIDATION_FAILED");
}

}  // namespace
}  // namespace sandbox_test
