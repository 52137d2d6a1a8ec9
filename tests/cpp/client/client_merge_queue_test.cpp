// The merge-queue operations (and link-ticket-to-test-case) through the public Client, against real local
// servers: the exact request each sends (method, path, query, body with only the fields set), the answers each
// reads, the cursor pager, the retry rule each operation's declaration carries, 409, and the boundaries of
// every declared rule (validated before anything is sent).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;
using testing::Reply;

using testing::kRepo;
constexpr const char* kUuid = "123e4567-e89b-12d3-a456-426614174000";

/// A setImpactedTargets request, built member by member. Written inline as one braced temporary
/// ({kRepo, {7, "abc"}, "main", targets}), GCC 12 at -O2/-O3 follows the clean-up path of that aggregate
/// initialization and warns that pr.sha "may be used uninitialized" (-Wmaybe-uninitialized, in a Release build):
/// here every member is constructed before any is assigned, so there is no such path.
SetImpactedTargetsRequest impacted_targets(std::int64_t number, std::string sha, ImpactedTargets targets) {
  SetImpactedTargetsRequest request;
  request.repo = kRepo;
  request.pr.number = number;
  request.pr.sha = std::move(sha);
  request.target_branch = "main";
  request.targets = std::move(targets);
  return request;
}

Json body_of(const testing::RecordedRequest& request) { return Json::parse(request.body); }

TEST(MergeQueueRequests, EachOperationSendsItsPathAndOnlyTheFieldsSet) {
  HttpTestServer server;
  server.set_replies({{200, "{}"}});
  Client client(testing::test_options(server.base_url()));

  client.create_queue({kRepo, "release", QueueMode::parallel, 3});
  client.delete_queue({kRepo, "release"});
  client.submit_pull_request({kRepo, {7}, "main", Priority{std::string("high")}, true});
  client.submit_pull_request({kRepo, {8}, "main", Priority{std::int64_t{5}}, std::nullopt});
  client.submit_pull_request({kRepo, {9}, "main", std::nullopt, std::nullopt});
  client.cancel_pull_request({kRepo, {7}, "main"});
  client.restart_tests_on_pull_request({kRepo, {7}, "main"});
  client.set_impacted_targets(impacted_targets(7, "abc123", std::vector<std::string>{"//a", "//b"}));
  client.set_impacted_targets(impacted_targets(7, "abc123", AllTargets::all));
  client.link_ticket_to_test_case({kRepo, kUuid, "KAN-123"});

  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 10U);
  const Json repo = {{"host", "github.com"}, {"owner", "acme"}, {"name", "widgets"}};
  const std::vector<std::pair<std::string, Json>> expected = {
      {"/v1/createQueue", {{"repo", repo}, {"targetBranch", "release"}, {"mode", "parallel"}, {"concurrency", 3}}},
      {"/v1/deleteQueue", {{"repo", repo}, {"targetBranch", "release"}}},
      {"/v1/submitPullRequest",
       {{"repo", repo}, {"pr", {{"number", 7}}}, {"targetBranch", "main"}, {"priority", "high"}, {"noBatch", true}}},
      {"/v1/submitPullRequest", {{"repo", repo}, {"pr", {{"number", 8}}}, {"targetBranch", "main"}, {"priority", 5}}},
      {"/v1/submitPullRequest", {{"repo", repo}, {"pr", {{"number", 9}}}, {"targetBranch", "main"}}},
      {"/v1/cancelPullRequest", {{"repo", repo}, {"pr", {{"number", 7}}}, {"targetBranch", "main"}}},
      {"/v1/restartTestsOnPullRequest", {{"repo", repo}, {"pr", {{"number", 7}}}, {"targetBranch", "main"}}},
      {"/v1/setImpactedTargets",
       {{"repo", repo}, {"pr", {{"number", 7}, {"sha", "abc123"}}}, {"targetBranch", "main"},
        {"impactedTargets", {"//a", "//b"}}}},
      {"/v1/setImpactedTargets",
       {{"repo", repo}, {"pr", {{"number", 7}, {"sha", "abc123"}}}, {"targetBranch", "main"}, {"impactedTargets", "ALL"}}},
      {"/v1/flaky-tests/link-ticket-to-test-case",
       {{"repo", repo}, {"test_case_id", kUuid}, {"external_ticket_id", "KAN-123"}}},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(sent[i].method, "POST") << i;
    EXPECT_EQ(sent[i].path, expected[i].first) << i;
    EXPECT_EQ(body_of(sent[i]), expected[i].second) << i;
  }
}

