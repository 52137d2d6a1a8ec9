#pragma once
// The base of the v2 suites: a sandbox, a client holding both credentials (v1's token and the sandbox's API key,
// no retries), and the ids the v2 answers use for the first repository, its main queue and its pull requests.
// By default the sandbox runs on the virtual clock with neither flaky nor broken runs, so every state is reached on
// purpose; a suite that wants another overrides sandbox_options().

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sandbox_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace sandbox_test {

class V2Fixture : public ::testing::Test {
 protected:
  virtual trunk::sandbox::SandboxOptions sandbox_options() const {
    auto options = small_options(50);
    options.clock = trunk::sandbox::ClockMode::virtual_time;
    options.flaky_failure_rate = 0;
    options.broken_pull_request_rate = 0;
    return options;
  }

  void SetUp() override {
    sandbox_ = start_sandbox(sandbox_options());
    trunk::ClientOptions options;
    options.base_url = sandbox_->url();
    options.token = sandbox_->token();
    options.api_key = sandbox_->api_key();
    options.retry.max_retries = 0;
    client_ = std::make_unique<trunk::Client>(std::move(options));
  }

  /// A client whose API key holds only `permissions` (no retries: a refusal is seen at once).
  std::unique_ptr<trunk::Client> client_with(const std::vector<trunk::sandbox::Permission>& permissions) {
    trunk::ClientOptions options;
    options.base_url = sandbox_->url();
    options.api_key = sandbox_->create_api_key(permissions);
    options.retry.max_retries = 0;
    return std::make_unique<trunk::Client>(std::move(options));
  }

  /// The code of the NotFoundError `call` raises ("(found)" when it raises none).
  static std::string not_found_code(const std::function<void()>& call) {
    try {
      call();
    } catch (const trunk::NotFoundError& e) {
      return e.code();
    }
    return "(found)";
  }

  /// The code of the ApiError `call` raises, which must have `status` (a failure when it raises none).
  template <typename Call>
  static std::string error_code(Call&& call, int status) {
    try {
      call();
    } catch (const trunk::ApiError& error) {
      EXPECT_EQ(error.status_code(), status) << error.what();
      return error.code();
    }
    ADD_FAILURE() << "no error";
    return "";
  }

  /// v1's unhealthy tests of a repository in this health (every page), for comparing the versions.
  std::set<std::string> v1_unhealthy(const trunk::Repo& repo, trunk::HealthStatus health) {
    trunk::ListUnhealthyTestsRequest request;
    request.repo = repo;
    request.org_url_slug = sandbox_->org_url_slug();
    request.status = health;
    std::set<std::string> out;
    for (const auto& test : client_->pager<trunk::op::ListUnhealthyTests>(request)) out.insert(*test.id);
    return out;
  }

  /// What v1's get_test_details says of a test of the first repository.
  trunk::TestCase v1_details(const std::string& id) {
    trunk::GetTestDetailsRequest request;
    request.repo = repo();
    request.org_url_slug = sandbox_->org_url_slug();
    request.test_id = id;
    return client_->get_test_details(request).test;
  }

  trunk::Repo repo() const { return sandbox_->repos().at(0); }
  std::string repo_id() const { return trunk::sandbox::repository_id(repo().to_string()); }
  std::string main_id() const { return trunk::sandbox::merge_queue_id(repo().to_string(), "main"); }
  std::string pr_id(std::int64_t number) const { return trunk::sandbox::pull_request_id(repo().to_string(), number); }
  /// Submits pull request `number` to the main queue through v2.
  void submit(std::int64_t number) {
    trunk::SubmitPullRequestRequestV2 request;
    request.id = main_id();
    request.number = number;
    client_->submit_to_merge_queue(request);
  }

  std::unique_ptr<trunk::sandbox::Sandbox> sandbox_;
  std::unique_ptr<trunk::Client> client_;
};

}  // namespace sandbox_test
