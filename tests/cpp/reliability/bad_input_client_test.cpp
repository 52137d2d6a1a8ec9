// Bad-input matrix, C++ client side: every invalid request goes through a real Client pointed at a running
// sandbox. Each must throw ValidationError whose message and violations name the field, and the sandbox's
// request record must stay empty (nothing was sent). The boundary values next to each rule pass and do reach
// the sandbox, so the table cannot pass by rejecting everything.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace {

using std::chrono::hours;
using std::chrono::microseconds;

trunk::Timestamp fixed_now() { return trunk::parse_rfc3339("2026-11-20T12:00:00Z"); }

struct Env {
  std::unique_ptr<trunk::sandbox::Sandbox> box;
  std::unique_ptr<trunk::Client> client;
  trunk::Repo repo;
  std::string test_id;
};

Env& env() {
  static Env* shared = [] {
    auto* e = new Env;
    trunk::sandbox::SandboxOptions options;
    options.tests = 200;
    options.now = fixed_now();
    e->box = std::make_unique<trunk::sandbox::Sandbox>(options);
    e->box->start();
    trunk::ClientOptions client_options;
    client_options.base_url = e->box->url();
    client_options.token = e->box->token();
    client_options.retry.max_retries = 0;
    e->client = std::make_unique<trunk::Client>(std::move(client_options));
    e->repo = e->box->repos().at(0);
    e->test_id = e->box->test_ids(e->repo).at(0);
    return e;
  }();
  return *shared;
}

trunk::ListFailingTestsRequest failing() {
  trunk::ListFailingTestsRequest r;
  r.repo = env().repo;
  r.org_url_slug = env().box->org_url_slug();
  r.end_time = fixed_now();
  r.start_time = fixed_now() - hours(24);
  r.page_query.page_size = 10;
  return r;
}
trunk::ListUnhealthyTestsRequest unhealthy() {
  trunk::ListUnhealthyTestsRequest r;
  r.repo = env().repo;
  r.org_url_slug = env().box->org_url_slug();
  r.status = trunk::HealthStatus::flaky;
  r.page_query.page_size = 10;
  return r;
}
trunk::GetTestDetailsRequest details() {
  trunk::GetTestDetailsRequest r;
  r.repo = env().repo;
  r.org_url_slug = env().box->org_url_slug();
  r.test_id = env().test_id;
  return r;
}
trunk::UpdateQueueRequest queue() {
  trunk::UpdateQueueRequest r;
  r.repo = env().repo;
  r.target_branch = "main";
  return r;
}

using Call = std::function<void(trunk::Client&)>;

template <typename Request, typename Change>
Call call_with(Request (*make)(), Change change) {
  return [make, change](trunk::Client& client) {
    Request request = make();
    change(request);
    if constexpr (std::is_same_v<Request, trunk::ListFailingTestsRequest>) client.list_failing_tests(request);
    if constexpr (std::is_same_v<Request, trunk::ListUnhealthyTestsRequest>) client.list_unhealthy_tests(request);
    if constexpr (std::is_same_v<Request, trunk::GetTestDetailsRequest>) client.get_test_details(request);
    if constexpr (std::is_same_v<Request, trunk::UpdateQueueRequest>) client.update_queue(request);
  };
}

struct BadInput {
  std::string name;
  std::string field;  ///< the wire field the violation must name
  Call call;
};

constexpr std::int64_t kHuge = std::numeric_limits<std::int64_t>::max();
const std::string kNotUtf8 = "bad\xff\xfe";

template <typename R>
using Edit = std::function<void(R&)>;

