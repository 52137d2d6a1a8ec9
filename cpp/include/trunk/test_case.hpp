#pragma once
// A test case as the flaky-test operations return it (interface.md §2). No field is promised by the
// contract, so every one is optional; the unhealthy listing omits the failure fields entirely.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/json_fwd.hpp"
#include "trunk/time.hpp"

namespace trunk {

struct RepositoryRef {
  std::optional<std::string> html_url;
  Extras extra;
  bool operator==(const RepositoryRef&) const = default;
};

struct TicketRef {
  std::optional<std::string> html_url;
  Extras extra;
  bool operator==(const TicketRef&) const = default;
};

struct TestStatus {
  std::optional<std::string> reason;  ///< free text; may be "" or start with a space
  std::optional<Timestamp> timestamp;
  std::optional<std::string> value;  ///< the service's extra field: "healthy", "flaky", "broken" (lower case)
  Extras extra;
  bool operator==(const TestStatus&) const = default;
};

struct FailureSummary {
  std::optional<std::string> summary;
  std::optional<std::int64_t> occurrence_count;
  std::optional<Timestamp> last_occurrence;
  Extras extra;
  bool operator==(const FailureSummary&) const = default;
};

struct TestCase {
  std::optional<std::string> id;  ///< UUID
  std::optional<RepositoryRef> repository;
  std::optional<std::string> html_url;
  std::optional<std::string> name;
  std::optional<std::string> variant;
  std::optional<TestStatus> status;
  std::optional<std::vector<FailureSummary>> most_common_failures;
  std::optional<double> failure_rate_last_7d;   ///< fraction in [0, 1]
  std::optional<double> failure_rate_last_24h;  ///< fraction in [0, 1]
  std::optional<std::vector<std::string>> codeowners;
  std::optional<std::int64_t> pull_requests_impacted_last_7d;
  std::optional<bool> quarantined;
  std::optional<std::string> file_path;
  std::optional<std::string> parent;
  std::optional<std::string> classname;
  std::optional<TicketRef> ticket;
  Extras extra;

  bool operator==(const TestCase&) const = default;
};

}  // namespace trunk
