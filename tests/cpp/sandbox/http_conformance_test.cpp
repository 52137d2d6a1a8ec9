// HTTP/1.1 framing of the sandbox over raw sockets: an early answer never leaves a kept-alive connection out
// of step, a POST without a length is answered at once, TRACE and unknown methods get the service's 405.
// Raw sockets because an HTTP client library would hide exactly what is tested: which bytes go when.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "raw_connection.hpp"
#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

class HttpConformance : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sandbox_ = start_sandbox(small_options(50)).release(); }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }

  static std::string queue_body() {
    return Json{{"repo", repo_json(sandbox().repos().at(0))}, {"targetBranch", "main"}}.dump();
  }
  /// A valid getQueue of `main` of the first repository: the request that must get its own 200 afterwards.
  static std::string valid_post() {
    const std::string body = queue_body();
    return "POST " + std::string(trunk::paths::kGetQueue) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: " +
           sandbox().token() + "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
  }

  static trunk::sandbox::Sandbox* sandbox_;
};
trunk::sandbox::Sandbox* HttpConformance::sandbox_ = nullptr;

/// A request the sandbox answers without needing its body, and what it answers.
struct EarlyAnswer {
  std::string name;
  std::string head;  // request line and headers, without the blank line and without Content-Length
  std::string body;
  bool chunked = false;
  int status = 0;
  std::string allow;  // expected Allow header ("" when none is expected)
};

std::string operation_head(const std::string& method, std::string_view path, const std::string& extra = "") {
  return method + " " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: test-token-0123456789\r\n" + extra;
}

std::vector<EarlyAnswer> early_answers() {
  const std::string body = R"({"repo":{"host":"github.com","owner":"acme","name":"storefront"},"targetBranch":"main"})";
  const auto path = trunk::paths::kGetQueue;
  std::vector<EarlyAnswer> cases;
  for (const std::string method : {"GET", "OPTIONS", "PUT", "DELETE", "PATCH", "TRACE", "FOO", "get"}) {
    cases.push_back({method + " with a body", operation_head(method, path), body, false, 405, "POST"});
  }
  cases.push_back({"HEAD with a body", operation_head("HEAD", path), body, false, 405, "POST"});
  cases.push_back({"TRACE to an unknown path", operation_head("TRACE", "/v1/noSuchOperation"), body, false, 404, ""});
  cases.push_back({"FOO to an unknown path", operation_head("FOO", "/v1/noSuchOperation"), body, false, 404, ""});
  cases.push_back({"FOO to the OpenAPI document", operation_head("FOO", "/openapi.json"), body, false, 405, "GET, HEAD"});
  // Not JSON: the service's 415, after the body was read like any other.
  cases.push_back({"POST multipart without boundary",
                   operation_head("POST", path, "Content-Type: multipart/form-data\r\n"), body, false, 415, ""});
  cases.push_back({"GET with a chunked body", operation_head("GET", path, "Transfer-Encoding: chunked\r\n"), body, true,
                   405, "POST"});
  cases.push_back({"TRACE with a chunked body", operation_head("TRACE", path, "Transfer-Encoding: chunked\r\n"), body,
                   true, 405, "POST"});
  return cases;
}

/// `body` in two chunks, then the last chunk and the end of the (empty) trailer.
std::string chunked(const std::string& body) {
  auto chunk = [](const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
  };
  const std::size_t half = body.size() / 2;
  return chunk(body.substr(0, half)) + chunk(body.substr(half)) + "0\r\n\r\n";
}

