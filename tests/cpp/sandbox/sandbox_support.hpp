#pragma once
// Helpers shared by the sandbox tests: a sandbox on 127.0.0.1:0 with a fixed clock, and an HTTP client.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <httplib.h>

#include "trunk/json_value.hpp"
#include "trunk/sandbox/sandbox.hpp"
#include "trunk/time.hpp"

namespace sandbox_test {

using trunk::Json;

/// The fixed "now" every test sandbox uses, so data and windows are reproducible.
trunk::Timestamp fixed_now();

trunk::sandbox::SandboxOptions small_options(int tests = 300);

/// Started sandbox, stopped by the destructor.
std::unique_ptr<trunk::sandbox::Sandbox> start_sandbox(trunk::sandbox::SandboxOptions options = small_options());

struct HttpReply {
  int status = 0;  ///< 0: no HTTP answer (connection dropped, body cut short...)
  std::string body;
  httplib::Headers headers;
  Json json() const { return Json::parse(body); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

/// POSTs JSON with the sandbox's token (or `token`, or none when token is nullopt and use_token is false).
HttpReply post(const trunk::sandbox::Sandbox& sandbox, const std::string& path, const std::string& body,
               std::optional<std::string> token = std::nullopt, bool use_token = true);
HttpReply post(const trunk::sandbox::Sandbox& sandbox, const std::string& path, const Json& body);

/// Raw bytes the server sends back for one request on a fresh connection, read until it closes.
std::string raw_exchange(int port, const std::string& request);

Json repo_json(const trunk::Repo& repo);
/// A valid list-failing-tests body for the first repository of the sandbox.
Json failing_body(const trunk::sandbox::Sandbox& sandbox, trunk::Timestamp start, trunk::Timestamp end,
                  int page_size = 100, const std::string& page_token = "");

/// A temporary directory removed (with its contents) by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& contents);

}  // namespace sandbox_test
