// GET /openapi.json: the sandbox serves the library's OpenAPI document without a token, and the routes of
// the operations keep their answers (404 for unknown paths, 405 with Allow: POST for other methods).
#include <gtest/gtest.h>

#include "sandbox_support.hpp"
#include "trunk/openapi.hpp"
#include "trunk/operations.hpp"

namespace sandbox_test {
namespace {

class OpenApiRoute : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sandbox_ = start_sandbox(small_options(50)).release(); }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }
  static httplib::Client client() {
    httplib::Client c("127.0.0.1", sandbox().port());
    c.set_read_timeout(std::chrono::seconds(30));
    return c;
  }

  static trunk::sandbox::Sandbox* sandbox_;
};
trunk::sandbox::Sandbox* OpenApiRoute::sandbox_ = nullptr;

// A tool pointed at the sandbox (a client generator, a schema browser) has no token to give.
TEST_F(OpenApiRoute, GetWithoutATokenAnswersTheDocumentAsJson) {
  auto c = client();
  const auto reply = c.Get("/openapi.json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->get_header_value("Content-Type"), "application/json; charset=utf-8");
  EXPECT_EQ(reply->body, trunk::openapi_document());
  const Json document = Json::parse(reply->body);
  EXPECT_EQ(document.at("openapi"), "3.1.0");
  EXPECT_TRUE(document.at("paths").contains(std::string(trunk::paths::kUpdateQueue)));
}

// The token is not looked at: a wrong one does not turn the document into a 401.
TEST_F(OpenApiRoute, AWrongTokenDoesNotMatter) {
  auto c = client();
  const auto reply = c.Get("/openapi.json", httplib::Headers{{"x-api-token", "not-the-token"}});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

TEST_F(OpenApiRoute, HeadAnswersTheHeadersOnly) {
  auto c = client();
  const auto reply = c.Head("/openapi.json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_TRUE(reply->body.empty());
}

TEST_F(OpenApiRoute, OtherMethodsAre405WithAllowGet) {
  auto c = client();
  const auto reply = c.Post("/openapi.json", "{}", "application/json");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 405);
  EXPECT_EQ(reply->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(reply->get_header_value("Content-Type"), "text/plain; charset=utf-8");
}

// Only the exact path is the document; the operations' routing is unchanged around it.
TEST_F(OpenApiRoute, NeighbouringPathsAndTheOperationsKeepTheirAnswers) {
  auto c = client();
  for (const char* path : {"/openapi", "/openapi.yaml", "/v1/openapi.json", "/openapi.json/"}) {
    const auto reply = c.Get(path);
    ASSERT_TRUE(reply) << path;
    EXPECT_EQ(reply->status, 404) << path;
  }
  const auto get = c.Get(std::string(trunk::paths::kUpdateQueue));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  const auto unauthenticated = c.Post(std::string(trunk::paths::kUpdateQueue), "{}", "application/json");
  ASSERT_TRUE(unauthenticated);
  EXPECT_EQ(unauthenticated->status, 401);
}

}  // namespace
}  // namespace sandbox_test
