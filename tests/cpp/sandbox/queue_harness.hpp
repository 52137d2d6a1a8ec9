#pragma once
// One MergeQueue driven directly on a virtual clock (no HTTP): the white-box harness of the merge queue rule
// tests and the property test. Its settings start as a new queue's (QueueStore's defaults).
#include <chrono>
#include <string>
#include <vector>

#include "failure_model.hpp"
#include "merge_queue.hpp"
#include "queue_setting_starts.hpp"
#include "sandbox_support.hpp"

namespace sandbox_test {

inline constexpr const char* kHarnessRepo = "github.com/acme/storefront";

class QueueHarness {
 public:
  explicit QueueHarness(double flaky = 0, double broken = 0, std::uint64_t seed = 42)
      : model_(make_model(flaky, broken, seed)), now_(fixed_now()), queue_(kHarnessRepo, "main", model_, now_) {
    settings = trunk::sandbox::start_settings();  // a new queue's: single mode, concurrency 1, no batching
  }

  trunk::QueueSettings settings;

  trunk::sandbox::MergeQueue& queue() { return queue_; }
  const trunk::sandbox::MergeQueue& queue() const { return queue_; }
  /// Applies `settings` now (as an update request does: the past ran on the old ones).
  void apply() { queue_.advance_to(now_, settings); }
  void minutes(int n) {
    now_ += std::chrono::minutes(n);
    queue_.advance_to(now_, settings);
  }
  std::optional<trunk::sandbox::Refusal> submit(std::int64_t number, std::optional<trunk::Priority> priority = {},
                                                bool no_batch = false) {
    trunk::SubmitPullRequestRequest request;
    request.pr.number = number;
    request.priority = std::move(priority);
    if (no_batch) request.no_batch = true;
    return queue_.submit(request, settings);
  }
  void targets(std::int64_t number, std::optional<std::vector<std::string>> names) {
    trunk::SetImpactedTargetsRequest request;
    request.pr.number = number;
    request.pr.sha = pr(number).pr_sha.value_or("");
    if (names) {
      request.targets = *names;
    } else {
      request.targets = trunk::AllTargets::all;
    }
    (void)queue_.set_impacted_targets(request, settings);
  }
  trunk::SubmittedPullRequest pr(std::int64_t number) const {
    return std::get<trunk::SubmittedPullRequest>(queue_.submitted(number));
  }
  trunk::PullRequestState state(std::int64_t number) const { return *pr(number).state->known(); }
  std::string reason(std::int64_t number) const { return pr(number).extra.value("stateReason", ""); }
  std::string queue_type(std::int64_t number) const { return pr(number).extra.value("queueType", ""); }
  std::string run_of(std::int64_t number) const { return pr(number).extra.value("testRunId", ""); }
  trunk::TestRunDetails run(const std::string& id) const {
    return std::get<trunk::TestRunDetails>(
        queue_.run_details(id, settings, trunk::RequiredStatusesSource::repo_provider_branch_protection));
  }
  /// The numbers of the pull requests a run was tested on top of.
  std::vector<std::int64_t> ahead_of(std::int64_t number) const {
    std::vector<std::int64_t> out;
    for (const auto& item : run(run_of(number)).dependent_prs.value_or(trunk::Json::array())) {
      out.push_back(item["number"].get<std::int64_t>());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  bool broken(std::int64_t number) const { return model_.broken(kHarnessRepo, number); }
  /// Pull request numbers that are (or are not) broken in this harness's failure model.
  std::vector<std::int64_t> numbers(bool broken, std::size_t how_many) const {
    std::vector<std::int64_t> out;
    for (std::int64_t n = 1; out.size() < how_many && n < 100000; ++n) {
      if (model_.broken(kHarnessRepo, n) == broken) out.push_back(n);
    }
    return out;
  }

 private:
  static trunk::sandbox::FailureModel make_model(double flaky, double broken, std::uint64_t seed) {
    trunk::sandbox::FailureModel model;
    model.flaky_run_failure = flaky;
    model.broken_pull_request = broken;
    model.seed = seed;
    return model;
  }
  trunk::sandbox::FailureModel model_;
  trunk::Timestamp now_;
  trunk::sandbox::MergeQueue queue_;
};

}  // namespace sandbox_test
