// Authentication, routing (404/405), unknown repository / organization / test (404), the request record.
#include <gtest/gtest.h>

#include "sandbox_support.hpp"
#include "service.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

class AuthRouting : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sandbox_ = start_sandbox(small_options(200)).release(); }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }

  Json details_body(const std::string& test_id) const {
    return {{"repo", repo_json(sandbox().repos().at(0))}, {"org_url_slug", sandbox().org_url_slug()}, {"test_id", test_id}};
  }
  Json valid_body(std::string_view path) const {
    const auto now = fixed_now();
    if (path == trunk::paths::kListFailingTests) return failing_body(sandbox(), now - std::chrono::hours(24), now);
    if (path == trunk::paths::kListUnhealthyTests) {
      return {{"repo", repo_json(sandbox().repos().at(0))},
              {"org_url_slug", sandbox().org_url_slug()},
              {"status", "FLAKY"},
              {"page_query", {{"page_size", 10}}}};
    }
    if (path == trunk::paths::kGetTestDetails) return details_body(sandbox().test_ids(sandbox().repos().at(0)).at(0));
    return {{"repo", repo_json(sandbox().repos().at(0))}, {"targetBranch", "main"}};
  }

  static trunk::sandbox::Sandbox* sandbox_;
};
trunk::sandbox::Sandbox* AuthRouting::sandbox_ = nullptr;

const std::string_view kAllPaths[] = {trunk::paths::kListFailingTests, trunk::paths::kListUnhealthyTests,
                                      trunk::paths::kGetTestDetails, trunk::paths::kUpdateQueue};

TEST_F(AuthRouting, EveryOperationAnswers200WithTheRightToken) {
  for (auto path : kAllPaths) {
    const auto reply = post(sandbox(), std::string(path), valid_body(path));
    EXPECT_EQ(reply.status, 200) << path << ": " << reply.body;
    EXPECT_NO_THROW((void)reply.json()) << path;
  }
}

// JSON goes out uncompressed even to a client that offers brotli and gzip: on loopback, compressing (brotli at
// quality 11 in Debian's cpp-httplib) cost far more than it saved.
TEST_F(AuthRouting, JsonAnswersAreNotCompressedEvenWhenTheClientOffersIt) {
  const std::string body = valid_body(trunk::paths::kListFailingTests).dump();
  const std::string raw = raw_exchange(
      sandbox().port(), "POST " + std::string(trunk::paths::kListFailingTests) +
                            " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: " + sandbox().token() +
                            "\r\nAccept-Encoding: br, gzip, deflate\r\nContent-Type: application/json\r\n"
                            "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  ASSERT_EQ(raw.rfind("HTTP/1.1 200", 0), 0U) << raw.substr(0, 200);
  const auto head = raw.substr(0, raw.find("\r\n\r\n"));
  EXPECT_EQ(head.find("Content-Encoding"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: application/json; charset=utf-8"), std::string::npos) << head;
  EXPECT_TRUE(Json::parse(raw.substr(raw.find("\r\n\r\n") + 4)).is_object());
}

TEST_F(AuthRouting, MissingTokenIs401OnEveryOperationWithOneLineOfText) {
  for (auto path : kAllPaths) {
    const auto reply = post(sandbox(), std::string(path), valid_body(path).dump(), std::nullopt, false);
    EXPECT_EQ(reply.status, 401) << path;
    EXPECT_NE(reply.body.find("missing x-api-token"), std::string::npos) << reply.body;
    EXPECT_EQ(reply.body.find('\n'), reply.body.size() - 1) << "one line: " << reply.body;
    EXPECT_EQ(reply.header("Content-Type"), "text/plain; charset=utf-8");
  }
}

TEST_F(AuthRouting, WrongTokenIs401AndTheMessageDoesNotEchoEitherToken) {
  const std::string wrong = "test-token-012345678X";  // same length, last byte differs
  for (auto path : kAllPaths) {
    const auto reply = post(sandbox(), std::string(path), valid_body(path).dump(), wrong);
    EXPECT_EQ(reply.status, 401) << path;
    EXPECT_EQ(reply.body.find(wrong), std::string::npos);
    EXPECT_EQ(reply.body.find(sandbox().token()), std::string::npos);
  }
  EXPECT_EQ(post(sandbox(), std::string(trunk::paths::kUpdateQueue), valid_body(trunk::paths::kUpdateQueue).dump(), "")
                .status,
            401);
  // A prefix of the right token is not the token.
  EXPECT_EQ(post(sandbox(), std::string(trunk::paths::kUpdateQueue), valid_body(trunk::paths::kUpdateQueue).dump(),
                 sandbox().token().substr(0, 5))
                .status,
            401);
}

TEST_F(AuthRouting, ConstantTimeEqualComparesWholeStrings) {
  using trunk::sandbox::constant_time_equal;
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "ab"));
  EXPECT_FALSE(constant_time_equal("ab", "abc"));
  EXPECT_FALSE(constant_time_equal("", "a"));
}

TEST_F(AuthRouting, UnknownPathIs404AndOtherMethodsAre405) {
  const auto unknown = post(sandbox(), "/v1/flaky-tests/list-all-tests", Json::object());
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("/v1/flaky-tests/list-all-tests"), std::string::npos);
  EXPECT_EQ(post(sandbox(), "/v2/updateQueue", Json::object()).status, 404);

  httplib::Client client("127.0.0.1", sandbox().port());
  httplib::Headers headers{{"x-api-token", sandbox().token()}};
  for (auto path : kAllPaths) {
    auto get = client.Get(std::string(path), headers);
    ASSERT_TRUE(get);
    EXPECT_EQ(get->status, 405) << path;
    EXPECT_EQ(get->get_header_value("Allow"), "POST");
    auto put = client.Put(std::string(path), headers, "{}", "application/json");
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 405);
    auto del = client.Delete(std::string(path), headers);
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 405);
  }
}

