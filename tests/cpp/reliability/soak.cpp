#include "soak.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_set>

#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace trunk::reliability {

namespace {

using std::chrono::milliseconds;

/// Tests generated per failing test asked for: in the generated history about 60 % of all tests are failing
/// tests of the first repository in the last 7 days (see generator.cpp). With margin; run_soak checks the
/// window really holds enough and says so if not.
constexpr int kGeneratedPerWalkedTest = 2;

trunk::Timestamp soak_now() { return trunk::parse_rfc3339("2026-11-20T12:00:00Z"); }

/// Large retry budget, tiny backoff: the soak is about never losing or duplicating data, not about waiting.
/// Retry-After (1 s from the sandbox) is honoured but capped at a few milliseconds.
trunk::ClientOptions soak_client_options(const trunk::sandbox::Sandbox& box) {
  trunk::ClientOptions options;
  options.base_url = box.url();
  options.token = box.token();
  options.timeout = milliseconds(10'000);
  options.retry.max_retries = 60;
  options.retry.initial_backoff = milliseconds(1);
  options.retry.max_backoff = milliseconds(8);
  options.retry.max_retry_after = milliseconds(5);
  options.retry.overall_deadline = milliseconds(0);
  return options;
}

trunk::ListFailingTestsRequest window_request(const trunk::sandbox::Sandbox& box, const trunk::Repo& repo,
                                              int page_size) {
  trunk::ListFailingTestsRequest request;
  request.repo = repo;
  request.org_url_slug = box.org_url_slug();
  request.end_time = box.now();
  request.start_time = box.now() - std::chrono::hours(24 * 7);
  request.page_query.page_size = page_size;
  return request;
}

void tally_faults(const trunk::sandbox::Sandbox& box, SoakReport& report) {
  for (const auto& request : box.requests()) {
    ++report.requests;
    if (!request.fault.empty()) ++report.faults[request.fault];
  }
}

// ---- 1. pagination ------------------------------------------------------------------------------------
void soak_pagination(trunk::sandbox::Sandbox& box, const trunk::Repo& repo, const std::vector<std::string>& reference,
                     const SoakOptions& options, SoakReport& report) {
  trunk::Client client(soak_client_options(box));
  auto pager = client.failing_tests(window_request(box, repo, options.page_size));
  std::vector<std::string> walked;
  for (const auto& test : pager) {
    walked.push_back(test.id.value_or(""));
    if (static_cast<int>(walked.size()) == options.failing_tests) break;
  }
  report.walked = walked.size();
  report.walked_unique = std::unordered_set<std::string>(walked.begin(), walked.end()).size();
  report.pages_fetched = pager.pages_fetched();
  report.walk_matches_reference =
      walked.size() <= reference.size() && std::equal(walked.begin(), walked.end(), reference.begin());
}

// ---- 2. queue -----------------------------------------------------------------------------------------
/// What the queue must hold: the last value written for every field (required_statuses: nullopt = the
/// branch-protection list, after deleteRequiredStatuses).
struct QueueModel {
  trunk::UpdateQueueRequest written;
  std::optional<std::vector<std::string>> required_statuses;
  std::vector<std::string> branch_protection;
};

trunk::UpdateQueueRequest random_update(const trunk::Repo& repo, const std::string& branch, std::mt19937_64& rng,
                                        bool everything) {
  auto coin = [&] { return everything || (rng() % 3 == 0); };
  auto setting = [&] { return static_cast<std::int64_t>(1 + rng() % (rng() % 2 ? 50 : 4294967295ULL)); };
  auto flag = [&] { return rng() % 2 == 0; };
  trunk::UpdateQueueRequest r;
  r.repo = repo;
  r.target_branch = branch;
  static constexpr trunk::QueueState kStates[] = {trunk::QueueState::running, trunk::QueueState::paused,
                                                  trunk::QueueState::draining};
  if (coin()) r.state = kStates[rng() % 3];
  if (coin()) r.concurrency = setting();
  if (coin()) r.bisection_concurrency = setting();
  if (coin()) r.testing_timeout_minutes = setting();
  if (coin()) r.pending_failure_depth = setting();
  if (coin()) r.can_optimistically_merge = flag();
  if (coin()) r.batch = flag();
  if (coin()) r.batching_max_wait_time_minutes = setting();
  if (coin()) r.batching_min_size = setting();
  if (coin()) r.mode = flag() ? trunk::QueueMode::single : trunk::QueueMode::parallel;
  if (coin()) r.comments_enabled = flag();
  if (coin()) r.commands_enabled = flag();
  if (coin()) r.create_prs_for_testing_branches = flag();
  if (coin()) r.direct_merge_mode = flag() ? trunk::DirectMergeMode::off : trunk::DirectMergeMode::always;
  if (coin()) {
    r.optimization_mode = flag() ? trunk::OptimizationMode::off : trunk::OptimizationMode::bisection_skip_redundant_tests;
  }
  if (coin()) {
    static constexpr trunk::MergeMethod kMethods[] = {trunk::MergeMethod::merge_commit, trunk::MergeMethod::squash,
                                                      trunk::MergeMethod::rebase};
    r.merge_method = kMethods[rng() % 3];
  }
  if (coin()) r.status_check_enabled = flag();
  if (everything || rng() % 4 == 0) {
    std::vector<std::string> statuses;
    for (std::size_t i = 0, n = rng() % 4; i < n; ++i) statuses.push_back("ci/check-" + std::to_string(rng() % 100));
    r.required_statuses = std::move(statuses);
  } else if (rng() % 10 == 0) {
    r.delete_required_statuses = true;
  }
  return r;
}

template <typename T>
void merge(std::optional<T>& into, const std::optional<T>& value) {
  if (value) into = value;
}

void apply(QueueModel& model, const trunk::UpdateQueueRequest& r) {
  auto& w = model.written;
  merge(w.state, r.state);
  merge(w.concurrency, r.concurrency);
  merge(w.bisection_concurrency, r.bisection_concurrency);
  merge(w.testing_timeout_minutes, r.testing_timeout_minutes);
  merge(w.pending_failure_depth, r.pending_failure_depth);
  merge(w.can_optimistically_merge, r.can_optimistically_merge);
  merge(w.batch, r.batch);
  merge(w.batching_max_wait_time_minutes, r.batching_max_wait_time_minutes);
  merge(w.batching_min_size, r.batching_min_size);
  merge(w.mode, r.mode);
  merge(w.comments_enabled, r.comments_enabled);
  merge(w.commands_enabled, r.commands_enabled);
  merge(w.create_prs_for_testing_branches, r.create_prs_for_testing_branches);
  merge(w.direct_merge_mode, r.direct_merge_mode);
  merge(w.optimization_mode, r.optimization_mode);
  merge(w.merge_method, r.merge_method);
  merge(w.status_check_enabled, r.status_check_enabled);
  if (r.required_statuses) model.required_statuses = r.required_statuses;
  if (r.delete_required_statuses.value_or(false)) model.required_statuses.reset();
}

template <typename T>
std::string show(const T& value) {
  std::ostringstream out;
  if constexpr (std::is_same_v<T, bool>) {
    out << (value ? "true" : "false");
  } else if constexpr (std::is_enum_v<T>) {
    out << trunk::to_wire(value);
  } else {
    out << value;
  }
  return out.str();
}

std::string show(const std::vector<std::string>& list) {
  std::string text = "[";
  for (const auto& item : list) text += (text.size() > 1 ? "," : "") + item;
  return text + "]";
}

template <typename Expected, typename Actual>
void expect_field(std::vector<std::string>& mismatches, const char* field, const std::optional<Expected>& expected,
                  const std::optional<Actual>& actual) {
  if (!expected) return;
  if (!actual) {
    mismatches.push_back(std::string(field) + ": expected " + show(*expected) + ", got nothing");
  } else if constexpr (std::is_same_v<Expected, Actual>) {
    if (*actual != *expected) mismatches.push_back(std::string(field) + ": expected " + show(*expected) + ", got " + show(*actual));
  } else {  // an enum against an OpenEnum
    if (actual->known() != *expected) {
      mismatches.push_back(std::string(field) + ": expected " + std::string(trunk::to_wire(*expected)) + ", got " +
                           actual->wire());
    }
  }
}

std::vector<std::string> compare(const QueueModel& model, const trunk::QueueSettings& s) {
  std::vector<std::string> m;
  const auto& w = model.written;
  expect_field(m, "state", w.state, s.state);
  expect_field(m, "concurrency", w.concurrency, s.concurrency);
  expect_field(m, "bisectionConcurrency", w.bisection_concurrency, s.bisection_concurrency);
  expect_field(m, "testingTimeoutMinutes", w.testing_timeout_minutes, s.testing_timeout_minutes);
  expect_field(m, "pendingFailureDepth", w.pending_failure_depth, s.pending_failure_depth);
  expect_field(m, "canOptimisticallyMerge", w.can_optimistically_merge, s.can_optimistically_merge);
  expect_field(m, "batch", w.batch, s.batch);
  expect_field(m, "batchingMaxWaitTimeMinutes", w.batching_max_wait_time_minutes, s.batching_max_wait_time_minutes);
  expect_field(m, "batchingMinSize", w.batching_min_size, s.batching_min_size);
  expect_field(m, "mode", w.mode, s.mode);
  expect_field(m, "commentsEnabled", w.comments_enabled, s.comments_enabled);
  expect_field(m, "commandsEnabled", w.commands_enabled, s.commands_enabled);
  expect_field(m, "createPrsForTestingBranches", w.create_prs_for_testing_branches, s.create_prs_for_testing_branches);
  expect_field(m, "directMergeMode", w.direct_merge_mode, s.direct_merge_mode);
  expect_field(m, "optimizationMode", w.optimization_mode, s.optimization_mode);
  expect_field(m, "mergeMethod", w.merge_method, s.merge_method);
  expect_field(m, "statusCheckEnabled", w.status_check_enabled, s.status_check_enabled);
  expect_field(m, "requiredStatuses", std::optional(model.required_statuses.value_or(model.branch_protection)),
               s.required_statuses);
  return m;
}

void soak_queue(trunk::sandbox::Sandbox& box, const trunk::Repo& repo, const trunk::sandbox::FaultOptions& faults,
                const SoakOptions& options, SoakReport& report) {
  const std::string branch = "soak-main";
  std::mt19937_64 rng(options.seed);
  QueueModel model;
  trunk::Client client(soak_client_options(box));
  {  // fault-free: learn the branch-protection list and write every field once
    box.set_faults({});
    // Only `main` has a queue from the start: create the soak's own (ignoring 409 when an earlier round did).
    try {
      client.create_queue(trunk::CreateQueueRequest{repo, branch, std::nullopt, std::nullopt});
    } catch (const trunk::ApiError&) {
    }
    trunk::UpdateQueueRequest reset;
    reset.repo = repo;
    reset.target_branch = branch;
    reset.delete_required_statuses = true;
    model.branch_protection = client.update_queue(reset).required_statuses.value_or(std::vector<std::string>{});
    const auto first = random_update(repo, branch, rng, /*everything=*/true);
    client.update_queue(first);
    apply(model, first);
    box.clear_requests();
    box.set_faults(faults);
  }
  for (int i = 0; i < options.queue_updates; ++i) {
    const auto update = random_update(repo, branch, rng, /*everything=*/false);
    client.update_queue(update);  // under faults: retried until it lands (absolute values: repeats are harmless)
    apply(model, update);
    ++report.queue_updates;
  }
  tally_faults(box, report);
  box.set_faults({});
  trunk::UpdateQueueRequest read;  // no fields: changes nothing, returns the settings
  read.repo = repo;
  read.target_branch = branch;
  report.queue_mismatches = compare(model, client.update_queue(read));
}

// ---- 3. bulk details ----------------------------------------------------------------------------------
void soak_details(trunk::sandbox::Sandbox& box, const trunk::Repo& repo, const std::vector<std::string>& ids,
                  const SoakOptions& options, SoakReport& report) {
  // The client's bulk call: `threads` requests in flight over one multi handle, each retried on its own.
  trunk::Client client(soak_client_options(box));
  trunk::BulkOptions bulk;
  bulk.concurrency = static_cast<std::size_t>(std::max(1, options.threads));
  const auto results = client.get_test_details_many(repo, box.org_url_slug(), ids, bulk);
  report.bulk_method = "Client::get_test_details_many, " + std::to_string(bulk.concurrency) + " in flight";
  report.details_requested = ids.size();
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < ids.size() && i < results.size(); ++i) {
    if (!results[i].ok()) {
      try {
        std::rethrow_exception(results[i].error);
      } catch (const std::exception& error) {
        report.detail_failures.push_back(ids[i] + ": " + error.what());
      }
      continue;
    }
    if (results[i].value->test.id.value_or("") == ids[i] && seen.insert(ids[i]).second) ++report.details_arrived;
  }
  if (results.size() != ids.size()) report.detail_failures.push_back("answers for " + std::to_string(results.size()) + " ids");
}

}  // namespace

