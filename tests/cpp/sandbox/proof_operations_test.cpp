// The two operations added through the declarations only (getQueue, list-quarantined-tests): routed by the
// operations list, read and validated by the one decoder, answered from the same queue store and history.
#include <gtest/gtest.h>

#include <set>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kGetQueue;
using trunk::paths::kListQuarantinedTests;
using trunk::paths::kUpdateQueue;

class ProofOperations : public ::testing::Test {
 protected:
  void SetUp() override { sandbox_ = start_sandbox(small_options(300)); }
  Json repo() const { return repo_json(sandbox_->repos().at(0)); }
  std::unique_ptr<trunk::sandbox::Sandbox> sandbox_;
};

TEST_F(ProofOperations, GetQueueAnswersTheSettingsAsTheyStandWithNoPullRequests) {
  const auto updated = post(*sandbox_, std::string(kUpdateQueue),
                            {{"repo", repo()}, {"targetBranch", "main"}, {"concurrency", 7}, {"batch", true}});
  ASSERT_EQ(updated.status, 200) << updated.body;
  const auto reply = post(*sandbox_, std::string(kGetQueue), {{"repo", repo()}, {"targetBranch", "main"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto settings = trunk::decode<trunk::QueueSettings>(reply.body);
  EXPECT_EQ(settings.concurrency, 7);
  EXPECT_EQ(settings.batch, true);
  EXPECT_EQ(settings.branch, "main");
  ASSERT_TRUE(settings.enqueued_pull_requests.has_value());
  EXPECT_TRUE(settings.enqueued_pull_requests->empty());
  // The same settings as updateQueue's answer, but for the list of pull requests it does not carry.
  Json without_list = reply.json();
  without_list.erase("enqueuedPullRequests");
  EXPECT_EQ(without_list, updated.json());
}

TEST_F(ProofOperations, GetQueueRequestIsStrict) {
  const auto missing = post(*sandbox_, std::string(kGetQueue), {{"repo", repo()}});
  EXPECT_EQ(missing.status, 400);
  EXPECT_NE(missing.body.find("targetBranch"), std::string::npos) << missing.body;
  const auto unknown = post(*sandbox_, std::string(kGetQueue),
                            {{"repo", repo()}, {"targetBranch", "main"}, {"concurrency", 3}});
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(unknown.body.find("concurrency"), std::string::npos) << unknown.body;
  const auto other_repo = post(*sandbox_, std::string(kGetQueue),
                               {{"repo", {{"host", "github.com"}, {"owner", "nobody"}, {"name", "nothing"}}},
                                {"targetBranch", "main"}});
  EXPECT_EQ(other_repo.status, 404);
}

TEST_F(ProofOperations, QuarantinedListingPagesThroughEveryQuarantinedTestOnce) {
  // What the details of every test say, the other half of the same history.
  std::set<std::string> expected;
  for (const auto& id : sandbox_->test_ids(sandbox_->repos().at(0))) {
    const auto details = post(*sandbox_, std::string(trunk::paths::kGetTestDetails),
                              {{"repo", repo()}, {"org_url_slug", sandbox_->org_url_slug()}, {"test_id", id}});
    ASSERT_EQ(details.status, 200) << details.body;
    if (trunk::decode<trunk::TestDetails>(details.body).test.quarantined == true) expected.insert(id);
  }
  ASSERT_FALSE(expected.empty()) << "the generated history quarantines some tests";
  std::set<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    Json page_query = {{"page_size", 7}};
    if (!token.empty()) page_query["page_token"] = token;
    const auto reply = post(*sandbox_, std::string(kListQuarantinedTests),
                            {{"repo", repo()}, {"org_url_slug", sandbox_->org_url_slug()}, {"page_query", page_query}});
    ASSERT_EQ(reply.status, 200) << reply.body;
    const auto page = trunk::decode<trunk::QuarantinedTestPage>(reply.body);
    EXPECT_EQ(page.page.total_rows, static_cast<std::int64_t>(expected.size()));
    EXPECT_LE(page.quarantined_tests.size(), 7U);
    for (const auto& test : page.quarantined_tests) {
      ASSERT_TRUE(test.test_case_id);
      EXPECT_TRUE(seen.insert(*test.test_case_id).second) << "listed twice: " << *test.test_case_id;
      ASSERT_TRUE(test.status && test.status->is_known());
      ASSERT_TRUE(test.quarantine_setting && test.quarantine_setting->is_known());
      // Healthy and quarantined only by a person; unhealthy ones automatically.
      EXPECT_EQ(*test.status == trunk::QuarantinedTestStatus::healthy,
                *test.quarantine_setting == trunk::QuarantineSetting::always_quarantine);
      ASSERT_TRUE(test.quarantined_at && test.status_last_updated_at);
      EXPECT_LE(*test.quarantined_at, *test.status_last_updated_at);
    }
    token = page.page.next_page_token.value_or("");
    ++pages;
  } while (!token.empty() && pages < 1000);
  EXPECT_EQ(seen, expected);
}

TEST_F(ProofOperations, QuarantinedListingValidatesItsPageQuery) {
  const auto reply = post(*sandbox_, std::string(kListQuarantinedTests),
                          {{"repo", repo()}, {"org_url_slug", sandbox_->org_url_slug()}, {"page_query", {{"page_size", 101}}}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("page_query.page_size"), std::string::npos) << reply.body;
  const auto wrong_org = post(*sandbox_, std::string(kListQuarantinedTests),
                              {{"repo", repo()}, {"org_url_slug", "someone-else"}, {"page_query", {{"page_size", 5}}}});
  EXPECT_EQ(wrong_org.status, 404);
}

trunk::Client client_of(const trunk::sandbox::Sandbox& sandbox) {
  trunk::ClientOptions options;
  options.base_url = sandbox.url();
  options.token = sandbox.token();
  return trunk::Client(std::move(options));
}

TEST_F(ProofOperations, TheClientReadsTheQueueThroughGetQueue) {
  auto client = client_of(*sandbox_);
  trunk::UpdateQueueRequest update;
  update.repo = sandbox_->repos().at(0);
  update.target_branch = "release";
  update.batching_min_size = 3;
  ASSERT_EQ(post(*sandbox_, std::string(trunk::paths::kCreateQueue), {{"repo", repo()}, {"targetBranch", "release"}}).status,
            200);
  client.update_queue(update);
  const auto settings = client.get_queue({sandbox_->repos().at(0), "release"});
  EXPECT_EQ(settings.batching_min_size, 3);
  EXPECT_EQ(settings.branch, "release");
  ASSERT_TRUE(settings.enqueued_pull_requests);
  EXPECT_TRUE(settings.enqueued_pull_requests->empty());
  EXPECT_THROW(client.get_queue({sandbox_->repos().at(0), ""}), trunk::ValidationError);  // nothing sent
}

TEST_F(ProofOperations, TheClientPagesThroughTheQuarantinedTests) {
  auto client = client_of(*sandbox_);
  trunk::ListQuarantinedTestsRequest request;
  request.repo = sandbox_->repos().at(0);
  request.org_url_slug = sandbox_->org_url_slug();
  request.page_query.page_size = 4;
  const auto first = client.list_quarantined_tests(request);
  ASSERT_TRUE(first.page.total_rows);
  std::size_t walked = 0;
  std::set<std::string> ids;
  for (const trunk::QuarantinedTest& test : client.quarantined_tests(request)) {
    ++walked;
    ids.insert(test.test_case_id.value_or(""));
  }
  EXPECT_EQ(walked, static_cast<std::size_t>(*first.page.total_rows));
  EXPECT_EQ(ids.size(), walked);
  request.page_query.page_size = 0;
  EXPECT_THROW(client.quarantined_tests(request), trunk::ValidationError);
}

}  // namespace
}  // namespace sandbox_test