TEST(MergeQueueRequests, AnAcknowledgementKeepsWhateverTheServiceAnswered) {
  HttpTestServer server;
  server.set_replies({{200, R"({"queued":true,"position":3})"}});
  Client client(testing::test_options(server.base_url()));
  const Acknowledgement answer = client.submit_pull_request({kRepo, {7}, "main", std::nullopt, std::nullopt});
  EXPECT_EQ(answer.extra, Json({{"queued", true}, {"position", 3}}));
}

TEST(MergeQueueRequests, MetricsAreAGetWithTheRepositoryInTheQueryAndPrometheusText) {
  HttpTestServer server;
  server.set_replies({{200,
                       "# HELP trunk_merge_queue_merged_total Pull requests merged.\n"
                       "# TYPE trunk_merge_queue_merged_total counter\n"
                       "trunk_merge_queue_merged_total{repo=\"acme/widgets\",target_branch=\"main\"} 12\n"
                       "trunk_merge_queue_wait_seconds_bucket{le=\"+Inf\",note=\"a \\\"b\\\"\\n\"} 7 1700000000000\n"
                       "trunk_merge_queue_ratio NaN\n",
                       "text/plain; version=0.0.4; charset=utf-8"}});
  Client client(testing::test_options(server.base_url()));
  const MergeQueueMetrics metrics = client.get_merge_queue_metrics({Repo{"gitlab.com", "group/sub", "project"}});

  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].method, "GET");
  EXPECT_EQ(sent[0].path, "/v1/getMergeQueueMetrics");
  EXPECT_TRUE(sent[0].body.empty());
  EXPECT_NE(sent[0].header("Accept").find("text/plain"), std::string::npos);
  // httplib decodes the query: the owner's '/' (a GitLab subgroup) stays inside repo.
  ASSERT_EQ(metrics.samples.size(), 3U);
  EXPECT_EQ(metrics.samples[0].name, "trunk_merge_queue_merged_total");
  EXPECT_EQ(metrics.samples[0].labels, Json({{"repo", "acme/widgets"}, {"target_branch", "main"}}));
  EXPECT_EQ(metrics.samples[0].value, 12);
  EXPECT_EQ(metrics.samples[1].labels, Json({{"le", "+Inf"}, {"note", "a \"b\"\n"}}));
  EXPECT_EQ(metrics.samples[1].timestamp, Timestamp{std::chrono::milliseconds{1700000000000}});
  EXPECT_EQ(metrics.samples[0].timestamp, std::nullopt);
  EXPECT_TRUE(std::isnan(metrics.samples[2].value));
  EXPECT_EQ(metrics.types, Json({{"trunk_merge_queue_merged_total", "counter"}}));
  EXPECT_EQ(metrics.value_of("trunk_merge_queue_merged_total", {{"target_branch", "main"}}), 12);
  EXPECT_EQ(metrics.value_of("trunk_merge_queue_merged_total", {{"target_branch", "other"}}), std::nullopt);
}

TEST(MergeQueueRequests, TheMetricsQueryIsPercentEncodedAndReadBack) {
  const GetMergeQueueMetricsRequest request{Repo{"git.example.com", "group/sub team", "proj&x"}};
  const std::string query = to_query(request);
  EXPECT_EQ(query, "repo=group/sub%20team/proj%26x&repoHost=git.example.com");
  EXPECT_EQ(metrics_request_from_query(query), request);
  EXPECT_EQ(metrics_request_from_query("repo=acme/widgets").repo, kRepo);  // repoHost defaults to github.com
  EXPECT_EQ(metrics_request_from_query("").repo, std::nullopt);            // every repository
  EXPECT_THROW(metrics_request_from_query("repoHost=github.com"), ValidationError);  // a host of no repository
  EXPECT_THROW(metrics_request_from_query("repo=widgets"), ValidationError);
  EXPECT_THROW(metrics_request_from_query("repo=a/b&x=1"), ValidationError);
  EXPECT_THROW(metrics_request_from_query("repo=a/b%zz"), ValidationError);
}

