// trunk::AsyncClient against the real local sandbox: completion callbacks on the engine thread, the future
// convenience, cancellation of a transfer in flight, retries, the not-safe-writes rule, the rate limit,
// validation before queueing, and closing with calls pending. Written to be TSan-clean: results cross threads
// only through a mutex or a promise.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "trunk/async_client.hpp"
#include "trunk/error.hpp"
#include "trunk/sandbox/sandbox.hpp"

namespace trunk {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

sandbox::SandboxOptions box_options() {
  sandbox::SandboxOptions options;
  options.tests = 200;
  options.seed = 9;
  options.clock = sandbox::ClockMode::virtual_time;
  return options;
}

ClientOptions fast_options(const sandbox::Sandbox& box, int max_retries = 0) {
  ClientOptions options;
  options.base_url = box.url();
  options.token = box.token();
  options.retry.max_retries = max_retries;
  options.retry.initial_backoff = milliseconds(1);
  options.retry.max_backoff = milliseconds(5);
  return options;
}

template <typename ErrorType>
bool holds(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ErrorType&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// Collects the completions of many calls; wait() returns once `expected` have arrived.
template <typename T>
struct Collector {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<Result<T>> results;
  std::set<std::thread::id> threads;

  std::function<void(Result<T>)> callback() {
    return [this](Result<T> result) {
      std::lock_guard lock(mutex);
      threads.insert(std::this_thread::get_id());
      results.push_back(std::move(result));
      arrived.notify_all();
    };
  }
  bool wait(std::size_t expected, milliseconds limit = milliseconds(30000)) {
    std::unique_lock lock(mutex);
    return arrived.wait_for(lock, limit, [&] { return results.size() >= expected; });
  }
};

TEST(AsyncClient, CallbacksDeliverEveryAnswerOnTheEngineThread) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::vector<std::string> ids = box.test_ids(repo);
  AsyncClient client(fast_options(box), 16);
  Collector<TestDetails> collector;
  std::set<std::string> wanted;
  for (std::size_t i = 0; i < 200; ++i) {
    const std::string& id = ids[i % ids.size()];
    wanted.insert(id);
    client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, collector.callback());
  }
  ASSERT_TRUE(collector.wait(200));
  std::lock_guard lock(collector.mutex);
  std::set<std::string> answered;
  for (auto& result : collector.results) {
    ASSERT_TRUE(result.ok());
    answered.insert(result.value().test.id.value_or(""));
  }
  EXPECT_EQ(answered, wanted);
  ASSERT_EQ(collector.threads.size(), 1u);
  EXPECT_NE(*collector.threads.begin(), std::this_thread::get_id());
}

TEST(AsyncClient, FutureConvenienceAndErrorsAreTheSyncOnes) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::string id = box.test_ids(repo).front();
  AsyncClient client(fast_options(box));
  auto pending = client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id});
  EXPECT_EQ(pending.future.get().test.id, id);
  auto missing = client.get_queue(GetQueueRequest{Repo{"github.com", "nobody", "nothing"}, "main"});
  EXPECT_THROW(missing.future.get(), NotFoundError);
  // Validation happens in the call itself: nothing is queued.
  box.clear_requests();
  EXPECT_THROW(client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), "not-a-uuid"}),
               ValidationError);
  EXPECT_TRUE(box.requests().empty());
}

TEST(AsyncClient, CancelRemovesTheTransferAtOnceAndTheClientKeepsWorking) {
  sandbox::SandboxOptions options = box_options();
  options.faults.latency = milliseconds(3000);
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  const std::string id = box.test_ids(repo).front();
  AsyncClient client(fast_options(box));
  Collector<TestDetails> collector;
  AsyncCall call = client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, collector.callback());
  std::this_thread::sleep_for(milliseconds(200));
  const auto started = Clock::now();
  call.cancel();
  ASSERT_TRUE(collector.wait(1, milliseconds(2000)));
  EXPECT_LT(Clock::now() - started, milliseconds(500));
  {
    std::lock_guard lock(collector.mutex);
    EXPECT_TRUE(holds<CancelledError>(collector.results.front().error()));
  }
  call.cancel();  // a finished call: nothing happens
  sandbox::FaultOptions none;
  box.set_faults(none);
  EXPECT_EQ(client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}).future.get().test.id, id);
}

