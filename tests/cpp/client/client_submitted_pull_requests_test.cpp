// getSubmittedPullRequests through the public Client, against a real local server: the exact body it sends, the
// answer read tolerantly (found pull requests and notFound), the 1..50 rule checked at its edges before anything
// is sent, and the retry a safe read may make (docs/reference/service.md#get-submitted-pull-requests).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;

using testing::kRepo;

GetSubmittedPullRequestsRequest asking_for(std::int64_t count) {
  GetSubmittedPullRequestsRequest request;
  request.repo = kRepo;
  request.target_branch = "main";
  for (std::int64_t number = 1; number <= count; ++number) request.prs.push_back({number});
  return request;
}

TEST(GetSubmittedPullRequests, SendsEveryNumberAsAnItemOfPrsAndNothingElse) {
  HttpTestServer server;
  server.set_replies({{200, R"({"pullRequests":[],"notFound":[]})"}});
  Client client(testing::test_options(server.base_url()));
  client.get_submitted_pull_requests(asking_for(2));
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].path, "/v1/getSubmittedPullRequests");
  const Json repo = {{"host", "github.com"}, {"owner", "acme"}, {"name", "widgets"}};
  EXPECT_EQ(Json::parse(sent[0].body),
            Json({{"repo", repo}, {"prs", {{{"number", 1}}, {{"number", 2}}}}, {"targetBranch", "main"}}));
}

TEST(GetSubmittedPullRequests, TheAnswerIsReadTolerantly) {
  HttpTestServer server;
  server.set_replies({{200, R"({"pullRequests":[{"prNumber":7,"state":"a_new_state","readiness":{"x":1},"new":2}],)"
                            R"("notFound":[{"number":9,"why":"never submitted"}],"more":true})"}});
  Client client(testing::test_options(server.base_url()));
  const SubmittedPullRequests answer = client.get_submitted_pull_requests(asking_for(1));
  ASSERT_EQ(answer.pull_requests.size(), 1U);
  EXPECT_EQ(answer.pull_requests[0].pr_number, 7);
  EXPECT_EQ(answer.pull_requests[0].state->wire(), "a_new_state");  // an unknown state is kept, not an error
  EXPECT_EQ(answer.pull_requests[0].extra, Json({{"new", 2}}));
  ASSERT_EQ(answer.not_found.size(), 1U);
  EXPECT_EQ(answer.not_found[0].number, 9);
  EXPECT_EQ(answer.not_found[0].extra, Json({{"why", "never submitted"}}));
  EXPECT_EQ(answer.extra, Json({{"more", true}}));

  // Both lists missing: read as empty, as a missing optional is absent.
  const auto empty = from_json<SubmittedPullRequests>(Json::object());
  EXPECT_TRUE(empty.pull_requests.empty());
  EXPECT_TRUE(empty.not_found.empty());
}

TEST(GetSubmittedPullRequests, OneToFiftyPullRequestsAreCheckedAtTheEdgesBeforeAnythingIsSent) {
  HttpTestServer server;
  server.set_replies({{200, R"({"pullRequests":[],"notFound":[]})"}});
  Client client(testing::test_options(server.base_url()));
  auto violations = [&](std::int64_t count) {
    try {
      client.get_submitted_pull_requests(asking_for(count));
    } catch (const ValidationError& error) {
      return error.violations();
    }
    return std::vector<Violation>{};
  };
  EXPECT_EQ(violations(0), (std::vector<Violation>{{"prs", "[]", "must hold at least 1 item"}}));
  EXPECT_TRUE(violations(1).empty());
  EXPECT_TRUE(violations(50).empty());
  EXPECT_EQ(violations(51),
            (std::vector<Violation>{{"prs", "51 items", "must hold at most 50 items"}}));
  // Each item's number keeps its own rule, named by its index.
  GetSubmittedPullRequestsRequest negative = asking_for(2);
  negative.prs[1].number = -1;
  try {
    client.get_submitted_pull_requests(negative);
    ADD_FAILURE() << "no ValidationError";
  } catch (const ValidationError& error) {
    ASSERT_EQ(error.violations().size(), 1U);
    EXPECT_EQ(error.violations()[0].field, "prs[1].number");
    EXPECT_NE(std::string(error.what()).find("prs"), std::string::npos);
  }
  EXPECT_EQ(server.request_count(), 2U);  // only the calls with 1 and 50 were sent
}

TEST(GetSubmittedPullRequests, ASafeReadIsRepeatedAfterA500) {
  HttpTestServer server;
  server.set_replies({{500, "oops", "text/plain"}, {200, R"({"pullRequests":[],"notFound":[{"number":1}]})"}});
  Client client(testing::test_options(server.base_url()));
  EXPECT_EQ(client.get_submitted_pull_requests(asking_for(1)).not_found.size(), 1U);
  EXPECT_EQ(server.request_count(), 2U);
}

}  // namespace
}  // namespace trunk