bool SoakReport::ok() const {
  return walk_matches_reference && walked_unique == walked && queue_mismatches.empty() &&
         details_arrived == details_requested && detail_failures.empty();
}

std::size_t SoakReport::total_faults() const {
  std::size_t total = 0;
  for (const auto& [kind, count] : faults) total += count;
  return total;
}

std::string SoakReport::summary() const {
  auto fault = [&](const char* kind) {
    auto it = faults.find(kind);
    return it == faults.end() ? std::size_t{0} : it->second;
  };
  std::ostringstream out;
  out << "requests received by the sandbox (faulty phases): " << requests << "\n"
      << "faults injected: " << total_faults() << " (503: " << fault("error") << ", 429 with Retry-After: "
      << fault("rate_limit") << ", dropped connections: " << fault("drop") << ", truncated bodies: "
      << fault("truncate") << ")\n"
      << "pagination: " << walked << " tests walked in " << pages_fetched << " pages, " << walked_unique
      << " unique, " << (walk_matches_reference ? "same order as" : "DIFFERENT from") << " the fault-free walk ("
      << reference_tests << " tests in the window)\n"
      << "queue: " << queue_updates << " random updates, final settings "
      << (queue_mismatches.empty() ? "match the model of what was written" : "DO NOT match the model") << "\n";
  for (const auto& mismatch : queue_mismatches) out << "  mismatch " << mismatch << "\n";
  out << "details: " << details_arrived << " of " << details_requested << " arrived (" << bulk_method << ")\n";
  for (const auto& failure : detail_failures) out << "  failed " << failure << "\n";
  out << "items checked: " << (walked + static_cast<std::size_t>(queue_updates) + details_requested) << "\n"
      << "soak: " << (ok() ? "OK" : "FAILED") << "\n";
  return out.str();
}

