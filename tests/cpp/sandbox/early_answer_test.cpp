// Early answers over raw sockets (issue 17), the paths http_conformance_test.cpp does not cover yet: a request
// the sandbox answers before (or without) reading its body, with the body sent 20 ms after the headers, then a
// valid updateQueue on the same connection. Where the request's end can be known, the connection stays in step
// and the updateQueue gets its own 200 (its answer echoes a value only that request set). Where it cannot (a
// body over the limit, an invalid or doubled length, both Content-Length and Transfer-Encoding, a coding other
// than chunked), the answer says `Connection: close`, is complete, and the connection then ends; a new
// connection is served. Black-box: only bytes on a socket, whatever HTTP server the sandbox runs on.
//
// Already covered there (with a getQueue afterwards): GET, OPTIONS, PUT, DELETE, PATCH, HEAD, TRACE and unknown
// methods with a body (also chunked), multipart/form-data without a boundary, pipelining.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "http_server.hpp"
#include "raw_connection.hpp"
#include "sandbox_support.hpp"
#include "trunk/operations.hpp"

namespace sandbox_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBodyLimit = trunk::sandbox::kMaxRequestBodyBytes;  // the largest request body read
constexpr auto kSplit = std::chrono::milliseconds(20);

class EarlyAnswers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sandbox_ = start_sandbox(small_options(50)).release(); }
  static void TearDownTestSuite() {
    delete sandbox_;
    sandbox_ = nullptr;
  }
  static trunk::sandbox::Sandbox& sandbox() { return *sandbox_; }

  static std::string head(const std::string& method, std::string_view path, const std::string& extra) {
    return method + " " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: " + sandbox().token() +
           "\r\n" + extra + "\r\n";
  }

  /// A valid updateQueue of `main` that sets testingTimeoutMinutes to `minutes`: its answer, and only its, says
  /// that number.
  static std::string update_queue(int minutes) {
    const std::string body =
        Json{{"repo", repo_json(sandbox().repos().at(0))}, {"targetBranch", "main"}, {"testingTimeoutMinutes", minutes}}
            .dump();
    return head("POST", trunk::paths::kUpdateQueue,
                "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") +
           body;
  }

  /// The next answer on `connection` is updateQueue's own 200 for `minutes`.
  static void expect_update_answer(RawConnection& connection, int minutes) {
    const ReadOutcome outcome = connection.read_reply();
    ASSERT_TRUE(outcome.reply) << "no answer to the valid request (timed out: " << outcome.timed_out
                               << ", closed: " << outcome.closed << ")";
    EXPECT_EQ(outcome.reply->status, 200) << outcome.reply->body;
    const Json json = Json::parse(outcome.reply->body, nullptr, false);
    ASSERT_TRUE(json.is_object()) << outcome.reply->body;
    EXPECT_EQ(json.value("testingTimeoutMinutes", -1), minutes) << outcome.reply->body;
  }

  /// The error answer of the sandbox: one line of text.
  static void expect_text_line(const RawReply& reply) {
    EXPECT_EQ(reply.header("content-type"), "text/plain; charset=utf-8");
    ASSERT_FALSE(reply.body.empty());
    EXPECT_EQ(reply.body.find('\n'), reply.body.size() - 1) << "one line: " << reply.body;
  }

  /// The answer (one of `statuses`) says Connection: close, is complete (read_reply read its whole declared
  /// body), and then the connection ends (end of stream, not a wait). A fresh connection is still served.
  static void expect_closing_answer(RawConnection& connection, std::initializer_list<int> statuses) {
    const ReadOutcome outcome = connection.read_reply();
    ASSERT_TRUE(outcome.reply) << "no complete answer (timed out: " << outcome.timed_out << ", closed: "
                               << outcome.closed << ")";
    EXPECT_NE(std::find(statuses.begin(), statuses.end(), outcome.reply->status), statuses.end())
        << outcome.reply->status << " " << outcome.reply->body;
    EXPECT_EQ(outcome.reply->header("connection"), "close");
    expect_text_line(*outcome.reply);
    expect_end_and_fresh_connection(connection);
  }

  static void expect_end_and_fresh_connection(RawConnection& connection) {
    const ReadOutcome after = connection.read_reply();
    EXPECT_TRUE(after.closed) << "the connection did not end after Connection: close (timed out: "
                              << after.timed_out << ", another answer: " << after.reply.has_value() << ")";
    RawConnection fresh(sandbox().port());
    ASSERT_TRUE(fresh.send(update_queue(77)));
    expect_update_answer(fresh, 77);
  }

  static trunk::sandbox::Sandbox* sandbox_;
};
trunk::sandbox::Sandbox* EarlyAnswers::sandbox_ = nullptr;

