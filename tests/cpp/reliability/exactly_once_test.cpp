// The exactly-once soak of submitPullRequest (issue 13): a sandbox loses answers after acting on them
// (drop_after, truncate), refuses before acting (503, 429, a connection closed before reading), and the
// client submits N pull requests with the one rule of operations.hpp: a not-safe write is retried only when the
// attempt provably never reached the service. When a call fails in a way that may have acted, the caller reads
// the pull request back (a safe read, retried freely) and submits again only if it is not there.
// Every pull request must end in the queue (none lost), and the sandbox must have acted on exactly one
// submission of each (none twice: a second one would be refused as "already in the queue" and counted).
// TRUNK_EXACTLY_ONCE_PULL_REQUESTS sets N (default 300; scripts/soak runs more).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace trunk {
namespace {

int pull_requests_to_submit() {
  const char* text = std::getenv("TRUNK_EXACTLY_ONCE_PULL_REQUESTS");
  return text != nullptr ? std::max(1, std::atoi(text)) : 300;
}

TEST(ExactlyOnce, EveryPullRequestIsSubmittedOnceAndNoneIsLostUnderFaults) {
  sandbox::SandboxOptions options;
  options.tests = 100;
  options.seed = 3;
  options.clock = sandbox::ClockMode::virtual_time;  // nothing merges meanwhile: a PR stays in the queue
  options.faults.drop_after_rate = 0.10;    // acted on, answer lost
  options.faults.truncate_rate = 0.10;      // acted on, answer cut short
  options.faults.error_rate = 0.10;         // 503 before acting
  options.faults.drop_rate = 0.05;          // closed before acting (the client cannot tell it from drop_after)
  options.faults.rate_limited_rate = 0.05;  // 429 before acting
  options.faults.rate_limited_retry_after_seconds = 0;
  options.faults.seed = 13;
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();

  ClientOptions client_options;
  client_options.base_url = box.url();
  client_options.token = box.token();
  client_options.retry.max_retries = 8;
  client_options.retry.initial_backoff = std::chrono::milliseconds(1);
  client_options.retry.max_backoff = std::chrono::milliseconds(2);
  Client client(std::move(client_options));

  const int n = pull_requests_to_submit();
  std::map<std::string, int> outcomes;  // how each submit call ended, by error kind
  int read_backs = 0, resubmissions = 0;
  for (int number = 1; number <= n; ++number) {
    const SubmitPullRequestRequest submit{repo, {number}, "main", std::nullopt, std::nullopt};
    for (int attempt = 0;; ++attempt) {
      ASSERT_LT(attempt, 20) << "pull request " << number << " could not be submitted";
      try {
        client.submit_pull_request(submit);
        ++outcomes["ok"];
        break;
      } catch (const BadRequestError& error) {
        FAIL() << "pull request " << number << " was submitted twice: " << error.body();
      } catch (const Error& error) {
        // Transport errors, truncated answers, 5xx after the retries the rule allows: it may have happened.
        ++outcomes[dynamic_cast<const TransportError*>(&error) != nullptr ? "transport"
                   : dynamic_cast<const ServerError*>(&error) != nullptr  ? "server"
                                                                          : "other"];
        ++read_backs;
        bool found = false;
        for (int read = 0; read < 20; ++read) {
          try {
            found = client.get_submitted_pull_request({repo, {number}, "main"}).is_currently_submitted_to_queue ==
                    true;
            break;
          } catch (const NotFoundError&) {
            break;  // never reached the queue: submit again
          } catch (const Error&) {
            // the read itself met a fault that outlasted its retries: read again
          }
        }
        if (found) break;
        ++resubmissions;
      }
    }
  }

  // What the sandbox acted on: submissions answered 200, or processed and then lost (drop_after, truncate).
  std::map<std::string, int> acted;  // body -> count
  std::map<std::string, int> faults;
  int submit_requests = 0;
  for (const auto& request : box.requests()) {
    if (request.path != "/v1/submitPullRequest") continue;
    ++submit_requests;
    ++faults[request.fault.empty() ? "none" : request.fault];
    const bool processed = request.fault == "drop_after" || ((request.fault.empty() || request.fault == "truncate") &&
                                                             request.status == 200);
    if (processed) ++acted[request.body];
  }
  int twice = 0;
  for (const auto& [body, count] : acted) twice += count > 1 ? 1 : 0;
  EXPECT_EQ(static_cast<int>(acted.size()), n) << "every pull request acted on";
  EXPECT_EQ(twice, 0) << "no pull request acted on twice";

  std::size_t listed = 0;
  for (const PullRequest& pr : client.pull_requests({repo, "main", std::nullopt, std::nullopt, std::nullopt, std::nullopt, 100})) {
    (void)pr;
    ++listed;
  }
  EXPECT_EQ(listed, static_cast<std::size_t>(n)) << "none lost";

  std::cout << "exactly-once soak: " << n << " pull requests, " << submit_requests << " submit requests sent; calls";
  for (const auto& [kind, count] : outcomes) std::cout << " " << kind << "=" << count;
  std::cout << "; faults";
  for (const auto& [kind, count] : faults) std::cout << " " << kind << "=" << count;
  std::cout << "; calls that may have acted " << read_backs << ", resubmitted after a read-back " << resubmissions
            << "; acted on " << acted.size() << ", twice " << twice << ", listed " << listed << "\n";
}

}  // namespace
}  // namespace trunk
