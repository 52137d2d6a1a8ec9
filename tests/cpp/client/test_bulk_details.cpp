// Client::get_test_details_many against real local servers: input order, concurrency over kept-alive
// connections, per-id failures, the shared retry policy, validation before sending, cancellation.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_servers.hpp"
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::HttpTestServer;
using testing::uuid_for;

std::string requested_id(const httplib::Request& request) {
  return nlohmann::json::parse(request.body)["test_id"].get<std::string>();
}

std::vector<std::string> ids(int count, int first = 0) {
  std::vector<std::string> result;
  for (int i = 0; i < count; ++i) result.push_back(uuid_for(first + i));
  return result;
}

/// Retries that wait milliseconds, not seconds: with transfers in flight the engine waits for real.
ClientOptions fast_retry_options(const std::string& base_url, int max_retries = 3) {
  ClientOptions options = testing::test_options(base_url);
  options.retry.max_retries = max_retries;
  options.retry.initial_backoff = std::chrono::milliseconds(2);
  options.retry.max_backoff = std::chrono::milliseconds(10);
  options.retry.max_retry_after = std::chrono::milliseconds(20);
  return options;
}

template <typename ErrorType>
bool holds_error(const BulkResult<TestDetails>& result) {
  if (result.ok() || !result.error) return false;
  try {
    std::rethrow_exception(result.error);
  } catch (const ErrorType&) {
    return true;
  } catch (...) {
    return false;
  }
}

TEST(BulkDetails, ResultsAreInInputOrderEvenWhenAnswersArriveOutOfOrder) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    const std::string id = requested_id(request);
    // Later ids answer sooner, so completion order differs from input order.
    const int n = std::stoi(id.substr(id.size() - 4), nullptr, 16);
    std::this_thread::sleep_for(std::chrono::milliseconds((30 - n) % 7));
    response.set_content(testing::details_json(id), "application/json");
  });
  Client client(testing::test_options(server.base_url()));
  std::vector<std::string> wanted = ids(30);
  wanted.push_back(wanted[3]);  // duplicates are fetched and answered in place
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", wanted, {.concurrency = 6});
  ASSERT_EQ(results.size(), wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << i;
    EXPECT_EQ(results[i].get().test.id, wanted[i]) << i;
  }
  EXPECT_EQ(server.request_count(), wanted.size());
}

TEST(BulkDetails, KeepsUpToConcurrencyRequestsInFlightOnReusedConnections) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    const int now = ++in_flight;
    int seen = most_in_flight.load();
    while (now > seen && !most_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --in_flight;
    response.set_content(testing::details_json(requested_id(request)), "application/json");
  });
  Client client(testing::test_options(server.base_url()));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(40), {.concurrency = 4});
  EXPECT_TRUE(std::all_of(results.begin(), results.end(), [](const auto& r) { return r.ok(); }));
  EXPECT_LE(most_in_flight.load(), 4);
  EXPECT_GE(most_in_flight.load(), 2);  // really concurrent
  EXPECT_EQ(server.request_count(), 40U);
  EXPECT_LE(server.client_ports().size(), 4U);  // 40 requests over at most 4 connections
}

TEST(BulkDetails, ConcurrencyOneIsSequentialOnOneConnection) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    response.set_content(testing::details_json(requested_id(request)), "application/json");
  });
  Client client(testing::test_options(server.base_url()));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(10), {.concurrency = 1});
  ASSERT_EQ(results.size(), 10U);
  const auto sent = server.requests();
  for (std::size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(nlohmann::json::parse(sent[i].body)["test_id"], uuid_for(static_cast<int>(i)));
  EXPECT_EQ(server.client_ports().size(), 1U);
}

