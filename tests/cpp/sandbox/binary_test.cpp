// The trunk-sandbox binary: prints its URL and token, serves, and exits 0 on SIGTERM / SIGINT.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <regex>

#include "sandbox_support.hpp"
#include "trunk/codec.hpp"
#include "trunk/webhook_signature.hpp"
#include "webhook_receiver.hpp"

namespace sandbox_test {
namespace {

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

Child spawn(std::vector<std::string> args) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    std::vector<char*> argv;
    std::string binary = TRUNK_SANDBOX_BINARY;
    argv.push_back(binary.data());
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  return {pid, ::fdopen(pipe_fds[0], "r")};
}

std::string read_line(FILE* in) {
  char buffer[512];
  if (std::fgets(buffer, sizeof buffer, in) == nullptr) return "";
  return buffer;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// An updateQueue of the storefront's main branch, with the token the tests start the binary with.
httplib::Result post_update_queue(int port) {
  httplib::Client client("127.0.0.1", port);
  const Json body = {{"repo", {{"host", "github.com"}, {"owner", "acme"}, {"name", "storefront"}}},
                     {"targetBranch", "main"}};
  return client.Post(std::string(trunk::paths::kUpdateQueue), {{"x-api-token", "binary-test-token"}}, body.dump(),
                     "application/json");
}

void serves_then_stops_on(int signal_number) {
  Child child = spawn({"--port", "0", "--tests", "40", "--token", "binary-test-token", "--now", "2026-11-20T12:00:00Z",
                       "--threads", "2"});
  ASSERT_NE(child.out, nullptr);
  const std::string listening = read_line(child.out);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(listening, match, std::regex(R"(^trunk-sandbox listening on http://127\.0\.0\.1:(\d+)\n)")))
      << listening;
  const int port = std::stoi(match[1]);
  EXPECT_EQ(read_line(child.out), "token: binary-test-token\n");
  EXPECT_EQ(read_line(child.out).rfind("org_url_slug: ", 0), 0U);
  std::string line = read_line(child.out);
  while (line.rfind("repo: ", 0) == 0) line = read_line(child.out);
  // The environment in the publisher's spelling: the address with the version, the token under both names.
  EXPECT_EQ(line, "export TRUNK_BASE_URL=http://127.0.0.1:" + std::to_string(port) + "/v1\n");
  EXPECT_EQ(read_line(child.out), "export TRUNK_API_TOKEN=binary-test-token\n");
  EXPECT_EQ(read_line(child.out), "export TRUNK_API_KEY=binary-test-token\n");

  const httplib::Result reply = post_update_queue(port);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);

  ::kill(child.pid, signal_number);
  EXPECT_EQ(wait_exit_code(child.pid), 0);
  std::fclose(child.out);
}

TEST(Binary, PrintsUrlAndTokenServesAndExitsZeroOnSigterm) { serves_then_stops_on(SIGTERM); }
TEST(Binary, ExitsZeroOnSigint) { serves_then_stops_on(SIGINT); }

TEST(Binary, RateLimitedRateAnswers429WithTheGivenRetryAfter) {
  Child child = spawn({"--port", "0", "--tests", "40", "--token", "binary-test-token", "--threads", "2",
                       "--rate-limited-rate", "1", "--rate-limited-retry-after", "7"});
  ASSERT_NE(child.out, nullptr);
  const std::string listening = read_line(child.out);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(listening, match, std::regex(R"(http://127\.0\.0\.1:(\d+))"))) << listening;
  const httplib::Result reply = post_update_queue(std::stoi(match[1]));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 429);
  EXPECT_EQ(reply->get_header_value("Retry-After"), "7");
  ::kill(child.pid, SIGTERM);
  EXPECT_EQ(wait_exit_code(child.pid), 0);
  std::fclose(child.out);
}

// --webhook URL registers an endpoint at start and prints its secret; a queue moved over HTTP sends to it.
TEST(Binary, SendsWebhooksToTheEndpointGivenOnTheCommandLine) {
  Receiver receiver;
  Child child = spawn({"--port", "0", "--tests", "40", "--token", "binary-test-token", "--threads", "2",
                       "--virtual-clock", "--flaky-failure-rate", "0", "--broken-rate", "0", "--webhook", receiver.url()});
  ASSERT_NE(child.out, nullptr);
  std::smatch match;
  const std::string listening = read_line(child.out);
  ASSERT_TRUE(std::regex_search(listening, match, std::regex(R"(http://127\.0\.0\.1:(\d+))"))) << listening;
  const int port = std::stoi(match[1]);
  std::string line = read_line(child.out);
  while (!line.empty() && line.rfind("webhook: ", 0) != 0) line = read_line(child.out);
  const std::regex printed(R"(^webhook: (ep_\w+) (\S+) secret (whsec_\S+)\n$)");
  ASSERT_TRUE(std::regex_search(line, match, printed)) << line;
  EXPECT_EQ(match[2], receiver.url());
  const trunk::WebhookSecret secret(match[3].str());

  httplib::Client client("127.0.0.1", port);
  const httplib::Headers token{{"x-api-token", "binary-test-token"}};
  const Json submit = {{"repo", {{"host", "github.com"}, {"owner", "acme"}, {"name", "storefront"}}},
                       {"targetBranch", "main"}, {"pr", {{"number", 12}}}};
  const auto submitted = client.Post(std::string(trunk::paths::kSubmitPullRequest), token, submit.dump(), "application/json");
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 200) << submitted->body;
  const auto advanced = client.Post("/sandbox/advance", token, R"({"minutes": 30})", "application/json");
  ASSERT_TRUE(advanced);
  ASSERT_EQ(advanced->status, 200) << advanced->body;

  const auto received = receiver.received();
  ASSERT_EQ(received.size(), 4U);
  for (const Received& r : received) {
    EXPECT_NO_THROW(trunk::verify_webhook(secret, {r.id, r.timestamp, r.signature}, r.body));
    EXPECT_EQ(r.pr_number, 12);
  }
  EXPECT_EQ(received.back().action, "merged");
  ::kill(child.pid, SIGTERM);
  EXPECT_EQ(wait_exit_code(child.pid), 0);
  std::fclose(child.out);
}

TEST(Binary, HelpAndBadFlags) {
  Child help = spawn({"--help"});
  const std::string first = read_line(help.out);
  EXPECT_EQ(first.rfind("usage: trunk-sandbox", 0), 0U) << first;
  // Read the help to its end before closing: a pipe closed while the child still writes is a SIGPIPE (exit 141),
  // which a slow child (under ASan) met once the help grew.
  while (std::fgetc(help.out) != EOF) {
  }
  std::fclose(help.out);
  EXPECT_EQ(wait_exit_code(help.pid), 0);

  for (std::vector<std::string> bad : {std::vector<std::string>{"--port", "70000"}, {"--error-rate", "2"}, {"--bogus", "1"},
                                       {"--rate-limited-rate", "1.5"}, {"--rate-limited-retry-after", "-1"},
                                       {"--now", "yesterday"}, {"--tests"}, {"--webhook-duplicate-rate", "2"},
                                       {"--webhook", "ftp://x"}}) {
    Child child = spawn(bad);
    std::fclose(child.out);
    EXPECT_EQ(wait_exit_code(child.pid), 2) << bad[0];
  }
}

}  // namespace
}  // namespace sandbox_test