std::string updatable_body() { return R"({"repo":{"host":"github.com","owner":"acme","name":"storefront"},"targetBranch":"main"})"; }

/// `body` as one chunk and the last chunk.
std::string chunked_body(const std::string& body) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", body.size());
  return size + body + "\r\n0\r\n\r\n";
}

// RFC 9112 6.3: neither Content-Length nor Transfer-Encoding means no body, so the service's 400 for an empty
// body comes at once (not after a read timeout), and the connection goes on: the updateQueue sent 20 ms later
// is the next request, answered 200.
TEST_F(EarlyAnswers, PostWithoutContentLengthIs400AtOnceAndTheConnectionGoesOn) {
  RawConnection connection(sandbox().port());
  const auto sent = Clock::now();
  ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue, "Content-Type: application/json\r\n")));
  const ReadOutcome outcome = connection.read_reply();
  const auto waited = Clock::now() - sent;
  ASSERT_TRUE(outcome.reply) << "timed out: " << outcome.timed_out << ", closed: " << outcome.closed;
  EXPECT_LT(waited, std::chrono::milliseconds(1000)) << "the answer waited for a body that was never declared";
  EXPECT_EQ(outcome.reply->status, 400);
  EXPECT_NE(outcome.reply->body.find("request body must be JSON"), std::string::npos) << outcome.reply->body;
  EXPECT_NE(outcome.reply->header("connection"), "close");
  expect_text_line(*outcome.reply);

  std::this_thread::sleep_for(kSplit);
  ASSERT_TRUE(connection.send(update_queue(61)));
  expect_update_answer(connection, 61);
}

// A declared body over the limit is refused from its length (413) without being read; the rest of it cannot be
// worth reading, so the connection ends after the answer.
TEST_F(EarlyAnswers, ContentLengthOverTheLimitIs413AndTheConnectionEnds) {
  RawConnection connection(sandbox().port());
  ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue,
                                   "Content-Type: application/json\r\nContent-Length: " +
                                       std::to_string(kBodyLimit + 1) + "\r\n")));
  std::this_thread::sleep_for(kSplit);
  connection.send(std::string(64 << 10, ' '));  // the start of the body; the server may have stopped reading
  connection.send(update_queue(62));            // would be read as body, if anything
  expect_closing_answer(connection, {413});
}

// A chunked body is only known to be over the limit once that much has come: 413. The whole body was sent, so
// the server may read the rest and go on (then the updateQueue after it gets its own 200) or end the
// connection after saying so; never a wait, never another request's answer.
TEST_F(EarlyAnswers, ChunkedBodyOverTheLimitIs413ThenInStepOrClosed) {
  RawConnection connection(sandbox().port());
  ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue,
                                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n")));
  std::this_thread::sleep_for(kSplit);
  const std::string chunk(64 << 10, ' ');
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
  std::string body;
  for (std::size_t sent = 0; sent <= kBodyLimit; sent += chunk.size()) body += size + chunk + "\r\n";
  connection.send(body + "0\r\n\r\n");
  connection.send(update_queue(63));
  const ReadOutcome outcome = connection.read_reply();
  ASSERT_TRUE(outcome.reply) << "no complete answer (timed out: " << outcome.timed_out << ")";
  EXPECT_EQ(outcome.reply->status, 413) << outcome.reply->body;
  expect_text_line(*outcome.reply);
  if (outcome.reply->header("connection") == "close") {
    expect_end_and_fresh_connection(connection);
  } else {
    expect_update_answer(connection, 63);
  }
}

// Content-Length must be 1*DIGIT (RFC 9112 6.3): anything else leaves the body's end unknown. Two different
// lengths are as bad. 400, and the connection ends (the bytes after the headers cannot be told apart).
TEST_F(EarlyAnswers, InvalidContentLengthIs400AndTheConnectionEnds) {
  const std::string body = updatable_body();
  for (const std::string& lengths : std::vector<std::string>{"Content-Length: abc\r\n", "Content-Length: -1\r\n", "Content-Length: 1x\r\n",
                                    "Content-Length: " + std::to_string(body.size()) + ", 3\r\n",
                                    "Content-Length: " + std::to_string(body.size()) + "\r\nContent-Length: 3\r\n"}) {
    SCOPED_TRACE(lengths);
    RawConnection connection(sandbox().port());
    ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue, "Content-Type: application/json\r\n" + lengths)));
    std::this_thread::sleep_for(kSplit);
    connection.send(body);
    connection.send(update_queue(64));
    expect_closing_answer(connection, {400});
  }
}

