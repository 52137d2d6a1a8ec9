#pragma once
// Shared fixtures of the client tests: options wired to a local server with deterministic retries, sample
// requests, and response bodies.

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trunk/client.hpp"

namespace trunk::testing {

inline constexpr const char* kToken = "tok-SECRET-5f3a9c";
inline constexpr const char* kTestId = "0b9a4b2e-6f7b-4c5d-9e2f-1a2b3c4d5e6f";

/// Records every wait the client asks for, without waiting.
struct SleepRecorder {
  std::mutex mutex;
  std::vector<std::chrono::milliseconds> delays;

  std::vector<std::chrono::milliseconds> snapshot() {
    std::lock_guard lock(mutex);
    return delays;
  }
};

/// Sets (or unsets, with nullopt) an environment variable for the scope of one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (previous_) {
      ::setenv(name_, previous_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

/// Options for a client of `base_url`: token kToken, no real sleeping (recorded), jitter fixed at 0.5.
inline ClientOptions test_options(const std::string& base_url, std::shared_ptr<SleepRecorder> sleeps = nullptr) {
  ClientOptions options;
  options.base_url = base_url;
  options.token = kToken;
  options.user_agent_suffix = "client-tests/1";
  options.random = [] { return 0.5; };
  if (!sleeps) sleeps = std::make_shared<SleepRecorder>();
  options.sleep = [sleeps](std::chrono::milliseconds delay) {
    std::lock_guard lock(sleeps->mutex);
    sleeps->delays.push_back(delay);
  };
  return options;
}

inline Repo sample_repo() { return Repo{"github.com", "trunk-io", "trunk"}; }
/// The repository of the merge-queue suites.
inline const Repo kRepo{"github.com", "acme", "widgets"};

inline GetTestDetailsRequest details_request(const std::string& test_id = kTestId) {
  GetTestDetailsRequest request;
  request.repo = sample_repo();
  request.org_url_slug = "trunk-org";
  request.test_id = test_id;
  return request;
}

std::string test_case_json(const std::string& id, const std::string& name = "test_login");
std::string details_json(const std::string& id = kTestId);
/// A listing page holding tests with the given ids.
std::string page_json(const std::vector<std::string>& ids, const std::string& next_page_token, int page_index = 0);
/// A full updateQueue response.
std::string queue_settings_json();
/// "00000000-0000-4000-8000-" + 12 hex digits of n: distinct valid UUIDs.
std::string uuid_for(int n);

}  // namespace trunk::testing
