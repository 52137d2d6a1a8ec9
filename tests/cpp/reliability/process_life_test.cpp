// Token and process life: a redirect to another server never carries the token there, and a Client keeps
// working in a child after fork() without reusing the parent's connections.
#include <gtest/gtest.h>

#include <httplib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace {

const std::string kAnyTestId = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80";

/// A local server recording what it saw: token headers and the client ports of its connections.
class Recorder {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  explicit Recorder(Handler handler) {
    server_.set_keep_alive_max_count(1000);
    server_.Post(".*", [this, handler](const httplib::Request& request, httplib::Response& response) {
      {
        std::lock_guard lock(mutex_);
        tokens_.push_back(request.get_header_value("x-api-token"));
        ports_.insert(request.remote_port);
      }
      handler(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Recorder() {
    server_.stop();
    thread_.join();
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> tokens() const {
    std::lock_guard lock(mutex_);
    return tokens_;
  }
  std::set<int> ports() const {
    std::lock_guard lock(mutex_);
    return ports_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::string> tokens_;
  std::set<int> ports_;
};

void answer_details(const httplib::Request&, httplib::Response& response) {
  response.set_content(R"({"test":{"id":")" + kAnyTestId + R"("}})", "application/json");
}

trunk::GetTestDetailsRequest details_request() {
  trunk::GetTestDetailsRequest request;
  request.repo = {"github.com", "acme", "widgets"};
  request.org_url_slug = "acme";
  request.test_id = kAnyTestId;
  return request;
}

TEST(Redirects, A307ToAnotherServerNeverCarriesTheTokenThere) {
  const std::string token = "redirect-token-must-stay-home";
  Recorder elsewhere(answer_details);
  for (int status : {301, 302, 303, 307, 308}) {
    Recorder origin([&](const httplib::Request&, httplib::Response& response) {
      response.status = status;
      response.set_header("Location", elsewhere.url() + "/v1/flaky-tests/get-test-details");
    });
    trunk::ClientOptions options;
    options.base_url = origin.url();
    options.token = token;
    trunk::Client client(std::move(options));
    try {
      client.get_test_details(details_request());
      FAIL() << status << " was followed";
    } catch (const trunk::ApiError& error) {
      EXPECT_EQ(error.status_code(), status);
      EXPECT_EQ(std::string(error.what()).find(token), std::string::npos);
    }
    EXPECT_EQ(origin.tokens(), std::vector<std::string>{token});  // the right server did get it
  }
  EXPECT_TRUE(elsewhere.tokens().empty()) << "the other server saw a request";
}

TEST(Fork, AChildUsesItsOwnConnectionAndTheParentsStaysUsable) {
  Recorder server(answer_details);
  trunk::ClientOptions options;
  options.base_url = server.url();
  options.token = "fork-token";
  options.retry.max_retries = 0;  // a corrupted shared connection must show, not be papered over by a retry
  trunk::Client client(std::move(options));
  client.get_test_details(details_request());  // the parent now holds a warm, pooled connection
  ASSERT_EQ(server.ports().size(), 1U);

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int failures = 0;
    for (int i = 0; i < 5; ++i) {
      try {
        if (client.get_test_details(details_request()).test.id != kAnyTestId) ++failures;
      } catch (...) {
        ++failures;
      }
    }
    ::_exit(failures == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's calls failed";
  // The child opened a connection of its own (a second client port) instead of writing on the parent's.
  EXPECT_EQ(server.ports().size(), 2U);
  // The parent's pooled connection was not disturbed by the child.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(client.get_test_details(details_request()).test.id, kAnyTestId);
  EXPECT_EQ(server.ports().size(), 2U);
}

}  // namespace
