// getSubmittedPullRequests against the real local sandbox: each number answered as getSubmittedPullRequest
// answers it, the numbers the queue never saw in notFound, and the sandbox refusing what the client would not
// send (docs/reference/service.md#get-submitted-pull-requests).
#include <gtest/gtest.h>

#include <string>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace sandbox_test {
namespace {

namespace paths = trunk::paths;

class SubmittedPullRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sandbox_ = start_sandbox(small_options(60));
    trunk::ClientOptions options;
    options.base_url = sandbox_->url();
    options.token = sandbox_->token();
    options.retry.max_retries = 0;
    client_ = std::make_unique<trunk::Client>(std::move(options));
  }
  trunk::Repo repo() const { return sandbox_->repos().at(0); }
  void submit(std::int64_t number) {
    trunk::SubmitPullRequestRequest request;
    request.repo = repo();
    request.pr.number = number;
    request.target_branch = "main";
    client_->submit_pull_request(request);
  }
  trunk::GetSubmittedPullRequestsRequest asking(std::vector<std::int64_t> numbers) const {
    trunk::GetSubmittedPullRequestsRequest request;
    request.repo = repo();
    request.target_branch = "main";
    for (std::int64_t number : numbers) request.prs.push_back({number});
    return request;
  }
  Json body(const Json& prs) const {
    return {{"repo", repo_json(repo())}, {"targetBranch", "main"}, {"prs", prs}};
  }

  std::unique_ptr<trunk::sandbox::Sandbox> sandbox_;
  std::unique_ptr<trunk::Client> client_;
};

TEST_F(SubmittedPullRequestsTest, FoundOnesAreAnsweredAsOneByOneAndTheOthersAreNotFound) {
  submit(7);
  submit(8);
  const trunk::SubmittedPullRequests answer = client_->get_submitted_pull_requests(asking({8, 99, 7}));
  ASSERT_EQ(answer.pull_requests.size(), 2U);
  EXPECT_EQ(answer.pull_requests[0].pr_number, 8);  // in the order asked
  EXPECT_EQ(answer.pull_requests[1].pr_number, 7);
  trunk::GetSubmittedPullRequestRequest one;
  one.repo = repo();
  one.pr.number = 7;
  one.target_branch = "main";
  EXPECT_EQ(answer.pull_requests[1], client_->get_submitted_pull_request(one));  // the same view as v1's single read
  ASSERT_EQ(answer.not_found.size(), 1U);
  EXPECT_EQ(answer.not_found[0].number, 99);
}

TEST_F(SubmittedPullRequestsTest, NoneKnownIsNotAnError) {
  const auto answer = client_->get_submitted_pull_requests(asking({1, 2}));
  EXPECT_TRUE(answer.pull_requests.empty());
  EXPECT_EQ(answer.not_found.size(), 2U);
}

TEST_F(SubmittedPullRequestsTest, AnUnknownQueueIs404) {
  auto request = asking({1});
  request.target_branch = "no-such-branch";
  EXPECT_THROW(client_->get_submitted_pull_requests(request), trunk::NotFoundError);
}

TEST_F(SubmittedPullRequestsTest, TheSandboxRefusesNoneOrMoreThanFiftyAsTheClientDoes) {
  Json fifty = Json::array();
  for (int number = 1; number <= 50; ++number) fifty.push_back({{"number", number}});
  EXPECT_EQ(post(*sandbox_, std::string(paths::kGetSubmittedPullRequests), body(fifty)).status, 200);
  Json fifty_one = fifty;
  fifty_one.push_back({{"number", 51}});
  const auto too_many = post(*sandbox_, std::string(paths::kGetSubmittedPullRequests), body(fifty_one));
  EXPECT_EQ(too_many.status, 400);
  EXPECT_NE(too_many.body.find("at most 50"), std::string::npos) << too_many.body;
  const auto none = post(*sandbox_, std::string(paths::kGetSubmittedPullRequests), body(Json::array()));
  EXPECT_EQ(none.status, 400);
  EXPECT_NE(none.body.find("prs"), std::string::npos) << none.body;
}

}  // namespace
}  // namespace sandbox_test