TEST(BulkDetails, AFailedIdDoesNotStopTheOthersAndKeepsItsTypedError) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    const std::string id = requested_id(request);
    if (id == uuid_for(2)) {
      response.status = 404;
      response.set_content("no test " + id, "text/plain");
    } else if (id == uuid_for(5)) {
      response.set_content("{not json", "application/json");
    } else {
      response.set_content(testing::details_json(id), "application/json");
    }
  });
  Client client(fast_retry_options(server.base_url()));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(8));
  for (int i = 0; i < 8; ++i) {
    if (i == 2) {
      EXPECT_TRUE(holds_error<NotFoundError>(results[2]));
      EXPECT_THROW(static_cast<void>(results[2].get()), NotFoundError);
    } else if (i == 5) {
      EXPECT_TRUE(holds_error<DecodeError>(results[5]));
    } else {
      ASSERT_TRUE(results[static_cast<std::size_t>(i)].ok()) << i;
      EXPECT_FALSE(results[static_cast<std::size_t>(i)].error);
    }
  }
  EXPECT_EQ(server.request_count(), 8U);  // 404 and a bad body are not retried
}

TEST(BulkDetails, ProgressCountsEveryEndedIdOnTheCallingThreadFailuresIncluded) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    const std::string id = requested_id(request);
    if (id == uuid_for(3)) {
      response.status = 404;
    } else {
      response.set_content(testing::details_json(id), "application/json");
    }
  });
  Client client(fast_retry_options(server.base_url()));
  std::vector<std::pair<std::size_t, std::size_t>> told;
  const std::thread::id caller = std::this_thread::get_id();
  bool elsewhere = false;
  BulkOptions options{.concurrency = 4};
  options.on_progress = [&](std::size_t ended, std::size_t total) {
    told.emplace_back(ended, total);
    elsewhere = elsewhere || std::this_thread::get_id() != caller;
  };
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(11), options);
  ASSERT_EQ(told.size(), 11U);  // one per id, the failed one included
  for (std::size_t i = 0; i < told.size(); ++i) EXPECT_EQ(told[i], std::make_pair(i + 1, std::size_t{11}));
  EXPECT_FALSE(elsewhere);
  EXPECT_FALSE(results[3].ok());
  // Without a callback nothing is told; with no ids, nothing either.
  std::size_t calls = 0;
  options.on_progress = [&](std::size_t, std::size_t) { ++calls; };
  EXPECT_TRUE(client.get_test_details_many(testing::sample_repo(), "trunk-org", {}, options).empty());
  EXPECT_EQ(calls, 0U);
}

TEST(BulkDetails, RetryableFailuresAreRetriedPerIdWithTheClientPolicy) {
  std::mutex mutex;
  std::map<std::string, int> attempts;
  HttpTestServer server;  // after what its handler uses: stopped (threads joined) before they go
  server.set_handler([&](const httplib::Request& request, httplib::Response& response) {
    const std::string id = requested_id(request);
    int attempt = 0;
    {
      std::lock_guard lock(mutex);
      attempt = ++attempts[id];
    }
    if (attempt == 1) {
      response.status = 503;
      response.set_content("busy", "text/plain");
    } else if (attempt == 2) {
      response.status = 429;
      response.set_header("Retry-After", "0");
      response.set_content("slow down", "text/plain");
    } else {
      response.set_content(testing::details_json(id), "application/json");
    }
  });
  Client client(fast_retry_options(server.base_url(), 2));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(12), {.concurrency = 3});
  for (const auto& result : results) EXPECT_TRUE(result.ok());
  EXPECT_EQ(server.request_count(), 36U);
}

TEST(BulkDetails, GivesUpAfterMaxRetriesWithTheLastError) {
  HttpTestServer server;
  server.set_replies({{503, "down", "text/plain"}});
  Client client(fast_retry_options(server.base_url(), 2));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(5));
  for (const auto& result : results) EXPECT_TRUE(holds_error<ServerError>(result));
  EXPECT_EQ(server.request_count(), 15U);  // 1 + 2 retries each
}

TEST(BulkDetails, RateLimitAnswersWithoutRetriesBecomeRateLimitErrors) {
  HttpTestServer server;
  server.set_replies({{429, "limited", "text/plain", {{"Retry-After", "0"}}}});
  Client client(fast_retry_options(server.base_url(), 0));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(3));
  for (const auto& result : results) EXPECT_TRUE(holds_error<RateLimitError>(result));
  EXPECT_EQ(server.request_count(), 3U);
}