TEST(AsyncClient, RetriesErrorsAndDropsWithTheSamePolicy) {
  sandbox::SandboxOptions options = box_options();
  options.faults.error_rate = 0.3;
  options.faults.drop_rate = 0.1;
  options.faults.rate_limited_rate = 0.1;
  options.faults.rate_limited_retry_after_seconds = 0;
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  const std::vector<std::string> ids = box.test_ids(repo);
  AsyncClient client(fast_options(box, 12), 8);
  Collector<TestDetails> collector;
  for (std::size_t i = 0; i < 60; ++i) {
    client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), ids[i]}, collector.callback());
  }
  ASSERT_TRUE(collector.wait(60));
  std::lock_guard lock(collector.mutex);
  for (auto& result : collector.results) EXPECT_TRUE(result.ok());
  EXPECT_GT(box.requests().size(), 60u);
}

TEST(AsyncClient, ANotSafeWriteIsNotRepeatedAfterTheServiceActed) {
  sandbox::SandboxOptions options = box_options();
  options.faults.drop_after_rate = 1.0;
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  AsyncClient client(fast_options(box, 5));
  auto pending = client.submit_pull_request(SubmitPullRequestRequest{repo, {77}, "main", std::nullopt, std::nullopt});
  EXPECT_THROW(pending.future.get(), TransportError);
  std::size_t submits = 0;
  for (const auto& request : box.requests()) submits += request.path.ends_with("/submitPullRequest") ? 1 : 0;
  EXPECT_EQ(submits, 1u);
}

TEST(AsyncClient, RateLimitSpacesTheCalls) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::vector<std::string> ids = box.test_ids(repo);
  ClientOptions options = fast_options(box);
  options.max_requests_per_second = 20;
  AsyncClient client(std::move(options));
  Collector<TestDetails> collector;
  const auto started = Clock::now();
  for (std::size_t i = 0; i < 12; ++i) {
    client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), ids[i]}, collector.callback());
  }
  ASSERT_TRUE(collector.wait(12));
  EXPECT_GE(Clock::now() - started, milliseconds(400));
}

TEST(AsyncClient, ClosingEndsPendingCallsWithCancelledErrorAndALaterCallStartsAgain) {
  sandbox::SandboxOptions options = box_options();
  options.faults.latency = milliseconds(3000);
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  const std::string id = box.test_ids(repo).front();
  Collector<TestDetails> collector;
  {
    AsyncClient client(fast_options(box));
    for (int i = 0; i < 5; ++i) {
      client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, collector.callback());
    }
    std::this_thread::sleep_for(milliseconds(100));
    const auto started = Clock::now();
    client.close();
    EXPECT_LT(Clock::now() - started, milliseconds(500));
    ASSERT_TRUE(collector.wait(5, milliseconds(100)));
    box.set_faults(sandbox::FaultOptions{});
    EXPECT_EQ(client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}).future.get().test.id, id);
  }
  std::lock_guard lock(collector.mutex);
  for (auto& result : collector.results) EXPECT_TRUE(holds<CancelledError>(result.error()));
}

TEST(AsyncClient, ACallbackMayCallAgainAndMayCloseTheClient) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::string id = box.test_ids(repo).front();
  AsyncClient client(fast_options(box));
  std::promise<std::string> second;
  std::promise<void> closed;
  client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, [&](Result<TestDetails> first) {
    ASSERT_TRUE(first.ok());
    // A call from a callback is queued on the same engine thread, which answers it after this returns.
    client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, [&](Result<TestDetails> again) {
      second.set_value(again.ok() ? again.value().test.id.value_or("") : "error");
      client.close();  // from its own engine thread: the loop ends once this returns
      closed.set_value();
    });
  });
  EXPECT_EQ(second.get_future().get(), id);
  closed.get_future().get();
  // The engine thread ended by itself; the next call starts a new one.
  EXPECT_EQ(client.get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}).future.get().test.id, id);
}

