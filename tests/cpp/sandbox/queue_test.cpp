// Merge queue semantics over HTTP, and the switching_modes state machine with an injected clock: a change of
// mode is immediate on an empty queue, else the queue drains until the pull requests testing have merged.
#include <gtest/gtest.h>

#include "queue_store.hpp"
#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kCreateQueue;
using trunk::paths::kUpdateQueue;

class Queue : public ::testing::Test {
 protected:
  void SetUp() override {
    sandbox_ = start_sandbox(small_options(50));
  }
  void create(const std::string& branch) {
    const auto reply = post(*sandbox_, std::string(kCreateQueue),
                            Json{{"repo", repo_json(sandbox_->repos().at(0))}, {"targetBranch", branch}});
    EXPECT_EQ(reply.status, 200) << reply.body;
  }
  Json update(Json fields, const std::string& branch = "main") {
    fields["repo"] = repo_json(sandbox_->repos().at(0));
    fields["targetBranch"] = branch;
    const auto reply = post(*sandbox_, std::string(kUpdateQueue), fields);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply.status == 200 ? reply.json() : Json::object();
  }
  std::unique_ptr<trunk::sandbox::Sandbox> sandbox_;
};

TEST_F(Queue, DefaultsHaveEveryRequiredField) {
  const Json settings = update(Json::object());
  const Json expected = {{"state", "running"},
                         {"branch", "main"},
                         {"concurrency", 1},
                         {"testingTimeoutMinutes", 300},
                         {"mode", "single"},
                         {"canOptimisticallyMerge", false},
                         {"pendingFailureDepth", 0},
                         {"batch", false},
                         {"batchingMaxWaitTimeMinutes", 5},
                         {"batchingMinSize", 1},
                         {"createPrsForTestingBranches", true},
                         {"commentsEnabled", true},
                         {"commandsEnabled", true},
                         {"statusCheckEnabled", true},
                         {"bisectionConcurrency", 1},
                         {"requiredStatuses", {"ci/build", "ci/test"}},
                         {"directMergeMode", "off"},
                         {"optimizationMode", "off"},
                         {"mergeMethod", "squash"},
                         // Off, with no enqueueing label, until someone turns them on (our decision: the
                         // service documents no defaults; docs/reference/merge-queue-settings.md).
                         {"extensionEnabled", false},
                         {"enqueueingLabel", ""},
                         {"labelCommandsEnabled", false},
                         {"stateLabelsEnabled", false}};
  EXPECT_EQ(settings, expected);
  EXPECT_FALSE(settings.contains("deleteRequiredStatuses"));
}

TEST_F(Queue, OmittedFieldsStayUnchangedAndBranchesAreIndependent) {
  update({{"concurrency", 3}, {"batch", true}, {"mergeMethod", "rebase"}, {"state", "paused"}});
  const Json after = update({{"testingTimeoutMinutes", 30}});
  EXPECT_EQ(after["concurrency"], 3);
  EXPECT_EQ(after["batch"], true);
  EXPECT_EQ(after["mergeMethod"], "rebase");
  EXPECT_EQ(after["state"], "paused");
  EXPECT_EQ(after["testingTimeoutMinutes"], 30);
  create("release/1.0");
  const Json other = update(Json::object(), "release/1.0");
  EXPECT_EQ(other["concurrency"], 1);
  EXPECT_EQ(other["branch"], "release/1.0");
  // Repeating an update is harmless: same answer.
  EXPECT_EQ(update({{"testingTimeoutMinutes", 30}}), after);
}

TEST_F(Queue, EveryFieldCanBeSet) {
  const Json settings = update({{"state", "draining"},
                                {"concurrency", 2},
                                {"bisectionConcurrency", 3},
                                {"testingTimeoutMinutes", 4},
                                {"pendingFailureDepth", 5},
                                {"canOptimisticallyMerge", true},
                                {"batch", true},
                                {"batchingMaxWaitTimeMinutes", 6},
                                {"batchingMinSize", 7},
                                {"commentsEnabled", false},
                                {"commandsEnabled", false},
                                {"createPrsForTestingBranches", false},
                                {"directMergeMode", "always"},
                                {"optimizationMode", "bisection_skip_redundant_tests"},
                                {"mergeMethod", "merge_commit"},
                                {"statusCheckEnabled", false},
                                {"requiredStatuses", {"build"}}});
  EXPECT_EQ(settings["state"], "draining");
  EXPECT_EQ(settings["bisectionConcurrency"], 3);
  EXPECT_EQ(settings["pendingFailureDepth"], 5);
  EXPECT_EQ(settings["canOptimisticallyMerge"], true);
  EXPECT_EQ(settings["batchingMaxWaitTimeMinutes"], 6);
  EXPECT_EQ(settings["batchingMinSize"], 7);
  EXPECT_EQ(settings["commentsEnabled"], false);
  EXPECT_EQ(settings["commandsEnabled"], false);
  EXPECT_EQ(settings["createPrsForTestingBranches"], false);
  EXPECT_EQ(settings["directMergeMode"], "always");
  EXPECT_EQ(settings["optimizationMode"], "bisection_skip_redundant_tests");
  EXPECT_EQ(settings["mergeMethod"], "merge_commit");
  EXPECT_EQ(settings["statusCheckEnabled"], false);
  EXPECT_EQ(settings["requiredStatuses"], Json({"build"}));
}