SoakReport run_soak(const SoakOptions& options) {
  trunk::sandbox::SandboxOptions sandbox_options;
  sandbox_options.seed = 8;
  sandbox_options.tests = std::max(200, options.failing_tests * kGeneratedPerWalkedTest);
  sandbox_options.now = soak_now();
  sandbox_options.threads = std::max(8, options.threads * 2);
  trunk::sandbox::Sandbox box(sandbox_options);
  box.start();
  const trunk::Repo repo = box.repos().at(0);

  trunk::sandbox::FaultOptions faults;
  faults.error_rate = options.error_rate;
  faults.rate_limited_rate = options.rate_limited_rate;
  faults.rate_limited_retry_after_seconds = 1;
  faults.drop_rate = options.drop_rate;
  faults.truncate_rate = options.truncate_rate;
  faults.seed = options.seed;

  SoakReport report;
  std::vector<std::string> reference;
  {  // the fault-free walk every faulty one is compared with
    trunk::Client client(soak_client_options(box));
    for (const auto& test : client.failing_tests(window_request(box, repo, 100))) reference.push_back(test.id.value_or(""));
  }
  report.reference_tests = reference.size();
  if (static_cast<int>(reference.size()) < options.failing_tests) {
    throw std::runtime_error("soak setup: the window holds " + std::to_string(reference.size()) +
                             " failing tests, fewer than the " + std::to_string(options.failing_tests) + " asked");
  }

  box.clear_requests();
  box.set_faults(faults);
  soak_pagination(box, repo, reference, options, report);
  tally_faults(box, report);

  box.clear_requests();
  soak_queue(box, repo, faults, options, report);

  std::vector<std::string> ids = box.test_ids(repo);
  if (static_cast<int>(ids.size()) < options.details) {
    throw std::runtime_error("soak setup: the repository holds only " + std::to_string(ids.size()) + " tests");
  }
  ids.resize(static_cast<std::size_t>(options.details));
  box.clear_requests();
  box.set_faults(faults);
  soak_details(box, repo, ids, options, report);
  tally_faults(box, report);
  box.set_faults({});
  box.stop();
  return report;
}

}  // namespace trunk::reliability
