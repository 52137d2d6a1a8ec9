// The merge queue simulation over HTTP on the virtual clock: every queue operation's errors, and how pull
// requests move (single, parallel, batching, bisection, pending failure, pause, drain, cancel, restart,
// priorities), the metrics against the listing, the control route, and determinism.
#include <gtest/gtest.h>

#include <set>

#include "failure_model.hpp"
#include "merge_queue.hpp"
#include "sandbox_support.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace sandbox_test {
namespace {

namespace paths = trunk::paths;
using trunk::sandbox::ClockMode;

/// A sandbox on the virtual clock whose runs never fail unless a test asks for it.
trunk::sandbox::SandboxOptions sim_options(double flaky = 0, double broken = 0) {
  auto options = small_options(60);
  options.clock = ClockMode::virtual_time;
  options.flaky_failure_rate = flaky;
  options.broken_pull_request_rate = broken;
  return options;
}

class Sim {
 public:
  explicit Sim(trunk::sandbox::SandboxOptions options = sim_options()) : box_(start_sandbox(std::move(options))) {}
  trunk::sandbox::Sandbox& box() { return *box_; }
  Json queue(const std::string& branch = "main") const {
    return {{"repo", repo_json(box_->repos().at(0))}, {"targetBranch", branch}};
  }
  HttpReply call(std::string_view path, Json fields, const std::string& branch = "main") {
    Json body = queue(branch);
    body.update(fields);
    return post(*box_, std::string(path), body);
  }
  void ok(std::string_view path, Json fields, const std::string& branch = "main") {
    const auto reply = call(path, std::move(fields), branch);
    ASSERT_EQ(reply.status, 200) << path << ": " << reply.body;
  }
  void settings(Json fields) { ok(paths::kUpdateQueue, std::move(fields)); }
  void submit(std::int64_t number, Json extra = Json::object()) {
    extra["pr"] = {{"number", number}};
    ok(paths::kSubmitPullRequest, extra);
  }
  Json pr(std::int64_t number) {
    const auto reply = call(paths::kGetSubmittedPullRequest, {{"pr", {{"number", number}}}});
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply.status == 200 ? reply.json() : Json::object();
  }
  std::string state(std::int64_t number) { return pr(number).value("state", ""); }
  void minutes(int n) { box_->advance(std::chrono::minutes(n)); }
  /// Every pull request of the queue, through every page.
  std::vector<Json> list(Json filters = Json::object(), int take = 100) {
    std::vector<Json> out;
    filters["take"] = take;
    for (int pages = 0; pages < 100; ++pages) {
      const auto reply = call(paths::kListPullRequests, filters);
      EXPECT_EQ(reply.status, 200) << reply.body;
      if (reply.status != 200) break;
      const Json page = reply.json();
      for (const Json& item : page["pullRequests"]) out.push_back(item);
      if (!page.contains("nextCursor")) break;
      filters["cursor"] = page["nextCursor"];
    }
    return out;
  }
  int count(const std::string& state) {
    int n = 0;
    for (const Json& item : list()) n += item["state"] == state ? 1 : 0;
    return n;
  }
  trunk::MergeQueueMetrics metrics() {
    httplib::Client client("127.0.0.1", box_->port());
    const auto repo = box_->repos().at(0);
    auto result = client.Get("/v1/getMergeQueueMetrics?repo=" + repo.owner + "/" + repo.name + "&repoHost=" + repo.host,
                             httplib::Headers{{"x-api-token", box_->token()}});
    EXPECT_TRUE(result);
    EXPECT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    return trunk::MergeQueueMetrics::parse(result->body);
  }
  std::string repo_key() { return box_->repos().at(0).to_string(); }