TEST(BulkDetails, ValidationNamesEveryBadIdAndSendsNothing) {
  HttpTestServer server;
  Client client(testing::test_options(server.base_url()));
  std::vector<std::string> wanted = {uuid_for(0), "not-a-uuid", uuid_for(2), "", uuid_for(4) + "0"};
  try {
    client.get_test_details_many(testing::sample_repo(), "trunk-org", wanted);
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    std::vector<std::string> fields;
    for (const auto& v : error.violations()) fields.push_back(v.field);
    EXPECT_EQ(fields, (std::vector<std::string>{"test_ids[1]", "test_ids[3]", "test_ids[4]"}));
    EXPECT_EQ(error.violations()[0].value.find("not-a-uuid") != std::string::npos, true);
  }
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(BulkDetails, RepoAndOrgProblemsAreListedOnceNotPerId) {
  HttpTestServer server;
  Client client(testing::test_options(server.base_url()));
  try {
    client.get_test_details_many(Repo{"github.com", "", "trunk"}, "", ids(5));
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& error) {
    EXPECT_EQ(error.violations().size(), 2U);
  }
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(BulkDetails, ConcurrencyBoundaries) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    response.set_content(testing::details_json(requested_id(request)), "application/json");
  });
  Client client(testing::test_options(server.base_url()));
  for (std::size_t bad : {std::size_t{0}, kMaxBulkConcurrency + 1}) {
    try {
      client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(2), {.concurrency = bad});
      FAIL() << bad;
    } catch (const ValidationError& error) {
      ASSERT_EQ(error.violations().size(), 1U);
      EXPECT_EQ(error.violations()[0].field, "concurrency");
      EXPECT_EQ(error.violations()[0].value, std::to_string(bad));
    }
  }
  EXPECT_EQ(server.request_count(), 0U);
  for (std::size_t good : {std::size_t{1}, kMaxBulkConcurrency}) {
    const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(3), {.concurrency = good});
    EXPECT_TRUE(results[2].ok());
  }
  EXPECT_EQ(server.request_count(), 6U);
}

TEST(BulkDetails, NoIdsMeansNoRequests) {
  HttpTestServer server;
  Client client(testing::test_options(server.base_url()));
  EXPECT_TRUE(client.get_test_details_many(testing::sample_repo(), "trunk-org", {}).empty());
  EXPECT_EQ(server.request_count(), 0U);
}

TEST(BulkDetails, InterruptCancelsTheWholeCall) {
  HttpTestServer server;
  server.set_handler([&](const httplib::Request&, httplib::Response&) { server.hang(); });
  ClientOptions options = testing::test_options(server.base_url());
  options.interrupt_check = [&server] { return server.request_count() >= 2; };
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(20), {.concurrency = 2}),
               CancelledError);
  EXPECT_LE(server.request_count(), 2U);
}

TEST(BulkDetails, ClientRateLimitHoldsBackTheNextAttempt) {
  HttpTestServer server;
  server.set_handler([](const httplib::Request& request, httplib::Response& response) {
    response.set_content(testing::details_json(requested_id(request)), "application/json");
  });
  ClientOptions options = testing::test_options(server.base_url());
  options.max_requests_per_second = 0.2;  // one request per 5 s: the second must wait
  std::atomic<bool> first_answered{false};
  options.interrupt_check = [&] { return server.request_count() >= 1 && first_answered.exchange(true); };
  Client client(std::move(options));
  EXPECT_THROW(client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(4), {.concurrency = 4}),
               CancelledError);
  EXPECT_EQ(server.request_count(), 1U);
}

TEST(BulkDetails, TheTokenNeverAppearsInPerIdErrors) {
  HttpTestServer server;
  server.set_replies({{400, std::string("bad token ") + testing::kToken, "text/plain"}});
  Client client(testing::test_options(server.base_url()));
  const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids(2));
  for (const auto& result : results) {
    try {
      std::rethrow_exception(result.error);
    } catch (const ApiError& error) {
      EXPECT_EQ(std::string(error.what()).find(testing::kToken), std::string::npos);
      EXPECT_EQ(error.body().find(testing::kToken), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace trunk