TEST(MergeQueueRequests, MetricsWithoutARepositoryAskForEveryRepositoryWithNoQueryAtAll) {
  const GetMergeQueueMetricsRequest every_repository{};
  EXPECT_EQ(to_query(every_repository), "");
  HttpTestServer server;
  std::mutex seen;  // the handler runs on the server's thread
  std::string target;
  std::size_t parameters = 99;
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    std::lock_guard lock(seen);
    target = request.target;
    parameters = request.params.size();
    response.set_content("mq_depth_current{repo=\"acme/widgets\",branch=\"main\",queue_type=\"main\"} 2\n"
                         "mq_depth_current{repo=\"acme/gadgets\",branch=\"main\",queue_type=\"main\"} 3\n",
                         "text/plain; version=0.0.4");
  });
  Client client(testing::test_options(server.base_url()));
  const MergeQueueMetrics metrics = client.get_merge_queue_metrics(every_repository);
  std::lock_guard lock(seen);
  EXPECT_EQ(target, "/v1/getMergeQueueMetrics");  // no '?': nothing the caller did not set
  EXPECT_EQ(parameters, 0U);
  EXPECT_EQ(metrics.gauge("mq_depth_current"), 5);
  EXPECT_EQ(metrics.gauge("mq_depth_current", {{"repo", "acme/gadgets"}}), 3);
}

TEST(MergeQueueRequests, AMetricsTextThatIsNotPrometheusIsADecodeErrorNamingTheLine) {
  HttpTestServer server;
  server.set_replies({{200, "ok 1\nthis is not a sample\n", "text/plain"}});
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_merge_queue_metrics({kRepo});
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    EXPECT_EQ(error.path(), "line 2");
  }
}

TEST(MergeQueueRequests, ASampleTimestampIsATimeOrKeptInExtraWhenNoTimeHoldsIt) {
  // The last millisecond of the year 9999 is a time; the next one (and an instant before the year 0) is not.
  const auto metrics = MergeQueueMetrics::parse("a 1 253402300799999\nb 2 253402300800000\nc 3 -1\n");
  EXPECT_EQ(metrics.samples[0].timestamp, parse_rfc3339("9999-12-31T23:59:59.999Z"));
  EXPECT_EQ(metrics.samples[1].timestamp, std::nullopt);
  EXPECT_EQ(metrics.samples[1].extra, Json({{"timestamp", 253402300800000}}));
  EXPECT_EQ(metrics.samples[2].timestamp, parse_rfc3339("1969-12-31T23:59:59.999Z"));
  EXPECT_EQ(MergeQueueMetrics::parse("d 4 -62167219200001\n").samples[0].extra, Json({{"timestamp", -62167219200001}}));
}