TEST_F(Queue, EmptyRequiredStatusesDiffersFromDeletingThem) {
  EXPECT_EQ(update({{"requiredStatuses", {"lint", "unit"}}})["requiredStatuses"], Json({"lint", "unit"}));
  EXPECT_EQ(update(Json::object())["requiredStatuses"], Json({"lint", "unit"})) << "omitted: unchanged";
  EXPECT_EQ(update({{"requiredStatuses", Json::array()}})["requiredStatuses"], Json::array()) << "set to empty";
  EXPECT_EQ(update({{"deleteRequiredStatuses", true}})["requiredStatuses"], Json({"ci/build", "ci/test"}))
      << "deleted: back to branch protection";
  EXPECT_EQ(update({{"deleteRequiredStatuses", false}})["requiredStatuses"], Json({"ci/build", "ci/test"}));
  Json both = {{"repo", repo_json(sandbox_->repos().at(0))},
               {"targetBranch", "main"},
               {"requiredStatuses", Json::array()},
               {"deleteRequiredStatuses", true}};
  const auto reply = post(*sandbox_, std::string(kUpdateQueue), both);
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("deleteRequiredStatuses"), std::string::npos);
}

TEST_F(Queue, AModeChangeOnAnEmptyQueueIsImmediate) {
  EXPECT_EQ(update({{"mode", "single"}})["state"], "running") << "same mode: no switch";
  const Json switched = update({{"mode", "parallel"}, {"state", "paused"}});
  EXPECT_EQ(switched["state"], "paused") << "no pull request: nothing to wait for";
  EXPECT_EQ(switched["mode"], "parallel");
}

TEST_F(Queue, BisectionConcurrencyFollowsConcurrencyUntilSet) {
  EXPECT_EQ(update({{"concurrency", 4}})["bisectionConcurrency"], 4) << "Trunk: the same as the testing concurrency";
  EXPECT_EQ(update({{"bisectionConcurrency", 2}})["bisectionConcurrency"], 2);
  EXPECT_EQ(update({{"concurrency", 6}})["bisectionConcurrency"], 2) << "set: it no longer follows";
}

TEST_F(Queue, AQueueOfARepositoryThatIsNotOnboardedIs404) {
  const auto reply = post(*sandbox_, std::string(kUpdateQueue),
                          Json{{"repo", {{"host", "github.com"}, {"owner", "elsewhere"}, {"name", "x"}}},
                               {"targetBranch", "main"}});
  EXPECT_EQ(reply.status, 404);
}

TEST(QueueSwitching, DrainsUntilThePullRequestsTestingHaveMerged) {
  auto now = fixed_now();
  trunk::sandbox::SimulationOptions simulation;
  simulation.flaky_failure_rate = 0;
  simulation.broken_pull_request_rate = 0;
  trunk::sandbox::QueueStore store("", [&now] { return now; }, simulation);
  const trunk::Repo repo{"github.com", "acme", "storefront"};
  store.adopt_repositories({{repo, trunk::sandbox::FailureModel{}}});
  const auto submit = [&](std::int64_t number) {
    trunk::SubmitPullRequestRequest request;
    request.pr.number = number;
    return std::get<0>(store.with_queue(repo, "main", [&](trunk::sandbox::MergeQueue& queue,
                                                             const trunk::QueueSettings& settings) {
      return queue.submit(request, settings);
    }));
  };
  const auto state_of = [&](std::int64_t number) {
    return std::get<0>(store.with_queue(repo, "main", [&](trunk::sandbox::MergeQueue& queue, const trunk::QueueSettings&) {
      return std::get<trunk::SubmittedPullRequest>(queue.submitted(number)).state;
    }));
  };
  const auto queue_state = [&] { return std::get<trunk::QueueSettings>(store.get(repo, "main")).state; };
  ASSERT_FALSE(submit(1));
  ASSERT_FALSE(submit(2));
  now += std::chrono::minutes(2);
  ASSERT_EQ(state_of(1), trunk::PullRequestState::testing);
  trunk::UpdateQueueRequest request;
  request.repo = repo;
  request.target_branch = "main";
  request.mode = trunk::QueueMode::parallel;
  EXPECT_EQ(std::get<trunk::QueueSettings>(store.update(request)).state, trunk::QueueState::switching_modes);
  const auto refused = submit(3);
  ASSERT_TRUE(refused) << "switching behaves as draining: no pull request enters";
  EXPECT_NE(refused->message.find("switching_modes"), std::string::npos) << refused->message;
  // It lasts as long as pull request 1 tests, however long that is, and ends when it merges.
  while (state_of(1) == trunk::PullRequestState::testing) {
    EXPECT_EQ(queue_state(), trunk::QueueState::switching_modes);
    EXPECT_EQ(state_of(2), trunk::PullRequestState::pending) << "nothing starts meanwhile";
    now += std::chrono::minutes(1);
  }
  EXPECT_EQ(state_of(1), trunk::PullRequestState::merged);
  EXPECT_EQ(queue_state(), trunk::QueueState::running);
  EXPECT_FALSE(submit(3));
}

}  // namespace
}  // namespace sandbox_test