// Both Content-Length and Transfer-Encoding is how requests are smuggled (RFC 9112 6.1: the server MUST close
// the connection after answering): refused with 400, and the connection ends.
TEST_F(EarlyAnswers, ContentLengthWithTransferEncodingIs400AndTheConnectionEnds) {
  const std::string chunked = chunked_body(updatable_body());
  for (const std::string& framing : std::vector<std::string>{
           "Content-Length: " + std::to_string(chunked.size()) + "\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"}) {
    SCOPED_TRACE(framing);
    RawConnection connection(sandbox().port());
    ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue, "Content-Type: application/json\r\n" + framing)));
    std::this_thread::sleep_for(kSplit);
    connection.send(chunked);
    connection.send(update_queue(65));
    expect_closing_answer(connection, {400});
  }
}

// RFC 9112 6.3 (4): a Transfer-Encoding whose final coding is not chunked leaves the body's length unknown:
// "the server MUST respond with the 400 (Bad Request) status code and then close the connection". Reading
// such a request as bodiless would take its body for the next request (request smuggling).
TEST_F(EarlyAnswers, TransferEncodingNotEndingInChunkedIs400AndTheConnectionEnds) {
  const std::string chunked = chunked_body(updatable_body());
  for (const std::string coding : {"identity", "gzip", "chunked, gzip"}) {
    SCOPED_TRACE(coding);
    RawConnection connection(sandbox().port());
    ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue,
                                     "Content-Type: application/json\r\nTransfer-Encoding: " + coding + "\r\n")));
    std::this_thread::sleep_for(kSplit);
    connection.send(chunked);
    connection.send(update_queue(66));
    expect_closing_answer(connection, {400});
  }
}

// A coding the sandbox does not implement before the final chunked ("gzip, chunked"): the body's end is known,
// but not its content, so it is not read as JSON: refused (RFC 9112 6.1's 501 Not Implemented, or 400/415),
// then the connection is in step (the updateQueue after it gets its own 200) or ends after saying so.
TEST_F(EarlyAnswers, UnimplementedTransferCodingIsRefused) {
  RawConnection connection(sandbox().port());
  ASSERT_TRUE(connection.send(head("POST", trunk::paths::kUpdateQueue,
                                   "Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n")));
  std::this_thread::sleep_for(kSplit);
  connection.send(chunked_body(updatable_body()));
  connection.send(update_queue(67));
  const ReadOutcome outcome = connection.read_reply();
  ASSERT_TRUE(outcome.reply) << "no complete answer (timed out: " << outcome.timed_out << ")";
  EXPECT_TRUE(outcome.reply->status == 501 || outcome.reply->status == 400 || outcome.reply->status == 415)
      << outcome.reply->status << " " << outcome.reply->body;
  expect_text_line(*outcome.reply);
  if (outcome.reply->header("connection") == "close") {
    expect_end_and_fresh_connection(connection);
  } else {
    expect_update_answer(connection, 67);
  }
}

// The 405s of the wrong methods, each body sent 20 ms after its headers, on one connection that also carries a
// valid updateQueue after each: every late body is dropped whole, and each updateQueue gets its own answer.
TEST_F(EarlyAnswers, ManyEarlyAnswersInARowKeepOneConnectionInStep) {
  RawConnection connection(sandbox().port());
  const std::string body = updatable_body();
  int minutes = 100;
  for (const std::string method : {"GET", "OPTIONS", "TRACE", "FOO", "GET", "TRACE"}) {
    SCOPED_TRACE(method);
    ASSERT_TRUE(connection.send(head(method, trunk::paths::kUpdateQueue,
                                     "Content-Type: application/json\r\nContent-Length: " +
                                         std::to_string(body.size()) + "\r\n")));
    std::this_thread::sleep_for(kSplit);
    ASSERT_TRUE(connection.send(body));
    ASSERT_TRUE(connection.send(update_queue(++minutes)));
    const ReadOutcome early = connection.read_reply();
    ASSERT_TRUE(early.reply) << "timed out: " << early.timed_out;
    EXPECT_EQ(early.reply->status, 405);
    EXPECT_EQ(early.reply->header("allow"), "POST");
    EXPECT_NE(early.reply->body.find("method not allowed: " + method), std::string::npos) << early.reply->body;
    EXPECT_NE(early.reply->header("connection"), "close");
    expect_update_answer(connection, minutes);
  }
}

}  // namespace
}  // namespace sandbox_test