TEST(MergeQueueAnswers, SubmittedPullRequestTestRunAndPageAreReadTolerantly) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    if (request.path == "/v1/getSubmittedPullRequest") {
      response.set_content(
          R"({"id":"x1","state":"testing","readiness":{"hasImpactedTargets":true,"gitHubMergeability":"mergeable",)"
          R"("new":1},"isCurrentlySubmittedToQueue":true,"forceEnqueued":false,"prNumber":7,"priorityValue":2,)"
          R"("priorityName":"low","stateChangedAt":"2026-01-01T00:00:00Z","skipTheLine":false,"prTitle":"t",)"
          R"("prSha":"s","prBaseBranch":"main","prAuthor":"a","usedDefaultPriorityName":"medium"})",
          "application/json");
    } else {
      response.set_content(
          R"({"requiredStatuses":["ci"],"requiredStatusesSource":"trunk_config","testBranch":"trunk-merge/x",)"
          R"("testBranchSha":"abc","checkSuites":[{"name":"ci","conclusion":"success"}],"statusChecks":[],)"
          R"("testedPullRequests":[{"number":7}],"status":"a_new_status","impactedTargets":"ALL"})",
          "application/json");
    }
  });
  Client client(testing::test_options(server.base_url()));
  const SubmittedPullRequest pr = client.get_submitted_pull_request({kRepo, {7}, "main"});
  EXPECT_EQ(pr.state, PullRequestState::testing);
  ASSERT_TRUE(pr.readiness);
  EXPECT_EQ(pr.readiness->git_hub_mergeability, GitHubMergeability::mergeable);
  EXPECT_EQ(pr.readiness->extra, Json({{"new", 1}}));
  EXPECT_EQ(pr.is_currently_submitted_to_queue, true);
  EXPECT_EQ(pr.used_default_priority_name, "medium");

  const TestRunDetails run = client.get_merge_queue_testing_details({kRepo, "main", "run-1"});
  EXPECT_EQ(run.required_statuses_source, RequiredStatusesSource::trunk_config);
  EXPECT_EQ(run.status->wire(), "a_new_status");  // an unknown value is kept, not an error
  EXPECT_EQ(run.check_suites, Json::parse(R"([{"name":"ci","conclusion":"success"}])"));
  EXPECT_EQ(run.impacted_targets, Json("ALL"));
  EXPECT_FALSE(run.dependent_prs);
}

std::string pr_page(std::vector<int> numbers, const std::string& next_cursor) {
  Json page = {{"pullRequests", Json::array()}};
  for (int number : numbers) page["pullRequests"].push_back({{"prNumber", number}, {"state", "merged"}});
  if (!next_cursor.empty()) page["nextCursor"] = next_cursor;
  return page.dump();
}

TEST(PullRequestPager, FollowsNextCursorUntilItIsAbsent) {
  const std::string c1 = "00000000-0000-0000-0000-000000000001";
  const std::string c2 = "00000000-0000-0000-0000-000000000002";
  HttpTestServer server;
  server.set_replies({{200, pr_page({1, 2}, c1)}, {200, pr_page({3}, c2)}, {200, pr_page({4}, "")}});
  Client client(testing::test_options(server.base_url()));
  ListPullRequestsRequest request{kRepo, "main", PullRequestState::merged, std::nullopt, std::nullopt, std::nullopt, 2};
  std::vector<std::int64_t> numbers;
  for (const PullRequest& pr : client.pull_requests(request)) numbers.push_back(pr.pr_number.value_or(-1));
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{1, 2, 3, 4}));
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 3U);
  EXPECT_FALSE(body_of(sent[0]).contains("cursor"));  // the first page is asked for without one
  EXPECT_EQ(body_of(sent[0])["take"], 2);
  EXPECT_EQ(body_of(sent[0])["state"], "merged");
  EXPECT_EQ(body_of(sent[1])["cursor"], c1);
  EXPECT_EQ(body_of(sent[2])["cursor"], c2);
}

TEST(PullRequestPager, ACursorGivenTwiceIsAPaginationError) {
  const std::string c1 = "00000000-0000-0000-0000-000000000001";
  HttpTestServer server;
  server.set_replies({{200, pr_page({1}, c1)}, {200, pr_page({2}, c1)}});
  Client client(testing::test_options(server.base_url()));
  auto pager = client.pull_requests({kRepo, "main"});
  EXPECT_TRUE(pager.next_page());
  EXPECT_THROW(pager.next_page(), PaginationError);
}

TEST(PullRequestPager, TakeDefaultsTo50AndIsSent) {
  HttpTestServer server;
  server.set_replies({{200, pr_page({}, "")}});
  Client client(testing::test_options(server.base_url()));
  client.list_pull_requests({kRepo, "main"});
  EXPECT_EQ(body_of(server.requests().at(0)), Json({{"repo", {{"host", "github.com"}, {"owner", "acme"}, {"name", "widgets"}}},
                                                    {"targetBranch", "main"},
                                                    {"take", 50}}));
}

