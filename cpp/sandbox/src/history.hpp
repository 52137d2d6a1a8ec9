#pragma once
// The flaky-test history the sandbox serves: repositories, their test cases and every CI run of each test.
// Everything the API reports (failing lists, rates, statuses, most common failures) is derived from the runs
// by the functions of this file, so the answers are consistent by construction.
//
// Memory: a run is 16 bytes (time, pull request, failure kind); 20,000 tests x ~60 runs is about 20 MB.

#include <cstdint>
#include <string>
#include <vector>

#include "trunk/repo.hpp"
#include "trunk/test_case.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

/// One execution of a test in CI.
struct Run {
  std::int64_t time_us = 0;     ///< microseconds since the Unix epoch
  std::uint32_t pull_request = 0;
  std::int32_t failure = -1;    ///< -1 = passed; else index into RepoHistory::failure_messages
  bool failed() const noexcept { return failure >= 0; }
};

struct TestRecord {
  std::string id;  ///< UUID, lower case
  std::string name;
  std::string classname;
  std::string parent;
  std::string file_path;
  std::string variant;
  std::vector<std::string> codeowners;
  bool quarantined = false;
  std::string ticket_url;  ///< "" = no ticket
  std::vector<Run> runs;   ///< sorted by time
};

struct RepoHistory {
  trunk::Repo repo;
  std::string html_url;
  std::vector<std::string> failure_messages;
  std::vector<TestRecord> tests;  ///< in listing order
};

struct History {
  trunk::Timestamp now;
  std::vector<RepoHistory> repos;
};

/// Length of the windows of the derived rates.
inline constexpr std::int64_t kMicrosPerHour = 3'600'000'000;
inline constexpr std::int64_t kWeekUs = 7 * 24 * kMicrosPerHour;
inline constexpr std::int64_t kDayUs = 24 * kMicrosPerHour;
/// A test whose last kBrokenStreak runs all failed is BROKEN.
inline constexpr std::size_t kBrokenStreak = 3;
/// Otherwise, at least kFlakyMinFailures failures and one pass in the last 7 days make it FLAKY.
inline constexpr int kFlakyMinFailures = 2;
/// most_common_failures lists at most this many summaries.
inline constexpr std::size_t kMaxCommonFailures = 3;

enum class Health { healthy, flaky, broken };

/// What the API reports about one test, computed from its runs at `now`.
struct DerivedFacts {
  Health health = Health::healthy;
  std::string reason;
  trunk::Timestamp status_since;
  double failure_rate_last_7d = 0;
  double failure_rate_last_24h = 0;
  std::int64_t pull_requests_impacted_last_7d = 0;
  std::vector<trunk::FailureSummary> most_common_failures;
};

std::int64_t to_micros(trunk::Timestamp t) noexcept;
trunk::Timestamp from_micros(std::int64_t us) noexcept;

/// The health a test's runs before `at_us` give it: its last kBrokenStreak runs all failed, broken; else at least
/// kFlakyMinFailures failures and a pass in the 7 days before, flaky; else healthy. derive() reports it, and v2's
/// status history replays it over time (test_timeline.hpp), so both versions classify alike by construction.
Health health_at(const TestRecord& test, std::int64_t at_us) noexcept;

/// True when the test has a failing run with start <= time < end.
bool failed_in(const TestRecord& test, std::int64_t start_us, std::int64_t end_us) noexcept;

DerivedFacts derive(const RepoHistory& repo, const TestRecord& test, trunk::Timestamp now);

std::string_view health_wire(Health health) noexcept;  ///< "healthy", "flaky", "broken"
/// The health as quarantined tests and webhook events spell it (HEALTHY, FLAKY, BROKEN), and back.
trunk::QuarantinedTestStatus status_of(Health health) noexcept;
Health health_of(trunk::QuarantinedTestStatus status) noexcept;

/// The test's page in Trunk's web app (v1's html_url, v2's url).
std::string test_html_url(const RepoHistory& repo, const TestRecord& test, const std::string& org_url_slug);

/// The test as the API returns it. with_failure_fields: false for list-unhealthy-tests (no rates, no
/// most_common_failures).
trunk::TestCase to_test_case(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                             const std::string& org_url_slug, bool with_failure_fields);


}  // namespace trunk::sandbox
