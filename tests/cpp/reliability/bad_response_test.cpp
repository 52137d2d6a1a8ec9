// Bad-input matrix, server side of the client: a local server on 127.0.0.1:0 answers 200 with a malformed
// or mistyped body. The client must throw DecodeError whose path names the offending field (or "" for a
// document that is not JSON at all), must not retry (the server sees one request), and must not crash.
#include <gtest/gtest.h>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace {

/// Answers every POST with 200 and the current body.
class BodyServer {
 public:
  BodyServer() {
    server_.Post(".*", [this](const httplib::Request&, httplib::Response& response) {
      ++requests_;
      std::lock_guard lock(mutex_);
      response.set_content(body_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~BodyServer() {
    server_.stop();
    thread_.join();
  }
  BodyServer(const BodyServer&) = delete;
  BodyServer& operator=(const BodyServer&) = delete;

  void answer(std::string body) {
    std::lock_guard lock(mutex_);
    body_ = std::move(body);
    requests_ = 0;
  }
  int requests() const { return requests_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::string body_;
  std::atomic<int> requests_{0};
};

BodyServer& server() {
  static BodyServer* shared = new BodyServer;
  return *shared;
}

trunk::Client make_client() {
  trunk::ClientOptions options;
  options.base_url = server().url();
  options.token = "bad-response-token";
  options.retry.max_retries = 3;  // a decode error must not be retried even with a budget
  return trunk::Client(std::move(options));
}

const trunk::Repo kRepo{"github.com", "acme", "widgets"};
const std::string kId = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80";
const std::string kPage = R"("page":{"total_rows":1,"total_pages":1,"next_page_token":"","prev_page_token":"","last_page_token":"","page_index":0})";

enum class Operation { failing, details, queue };

struct BadResponse {
  std::string name;
  Operation operation;
  std::string body;
  std::string path;  ///< expected DecodeError::path() prefix ("" = the document)
};

void call(trunk::Client& client, Operation operation) {
  switch (operation) {
    case Operation::failing: {
      trunk::ListFailingTestsRequest r;
      r.repo = kRepo;
      r.org_url_slug = "acme";
      r.end_time = trunk::parse_rfc3339("2026-11-20T12:00:00Z");
      r.start_time = r.end_time - std::chrono::hours(1);
      r.page_query.page_size = 10;
      client.list_failing_tests(r);
      break;
    }
    case Operation::details: {
      trunk::GetTestDetailsRequest r;
      r.repo = kRepo;
      r.org_url_slug = "acme";
      r.test_id = kId;
      client.get_test_details(r);
      break;
    }
    case Operation::queue: {
      trunk::UpdateQueueRequest r;
      r.repo = kRepo;
      r.target_branch = "main";
      client.update_queue(r);
      break;
    }
  }
}

std::string test_with(const std::string& field_json) {
  return R"({"test":{"id":")" + kId + R"(",)" + field_json + "}}";
}

std::vector<BadResponse> bad_responses() {
  using O = Operation;
  std::string deep;
  for (int i = 0; i < 500; ++i) deep += "[";
  return {
      {"EmptyBody", O::details, "", ""},
      {"PlainText", O::details, "service is fine", ""},
      {"TruncatedObject", O::details, R"({"test":{"id":")", ""},
      {"TrailingGarbage", O::details, R"({"test":{}} x)", ""},
      {"NonUtf8Bytes", O::details, "{\"test\":{\"name\":\"\xff\xfe\"}}", ""},
      {"NestedTooDeep", O::details, deep, ""},
      {"ArrayRootForDetails", O::details, "[]", ""},
      {"TestIsAnArray", O::details, R"({"test":[]})", "test"},
      {"TestIdIsANumber", O::details, R"({"test":{"id":7}})", "test.id"},
      {"NameIsAnObject", O::details, test_with(R"("name":{})"), "test.name"},
      {"FailureRateIsText", O::details, test_with(R"("failure_rate_last_7d":"high")"), "test.failure_rate_last_7d"},
      {"QuarantinedIsText", O::details, test_with(R"("quarantined":"yes")"), "test.quarantined"},
      {"PullRequestsImpactedIsFractional", O::details, test_with(R"("pull_requests_impacted_last_7d":1.5)"),
       "test.pull_requests_impacted_last_7d"},
      {"PullRequestsImpactedOverflows", O::details, test_with(R"("pull_requests_impacted_last_7d":1e300)"),
       "test.pull_requests_impacted_last_7d"},
      {"CodeownersIsAString", O::details, test_with(R"("codeowners":"@team")"), "test.codeowners"},
      {"CodeownerIsANumber", O::details, test_with(R"("codeowners":["@a",3])"), "test.codeowners[1]"},
      {"StatusTimestampIsANumber", O::details, test_with(R"("status":{"reason":"","timestamp":1700000000})"),
       "test.status.timestamp"},
      {"FailureCountIsText", O::details,
       test_with(R"("most_common_failures":[{"summary":"x","occurrence_count":"many"}])"),
       "test.most_common_failures[0].occurrence_count"},
      {"TestsIsAnObject", O::failing, R"({"tests":{},)" + kPage + "}", "tests"},
      {"PageIndexIsText", O::failing, R"({"tests":[],"page":{"page_index":"zero"}})", "page.page_index"},
      {"TotalRowsOverflows", O::failing, R"({"tests":[],"page":{"total_rows":123456789012345678901234567890}})",
       "page.total_rows"},
      {"NextPageTokenIsANumber", O::failing, R"({"tests":[],"page":{"next_page_token":5}})", "page.next_page_token"},
      {"SecondTestIdIsAnArray", O::failing, R"({"tests":[{"id":")" + kId + R"("},{"id":[]}],)" + kPage + "}",
       "tests[1].id"},
      {"ConcurrencyIsText", O::queue, R"({"concurrency":"four"})", "concurrency"},
      {"BatchIsText", O::queue, R"({"batch":"true"})", "batch"},
      {"RequiredStatusIsANumber", O::queue, R"({"requiredStatuses":["ci",1]})", "requiredStatuses[1]"},
      {"StateIsANumber", O::queue, R"({"state":1})", "state"},
  };
}

class ClientBadResponse : public ::testing::TestWithParam<BadResponse> {};

TEST_P(ClientBadResponse, IsADecodeErrorNamingThePathAndIsNotRetried) {
  const BadResponse& input = GetParam();
  server().answer(input.body);
  auto client = make_client();
  try {
    call(client, input.operation);
    FAIL() << "no error for " << input.name;
  } catch (const trunk::DecodeError& error) {
    EXPECT_EQ(error.path().rfind(input.path, 0), 0U) << "path " << error.path() << ", wanted " << input.path;
    if (!input.path.empty()) {
      EXPECT_NE(std::string(error.what()).find(input.path), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(server().requests(), 1);
}

INSTANTIATE_TEST_SUITE_P(Matrix, ClientBadResponse, ::testing::ValuesIn(bad_responses()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