// close() from a callback stops the engine thread, which ends once the callback returns and then gives its
// connections back to the client's pool. A client destroyed meanwhile (here: while that callback still runs)
// must wait for it, not free the pool under it (ASan saw nothing before only because the thread was quick).
TEST(AsyncClient, AClientClosedInACallbackMayBeDestroyedWhileThatCallbackRuns) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::string id = box.test_ids(repo).front();
  std::promise<void> closed;
  std::promise<void> callback_done;
  auto client = std::make_unique<AsyncClient>(fast_options(box));
  AsyncClient* raw = client.get();
  raw->get_test_details(GetTestDetailsRequest{repo, box.org_url_slug(), id}, [&, raw](Result<TestDetails> answer) {
    EXPECT_TRUE(answer.ok());
    raw->close();
    closed.set_value();
    std::this_thread::sleep_for(milliseconds(100));  // the owner destroys the client meanwhile
    callback_done.set_value();
  });
  closed.get_future().get();
  std::future<void> done = callback_done.get_future();
  client.reset();  // waits for the engine thread, which is still in the callback
  EXPECT_EQ(done.wait_for(milliseconds(0)), std::future_status::ready);
}

// ---- get_test_details_many ------------------------------------------------------------------------------------

TEST(AsyncClientBulk, EveryIdInInputOrderAndOneFailureDoesNotStopTheOthers) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  std::vector<std::string> ids = box.test_ids(repo);
  ids.resize(40);
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  ids[17] = unknown;
  AsyncClient client(fast_options(box));
  const AsyncClient::BulkDetails results =
      client.get_test_details_many(repo, box.org_url_slug(), ids, BulkOptions{5}).future.get();
  ASSERT_EQ(results.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i == 17) {
      EXPECT_FALSE(results[i].ok());
      EXPECT_TRUE(holds<NotFoundError>(results[i].error));
    } else {
      ASSERT_TRUE(results[i].ok()) << i;
      EXPECT_EQ(results[i].get().test.id, ids[i]);
    }
  }
}

TEST(AsyncClientBulk, ProgressIsToldForEveryIdBeforeTheResult) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  std::vector<std::string> ids = box.test_ids(repo);
  ids.resize(25);
  ids[9] = "00000000-0000-4000-8000-000000000000";  // unknown: its 404 is counted too
  AsyncClient client(fast_options(box));
  std::mutex mutex;
  std::vector<std::size_t> told;
  std::size_t told_before_result = 0;
  BulkOptions options{.concurrency = 6};
  options.on_progress = [&](std::size_t ended, std::size_t total) {
    std::lock_guard lock(mutex);
    EXPECT_EQ(total, 25U);
    told.push_back(ended);
  };
  std::promise<void> delivered;
  client.get_test_details_many(repo, box.org_url_slug(), ids, options, [&](Result<AsyncClient::BulkDetails> result) {
    {
      std::lock_guard lock(mutex);
      told_before_result = told.size();
    }
    EXPECT_TRUE(result.ok());
    delivered.set_value();
  });
  delivered.get_future().get();
  std::lock_guard lock(mutex);
  EXPECT_EQ(told_before_result, 25U);
  std::vector<std::size_t> expected(25);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i + 1;
  EXPECT_EQ(told, expected);  // in order, each count once
}

TEST(AsyncClientBulk, ValidatesEveryIdAndTheConcurrencyBeforeQueueingAnything) {
  sandbox::Sandbox box(box_options());
  box.start();
  const Repo repo = box.repos().front();
  const std::string good = box.test_ids(repo).front();
  AsyncClient client(fast_options(box));
  box.clear_requests();
  try {
    client.get_test_details_many(repo, box.org_url_slug(), {good, "nope", good, ""}, BulkOptions{8});
    FAIL() << "no ValidationError";
  } catch (const ValidationError& error) {
    std::vector<std::string> fields;
    for (const Violation& v : error.violations()) fields.push_back(v.field);
    EXPECT_EQ(fields, (std::vector<std::string>{"test_ids[1]", "test_ids[3]"}));
  }
  for (const std::size_t refused : {std::size_t{0}, kMaxBulkConcurrency + 1}) {
    EXPECT_THROW(client.get_test_details_many(repo, box.org_url_slug(), {good}, BulkOptions{refused}),
                 ValidationError);
  }
  EXPECT_TRUE(box.requests().empty());
  for (const std::size_t accepted : {std::size_t{1}, kMaxBulkConcurrency}) {
    const auto results =
        client.get_test_details_many(repo, box.org_url_slug(), {good, good}, BulkOptions{accepted}).future.get();
    EXPECT_TRUE(results[0].ok() && results[1].ok());
  }
}