 private:
  std::unique_ptr<trunk::sandbox::Sandbox> box_;
};

/// Pull request numbers that are (or are not) broken for the default seed and `rate`.
std::vector<std::int64_t> numbers(const std::string& repo_key, double rate, bool broken, std::size_t how_many) {
  trunk::sandbox::FailureModel model;
  model.broken_pull_request = rate;
  model.seed = sim_options().seed;
  std::vector<std::int64_t> out;
  for (std::int64_t n = 1; out.size() < how_many && n < 100000; ++n) {
    if (model.broken(repo_key, n) == broken) out.push_back(n);
  }
  return out;
}

TEST(MergeQueueErrors, EveryRefusalHasItsStatusAndSaysWhy) {
  Sim sim;
  const auto missing = sim.call(paths::kUpdateQueue, Json::object(), "release");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("not found: no merge queue for branch release of repository " + sim.repo_key()),
            std::string::npos)
      << missing.body;
  for (auto path : {paths::kGetQueue, paths::kDeleteQueue, paths::kListPullRequests}) {
    EXPECT_EQ(sim.call(path, Json::object(), "release").status, 404) << path;
  }
  EXPECT_EQ(sim.call(paths::kSubmitPullRequest, {{"pr", {{"number", 1}}}}, "release").status, 404);

  EXPECT_EQ(sim.call(paths::kCreateQueue, {{"mode", "parallel"}, {"concurrency", 4}}, "release").status, 200);
  const auto created = sim.call(paths::kGetQueue, Json::object(), "release").json();
  EXPECT_EQ(created["mode"], "parallel");
  EXPECT_EQ(created["concurrency"], 4);
  EXPECT_EQ(sim.call(paths::kCreateQueue, Json::object(), "release").status, 409);

  sim.ok(paths::kSubmitPullRequest, {{"pr", {{"number", 7}}}}, "release");
  const auto busy = sim.call(paths::kDeleteQueue, Json::object(), "release");
  EXPECT_EQ(busy.status, 400);
  EXPECT_NE(busy.body.find("holds 1 pull request"), std::string::npos) << busy.body;
  sim.ok(paths::kCancelPullRequest, {{"pr", {{"number", 7}}}}, "release");
  EXPECT_EQ(sim.call(paths::kDeleteQueue, Json::object(), "release").status, 200);
  EXPECT_EQ(sim.call(paths::kGetQueue, Json::object(), "release").status, 404);

