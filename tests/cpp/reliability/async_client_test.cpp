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
  AsyncClient client(options);
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

}  // namespace
}  // namespace trunk
