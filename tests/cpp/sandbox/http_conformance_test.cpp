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

#include "sandbox_support.hpp"
#include "trunk/codec.hpp"

namespace sandbox_test {
namespace {

/// One HTTP answer as read off the socket.
struct RawReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// What reading an answer gave: an answer, a clean end of the connection before any byte, or neither in time.
struct ReadOutcome {
  std::optional<RawReply> reply;
  bool closed = false;    // EOF (or reset) before the first byte of an answer
  bool timed_out = false; // the 2 s receive timeout passed: the server is waiting for something
};

/// A TCP connection to the sandbox, written and read byte for byte. Every receive gives up after 2 s
/// (SO_RCVTIMEO): a hang guard, so a server that waits for bytes never coming fails the test quickly.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket failed");
    timeval timeout{};
    timeout.tv_sec = 2;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect failed");
    }
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  /// False when the peer has already gone (the bytes could not be sent).
  bool send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  /// Reads one answer; `head_only` for the answer to HEAD (a Content-Length but no body).
  ReadOutcome read_reply(bool head_only = false) {
    ReadOutcome outcome;
    std::size_t end = std::string::npos;
    while ((end = pending_.find("\r\n\r\n")) == std::string::npos) {
      const int got = fill();
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        outcome.closed = pending_.empty();
        return outcome;
      }
      if (got < 0) {
        outcome.timed_out = true;
        return outcome;
      }
    }
    RawReply reply;
    const std::string head = pending_.substr(0, end);
    pending_.erase(0, end + 4);
    std::size_t line_end = head.find("\r\n");
    const std::string status_line = head.substr(0, line_end);
    if (status_line.rfind("HTTP/1.1 ", 0) != 0) throw std::runtime_error("not an HTTP answer: " + status_line);
    reply.status = std::atoi(status_line.c_str() + 9);
    while (line_end != std::string::npos) {
      const std::size_t start = line_end + 2;
      line_end = head.find("\r\n", start);
      const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      reply.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    const std::size_t length = head_only ? 0 : std::stoul(reply.header("content-length").empty() ? "0" : reply.header("content-length"));
    while (pending_.size() < length) {
      if (fill() <= 0) {
        outcome.timed_out = true;  // a short body is no answer either
        return outcome;
      }
    }
    reply.body = pending_.substr(0, length);
    pending_.erase(0, length);
    outcome.reply = std::move(reply);
    return outcome;
  }

 private:
  int fill() {
    char buffer[16384];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n > 0) pending_.append(buffer, static_cast<std::size_t>(n));
    return static_cast<int>(n);
  }

  int fd_;
  std::string pending_;
};

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
  cases.push_back({"POST multipart without boundary",
                   operation_head("POST", path, "Content-Type: multipart/form-data\r\n"), body, false, 400, ""});
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

// cpp-httplib 0.11 answers an empty 400 to methods it does not route (TRACE, CONNECT) or does not know: the
// sandbox answers them like any other wrong method, with the Allow of the path, and records them.
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

// Two requests in one packet (pipelining): cpp-httplib 0.11 kept the bytes it had read ahead in a buffer it
// dropped after each request; the second request must get its own answer.
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
