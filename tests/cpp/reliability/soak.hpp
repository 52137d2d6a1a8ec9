#pragma once
// The fault soak of issue 8, shared by the small GoogleTest version and the full `trunk_soak` tool
// (scripts/soak): a sandbox on 127.0.0.1:0 injecting 503s, 429s with Retry-After, dropped connections and
// truncated bodies, and a Client with a large retry budget and tiny backoff. Three checks:
//  1. walking N failing tests through the pager yields exactly the first N tests of a fault-free walk,
//     in the same order, each once;
//  2. K random update_queue calls end in exactly the settings last written (a model of every write);
//  3. the details of M test ids fetched concurrently all arrive, each for the id asked.
// Faults are counted by kind from the sandbox's request record (RecordedRequest::fault).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trunk::reliability {

struct SoakOptions {
  int failing_tests = 10'000;  ///< tests walked through the pager (the window must hold at least this many)
  int page_size = 100;
  int queue_updates = 200;
  int details = 1'000;
  int threads = 8;  ///< concurrent get_test_details calls for the bulk check
  double error_rate = 0.20;         ///< 503
  double rate_limited_rate = 0.10;  ///< 429 with Retry-After
  double drop_rate = 0.05;          ///< connection closed without an answer
  double truncate_rate = 0.02;      ///< body cut short
  std::uint64_t seed = 1;           ///< fault dice and the random queue updates
};

struct SoakReport {
  // 1. pagination
  std::size_t reference_tests = 0;  ///< tests in the fault-free walk of the window
  std::size_t walked = 0;           ///< tests yielded by the faulty walk (stopped at failing_tests)
  std::size_t walked_unique = 0;
  bool walk_matches_reference = false;  ///< same ids in the same order as the fault-free walk's prefix
  std::size_t pages_fetched = 0;
  // 2. queue
  int queue_updates = 0;
  std::vector<std::string> queue_mismatches;  ///< "field: expected X, got Y"; empty when the model matches
  // 3. bulk details
  std::size_t details_requested = 0;
  std::size_t details_arrived = 0;  ///< answers whose id is the id asked for, each id once
  std::vector<std::string> detail_failures;
  // faults seen by the sandbox, by kind ("error", "rate_limit", "drop", "truncate"), and requests received
  std::map<std::string, std::size_t> faults;
  std::size_t requests = 0;
  std::string bulk_method;  ///< how the bulk details were fetched

  bool ok() const;
  std::size_t total_faults() const;
  /// Multi-line human summary with every count.
  std::string summary() const;
};

/// Runs the whole soak against a fresh sandbox. Throws only when the setup itself fails (e.g. the window
/// holds fewer tests than asked); data loss shows in the report (ok() == false).
SoakReport run_soak(const SoakOptions& options);

}  // namespace trunk::reliability
