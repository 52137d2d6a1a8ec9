#include "sandbox_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "trunk/codec.hpp"

namespace sandbox_test {

trunk::Timestamp fixed_now() { return trunk::parse_rfc3339("2026-11-20T12:00:00Z"); }

trunk::sandbox::SandboxOptions small_options(int tests) {
  trunk::sandbox::SandboxOptions options;
  options.tests = tests;
  options.now = fixed_now();
  options.token = "test-token-0123456789";
  options.threads = 4;
  return options;
}

std::unique_ptr<trunk::sandbox::Sandbox> start_sandbox(trunk::sandbox::SandboxOptions options) {
  auto sandbox = std::make_unique<trunk::sandbox::Sandbox>(std::move(options));
  sandbox->start();
  return sandbox;
}

HttpReply post(const trunk::sandbox::Sandbox& sandbox, const std::string& path, const std::string& body,
               std::optional<std::string> token, bool use_token) {
  httplib::Client client("127.0.0.1", sandbox.port());
  client.set_read_timeout(std::chrono::seconds(30));
  httplib::Headers headers;
  if (use_token) headers.emplace("x-api-token", token.value_or(sandbox.token()));
  HttpReply reply;
  auto result = client.Post(path, headers, body, "application/json");
  if (!result) return reply;
  reply.status = result->status;
  reply.body = result->body;
  reply.headers = result->headers;
  return reply;
}

HttpReply post(const trunk::sandbox::Sandbox& sandbox, const std::string& path, const Json& body) {
  return post(sandbox, path, body.dump());
}

std::string raw_exchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("connect failed");
  }
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string received;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return received;
}

Json repo_json(const trunk::Repo& repo) { return trunk::to_json(repo); }

Json failing_body(const trunk::sandbox::Sandbox& sandbox, trunk::Timestamp start, trunk::Timestamp end,
                  int page_size, const std::string& page_token) {
  Json body = {{"repo", repo_json(sandbox.repos().at(0))},
               {"org_url_slug", sandbox.org_url_slug()},
               {"start_time", trunk::format_rfc3339(start)},
               {"end_time", trunk::format_rfc3339(end)},
               {"page_query", {{"page_size", page_size}}}};
  if (!page_token.empty()) body["page_query"]["page_token"] = page_token;
  return body;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "trunk-sandbox-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

}  // namespace sandbox_test
