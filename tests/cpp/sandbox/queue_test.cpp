// Merge queue semantics over HTTP, and the switching_modes state machine with an injected clock.
#include <gtest/gtest.h>

#include <thread>

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
    auto options = small_options(50);
    options.switching_modes_duration = std::chrono::hours(1);  // long: every answer below is within it
    sandbox_ = start_sandbox(options);
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
                         {"testingTimeoutMinutes", 240},
                         {"mode", "single"},
                         {"canOptimisticallyMerge", false},
                         {"pendingFailureDepth", 1},
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

TEST_F(Queue, ModeChangeReportsSwitchingModes) {
  EXPECT_EQ(update({{"mode", "single"}})["state"], "running") << "same mode: no switch";
  const Json switching = update({{"mode", "parallel"}, {"state", "paused"}});
  EXPECT_EQ(switching["state"], "switching_modes");
  EXPECT_EQ(switching["mode"], "parallel");
  EXPECT_EQ(update({{"concurrency", 2}})["state"], "switching_modes") << "still within the switch";
  create("other");
  EXPECT_EQ(update(Json::object(), "other")["state"], "running") << "per branch";
}

TEST_F(Queue, AQueueOfARepositoryThatIsNotOnboardedIs404) {
  const auto reply = post(*sandbox_, std::string(kUpdateQueue),
                          Json{{"repo", {{"host", "github.com"}, {"owner", "elsewhere"}, {"name", "x"}}},
                               {"targetBranch", "main"}});
  EXPECT_EQ(reply.status, 404);
}

TEST(QueueSwitching, SettlesOnTheRequestedStateAfterTheDuration) {
  auto now = fixed_now();
  trunk::sandbox::QueueStore store("", std::chrono::milliseconds(2000), [&now] { return now; });
  store.adopt_repositories({{{"github.com", "acme", "storefront"}, trunk::sandbox::FailureModel{}}});
  const auto state_of = [](const std::variant<trunk::QueueSettings, trunk::sandbox::Refusal>& outcome) {
    return std::get<trunk::QueueSettings>(outcome).state;
  };
  trunk::UpdateQueueRequest request;
  request.repo = {"github.com", "acme", "storefront"};
  request.target_branch = "main";
  request.mode = trunk::QueueMode::parallel;
  request.state = trunk::QueueState::paused;
  EXPECT_EQ(state_of(store.update(request)), trunk::QueueState::switching_modes);
  now += std::chrono::milliseconds(1999);
  EXPECT_EQ(state_of(store.get(request.repo, "main")), trunk::QueueState::switching_modes);
  now += std::chrono::milliseconds(1);
  EXPECT_EQ(state_of(store.get(request.repo, "main")), trunk::QueueState::paused);
  // Switching back starts a new period.
  request.mode = trunk::QueueMode::single;
  request.state.reset();
  EXPECT_EQ(state_of(store.update(request)), trunk::QueueState::switching_modes);
  now += std::chrono::seconds(3);
  const auto settled = std::get<trunk::QueueSettings>(store.get(request.repo, "main"));
  EXPECT_EQ(settled.state, trunk::QueueState::paused);
  EXPECT_EQ(settled.mode, trunk::QueueMode::single);
}

TEST(QueueSwitching, ZeroDurationOverHttpAnswersTheRequestedStateAtOnce) {
  auto options = small_options(20);
  options.switching_modes_duration = std::chrono::milliseconds(0);
  auto sandbox = start_sandbox(options);
  const auto reply = post(*sandbox, std::string(kUpdateQueue),
                          Json{{"repo", repo_json(sandbox->repos().at(0))},
                               {"targetBranch", "main"},
                               {"mode", "parallel"},
                               {"state", "draining"}});
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.json()["state"], "draining");
  EXPECT_EQ(reply.json()["mode"], "parallel");
}

TEST(QueueSwitching, ShortDurationOverHttpSettles) {
  auto options = small_options(20);
  options.switching_modes_duration = std::chrono::milliseconds(50);
  auto sandbox = start_sandbox(options);
  const Json body = {{"repo", repo_json(sandbox->repos().at(0))}, {"targetBranch", "main"}, {"mode", "parallel"}};
  ASSERT_EQ(post(*sandbox, std::string(kUpdateQueue), body).status, 200);
  const Json poll = {{"repo", repo_json(sandbox->repos().at(0))}, {"targetBranch", "main"}};
  std::string state;
  for (int i = 0; i < 200 && state != "running"; ++i) {  // polls; no assertion on how long it took
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    state = post(*sandbox, std::string(kUpdateQueue), poll).json()["state"];
  }
  EXPECT_EQ(state, "running");
}

}  // namespace
}  // namespace sandbox_test