TEST(PullRequestPager, UntilIsSentOnlyWhenSetAsAnRfc3339Time) {
  HttpTestServer server;
  server.set_replies({{200, pr_page({}, "")}});
  Client client(testing::test_options(server.base_url()));
  ListPullRequestsRequest request{kRepo, "main"};
  request.until = parse_rfc3339("2026-11-20T12:00:00Z");
  client.list_pull_requests(request);
  const Json body = body_of(server.requests().at(0));
  EXPECT_EQ(parse_rfc3339(body.at("until").get<std::string>()), *request.until);
  EXPECT_FALSE(body.contains("since"));
}

// ---- the retry rule is a property of each operation's declaration ------------------------------------------

static_assert(op::SubmitPullRequest::repeat == Repeat::not_safe);
static_assert(op::RestartTestsOnPullRequest::repeat == Repeat::not_safe);
static_assert(op::CreateQueue::repeat == Repeat::not_safe);
static_assert(op::SetImpactedTargets::repeat == Repeat::not_safe);
static_assert(op::CancelPullRequest::repeat == Repeat::safe);
static_assert(op::DeleteQueue::repeat == Repeat::safe);
static_assert(op::UpdateQueue::repeat == Repeat::safe);

TEST(MergeQueueRetries, ANotSafeOperationIsNotRepeatedAfterA500ButASafeOneIs) {
  for (int safe = 0; safe < 2; ++safe) {
    HttpTestServer server;
    server.set_replies({{500, "oops", "text/plain"}, {200, "{}"}});
    Client client(testing::test_options(server.base_url()));
    if (safe == 1) {
      EXPECT_NO_THROW(client.cancel_pull_request({kRepo, {7}, "main"}));
      EXPECT_EQ(server.request_count(), 2U);
    } else {
      EXPECT_THROW(client.submit_pull_request({kRepo, {7}, "main", std::nullopt, std::nullopt}), ServerError);
      EXPECT_EQ(server.request_count(), 1U);
    }
  }
}

TEST(MergeQueueRetries, EveryNotSafeOperationIsRetriedAfterA503AnsweredBeforeProcessing) {
  std::atomic<int> answered{0};
  HttpTestServer server;  // after `answered`, which its handler uses
  server.set_handler([&answered](const httplib::Request&, httplib::Response& response) {
    if (++answered % 2 == 1) {
      response.status = 503;
      response.set_content("busy", "text/plain");
    } else {
      response.set_content("{}", "application/json");
    }
  });
  Client client(testing::test_options(server.base_url()));
  client.submit_pull_request({kRepo, {7}, "main", std::nullopt, std::nullopt});
  client.restart_tests_on_pull_request({kRepo, {7}, "main"});
  client.create_queue({kRepo, "release", std::nullopt, std::nullopt});
  client.set_impacted_targets(impacted_targets(7, "abc", AllTargets::all));
  EXPECT_EQ(server.request_count(), 8U);
}

TEST(MergeQueueErrors, ASecondCreateQueueIsAConflictError) {
  HttpTestServer server;
  server.set_replies({{409, "conflict: queue exists", "text/plain"}});
  Client client(testing::test_options(server.base_url()));
  try {
    client.create_queue({kRepo, "main", std::nullopt, std::nullopt});
    FAIL() << "expected ConflictError";
  } catch (const ConflictError& error) {
    EXPECT_EQ(error.status_code(), 409);
    EXPECT_EQ(error.body(), "conflict: queue exists");
  }
  EXPECT_EQ(server.request_count(), 1U);  // 409 is not retryable
}

// ---- boundaries of every declared rule: validated before sending --------------------------------------------

/// The fields a ValidationError names, in order.
template <typename F>
std::vector<std::string> invalid_fields(F&& call) {
  try {
    call();
  } catch (const ValidationError& error) {
    std::vector<std::string> fields;
    for (const auto& violation : error.violations()) fields.push_back(violation.field);
    return fields;
  }
  return {};
}