  sim.submit(1);
  const auto twice = sim.call(paths::kSubmitPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(twice.status, 400);
  EXPECT_NE(twice.body.find("already in the queue"), std::string::npos) << twice.body;
  const auto bad_priority = sim.call(paths::kSubmitPullRequest, {{"pr", {{"number", 2}}}, {"priority", "soonish"}});
  EXPECT_EQ(bad_priority.status, 400);
  EXPECT_NE(bad_priority.body.find("priority"), std::string::npos) << bad_priority.body;
  EXPECT_EQ(sim.call(paths::kGetSubmittedPullRequest, {{"pr", {{"number", 99}}}}).status, 404);
  EXPECT_EQ(sim.call(paths::kCancelPullRequest, {{"pr", {{"number", 99}}}}).status, 404);
  EXPECT_EQ(sim.call(paths::kRestartTestsOnPullRequest, {{"pr", {{"number", 99}}}}).status, 404);
  // Targets of a pull request not in the queue are kept for its submission (the GitHub Action reports them when
  // a pull request opens), not refused.
  EXPECT_EQ(sim.call(paths::kSetImpactedTargets, {{"pr", {{"number", 99}, {"sha", "abc"}}}, {"impactedTargets", "ALL"}}).status,
            200);
  EXPECT_EQ(sim.call(paths::kRestartTestsOnPullRequest, {{"pr", {{"number", 1}}}}).status, 400) << "not_ready: no run";
  const auto cursor = sim.call(paths::kListPullRequests, {{"cursor", "00000000-0000-4000-8000-000000000000"}});
  EXPECT_EQ(cursor.status, 400);
  EXPECT_NE(cursor.body.find("cursor"), std::string::npos) << cursor.body;
  EXPECT_EQ(sim.call(paths::kListPullRequests, {{"take", 101}}).status, 400);
  EXPECT_EQ(sim.call(paths::kGetMergeQueueTestingDetails, {{"testRunId", "00000000-0000-4000-8000-000000000000"}}).status,
            404);

  sim.settings({{"state", "draining"}});
  const auto draining = sim.call(paths::kSubmitPullRequest, {{"pr", {{"number", 3}}}});
  EXPECT_EQ(draining.status, 400);
  EXPECT_NE(draining.body.find("queue is draining"), std::string::npos) << draining.body;

  sim.settings({{"state", "running"}});
  sim.minutes(600);
  ASSERT_EQ(sim.state(1), "merged");
  const auto concluded = sim.call(paths::kCancelPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(concluded.status, 400);
  EXPECT_NE(concluded.body.find("already concluded"), std::string::npos) << concluded.body;
}

TEST(MergeQueueErrors, TheMetricsQueryIsValidatedAndTheControlRouteNeedsTheToken) {
  Sim sim;
  httplib::Client client("127.0.0.1", sim.box().port());
  const httplib::Headers token{{"x-api-token", sim.box().token()}};
  auto every_repo = client.Get("/v1/getMergeQueueMetrics", token);
  ASSERT_TRUE(every_repo);
  EXPECT_EQ(every_repo->status, 200) << "without repo: every repository";
  const auto all = trunk::MergeQueueMetrics::parse(every_repo->body);
  std::set<std::string> repos;
  for (const auto& sample : all.samples) repos.insert(sample.labels.at("repo").get<std::string>());
  EXPECT_EQ(repos.size(), sim.box().repos().size());
  auto host_only = client.Get("/v1/getMergeQueueMetrics?repoHost=github.com", token);
  EXPECT_EQ(host_only->status, 400) << "a host without a repository names nothing";
  auto unknown = client.Get("/v1/getMergeQueueMetrics?repo=nobody/nothing&repoHost=github.com", token);
  EXPECT_EQ(unknown->status, 404);
  auto post_metrics = client.Post("/v1/getMergeQueueMetrics", token, "{}", "application/json");
  EXPECT_EQ(post_metrics->status, 405);
  EXPECT_EQ(post_metrics->get_header_value("Allow"), "GET");
  auto no_token = client.Get("/v1/getMergeQueueMetrics?repo=acme/storefront&repoHost=github.com");
  EXPECT_EQ(no_token->status, 401);

  const auto start = sim.box().clock_now();
  EXPECT_EQ(start, fixed_now()) << "the virtual clock starts at `now`";
  const auto advanced = post(sim.box(), "/sandbox/advance", Json{{"minutes", 5}});
  ASSERT_EQ(advanced.status, 200) << advanced.body;
  EXPECT_EQ(advanced.json()["now"], trunk::format_rfc3339(start + std::chrono::minutes(5)));
  EXPECT_EQ(post(sim.box(), "/sandbox/advance", Json{{"seconds", 30}}).json()["now"],
            trunk::format_rfc3339(start + std::chrono::seconds(330)));
  EXPECT_EQ(post(sim.box(), "/sandbox/advance", R"({"minutes": 1})", std::nullopt, false).status, 401);
  EXPECT_EQ(post(sim.box(), "/sandbox/advance", Json{{"minutes", -1}}).status, 400);
  EXPECT_EQ(post(sim.box(), "/sandbox/advance", Json{{"hours", 1}}).status, 400);
  EXPECT_EQ(client.Get("/sandbox/advance", token)->status, 405);
  EXPECT_EQ(sim.box().clock_now(), start + std::chrono::seconds(330));
  EXPECT_THROW(sim.box().advance(std::chrono::milliseconds(-1)), trunk::ValidationError);
}

TEST(MergeQueueSimulation, ReadinessComesAfterTheHostReportsMergeable) {
  Sim sim;
  sim.settings({{"state", "paused"}});
  sim.submit(5);
  Json pr = sim.pr(5);
  EXPECT_EQ(pr["state"], "not_ready");
  EXPECT_EQ(pr["readiness"]["gitHubMergeability"], "in_progress");
  EXPECT_EQ(pr["readiness"]["hasImpactedTargets"], false);
  EXPECT_EQ(pr["readiness"]["requiresImpactedTargets"], false);
  EXPECT_EQ(pr["isCurrentlySubmittedToQueue"], true);
  EXPECT_EQ(pr["forceEnqueued"], false);
  EXPECT_EQ(pr["usedDefaultPriorityName"], "medium");
  EXPECT_EQ(pr["prBaseBranch"], "main");
  EXPECT_EQ(pr["stateChangedAt"], trunk::format_rfc3339(fixed_now()));
  EXPECT_TRUE(trunk::is_uuid(pr["id"].get<std::string>()));
  sim.ok(paths::kSetImpactedTargets, {{"pr", {{"number", 5}, {"sha", pr["prSha"]}}}, {"impactedTargets", {"//app"}}});
  sim.minutes(1);
  pr = sim.pr(5);
  EXPECT_EQ(pr["state"], "pending");
  EXPECT_EQ(pr["readiness"]["gitHubMergeability"], "mergeable");
  EXPECT_EQ(pr["readiness"]["hasImpactedTargets"], true);
  EXPECT_EQ(pr["stateChangedAt"], trunk::format_rfc3339(fixed_now() + std::chrono::minutes(1)));
}

TEST(MergeQueueSimulation, SingleModeTestsOneAtATimeAndMergesInOrder) {
  Sim sim;
  for (int n = 1; n <= 4; ++n) sim.submit(n);
  std::vector<std::int64_t> merged;
  for (int minute = 0; minute < 8 * 60 && merged.size() < 4; minute += 5) {
    sim.minutes(5);
    EXPECT_LE(sim.count("testing"), 1);
    for (int n = 1; n <= 4; ++n) {
      if (sim.state(n) == "merged" && std::find(merged.begin(), merged.end(), n) == merged.end()) merged.push_back(n);
    }
  }
  EXPECT_EQ(merged, (std::vector<std::int64_t>{1, 2, 3, 4}));
  const auto queue = sim.call(paths::kGetQueue, Json::object()).json();
  EXPECT_TRUE(queue["enqueuedPullRequests"].empty());
}

TEST(MergeQueueSimulation, SingleModeTestsConcurrencyUnitsAtOncePredictively) {
  Sim sim;
  sim.settings({{"concurrency", 3}});
  for (int n = 1; n <= 5; ++n) sim.submit(n);
  sim.minutes(2);
  EXPECT_EQ(sim.count("testing"), 3);
  EXPECT_EQ(sim.count("pending"), 2);
  // Predictive: the third run is tested on top of the first two.
  const std::string run = sim.pr(3)["testRunId"];
  const Json details = sim.call(paths::kGetMergeQueueTestingDetails, {{"testRunId", run}}).json();
  EXPECT_EQ(details["status"], "in_progress");
  EXPECT_EQ(details["dependentPrs"].size(), 2U);
  EXPECT_EQ(details["testedPullRequests"][0]["number"], 3);
  sim.minutes(6 * 60);
  EXPECT_EQ(sim.count("merged"), 5);
}

TEST(MergeQueueSimulation, BatchesFormAtTheMinimumSizeOrAfterTheMaximumWait) {
  Sim sim;
  sim.settings({{"batch", true}, {"batchingMinSize", 3}, {"batchingMaxWaitTimeMinutes", 10}});
  for (int n = 1; n <= 3; ++n) sim.submit(n);
  sim.minutes(2);
  EXPECT_EQ(sim.count("testing"), 3);
  EXPECT_EQ(sim.pr(1)["testRunId"], sim.pr(3)["testRunId"]) << "one run for the batch";
  sim.minutes(3 * 60);
  EXPECT_EQ(sim.count("merged"), 3);

  sim.submit(4);
  sim.submit(5);
  sim.submit(6, {{"noBatch", true}});
  sim.minutes(2);
  EXPECT_EQ(sim.state(4), "pending") << "two of three: waits for more";
  sim.minutes(9);  // the oldest has now waited 10 minutes since it became ready
  EXPECT_EQ(sim.state(4), "testing");
  EXPECT_EQ(sim.pr(4)["testRunId"], sim.pr(5)["testRunId"]);
  sim.minutes(3 * 60);
  EXPECT_EQ(sim.state(6), "merged") << "the noBatch one is tested on its own";
  EXPECT_NE(sim.pr(6)["testRunId"], sim.pr(5)["testRunId"]);
}

TEST(MergeQueueSimulation, AFailedBatchIsBisectedAndTheInnocentMerge) {
  Sim sim(sim_options(0, 0.3));
  const auto broken = numbers(sim.repo_key(), 0.3, true, 1);
  const auto innocent = numbers(sim.repo_key(), 0.3, false, 5);
  sim.settings({{"batch", true}, {"batchingMinSize", 6}, {"bisectionConcurrency", 2}});
  std::vector<std::int64_t> all = {innocent[0], innocent[1], broken[0], innocent[2], innocent[3], innocent[4]};
  for (const auto n : all) sim.submit(n);
  sim.minutes(10 * 60);
  EXPECT_EQ(sim.state(broken[0]), "failed");
  for (const auto n : innocent) EXPECT_EQ(sim.state(n), "merged") << n;
  const auto metrics = sim.metrics();
  EXPECT_GT(metrics.value_of("mq_test_runs_started_total", {{"queue_type", "bisection"}}).value_or(0), 0);
  EXPECT_GE(metrics.value_of("mq_test_runs_failed_total", {{"cause", "broken"}}).value_or(0), 2);
}

TEST(MergeQueueSimulation, ABrokenPullRequestFailsAndTheOnesBehindItStillMerge) {
  Sim sim(sim_options(0, 0.3));
  const auto broken = numbers(sim.repo_key(), 0.3, true, 1);
  const auto innocent = numbers(sim.repo_key(), 0.3, false, 3);
  sim.settings({{"concurrency", 3}});
  for (const auto n : {innocent[0], broken[0], innocent[1], innocent[2]}) sim.submit(n);
  sim.minutes(8 * 60);
  EXPECT_EQ(sim.state(broken[0]), "failed");
  for (const auto n : innocent) EXPECT_EQ(sim.state(n), "merged") << n;
  // The failed run records its cause.
  const std::string run = sim.pr(broken[0])["testRunId"];
  const Json details = sim.call(paths::kGetMergeQueueTestingDetails, {{"testRunId", run}}).json();
  EXPECT_EQ(details["status"], "failed");
  EXPECT_EQ(details["failureCause"], "broken");
}

TEST(MergeQueueSimulation, PausedStartsNothingAndDrainingOnlyFinishes) {
  Sim sim;
  sim.settings({{"state", "paused"}});
  sim.submit(1);
  sim.submit(2);
  sim.minutes(60);
  EXPECT_EQ(sim.state(1), "pending");
  sim.settings({{"state", "running"}});
  EXPECT_EQ(sim.state(1), "testing") << "resuming starts at once";
  sim.settings({{"state", "draining"}});
  sim.minutes(5 * 60);
  EXPECT_EQ(sim.state(1), "merged") << "draining finishes what is testing";
  EXPECT_EQ(sim.state(2), "pending") << "and starts nothing new";
}

TEST(MergeQueueSimulation, RestartAbandonsTheRunAndCancelTakesThePullRequestOut) {
  Sim sim;
  sim.submit(1);
  sim.submit(2);
  sim.minutes(2);
  ASSERT_EQ(sim.state(1), "testing");
  const std::string first_run = sim.pr(1)["testRunId"];
  sim.ok(paths::kRestartTestsOnPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(sim.state(1), "testing") << "back to pending, and started again at once";
  EXPECT_NE(sim.pr(1)["testRunId"], first_run);
  EXPECT_EQ(sim.call(paths::kGetMergeQueueTestingDetails, {{"testRunId", first_run}}).json()["status"], "cancelled");
  EXPECT_EQ(sim.call(paths::kRestartTestsOnPullRequest, {{"pr", {{"number", 2}}}}).status, 400) << "pending: nothing to restart";

  sim.ok(paths::kCancelPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(sim.state(1), "cancelled");
  EXPECT_EQ(sim.pr(1)["isCurrentlySubmittedToQueue"], false);
  EXPECT_EQ(sim.state(2), "testing") << "the next one starts";
  const std::string cancelled_id = sim.pr(1)["id"];
  sim.submit(1);  // a concluded pull request may come back: a new submission
  EXPECT_NE(sim.pr(1)["id"], cancelled_id);
  sim.minutes(5 * 60);
  EXPECT_EQ(sim.state(1), "merged");
  EXPECT_EQ(sim.state(2), "merged");
  EXPECT_EQ(sim.list({{"state", "cancelled"}}).size(), 1U);
}

TEST(MergeQueueSimulation, AnUrgentPullRequestStartsAtOnceWhileBatchesWaitToFill) {
  Sim sim;
  sim.settings({{"batch", true}, {"batchingMinSize", 4}, {"batchingMaxWaitTimeMinutes", 5}, {"concurrency", 2}});
  sim.submit(1);
  sim.submit(2);
  sim.minutes(1);
  ASSERT_EQ(sim.state(1), "pending") << "a batch of 2 waits for 4, up to 5 minutes";
  sim.submit(3, {{"priority", "urgent"}});
  sim.minutes(1);
  EXPECT_EQ(sim.state(3), "testing") << "urgent does not wait for the batch to fill";
  EXPECT_EQ(sim.state(1), "pending") << "nor does it take the others into its batch";
  EXPECT_EQ(sim.state(2), "pending");
  sim.minutes(4);
  EXPECT_EQ(sim.state(1), "testing") << "the others' batch starts at its deadline";

  Sim empty;
  empty.settings({{"batch", true}, {"batchingMinSize", 4}, {"batchingMaxWaitTimeMinutes", 5}});
  empty.submit(7, {{"priority", "urgent"}});
  empty.minutes(1);
  EXPECT_EQ(empty.state(7), "testing") << "alone on an empty queue too";
}

TEST(MergeQueueSimulation, CancellingATestingPullRequestIsNoRestart) {
  // It goes from testing straight to cancelled: no pending (PREREQUISITE_MERGE_ITEM_CANCELLED) of its own on the way, so no
  // pull_request.queued webhook before pull_request.canceled and no restart in the metrics. The one behind it,
  // which was tested on top of it, does go back to pending: that is a restart.
  Sim sim;
  sim.settings({{"concurrency", 2}});
  sim.submit(1);
  sim.submit(2);
  sim.minutes(2);
  ASSERT_EQ(sim.state(1), "testing");
  ASSERT_EQ(sim.state(2), "testing");
  sim.ok(paths::kCancelPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(sim.state(1), "cancelled");
  EXPECT_EQ(sim.metrics().gauge("mq_pr_restarts_1h_total").value_or(-1), 1) << "pull request 2 only";

  Sim single;
  single.submit(1);
  single.minutes(2);
  ASSERT_EQ(single.state(1), "testing");
  single.ok(paths::kCancelPullRequest, {{"pr", {{"number", 1}}}});
  EXPECT_EQ(single.state(1), "cancelled");
  EXPECT_EQ(single.metrics().gauge("mq_pr_restarts_1h_total").value_or(-1), 0);
}

TEST(MergeQueueSimulation, PrioritiesOrderTheLineAndUrgentSkipsIt) {
  Sim sim;
  sim.settings({{"state", "paused"}});
  sim.submit(1);
  sim.submit(2, {{"priority", "low"}});
  sim.submit(3, {{"priority", 10}});
  sim.minutes(2);
  EXPECT_EQ(sim.pr(3)["priorityName"], "high");
  EXPECT_EQ(sim.pr(2)["priorityValue"], 200);
  EXPECT_FALSE(sim.pr(2).contains("usedDefaultPriorityName"));
  sim.settings({{"state", "running"}});
  EXPECT_EQ(sim.state(3), "testing") << "high before medium and low";
  sim.submit(4, {{"priority", "urgent"}});
  EXPECT_EQ(sim.pr(4)["skipTheLine"], true);
  sim.minutes(1);
  EXPECT_EQ(sim.state(4), "testing") << "urgent interrupts the running test";
  EXPECT_EQ(sim.state(3), "pending");
  sim.minutes(6 * 60);
  const auto merged = sim.list({{"state", "merged"}});
  ASSERT_EQ(merged.size(), 4U);
  std::vector<std::pair<std::string, std::int64_t>> order;
  for (const Json& item : merged) order.emplace_back(item["stateChangedAt"], item["prNumber"]);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order[0].second, 4);
  EXPECT_EQ(order[1].second, 3);
  EXPECT_EQ(order[2].second, 1);
  EXPECT_EQ(order[3].second, 2);
}

TEST(MergeQueueSimulation, ListingPagesWithCursorsAndFilters) {
  Sim sim;
  for (int n = 1; n <= 7; ++n) sim.submit(n);
  const auto first = sim.call(paths::kListPullRequests, {{"take", 3}}).json();
  ASSERT_EQ(first["pullRequests"].size(), 3U);
  ASSERT_TRUE(first.contains("nextCursor"));
  EXPECT_TRUE(trunk::is_uuid(first["nextCursor"].get<std::string>()));
  const auto all = sim.list(Json::object(), 3);
  ASSERT_EQ(all.size(), 7U);
  for (int n = 0; n < 7; ++n) EXPECT_EQ(all[static_cast<std::size_t>(n)]["prNumber"], n + 1);
  const auto last = sim.call(paths::kListPullRequests, {{"take", 7}}).json();
  EXPECT_FALSE(last.contains("nextCursor")) << "absent on the last page";
  sim.minutes(2 * 60);
  const auto since = trunk::format_rfc3339(fixed_now() + std::chrono::minutes(1));
  const auto concluded = sim.list({{"since", since}});
  EXPECT_EQ(concluded.size(), sim.list({{"state", "merged"}}).size());
  EXPECT_GT(concluded.size(), 0U);
}

TEST(MergeQueueSimulation, PendingFailureIsRescuedOnlyByOptimisticMerging) {
  // White box, over many seeds: a failing unit waits in pending_failure for the one behind it; a pass behind it
  // rescues it with optimistic merging, never without.
  int rescued = 0, waited = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    for (const bool optimistic : {true, false}) {
      trunk::sandbox::FailureModel model;
      model.flaky_run_failure = 0.4;
      model.seed = seed;
      auto now = fixed_now();
      trunk::sandbox::MergeQueue queue("github.com/acme/storefront", "main", model, now);
      trunk::QueueSettings settings;
      settings.state = trunk::QueueState::running;
      settings.mode = trunk::QueueMode::single;
      settings.concurrency = 2;
      settings.pending_failure_depth = 1;
      settings.can_optimistically_merge = optimistic;
      settings.testing_timeout_minutes = 240;
      for (const std::int64_t n : {1, 2}) {
        trunk::SubmitPullRequestRequest request;
        request.pr.number = n;
        ASSERT_FALSE(queue.submit(request, settings));
      }
      bool seen_pending_failure = false;
      for (int minute = 0; minute < 600; ++minute) {
        now += std::chrono::minutes(1);
        queue.advance_to(now, settings);
        const auto first = std::get<trunk::SubmittedPullRequest>(queue.submitted(1));
        if (first.state == trunk::PullRequestState::pending_failure) seen_pending_failure = true;
      }
      const auto first = std::get<trunk::SubmittedPullRequest>(queue.submitted(1));
      if (!seen_pending_failure) continue;
      ++waited;
      if (first.state == trunk::PullRequestState::merged) {
        EXPECT_TRUE(optimistic) << "seed " << seed << ": rescued without optimistic merging";
        ++rescued;
      }
    }
  }
  EXPECT_GT(waited, 0);
  EXPECT_GT(rescued, 0);
}

TEST(MergeQueueSimulation, MetricsAgreeWithTheListing) {
  Sim sim(sim_options(0.2, 0.15));
  sim.settings({{"concurrency", 2}, {"batch", true}, {"batchingMinSize", 2}});
  for (int n = 1; n <= 12; ++n) sim.submit(n);
  sim.minutes(90);
  sim.ok(paths::kCancelPullRequest, {{"pr", {{"number", 12}}}});
  sim.minutes(10 * 60);
  const auto items = sim.list();
  std::map<std::string, double> by_state;
  for (const Json& item : items) by_state[item["state"]] += 1;
  const auto metrics = sim.metrics();
  EXPECT_EQ(metrics.value_of("mq_prs_submitted_total"), 12);
  for (const char* conclusion : {"merged", "failed", "cancelled"}) {
    EXPECT_EQ(metrics.value_of("mq_prs_concluded_total", {{"conclusion", conclusion}}).value_or(-1), by_state[conclusion])
        << conclusion;
  }
  for (const auto& [state, count] : by_state) {
    EXPECT_EQ(metrics.value_of("mq_prs_current", {{"state", state}}).value_or(-1), count) << state;
  }
  EXPECT_EQ(metrics.value_of("mq_pr_time_to_merge_seconds_count").value_or(-1), by_state["merged"]);
  EXPECT_EQ(metrics.value_of("mq_depth_current").value_or(-1),
            12 - by_state["merged"] - by_state["failed"] - by_state["cancelled"]);
  EXPECT_EQ(metrics.types["mq_pr_time_to_merge_seconds"], "histogram");
  EXPECT_EQ(metrics.types["mq_test_runs_failed_total"], "counter");
}

std::vector<std::string> outcome_of_a_busy_day(std::uint64_t seed) {
  auto options = sim_options();
  options.seed = seed;
  options.flaky_failure_rate.reset();  // from the history
  options.broken_pull_request_rate.reset();
  Sim sim(options);
  sim.settings({{"concurrency", 3}, {"canOptimisticallyMerge", true}, {"pendingFailureDepth", 2}});
  std::vector<std::string> out;
  for (int n = 1; n <= 10; ++n) {
    sim.submit(n);
    sim.minutes(7);
  }
  sim.minutes(12 * 60);
  for (const Json& item : sim.list()) out.push_back(item.dump());
  out.push_back(sim.metrics().text);
  return out;
}

TEST(MergeQueueSimulation, TheSameSeedAndCallsGiveTheSameOutcomes) {
  EXPECT_EQ(outcome_of_a_busy_day(7), outcome_of_a_busy_day(7));
}

TEST(MergeQueueSimulation, DropAfterProcessesTheRequestThenLosesTheAnswer) {
  Sim sim;
  auto faults = sim.box().faults();
  faults.drop_after_rate = 1;
  sim.box().set_faults(faults);
  sim.box().clear_requests();
  const auto reply = sim.call(paths::kSubmitPullRequest, {{"pr", {{"number", 42}}}});
  EXPECT_EQ(reply.status, 0) << "no answer";
  sim.box().set_faults({});
  EXPECT_EQ(sim.state(42), "not_ready") << "the submission happened";
  const auto records = sim.box().requests();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front().fault, "drop_after");
  EXPECT_EQ(records.front().status, 0);
}

TEST(MergeQueueState, QueuesSurviveARestartAndAnOldFileStillHasMain) {
  TempDir dir;
  auto options = sim_options();
  options.state_file = dir.file("queues.json");
  {
    Sim sim(options);
    sim.ok(paths::kCreateQueue, {{"concurrency", 3}}, "release");
    sim.ok(paths::kDeleteQueue, Json::object());
  }
  {
    Sim sim(options);
    EXPECT_EQ(sim.call(paths::kGetQueue, Json::object(), "release").json()["concurrency"], 3);
    EXPECT_EQ(sim.call(paths::kGetQueue, Json::object()).status, 404) << "deleted main stays deleted";
  }
  write_text(options.state_file, R"({"format": "trunk-sandbox-queues", "version": 1, "queues": []})");
  Sim old(options);
  EXPECT_EQ(old.call(paths::kGetQueue, Json::object()).status, 200) << "version 1: main existed implicitly";
}

}  // namespace
}  // namespace sandbox_test
