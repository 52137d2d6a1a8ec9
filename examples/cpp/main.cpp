// failing-tests: lists the tests that failed in a repository over the last N hours, using the installed
// trunk-api C++ library.
//
//   failing-tests <host/owner/name> <org_url_slug> [hours=24]
//
// The address and the token come from the environment, as in every trunk-api tool:
//   TRUNK_BASE_URL   (default https://api.trunk.io)
//   TRUNK_API_TOKEN  (or TRUNK_API_KEY)
// Exit codes follow the trunk-api command line: 0 ok, 2 usage or validation, 3 authentication, 4 not found,
// 5 rate limited, server or network failure.
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/requests.hpp"
#include "trunk/time.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitAuthentication = 3;
constexpr int kExitNotFound = 4;
constexpr int kExitService = 5;

std::string percent(const std::optional<double>& fraction) {
  if (!fraction) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", *fraction * 100.0);
  return text;
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() > width) return text.substr(0, width - 3) + "...";
  text.resize(width, ' ');
  return text;
}

int run(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: failing-tests <host/owner/name> <org_url_slug> [hours=24]\n"
                 "  reads TRUNK_BASE_URL and TRUNK_API_TOKEN (or TRUNK_API_KEY) from the environment\n";
    return kExitUsage;
  }
  const long hours = argc == 4 ? std::stol(argv[3]) : 24;

  trunk::ListFailingTestsRequest request;
  request.repo = trunk::Repo::parse(argv[1]);
  request.org_url_slug = argv[2];
  // The service's clock is UTC; Timestamp has microsecond precision.
  request.end_time = std::chrono::floor<std::chrono::microseconds>(std::chrono::system_clock::now());
  request.start_time = request.end_time - std::chrono::hours(hours);

  std::optional<trunk::Client> client;
  try {
    client.emplace();  // base URL and token from the environment
  } catch (const trunk::Error& e) {  // no token configured, or a malformed TRUNK_BASE_URL
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cout << "Failing tests of " << request.repo.to_string() << " from " << trunk::format_rfc3339(request.start_time)
            << " to " << trunk::format_rfc3339(request.end_time) << " (" << client->base_url() << ")\n";
  std::cout << pad("NAME", 48) << "  " << pad("FAIL 24H", 8) << "  " << pad("PRS 7D", 6) << "  ID\n";

  std::size_t count = 0;
  // The pager fetches page after page lazily and stops after the last one.
  for (const trunk::TestCase& test : client->failing_tests(request)) {
    ++count;
    const std::string prs =
        test.pull_requests_impacted_last_7d ? std::to_string(*test.pull_requests_impacted_last_7d) : "-";
    std::cout << pad(test.name.value_or("?"), 48) << "  " << pad(percent(test.failure_rate_last_24h), 8) << "  "
              << pad(prs, 6) << "  " << test.id.value_or("?") << "\n";
  }
  std::cout << count << " failing test" << (count == 1 ? "" : "s") << "\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const trunk::ValidationError& e) {
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitUsage;
  } catch (const trunk::AuthenticationError& e) {
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitAuthentication;
  } catch (const trunk::PermissionDeniedError& e) {
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitAuthentication;
  } catch (const trunk::NotFoundError& e) {
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitNotFound;
  } catch (const trunk::Error& e) {
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitService;
  } catch (const std::exception& e) {  // e.g. a non-numeric hours argument
    std::cerr << "failing-tests: " << e.what() << "\n";
    return kExitUsage;
  }
}