TEST(MergeQueueValidation, EveryBoundIsCheckedAtItsEdgesBeforeAnythingIsSent) {
  HttpTestServer server;
  server.set_replies({{200, "{}"}});
  Client client(testing::test_options(server.base_url()));
  using Fields = std::vector<std::string>;
  auto submit = [&](std::int64_t number, std::optional<Priority> priority) {
    return invalid_fields([&] { client.submit_pull_request({kRepo, {number}, "main", priority, std::nullopt}); });
  };
  EXPECT_EQ(submit(-1, std::nullopt), Fields{"pr.number"});
  EXPECT_EQ(submit(0, std::nullopt), Fields{});
  EXPECT_EQ(submit(4294967295, std::nullopt), Fields{});
  EXPECT_EQ(submit(4294967296, std::nullopt), Fields{"pr.number"});
  EXPECT_EQ(submit(1, Priority{std::int64_t{-1}}), Fields{"priority"});
  EXPECT_EQ(submit(1, Priority{std::int64_t{0}}), Fields{});
  EXPECT_EQ(submit(1, Priority{std::int64_t{4294967295}}), Fields{});
  EXPECT_EQ(submit(1, Priority{std::int64_t{4294967296}}), Fields{"priority"});
  EXPECT_EQ(submit(1, Priority{std::string()}), Fields{"priority"});
  EXPECT_EQ(submit(1, Priority{std::string("urgent")}), Fields{});

  auto impacted = [&](std::int64_t number, std::string sha, ImpactedTargets targets) {
    return invalid_fields([&] { client.set_impacted_targets({kRepo, {number, sha}, "main", targets}); });
  };
  const ImpactedTargets all{AllTargets::all};
  EXPECT_EQ(impacted(0, "s", all), Fields{"pr.number"});  // 1.. here, unlike pr.number elsewhere
  EXPECT_EQ(impacted(1, "s", all), Fields{});
  EXPECT_EQ(impacted(4294967296, "s", all), Fields{"pr.number"});
  EXPECT_EQ(impacted(1, "", all), Fields{"pr.sha"});
  EXPECT_EQ(impacted(1, "s", ImpactedTargets{std::vector<std::string>{}}), Fields{});  // nothing impacted is valid
  EXPECT_EQ(impacted(1, "s", ImpactedTargets{std::vector<std::string>{"//a", ""}}), Fields{"impactedTargets[1]"});

  auto list = [&](std::int64_t take, std::optional<std::string> cursor) {
    return invalid_fields([&] { client.list_pull_requests({kRepo, "main", std::nullopt, std::nullopt, std::nullopt, cursor, take}); });
  };
  EXPECT_EQ(list(0, std::nullopt), Fields{"take"});
  EXPECT_EQ(list(1, std::nullopt), Fields{});
  EXPECT_EQ(list(100, std::nullopt), Fields{});
  EXPECT_EQ(list(101, std::nullopt), Fields{"take"});
  EXPECT_EQ(list(50, std::string("not-a-uuid")), Fields{"cursor"});
  EXPECT_EQ(list(50, std::string(kUuid)), Fields{});

  auto create = [&](std::optional<std::int64_t> concurrency) {
    return invalid_fields([&] { client.create_queue({kRepo, "b", std::nullopt, concurrency}); });
  };
  EXPECT_EQ(create(0), Fields{"concurrency"});
  EXPECT_EQ(create(1), Fields{});
  EXPECT_EQ(create(4294967295), Fields{});
  EXPECT_EQ(create(4294967296), Fields{"concurrency"});

  EXPECT_EQ(invalid_fields([&] { client.link_ticket_to_test_case({kRepo, "nope", ""}); }),
            (Fields{"test_case_id", "external_ticket_id"}));
  EXPECT_EQ(invalid_fields([&] { client.get_merge_queue_testing_details({kRepo, "", ""}); }),
            (Fields{"targetBranch", "testRunId"}));
  EXPECT_EQ(invalid_fields([&] { client.get_merge_queue_metrics({Repo{"", "o", "n"}}); }), Fields{"repo.host"});
  // Only the valid calls above reached the server.
  EXPECT_EQ(server.request_count(), 12U);
}

}  // namespace
}  // namespace trunk