// The body comes 20 ms after the headers, so the early answer goes out before it arrives; then a valid
// request on the same connection. It gets its own 200, or the early answer said Connection: close and the
// connection ended cleanly (a client reconnects): never another request's answer, never a wait.
TEST_F(HttpConformance, EarlyAnswersLeaveAKeptAliveConnectionInStep) {
  for (const EarlyAnswer& c : early_answers()) {
    SCOPED_TRACE(c.name);
    RawConnection connection(sandbox().port());
    const std::string length = c.chunked ? "" : "Content-Length: " + std::to_string(c.body.size()) + "\r\n";
    ASSERT_TRUE(connection.send(c.head + length + "\r\n"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    connection.send(c.chunked ? chunked(c.body) : c.body);

    const bool head = c.head.rfind("HEAD ", 0) == 0;
    ReadOutcome early = connection.read_reply(head);
    ASSERT_TRUE(early.reply) << "no early answer (timed out: " << early.timed_out << ")";
    EXPECT_EQ(early.reply->status, c.status);
    EXPECT_EQ(early.reply->header("allow"), c.allow);
    EXPECT_EQ(early.reply->header("content-type"), "text/plain; charset=utf-8");
    if (!head) {
      EXPECT_FALSE(early.reply->body.empty());
      EXPECT_EQ(early.reply->body.find('\n'), early.reply->body.size() - 1) << "one line: " << early.reply->body;
    }

    const bool announced_close = early.reply->header("connection") == "close";
    connection.send(valid_post());
    ReadOutcome next = connection.read_reply();
    ASSERT_FALSE(next.timed_out) << "the valid request got no answer";
    if (next.closed) {
      EXPECT_TRUE(announced_close) << "the connection ended without the early answer saying Connection: close";
      continue;
    }
    ASSERT_TRUE(next.reply);
    EXPECT_FALSE(announced_close) << "the answer said Connection: close but the connection went on";
    EXPECT_EQ(next.reply->status, 200) << next.reply->body;
    EXPECT_EQ(Json::parse(next.reply->body).value("branch", ""), "main") << next.reply->body;
  }
}

// RFC 9112 6.3: no Content-Length and no Transfer-Encoding means an empty body, so the answer needs no more
// bytes: the service's own 400 at once (here: before the client's 2 s receive timeout), and the connection
// stays usable.
TEST_F(HttpConformance, PostWithoutContentLengthIsAnsweredAtOnceByTheService) {
  RawConnection connection(sandbox().port());
  ASSERT_TRUE(connection.send(operation_head("POST", trunk::paths::kGetQueue, "Content-Type: application/json\r\n") +
                              "\r\n"));
  const ReadOutcome outcome = connection.read_reply();
  ASSERT_TRUE(outcome.reply) << "timed out: " << outcome.timed_out << ", closed: " << outcome.closed;
  EXPECT_EQ(outcome.reply->status, 400);
  EXPECT_EQ(outcome.reply->header("content-type"), "text/plain; charset=utf-8");
  EXPECT_FALSE(outcome.reply->body.empty());
  EXPECT_EQ(outcome.reply->body.find('\n'), outcome.reply->body.size() - 1) << outcome.reply->body;

  connection.send(valid_post());
  const ReadOutcome next = connection.read_reply();
  ASSERT_TRUE(next.reply) << "timed out: " << next.timed_out << ", closed: " << next.closed;
  EXPECT_EQ(next.reply->status, 200) << next.reply->body;
}

// TRACE, CONNECT and methods no library knows are answered like any other wrong method, with the Allow of the
// path, and recorded (cpp-httplib 0.11, the sandbox's server until issue 17, answered an empty 400).
TEST_F(HttpConformance, TraceAndUnknownMethodsGet405WithAllowAndAreRecorded) {
  sandbox().clear_requests();
  struct Case {
    std::string method, path, allow;
  };
  for (const Case& c : {Case{"TRACE", std::string(trunk::paths::kGetQueue), "POST"},
                        Case{"CONNECT", std::string(trunk::paths::kGetQueue), "POST"},
                        Case{"PROPFIND", std::string(trunk::paths::kGetQueue), "POST"},
                        Case{"TRACE", "/openapi.json", "GET, HEAD"},
                        Case{"FOO", std::string(trunk::paths::kGetMergeQueueMetrics), "GET"}}) {
    SCOPED_TRACE(c.method + " " + c.path);
    RawConnection connection(sandbox().port());
    ASSERT_TRUE(connection.send(operation_head(c.method, c.path) + "\r\n"));
    const ReadOutcome outcome = connection.read_reply();
    ASSERT_TRUE(outcome.reply);
    EXPECT_EQ(outcome.reply->status, 405);
    EXPECT_EQ(outcome.reply->header("allow"), c.allow);
    EXPECT_EQ(outcome.reply->header("content-type"), "text/plain; charset=utf-8");
    EXPECT_NE(outcome.reply->body.find("method not allowed: " + c.method), std::string::npos) << outcome.reply->body;
  }
  const auto recorded = sandbox().requests();
  ASSERT_EQ(recorded.size(), 5U);
  EXPECT_EQ(recorded.at(2).method, "PROPFIND");
  EXPECT_EQ(recorded.at(2).status, 405);
}

// Two requests in one packet (pipelining): the second request gets its own answer (cpp-httplib 0.11 dropped
// the bytes it had read ahead after each request).
TEST_F(HttpConformance, PipelinedRequestsEachGetTheirAnswer) {
  RawConnection connection(sandbox().port());
  ASSERT_TRUE(connection.send(valid_post() + valid_post()));
  for (int i = 0; i < 2; ++i) {
    const ReadOutcome outcome = connection.read_reply();
    ASSERT_TRUE(outcome.reply) << i << " timed out: " << outcome.timed_out;
    EXPECT_EQ(outcome.reply->status, 200) << outcome.reply->body;
  }
}

}  // namespace
}  // namespace sandbox_test
