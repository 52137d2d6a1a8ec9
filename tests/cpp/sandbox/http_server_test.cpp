// The sandbox's event-driven HTTP server (issue 17): connections and injected latency hold no thread, a client
// waiting for "100 Continue" gets it, HTTP/1.1 needs Host, HTTP/1.0 keeps its own keep-alive rules, a POST
// body that is not JSON gets 415, and stop() ends everything at once. Over raw sockets, like the framing tests.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "raw_connection.hpp"
#include "sandbox_support.hpp"
#include "trunk/operations.hpp"

namespace sandbox_test {
namespace {

using trunk::sandbox::Sandbox;
using trunk::sandbox::SandboxOptions;

std::string queue_body(const Sandbox& sandbox) {
  return Json{{"repo", repo_json(sandbox.repos().at(0))}, {"targetBranch", "main"}}.dump();
}

/// A valid getQueue with `extra` header lines (each ending in CRLF) and the given request line's version.
std::string get_queue(const Sandbox& sandbox, const std::string& extra = "Host: 127.0.0.1\r\n",
                      const std::string& version = "HTTP/1.1") {
  const std::string body = queue_body(sandbox);
  return "POST " + std::string(trunk::paths::kGetQueue) + " " + version + "\r\n" + extra +
         "x-api-token: " + sandbox.token() + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

void expect_queue_answer(const ReadOutcome& outcome) {
  ASSERT_TRUE(outcome.reply) << "timed out: " << outcome.timed_out << ", closed: " << outcome.closed;
  EXPECT_EQ(outcome.reply->status, 200) << outcome.reply->body;
  EXPECT_EQ(Json::parse(outcome.reply->body).value("branch", ""), "main");
}

SandboxOptions one_thread() {
  SandboxOptions options = small_options(50);
  options.threads = 1;
  return options;
}

// A thread-per-connection server with one thread would serve the first idle connection and nobody else.
TEST(HttpServer, IdleKeptAliveConnectionsHoldNoThread) {
  auto sandbox = start_sandbox(one_thread());
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 200; ++i) idle.push_back(std::make_unique<RawConnection>(sandbox->port()));
  // One of them already had a request answered and stays kept alive, idle.
  ASSERT_TRUE(idle.front()->send(get_queue(*sandbox)));
  expect_queue_answer(idle.front()->read_reply());

  RawConnection late(sandbox->port());
  ASSERT_TRUE(late.send(get_queue(*sandbox)));
  expect_queue_answer(late.read_reply());
  // And the idle ones are still served when they speak.
  ASSERT_TRUE(idle.back()->send(get_queue(*sandbox)));
  expect_queue_answer(idle.back()->read_reply());
}

// 48 requests with 2 s of injected latency each, on one server thread: sleeping on the thread would take 96 s;
// waiting on timers answers them all within the clients' 10 s receive timeout.
TEST(HttpServer, InjectedLatencyHoldsNoThread) {
  SandboxOptions options = one_thread();
  options.faults.latency = std::chrono::milliseconds(2000);
  auto sandbox = start_sandbox(options);
  std::vector<std::unique_ptr<RawConnection>> clients;
  for (int i = 0; i < 48; ++i) {
    clients.push_back(std::make_unique<RawConnection>(sandbox->port(), 10));
    ASSERT_TRUE(clients.back()->send(get_queue(*sandbox)));
  }
  for (auto& client : clients) expect_queue_answer(client->read_reply());
}

// RFC 9110 10.1.1: a client that asks to be told before it sends its body is told.
TEST(HttpServer, ExpectContinueGetsAnInterimAnswerBeforeTheBody) {
  auto sandbox = start_sandbox(small_options(50));
  const std::string body = queue_body(*sandbox);
  RawConnection connection(sandbox->port());
  ASSERT_TRUE(connection.send("POST " + std::string(trunk::paths::kGetQueue) +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nx-api-token: " + sandbox->token() +
                              "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n"));
  const ReadOutcome interim = connection.read_reply(/*head_only=*/true);
  ASSERT_TRUE(interim.reply) << "no 100 Continue (timed out: " << interim.timed_out << ")";
  EXPECT_EQ(interim.reply->status, 100);
  ASSERT_TRUE(connection.send(body));
  expect_queue_answer(connection.read_reply());
}

// RFC 9112 3.2: "A server MUST respond with a 400 to any HTTP/1.1 request message that lacks a Host header";
// the request was read whole, so the connection goes on. HTTP/1.0 has no Host requirement.
TEST(HttpServer, Http11WithoutHostIs400AndTheConnectionGoesOn) {
  auto sandbox = start_sandbox(small_options(50));
  RawConnection connection(sandbox->port());
  ASSERT_TRUE(connection.send(get_queue(*sandbox, "")));
  const ReadOutcome refused = connection.read_reply();
  ASSERT_TRUE(refused.reply);
  EXPECT_EQ(refused.reply->status, 400);
  EXPECT_NE(refused.reply->body.find("Host"), std::string::npos) << refused.reply->body;
  EXPECT_EQ(refused.reply->header("content-type"), "text/plain; charset=utf-8");
  ASSERT_TRUE(connection.send(get_queue(*sandbox)));
  expect_queue_answer(connection.read_reply());
}

// HTTP/1.0 closes after each answer unless the client asks to keep the connection.
TEST(HttpServer, Http10ClosesUnlessAskedToKeepAlive) {
  auto sandbox = start_sandbox(small_options(50));
  {
    RawConnection connection(sandbox->port());
    ASSERT_TRUE(connection.send(get_queue(*sandbox, "", "HTTP/1.0")));
    expect_queue_answer(connection.read_reply());
    const ReadOutcome after = connection.read_reply();
    EXPECT_TRUE(after.closed) << "timed out: " << after.timed_out;
  }
  {
    RawConnection connection(sandbox->port());
    ASSERT_TRUE(connection.send(get_queue(*sandbox, "Connection: keep-alive\r\n", "HTTP/1.0")));
    const ReadOutcome first = connection.read_reply();
    expect_queue_answer(first);
    EXPECT_EQ(first.reply->header("connection"), "keep-alive");
    ASSERT_TRUE(connection.send(get_queue(*sandbox, "Connection: keep-alive\r\n", "HTTP/1.0")));
    expect_queue_answer(connection.read_reply());
  }
}

// docs/reference/service.md#base-address: the operations take application/json. Other declared media types are
// refused with 415, after the method and token checks; JSON with parameters or a +json type, and no
// Content-Type at all, are read.
TEST(HttpServer, APostBodyDeclaredAsSomethingOtherThanJsonIs415) {
  auto sandbox = start_sandbox(small_options(50));
  RawConnection connection(sandbox->port());
  struct Case {
    std::string content_type;  // "" = no header
    int status;
  };
  for (const Case& c : {Case{"text/plain", 415}, Case{"application/x-www-form-urlencoded", 415},
                        Case{"multipart/form-data; boundary=x", 415}, Case{"application/jsonx", 415},
                        Case{"application/json", 200}, Case{"Application/JSON; charset=utf-8", 200},
                        Case{"application/problem+json", 200}, Case{"", 200}}) {
    SCOPED_TRACE(c.content_type);
    const std::string header = c.content_type.empty() ? "" : "Content-Type: " + c.content_type + "\r\n";
    ASSERT_TRUE(connection.send(get_queue(*sandbox, "Host: 127.0.0.1\r\n" + header)));
    const ReadOutcome outcome = connection.read_reply();
    ASSERT_TRUE(outcome.reply);
    EXPECT_EQ(outcome.reply->status, c.status) << outcome.reply->body;
    if (c.status == 415) {
      EXPECT_EQ(outcome.reply->body, "unsupported media type: " + c.content_type + " (send application/json)\n");
    }
  }
  // The order of checks: a wrong token is 401 whatever the media type.
  const std::string body = queue_body(*sandbox);
  ASSERT_TRUE(connection.send("POST " + std::string(trunk::paths::kGetQueue) +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nx-api-token: wrong\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
  const ReadOutcome unauthorized = connection.read_reply();
  ASSERT_TRUE(unauthorized.reply);
  EXPECT_EQ(unauthorized.reply->status, 401);
}

// stop() with idle connections and requests waiting out their latency returns, and every client sees its
// connection end (no thread left behind, no answer after stop).
TEST(HttpServer, StopEndsIdleAndWaitingConnections) {
  SandboxOptions options = one_thread();
  options.faults.latency = std::chrono::milliseconds(60000);
  auto sandbox = start_sandbox(options);
  RawConnection idle(sandbox->port(), 10);
  RawConnection waiting(sandbox->port(), 10);
  ASSERT_TRUE(waiting.send(get_queue(*sandbox)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the request is read and waits on its timer
  sandbox->stop();
  EXPECT_FALSE(sandbox->running());
  EXPECT_TRUE(waiting.read_reply().closed);
  EXPECT_TRUE(idle.read_reply().closed);
}

}  // namespace
}  // namespace sandbox_test