TEST_F(AuthRouting, UnknownRepositoryOrganizationAndTestAre404) {
  for (auto path : kAllPaths) {
    Json body = valid_body(path);
    body["repo"]["name"] = "not-onboarded";
    const auto reply = post(sandbox(), std::string(path), body);
    EXPECT_EQ(reply.status, 404) << path;
    EXPECT_NE(reply.body.find("github.com/acme/not-onboarded"), std::string::npos) << reply.body;
  }
  for (auto path : {trunk::paths::kListFailingTests, trunk::paths::kListUnhealthyTests, trunk::paths::kGetTestDetails}) {
    Json body = valid_body(path);
    body["org_url_slug"] = "someone-else";
    const auto reply = post(sandbox(), std::string(path), body);
    EXPECT_EQ(reply.status, 404) << path;
    EXPECT_NE(reply.body.find("someone-else"), std::string::npos);
  }
  const auto missing = post(sandbox(), std::string(trunk::paths::kGetTestDetails),
                            details_body("00000000-0000-4000-8000-000000000000"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("00000000-0000-4000-8000-000000000000"), std::string::npos);
}

TEST_F(AuthRouting, TestIdsAreMatchedInEitherCase) {
  const std::string id = sandbox().test_ids(sandbox().repos().at(0)).at(3);
  std::string upper = id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto reply = post(sandbox(), std::string(trunk::paths::kGetTestDetails), details_body(upper));
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()["test"]["id"], id);
}

TEST_F(AuthRouting, GitLabSubgroupRepositoryIsServed) {
  const auto repos = sandbox().repos();
  ASSERT_GE(repos.size(), 3U);
  const trunk::Repo* gitlab = nullptr;
  for (const auto& repo : repos) {
    if (repo.host == "gitlab.com") gitlab = &repo;
  }
  ASSERT_NE(gitlab, nullptr);
  EXPECT_NE(gitlab->owner.find('/'), std::string::npos);
  const auto id = sandbox().test_ids(*gitlab).at(0);
  const auto reply = post(sandbox(), std::string(trunk::paths::kGetTestDetails),
                          Json{{"repo", repo_json(*gitlab)}, {"org_url_slug", sandbox().org_url_slug()}, {"test_id", id}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()["test"]["repository"]["html_url"], "https://gitlab.com/acme-labs/platform/payments");
}

TEST_F(AuthRouting, RequestRecordKeepsPathBodyStatusButNeverTheToken) {
  sandbox().clear_requests();
  const Json body = valid_body(trunk::paths::kUpdateQueue);
  ASSERT_EQ(post(sandbox(), std::string(trunk::paths::kUpdateQueue), body).status, 200);
  ASSERT_EQ(post(sandbox(), std::string(trunk::paths::kUpdateQueue), body.dump(), "wrong-token").status, 401);
  const auto records = sandbox().requests();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].method, "POST");
  EXPECT_EQ(records[0].path, trunk::paths::kUpdateQueue);
  EXPECT_EQ(Json::parse(records[0].body), body);
  EXPECT_EQ(records[0].status, 200);
  EXPECT_EQ(records[1].status, 401);
  for (const auto& record : records) {
    bool saw_token_header = false;
    for (const auto& [name, value] : record.headers) {
      EXPECT_EQ(value.find(sandbox().token()), std::string::npos) << name;
      EXPECT_EQ(value.find("wrong-token"), std::string::npos) << name;
      if (name == "x-api-token") {
        saw_token_header = true;
        EXPECT_EQ(value, "<redacted>");
      }
    }
    EXPECT_TRUE(saw_token_header);
  }
  sandbox().clear_requests();
  EXPECT_TRUE(sandbox().requests().empty());
}

TEST_F(AuthRouting, APayloadOverFourMebibytesIs413AndTheMergeActionsLargestUploadIsNot) {
  const std::string huge((std::size_t{4} << 20) + 1, ' ');
  EXPECT_EQ(post(sandbox(), std::string(trunk::paths::kUpdateQueue), huge).status, 413);
  // The body trunk-io/merge-action's own test sends: 100,000 impacted targets for one pull request (1.9 MB).
  Json targets = Json::array();
  for (int i = 0; i < 100'000; ++i) targets.push_back("target-" + std::to_string(i) + "-abcdef");
  const Json body = {{"repo", repo_json(sandbox().repos().at(0))},
                     {"pr", {{"number", 4242}, {"sha", std::string(40, 'a')}}},
                     {"targetBranch", "main"},
                     {"impactedTargets", targets}};
  ASSERT_GT(body.dump().size(), std::size_t{1} << 20) << "over the old limit";
  const auto uploaded = post(sandbox(), std::string(trunk::paths::kSetImpactedTargets), body.dump());
  EXPECT_EQ(uploaded.status, 200) << uploaded.body.substr(0, 300);
}

}  // namespace
}  // namespace sandbox_test