TEST(AsyncClientBulk, AnEmptyListCompletesAtOnceWithNoRequest) {
  sandbox::Sandbox box(box_options());
  box.start();
  AsyncClient client(fast_options(box));
  box.clear_requests();
  EXPECT_TRUE(client.get_test_details_many(box.repos().front(), box.org_url_slug(), {}).future.get().empty());
  EXPECT_TRUE(box.requests().empty());
}

TEST(AsyncClientBulk, AtMostConcurrencyIdsOfTheCallAreInFlight) {
  sandbox::SandboxOptions options = box_options();
  options.faults.latency = milliseconds(100);
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  std::vector<std::string> ids = box.test_ids(repo);
  ids.resize(8);
  AsyncClient client(fast_options(box), 64);
  const auto started = Clock::now();
  const auto results = client.get_test_details_many(repo, box.org_url_slug(), ids, BulkOptions{2}).future.get();
  // 8 ids two at a time are 4 rounds of 100 ms: fewer would mean more than 2 were in flight.
  EXPECT_GE(Clock::now() - started, milliseconds(400));
  for (const auto& result : results) EXPECT_TRUE(result.ok());
}

TEST(AsyncClientBulk, CancelEndsTheCallAtOnceStartsNoMoreIdsAndTheClientKeepsWorking) {
  sandbox::SandboxOptions options = box_options();
  options.faults.latency = milliseconds(3000);
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  std::vector<std::string> ids = box.test_ids(repo);
  ids.resize(20);
  AsyncClient client(fast_options(box));
  box.clear_requests();
  Collector<AsyncClient::BulkDetails> collector;
  AsyncCall call = client.get_test_details_many(repo, box.org_url_slug(), ids, BulkOptions{4}, collector.callback());
  std::this_thread::sleep_for(milliseconds(300));
  const auto started = Clock::now();
  call.cancel();
  ASSERT_TRUE(collector.wait(1, milliseconds(2000)));
  EXPECT_LT(Clock::now() - started, milliseconds(1000));
  {
    std::lock_guard lock(collector.mutex);
    ASSERT_EQ(collector.results.size(), 1u);
    EXPECT_TRUE(holds<CancelledError>(collector.results.front().error()));
  }
  EXPECT_LE(box.requests().size(), 4u);  // only the first four were ever sent
  call.cancel();                         // a finished call: nothing happens
  box.set_faults(sandbox::FaultOptions{});
  const auto results = client.get_test_details_many(repo, box.org_url_slug(), ids, BulkOptions{4}).future.get();
  EXPECT_EQ(results.size(), ids.size());
  EXPECT_TRUE(collector.wait(1));  // and the cancelled call's callback ran exactly once
  std::lock_guard lock(collector.mutex);
  EXPECT_EQ(collector.results.size(), 1u);
}

TEST(AsyncClientBulk, DestroyingTheClientEndsAPendingCallWithCancelledError) {
  sandbox::SandboxOptions options = box_options();
  options.faults.latency = milliseconds(3000);
  sandbox::Sandbox box(options);
  box.start();
  const Repo repo = box.repos().front();
  std::vector<std::string> ids = box.test_ids(repo);
  ids.resize(30);
  Collector<AsyncClient::BulkDetails> collector;
  {
    AsyncClient client(fast_options(box));
    client.get_test_details_many(repo, box.org_url_slug(), ids, BulkOptions{3}, collector.callback());
    std::this_thread::sleep_for(milliseconds(100));
  }  // the ids cancelled by the closing engine must not start the next ones on a client being destroyed
  ASSERT_TRUE(collector.wait(1, milliseconds(100)));
  std::lock_guard lock(collector.mutex);
  EXPECT_TRUE(holds<CancelledError>(collector.results.front().error()));
}

}  // namespace
}  // namespace trunk