std::vector<BadInput> bad_inputs() {
  using F = trunk::ListFailingTestsRequest;
  using U = trunk::ListUnhealthyTestsRequest;
  using D = trunk::GetTestDetailsRequest;
  using Q = trunk::UpdateQueueRequest;
  auto f = [](std::string name, std::string field, Edit<F> e) { return BadInput{std::move(name), std::move(field), call_with(&failing, e)}; };
  auto u = [](std::string name, std::string field, Edit<U> e) { return BadInput{std::move(name), std::move(field), call_with(&unhealthy, e)}; };
  auto d = [](std::string name, std::string field, Edit<D> e) { return BadInput{std::move(name), std::move(field), call_with(&details, e)}; };
  auto q = [](std::string name, std::string field, Edit<Q> e) { return BadInput{std::move(name), std::move(field), call_with(&queue, e)}; };
  return {
      f("EmptyRepoHost", "repo.host", [](F& r) { r.repo.host = ""; }),
      f("EmptyRepoOwner", "repo.owner", [](F& r) { r.repo.owner = ""; }),
      f("EmptyRepoName", "repo.name", [](F& r) { r.repo.name = ""; }),
      f("NonUtf8RepoHost", "repo.host", [](F& r) { r.repo.host = kNotUtf8; }),
      f("NonUtf8RepoName", "repo.name", [](F& r) { r.repo.name = kNotUtf8; }),
      f("EmptyOrgSlug", "org_url_slug", [](F& r) { r.org_url_slug = ""; }),
      f("NonUtf8OrgSlug", "org_url_slug", [](F& r) { r.org_url_slug = kNotUtf8; }),
      f("PageSizeZero", "page_query.page_size", [](F& r) { r.page_query.page_size = 0; }),
      f("PageSizeNegative", "page_query.page_size", [](F& r) { r.page_query.page_size = -1; }),
      f("PageSize101", "page_query.page_size", [](F& r) { r.page_query.page_size = 101; }),
      f("PageSizeHuge", "page_query.page_size", [](F& r) { r.page_query.page_size = kHuge; }),
      f("PageSize2Pow32", "page_query.page_size", [](F& r) { r.page_query.page_size = 4294967296; }),
      f("NonUtf8PageToken", "page_query.page_token", [](F& r) { r.page_query.page_token = kNotUtf8; }),
      f("WindowSevenDaysPlusOneMicrosecond", "end_time",
        [](F& r) { r.start_time = r.end_time - hours(24 * 7) - microseconds(1); }),
      f("WindowEmpty", "end_time", [](F& r) { r.start_time = r.end_time; }),
      f("WindowReversed", "end_time", [](F& r) { r.start_time = r.end_time + hours(1); }),
      f("StartBeforeYearZero", "start_time",
        [](F& r) { r.start_time = trunk::Timestamp(microseconds(std::numeric_limits<std::int64_t>::min() / 2)); }),
      f("EndAfterYear9999", "end_time",
        [](F& r) { r.end_time = trunk::Timestamp(microseconds(std::numeric_limits<std::int64_t>::max() / 2)); }),
      u("UnhealthyUnknownStatusEnumerator", "status", [](U& r) { r.status = static_cast<trunk::HealthStatus>(77); }),
      u("UnhealthyEmptyOrgSlug", "org_url_slug", [](U& r) { r.org_url_slug = ""; }),
      u("UnhealthyPageSizeZero", "page_query.page_size", [](U& r) { r.page_query.page_size = 0; }),
      u("UnhealthyPageSizeHuge", "page_query.page_size", [](U& r) { r.page_query.page_size = kHuge; }),
      u("UnhealthyEmptyRepoOwner", "repo.owner", [](U& r) { r.repo.owner = ""; }),
      d("EmptyTestId", "test_id", [](D& r) { r.test_id = ""; }),
      d("WordTestId", "test_id", [](D& r) { r.test_id = "not-a-uuid"; }),
      d("UuidMissingADigit", "test_id", [](D& r) { r.test_id = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f8"; }),
      d("UuidWithBraces", "test_id", [](D& r) { r.test_id = "{0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80}"; }),
      d("UuidWithNonHexDigit", "test_id", [](D& r) { r.test_id = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7fg0"; }),
      d("UuidWithoutDashes", "test_id", [](D& r) { r.test_id = "0f3c6a8e5b7d4c1e9a2f3b4c5d6e7f80"; }),
      d("UuidWithTrailingSpace", "test_id", [](D& r) { r.test_id = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80 "; }),
      d("NonUtf8TestId", "test_id", [](D& r) { r.test_id = kNotUtf8; }),
      d("DetailsEmptyOrgSlug", "org_url_slug", [](D& r) { r.org_url_slug = ""; }),
      q("EmptyTargetBranch", "targetBranch", [](Q& r) { r.target_branch = ""; }),
      q("NonUtf8TargetBranch", "targetBranch", [](Q& r) { r.target_branch = kNotUtf8; }),
      q("QueueEmptyRepoHost", "repo.host", [](Q& r) { r.repo.host = ""; }),
      q("ConcurrencyZero", "concurrency", [](Q& r) { r.concurrency = 0; }),
      q("ConcurrencyNegative", "concurrency", [](Q& r) { r.concurrency = -5; }),
      q("Concurrency2Pow32", "concurrency", [](Q& r) { r.concurrency = 4294967296; }),
      q("BisectionConcurrencyZero", "bisectionConcurrency", [](Q& r) { r.bisection_concurrency = 0; }),
      q("TestingTimeout2Pow32", "testingTimeoutMinutes", [](Q& r) { r.testing_timeout_minutes = 4294967296; }),
      q("PendingFailureDepthZero", "pendingFailureDepth", [](Q& r) { r.pending_failure_depth = 0; }),
      q("BatchingMaxWaitZero", "batchingMaxWaitTimeMinutes", [](Q& r) { r.batching_max_wait_time_minutes = 0; }),
      q("BatchingMinSizeHuge", "batchingMinSize", [](Q& r) { r.batching_min_size = kHuge; }),
      q("StateSwitchingModes", "state", [](Q& r) { r.state = trunk::QueueState::switching_modes; }),
      q("StateUnknownEnumerator", "state", [](Q& r) { r.state = static_cast<trunk::QueueState>(42); }),
      q("ModeUnknownEnumerator", "mode", [](Q& r) { r.mode = static_cast<trunk::QueueMode>(9); }),
      q("DirectMergeModeUnknownEnumerator", "directMergeMode",
        [](Q& r) { r.direct_merge_mode = static_cast<trunk::DirectMergeMode>(9); }),
      q("OptimizationModeUnknownEnumerator", "optimizationMode",
        [](Q& r) { r.optimization_mode = static_cast<trunk::OptimizationMode>(9); }),
      q("MergeMethodUnknownEnumerator", "mergeMethod", [](Q& r) { r.merge_method = static_cast<trunk::MergeMethod>(9); }),
      q("EmptyRequiredStatus", "requiredStatuses[1]", [](Q& r) { r.required_statuses = {"ci/test", ""}; }),
      q("NonUtf8RequiredStatus", "requiredStatuses[0]", [](Q& r) { r.required_statuses = {kNotUtf8}; }),
      q("RequiredStatusesWithDelete", "requiredStatuses", [](Q& r) {
        r.required_statuses = std::vector<std::string>{"ci/test"};
        r.delete_required_statuses = true;
      }),
  };
}

class ClientBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ClientBadInput, IsAValidationErrorNamingTheFieldAndSendsNothing) {
  const BadInput& input = GetParam();
  env().box->clear_requests();
  try {
    input.call(*env().client);
    FAIL() << "no error for " << input.name;
  } catch (const trunk::ValidationError& error) {
    EXPECT_NE(std::string(error.what()).find(input.field), std::string::npos) << error.what();
    bool named = false;
    for (const auto& violation : error.violations()) named = named || violation.field == input.field;
    EXPECT_TRUE(named) << "no violation has field " << input.field << ": " << error.what();
    // The message is printable text even when the input was not UTF-8.
    EXPECT_EQ(std::string(error.what()).find('\xff'), std::string::npos);
  }
  EXPECT_TRUE(env().box->requests().empty()) << "a request reached the sandbox";
}

INSTANTIATE_TEST_SUITE_P(Matrix, ClientBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) { return info.param.name; });

// The boundary on the valid side of each rule is sent and answered: the rules are exact, not approximate.
TEST(ClientBadInputBoundaries, ValuesOnTheValidSideOfEachRuleReachTheSandbox) {
  auto& client = *env().client;
  env().box->clear_requests();
  auto window = failing();
  window.start_time = window.end_time - hours(24 * 7);  // exactly 7 days
  window.page_query.page_size = 100;
  EXPECT_NO_THROW(client.list_failing_tests(window));
  window.page_query.page_size = 1;
  window.start_time = window.end_time - microseconds(1);
  EXPECT_NO_THROW(client.list_failing_tests(window));
  auto limits = queue();
  limits.concurrency = 4294967295;
  limits.batching_min_size = 1;
  limits.required_statuses = std::vector<std::string>{};
  const auto settings = client.update_queue(limits);
  EXPECT_EQ(settings.concurrency, 4294967295);
  EXPECT_EQ(settings.batching_min_size, 1);
  auto upper = details();
  for (auto& c : upper.test_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  try {
    client.get_test_details(upper);  // either case of hex digits is a UUID: it is sent
  } catch (const trunk::NotFoundError&) {
    // the sandbox may know the id in lower case only; what matters is that it was sent
  }
  EXPECT_EQ(env().box->requests().size(), 4U);
}

}  // namespace
